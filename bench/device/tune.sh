# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# tune: the small batched GPU kernel's tuner; its table lands in $OUT/small_tuning.csv and is built
# into this run's binaries, so a later batched step measures the tuned kernels.
stage "gemmkit-bench batched --tune: the small GPU kernel's shape per size (copy into src/cuda/batched/)"
# GEMMKIT_TUNE_ARGS="--n 5,7 --dtype f32": only those square buckets, merged into the committed table.
cp src/cuda/batched/small_tuning.csv "$out/small_tuning.csv"
# shellcheck disable=SC2086  # the extra arguments are meant to split
if "$bench_bin" batched --tune --bytes 1G ${GEMMKIT_TUNE_ARGS:-} --tune-out "$out/small_tuning.csv"; then
  # The later steps of this run (batched) use the table just measured: it is compiled in.
  cp "$out/small_tuning.csv" src/cuda/batched/small_tuning.csv
  cmake --build "$build" -j "$(nproc)" 2>&1 | grep -E "error|FAILED" ; [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
else
  status=1
fi
