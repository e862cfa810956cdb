# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# random-shapes (not default): bench/shapes/random-suite.txt (scripts/make-random-shapes.py: log-uniform
# m, n, k from 16 to 65536, the four transposes, tight, aligned and odd leading dimensions) next to
# cuBLAS, in FP64 then FP32 (GEMMKIT_RANDOM_DTYPES narrows: "f64" or "f32"); rows in
# random-shapes-dgemm.jsonl and random-shapes-sgemm.jsonl. Goal: no row below 0.92x, geomean >= 1.05.
for dtype in ${GEMMKIT_RANDOM_DTYPES:-f64 f32}; do
  name=$([[ $dtype == f64 ]] && echo dgemm || echo sgemm)
  stage "gemmkit-bench gemm --shapes bench/shapes/random-suite.txt --dtype $dtype vs cuBLAS"
  "$bench_bin" gemm --suite "random-shapes-$name" --shapes bench/shapes/random-suite.txt --dtype "$dtype" --reps 5 \
    --json "$out/random-shapes-$name.jsonl" > "$out/random-shapes-$name.log" 2>&1 || status=1
  tail -25 "$out/random-shapes-$name.log"
done
