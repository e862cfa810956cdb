# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# overhead (a default step): host cost per call of gk_dgemm and cuBLAS at small sizes, and of the
# CUDA calls a gemmkit call is made of.
stage "gemmkit-bench overhead: host cost per call"
"$bench_bin" overhead --json "$out/overhead.jsonl" || status=1
