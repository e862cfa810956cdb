# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# sass: per-kernel instruction mix (DMMA, LDS, LDGSTS, BAR, spills) from cuobjdump, and the FP64
# tensor-core and FP32 SIMT instances' registers, main-loop mix and spill bytes ($out/sass-spills.jsonl,
# for the model).
stage "SASS instruction mix of the tensor-core and small batched kernels"
bench/sass_summary.sh "$build"/src/CMakeFiles/gemmkit_layer_kernels.dir/__/generated/cuda/*.o > "$out/sass-summary.txt" 2>&1 || status=1
grep -c . "$out/sass-summary.txt"
# Registers and main-loop mix and spill traffic per tensor-core and FP32 SIMT instance: the model
# reads them (gemmkit-bench model --kernels).
python3 bench/sass_spills.py --commit "$GEMMKIT_COMMIT" "$build"/src/CMakeFiles/gemmkit_layer_kernels.dir/__/generated/cuda/dgemm_tensorop_*.o \
  "$build"/src/CMakeFiles/gemmkit_layer_kernels.dir/__/generated/cuda/sgemm_*.o > "$out/sass-spills.jsonl" || status=1
