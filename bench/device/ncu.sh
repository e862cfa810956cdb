# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# ncu: Nsight Compute sections of the production kernel at 8192 (what limits it).
stage "ncu: production kernel at 8192"
timeout 300 ncu --kernel-name regex:dgemm_tensorop --launch-skip 3 --launch-count 1 \
  --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
  --section Occupancy --section WarpStateStats --section LaunchStats \
  "$bench_bin" gemm --m 8192 --dtype f64 --reps 1 --warmup 1 > "$out/ncu.txt" 2>&1 || status=1
grep -E "Duration|Throughput|Pipe|Occupancy|Registers|Stall|Issue" "$out/ncu.txt" | head -40
