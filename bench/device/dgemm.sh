# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# dgemm: the DGEMM suite beside cuBLAS.
stage "gemmkit-bench gemm --suite dgemm"
"$bench_bin" gemm --suite dgemm --json "$out/dgemm.jsonl" || status=1
