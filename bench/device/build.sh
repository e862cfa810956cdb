# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# build: configure and build build-device/, with every tile config and small batched candidate
# when a sweep, sass or tune step runs (they measure configs the selection table does not pick).
stage build
# The sweeps and the SASS steps measure every tile config, not only those the selection table picks.
all_configs=OFF
if want sweep || want sgemm-sweep || want sass || want tune; then all_configs=ON; fi  # tune: every small batched candidate
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGEMMKIT_DEPS_DIR="$PWD/.deps" \
  -DGEMMKIT_BUILD_ALL_CONFIGS="$all_configs" >/dev/null || exit 1
# GEMMKIT_BUILD_TARGETS narrows the build to what the steps of this call run (e.g. gemmkit_blas_checks).
read -r -a build_targets <<<"${GEMMKIT_BUILD_TARGETS:-all}"
cmake --build "$build" -j "$(nproc)" --target "${build_targets[@]}" 2>&1 | grep -E "error|warning|FAILED"
[[ ${PIPESTATUS[0]} -eq 0 ]] || exit 1
