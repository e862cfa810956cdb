# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# cpu-tune (not a default step): the CPU small-GEMM tuner on this host's CPU, without the GPU: a
# CPU-only build in build-cpu/, the CPU small-kernel tests, then one tuner process per set of
# GEMMKIT_CPU_TUNE_SETS ("f64:1-8 f32:1-8", ...), all at once, each on one thread pinned to its own
# core (one such thread streams about 20 GB/s on the H100 host): $out/cpu-tune-<dtype>-<sizes>.csv
# (the whole table with those rows retuned) and .log.
stage "cpu-tune: CPU-only build, CPU small-kernel tests, tuner sets ${GEMMKIT_CPU_TUNE_SETS:-f64:1-8}"
cpu_all_configs=ON build_cpu_only gemmkit-bench gemmkit_tests || exit 1
build-cpu/tests/gemmkit_tests --gtest_brief=1 \
  --gtest_filter='*Small*:*small*:*Blocking*:*Batched*Cpu*:*Cpu*' 2>&1 | tail -3
core=1
tuners=()
for set in ${GEMMKIT_CPU_TUNE_SETS:-f64:1-8}; do
  dtype="${set%%:*}" range="${set#*:}"
  sizes="$(seq -s, "${range%-*}" "${range#*-}")"
  name="cpu-tune-$dtype-$range"
  taskset -c "$core" build-cpu/tools/gemmkit-bench/gemmkit-bench batched --cpu --tune --dtype "$dtype" \
    --n "$sizes" --reps 7 --tune-out "$out/$name.csv" > "$out/$name.log" 2>&1 &
  tuners+=($!)
  core=$((core + 1))
done
for pid in "${tuners[@]}"; do wait "$pid" || status=1; done
grep -h "<" "$out"/cpu-tune-*.log | head -80
