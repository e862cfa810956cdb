# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# sgemm / sgemm-sweep (not default steps): the same shape set in FP32 with the selection's pick, and
# every FP32 SIMT config forced, each next to cuBLAS;
stage "gemmkit-bench gemm --suite sgemm (the DGEMM issue's shape set in FP32) vs cuBLAS"
"$bench_bin" gemm --suite sgemm --json "$out/sgemm.jsonl" || status=1
