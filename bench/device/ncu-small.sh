# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# ncu-small: the same for the small batched kernel at the sizes furthest from the bound
# (GEMMKIT_NCU_SMALL_CASES="f64 5;f32 7" picks them).
# What limits the small batched kernel where it is furthest from the bound. A case is "dtype
# size" or "dtype m,n,k", then optionally "ptr": the strided launch and the device-pointer-array
# launch of the same problems, profiled in one run.
IFS=';' read -ra ncu_small_cases <<< "${GEMMKIT_NCU_SMALL_CASES:-f64 7;f64 28;f32 32;f64 32}"
for case in "${ncu_small_cases[@]}"; do
  set -- $case
  size_arg=(--n "$2")
  [[ "$2" == *,* ]] && size_arg=(--shapes "$2")
  form_args=(--peers none)
  launches=1
  [[ "${3:-}" == ptr ]] && form_args=(--peers gemmkit_ptr) && launches=5
  name="ncu-small-$1-${2//,/x}${3:+-$3}"
  stage "ncu: small batched kernel, $1 $2 ${3:-}"
  timeout 150 ncu --kernel-name regex:small_batched_kernel --launch-skip 2 --launch-count "$launches" \
    --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats \
    --section SchedulerStats --section LaunchStats --section InstructionStats \
    "$bench_bin" batched "${size_arg[@]}" --dtype "$1" --bytes 256M "${form_args[@]}" --reps 1 --warmup 1 \
    > "$out/$name.txt" 2>&1 || status=1
  grep -E "small_batched_kernel|Duration|Memory Throughput|DRAM Throughput|Issue Slots|Achieved Occupancy|Registers Per|Theoretical Occ|No Eligible|Executed Ipc" \
    "$out/$name.txt" | head -60
done
