#!/usr/bin/env bash
# The one GPU run: build on the device, run every test (the `gpu` label included), compute-sanitizer
# memcheck on the GPU test binary and racecheck on a subset, then the benchmarks. Results land in
# $OUT (device tool) or ./device-out. Prepare once here with scripts/stage-device-deps.sh, then:
#   run(command="bench/device.sh", carry=[".deps"])
# Steps to run can be narrowed: GEMMKIT_DEVICE_STEPS="build test memcheck racecheck tour dgemm sweep ncu batched";
# the BLAS drop-in's steps (not default): blas-test (its tests, GPU forms included), blas (dgemm_ against OpenBLAS and NVBLAS),
# scalapack (PDGEMM over OpenMPI on gemmkit and on OpenBLAS; stage with scripts/stage-device-mpi.sh).
# emulation (gemm --emulate: FP64 on the INT8 tensor cores beside native and cuBLAS, not default).
# python (the Python package's tests with the GPU and python -m gemmkit.bench, not default).
# random-shapes (bench/shapes/random-suite.txt in FP64 and FP32 beside cuBLAS, not default).
# GEMMKIT_TEST_FILTER=<gtest filter> makes the test step run only those GPU tests;
# GEMMKIT_TEST_SHARD=i/n runs shard i (0-based) of n of the GPU test binary (the whole binary is past
# 10 minutes on the H100: 11776 tests in 3 x 180-205 s on 2026-11-26); the CPU tests run in shard 0.
# GEMMKIT_MEMCHECK_FILTER (positive patterns) narrows memcheck the same way.
# Each step is a file, bench/device/<step>.sh, which says what it runs and what it writes.
set -uo pipefail
# GoogleTest's shard variables in the environment would make the build's test discovery list one
# shard's CPU tests (144 of 426 on 2026-11-26) and shard racecheck's subset: shard the GPU binary with
# GEMMKIT_TEST_SHARD instead.
unset GTEST_TOTAL_SHARDS GTEST_SHARD_INDEX
cd "$(dirname "$0")/.."
out="${OUT:-$PWD/device-out}"
mkdir -p "$out"
steps="${GEMMKIT_DEVICE_STEPS:-build test memcheck racecheck tour dgemm overhead micro}"
sanitizer_limit_s="${GEMMKIT_SANITIZER_LIMIT_S:-240}"
build=build-device
log="$out/device.log"
# scripts/stage-device-deps.sh packs the runtimes with xz (the tree travels under 64 MiB): unpack once.
for packed in .deps/openblas/lib/*.xz; do
  [[ -e "$packed" && ! -e "${packed%.xz}" ]] && xz -dk "$packed"
done
export LD_LIBRARY_PATH="$PWD/.deps/openblas/lib:${LD_LIBRARY_PATH:-}"
export PATH="/usr/local/cuda/bin:$PATH"
# OpenBLAS 0.3.21's DYNAMIC_ARCH does not know the H100 hosts' Xeon model and falls back to its SSE
# core (Prescott): 101 GFLOP/s at 4096 on 16 cores against 532 as Cooperlake (host step, 2026-11-27).
# The CPU path and the host-resident GEMM's CPU share get the core the CPU's flags call for, unless
# the caller sets OPENBLAS_CORETYPE; every row's cpu_blas key names the core that ran.
if [[ -z "${OPENBLAS_CORETYPE+set}" ]]; then
  if grep -qw avx512_bf16 /proc/cpuinfo; then export OPENBLAS_CORETYPE=Cooperlake
  elif grep -qw avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SkylakeX
  elif grep -qw avx2 /proc/cpuinfo; then export OPENBLAS_CORETYPE=Haswell
  fi
fi
# The device copy's .git (where it has one) can name an older HEAD than the tree it runs: pass
# GEMMKIT_COMMIT=<hash> so result rows name their commit.
export GEMMKIT_COMMIT="${GEMMKIT_COMMIT:-unknown}"
status=0
want() { [[ " $steps " == *" $1 "* ]]; }
stage() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }
# The CPU-only build (build-cpu/, no CUDA) of the given targets, for the steps that measure the host CPU;
# cpu_all_configs=ON builds every CPU small-kernel variant (the tuner times them all).
build_cpu_only() {
  cmake -S . -B build-cpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DGEMMKIT_ENABLE_CUDA=OFF \
    -DGEMMKIT_DEPS_DIR="$PWD/.deps" -DGEMMKIT_BUILD_ALL_CONFIGS="${cpu_all_configs:-OFF}" >/dev/null || return 1
  cmake --build build-cpu -j "$(nproc)" --target "$@" 2>&1 | grep -E "error|FAILED"
  return "${PIPESTATUS[0]}"
}

{
  stage machine
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total --format=csv
  nvcc --version | tail -2
  cmake --version | head -1

  # Each step is bench/device/<step>.sh, run in this order when asked for.
  bench_bin="$build/tools/gemmkit-bench/gemmkit-bench"
  gpu_tests="$build/tests/gemmkit_gpu_tests"
  sweep_sizes=(--m "${GEMMKIT_SWEEP_SIZES:-1024,2048,4096,8192,4097}")
  [[ -n "${GEMMKIT_SWEEP_SHAPES:-}" ]] && sweep_sizes=(--shapes "$GEMMKIT_SWEEP_SHAPES")
  for step in build test memcheck racecheck tour dgemm overhead micro host ooc ooc-beyond tune batched sweep sgemm sgemm-sweep sass ladder ncu ncu-dgemm ncu-sgemm ncu-small cpu-tune cpu-ab blas-test blas scalapack emulation python random-shapes; do
    if want "$step"; then
      # shellcheck source=/dev/null
      source "bench/device/$step.sh"
    fi
  done
  stage "done, status $status"
  exit "$status"
} 2>&1 | tee "$log"
exit "${PIPESTATUS[0]}"
