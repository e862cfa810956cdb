# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# ncu-sgemm: the FP32 SIMT kernel next to cuBLAS's SGEMM kernel at 8192, plus the SIMT kernels' SASS.
# The FP32 SIMT kernel and cuBLAS's SGEMM kernel in the same run (the peer's tile shape is in its
# name), and the SIMT kernels' SASS for reading the main loop.
stage "ncu: FP32 SIMT kernel and cuBLAS SGEMM at 8192"
timeout 300 ncu --kernel-name regex:"gemm" --launch-skip 6 --launch-count 2 \
  --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy --section WarpStateStats \
  --section SchedulerStats --section LaunchStats --section InstructionStats \
  "$bench_bin" gemm --m 8192 --dtype f32 --variants "${GEMMKIT_NCU_SGEMM_VARIANT:-sgemm_simt_128x128x16*}" \
  --reps 1 --warmup 2 --no-verify > "$out/ncu-sgemm.txt" 2>&1 || status=1
grep -E "gemm|Duration|SM Frequency|Issue Slots|Executed Ipc|Registers|Stall|No Eligible|Theoretical Occ" \
  "$out/ncu-sgemm.txt" | head -40
for object in "$build"/src/CMakeFiles/gemmkit_layer_kernels.dir/__/generated/cuda/sgemm_simt_*.o; do  # one file per call
  cuobjdump -sass "$object" || status=1
done > "$out/sgemm-simt.sass" 2>&1
