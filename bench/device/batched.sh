# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# batched (not a default step): batched small GEMM on the GPU, f64 and f32, n = 2..32 and four other
# shapes at >= 1 GiB per case, gemmkit strided and pointer-array vs cuBLAS, against the bandwidth
# bound measured in the same run; GEMMKIT_BATCHED_ARGS adds options (e.g. "--beta 0").
stage "gemmkit-bench batched: small GEMMs on the GPU vs cuBLAS, against the bandwidth bound"
# shellcheck disable=SC2086  # the extra arguments are meant to split
"$bench_bin" batched ${GEMMKIT_BATCHED_ARGS:-} --json "$out/batched.jsonl" || status=1
