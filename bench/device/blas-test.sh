# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# blas-test: the BLAS drop-in's tests under ctest, the GPU forms included (netlib's testers with
# every GEMM on the GPU pipeline, the C batch and error checks, many threads); log $out/blas-test.log.
stage "blas-test: the BLAS drop-in's tests (ctest -R ^blas)"
ctest --test-dir "$build" -R '^blas\.' --output-on-failure > "$out/blas-test.log" 2>&1 || status=1
grep -E "tests passed|Passed|Failed|\*\*\*|Skipped|Not Run" "$out/blas-test.log" | tail -40
