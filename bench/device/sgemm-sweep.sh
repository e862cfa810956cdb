# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# sgemm / sgemm-sweep (not default steps): the same shape set in FP32 with the selection's pick, and
# every FP32 SIMT config forced, each next to cuBLAS;
stage "sgemm-sweep: every FP32 SIMT config vs cuBLAS"
"$bench_bin" gemm --suite sgemm-sweep --dtype f32 --variants "${GEMMKIT_SGEMM_SWEEP_VARIANTS:-sgemm_simt_*}" \
  "${sweep_sizes[@]}" --json "$out/sgemm-sweep.jsonl" || status=1
