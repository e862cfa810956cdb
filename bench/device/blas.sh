# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there. It also runs by itself, after a build step:
#   bash bench/device/blas.sh            ($OUT or ./device-out; build-device/, or GEMMKIT_BUILD_DIR)
# blas (not a default step): issue 51's benchmark, dgemm_ on malloc'd host arrays, each contender a
# process of dgemm_host under LD_PRELOAD. Two modes, GEMMKIT_BLAS_MODES (default "main crossover"):
# main (about 4 min on the H200): n = 1024 .. 32768, gemmkit's drop-in ($build/blas/libgemmkit_blas.so.0)
#   against the staged OpenBLAS on all cores and NVBLAS (the toolkit's libnvblas.so, tiles 2048 and
#   8192, its CPU BLAS the same staged OpenBLAS): $out/blas.jsonl, and the NVBLAS confs and logs,
#   gemmkit's trace and each run's stderr in $out/blas-work/. GEMMKIT_BLAS_BENCH_ARGS adds options
#   (e.g. "--sizes 8192 16384 --nvblas-tiles 8192"); GEMMKIT_BLAS_DEADLINE_S (default 480) bounds it,
#   gemmkit's run first.
# crossover (about 1 to 2 min): where the drop-in's GPU pipeline (GEMMKIT_BLAS_CROSSOVER=0) beats
#   OpenBLAS on all cores, for squares 256 .. 3072, m = n = 8192 with k = 16 .. 1024 (PDGEMM's
#   rank-k updates) and m = k = 8192 with n = 32 .. 1024: $out/blas-crossover.jsonl, its trace and
#   stderr in $out/blas-crossover-work/, and a table of the smallest size from which the GPU stays
#   ahead. GEMMKIT_BLAS_CROSSOVER_ARGS adds options (e.g. "--crossover-ks 32 64");
#   GEMMKIT_BLAS_CROSSOVER_DEADLINE_S (default 170) bounds it, split evenly between the two contenders.
# Both modes together (up to 480 + 170 s) can outlast one 10-minute device call: run
# GEMMKIT_BLAS_MODES=crossover (or main) per call, or lower the deadlines.
blas_standalone=
if [[ "${BASH_SOURCE[0]}" == "$0" ]]; then  # run by itself, not sourced by bench/device.sh
  set -uo pipefail
  cd "$(dirname "$0")/../.." || exit 1
  blas_standalone=1
  out="${OUT:-$PWD/device-out}"
  mkdir -p "$out"
  build="${GEMMKIT_BUILD_DIR:-build-device}"
  status=0
  stage() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }
  # scripts/stage-device-deps.sh packs the runtimes with xz, as bench/device.sh unpacks them.
  for packed in .deps/openblas/lib/*.xz; do
    [[ -e "$packed" && ! -e "${packed%.xz}" ]] && xz -dk "$packed"
  done
fi
blas_modes="${GEMMKIT_BLAS_MODES:-main crossover}"
blas_openblas="$PWD/.deps/openblas/lib/libopenblas.so.0"  # unpacked from .xz by bench/device.sh
blas_gemmkit="$build/blas/libgemmkit_blas.so.0"
blas_nvblas=/usr/local/cuda/lib64/libnvblas.so
blas_host="$build/bench/blas/dgemm_host"  # when bench/blas is a subdirectory of the build; else compiled here
blas_exe=()
[[ -x "$blas_host" ]] && blas_exe=(--exe "$blas_host")
blas_missing() {  # the files named that do not exist, or nothing
  local f
  for f in "$@"; do [[ -f $f ]] || printf '%s ' "$f"; done
}
if [[ " $blas_modes " == *" main "* ]]; then
  stage "blas: dgemm_ on host arrays, libgemmkit_blas vs OpenBLAS vs NVBLAS"
  if [[ -n "$(blas_missing "$blas_openblas" "$blas_gemmkit" "$blas_nvblas")" ]]; then
    echo "blas: missing $(blas_missing "$blas_openblas" "$blas_gemmkit" "$blas_nvblas")" \
      "(scripts/stage-device-deps.sh for OpenBLAS, the build step for libgemmkit_blas)"
    status=1
  else
    # shellcheck disable=SC2086  # the options are meant to split
    python3 bench/blas/blas_bench.py --mode gpu --openblas "$blas_openblas" --gemmkit-lib "$blas_gemmkit" \
      --nvblas "$blas_nvblas" "${blas_exe[@]}" \
      --deadline "${GEMMKIT_BLAS_DEADLINE_S:-480}" ${GEMMKIT_BLAS_BENCH_ARGS:-} \
      --json "$out/blas.jsonl" --work-dir "$out/blas-work" || status=1
  fi
fi
if [[ " $blas_modes " == *" crossover "* ]]; then
  stage "blas crossover: libgemmkit_blas's GPU pipeline (GEMMKIT_BLAS_CROSSOVER=0) vs OpenBLAS, square and skinny"
  if [[ -n "$(blas_missing "$blas_openblas" "$blas_gemmkit")" ]]; then
    echo "blas crossover: missing $(blas_missing "$blas_openblas" "$blas_gemmkit")" \
      "(scripts/stage-device-deps.sh for OpenBLAS, the build step for libgemmkit_blas)"
    status=1
  else
    # shellcheck disable=SC2086  # the options are meant to split
    python3 bench/blas/blas_bench.py --crossover --mode gpu --openblas "$blas_openblas" \
      --gemmkit-lib "$blas_gemmkit" "${blas_exe[@]}" \
      --deadline "${GEMMKIT_BLAS_CROSSOVER_DEADLINE_S:-170}" ${GEMMKIT_BLAS_CROSSOVER_ARGS:-} \
      --json "$out/blas-crossover.jsonl" --work-dir "$out/blas-crossover-work" || status=1
  fi
fi
if [[ -n "$blas_standalone" ]]; then
  stage "done, status $status"
  exit "$status"
fi
