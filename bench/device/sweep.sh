# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# sweep: every FP64 tensor-core config forced, side by side with cuBLAS (the tuner's input);
# GEMMKIT_SWEEP_VARIANTS narrows the configs, GEMMKIT_SWEEP_SIZES (squares) or GEMMKIT_SWEEP_SHAPES (a
# --shapes file) sets the sizes, for sgemm-sweep too (GEMMKIT_SGEMM_SWEEP_VARIANTS narrows its configs);
stage "sweep: every FP64 tensor-core config vs cuBLAS"
"$bench_bin" gemm --suite dgemm-sweep --variants "${GEMMKIT_SWEEP_VARIANTS:-dgemm_tensorop_*}" \
  "${sweep_sizes[@]}" --json "$out/sweep.jsonl" || status=1
