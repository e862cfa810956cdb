# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# test: the CPU tests under ctest, then the GPU test binary in one process (GEMMKIT_TEST_FILTER,
# GEMMKIT_TEST_SHARD narrow it); the log is $out/ctest.log.
shard_env=()
if [[ -n "${GEMMKIT_TEST_SHARD:-}" ]]; then
  shard_env=(env "GTEST_SHARD_INDEX=${GEMMKIT_TEST_SHARD%/*}" "GTEST_TOTAL_SHARDS=${GEMMKIT_TEST_SHARD#*/}")
fi
if [[ -n "${GEMMKIT_TEST_FILTER:-}" ]]; then  # a quick check of what changed, not the full run
  stage "GPU tests matching $GEMMKIT_TEST_FILTER ${GEMMKIT_TEST_SHARD:+(shard $GEMMKIT_TEST_SHARD)}"
  "${shard_env[@]}" "$gpu_tests" --gtest_filter="$GEMMKIT_TEST_FILTER" --gtest_brief=1 > "$out/ctest.log" 2>&1 || status=1
elif [[ -n "${GEMMKIT_TEST_SHARD:-}" && "${GEMMKIT_TEST_SHARD%/*}" != 0 ]]; then
  stage "GPU test binary, shard $GEMMKIT_TEST_SHARD"
  "${shard_env[@]}" "$gpu_tests" --gtest_brief=1 > "$out/ctest.log" 2>&1 || status=1
else
  # One process per test (ctest) costs a CUDA context each: past 4000 tests that is over ten
  # minutes, and tests that size their buffers from the free device memory (host-resident
  # GEMM) then race each other. The CPU tests run under ctest in parallel; the GPU binary runs
  # once, in process, one test after another: 5919 tests once took over 6 minutes on the H100
  # (2272 done in 150 s), so a call with the whole test step has room for little else.
  stage "ctest (CPU tests), then the GPU test binary in one process"
  ctest --test-dir "$build" -j 8 -LE gpu --output-on-failure > "$out/ctest.log" 2>&1 || status=1
  "${shard_env[@]}" "$gpu_tests" --gtest_brief=1 >> "$out/ctest.log" 2>&1 || status=1
fi
tail -15 "$out/ctest.log"
