#!/usr/bin/env bash
# A/B on the GPU: gemmkit built from this tree (new) and from a reference source tree (old), the
# same suites run by one binary and then the other, alternating suite by suite, and the per-row
# ratio new/old (bench/ab_table.py). Run through the device tool, after scripts/stage-device-deps.sh:
#   GEMMKIT_AB_OLD=<tarball of the reference tree> bench/ab.sh build dgemm sgemm
# "build" builds both, in parallel: the reference's gemmkit-bench in build-ab/old, and this tree
# whole (tests included) in build-device, where bench/device.sh's steps find it. Rows in $OUT.
# Suites: dgemm, sgemm, batched, host (the host-resident GEMM at n = 16384, pinned and pageable).
set -uo pipefail
cd "$(dirname "$0")/.."
out="${OUT:-$PWD/device-out}"
mkdir -p "$out"
for packed in .deps/openblas/lib/*.xz; do
  [[ -e "$packed" && ! -e "${packed%.xz}" ]] && xz -dk "$packed"
done
export LD_LIBRARY_PATH="$PWD/.deps/openblas/lib:${LD_LIBRARY_PATH:-}"
export PATH="/usr/local/cuda/bin:$PATH"
if [[ -z "${OPENBLAS_CORETYPE+set}" ]] && grep -qw avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SkylakeX; fi
old_src=build-ab/old-src
declare -A bin=([old]=build-ab/old/tools/gemmkit-bench/gemmkit-bench [new]=build-device/tools/gemmkit-bench/gemmkit-bench)
status=0

configure_and_build() {  # <source> <build folder> <jobs> <tests ON|OFF> [targets]
  local source="$1" folder="$2" jobs="$3" tests="$4"; shift 4
  mkdir -p "$(dirname "$folder")"
  cmake -S "$source" -B "$folder" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGEMMKIT_BUILD_TESTS="$tests" \
    -DGEMMKIT_DEPS_DIR="$PWD/.deps" >"$folder.configure.log" 2>&1 &&
    cmake --build "$folder" -j "$jobs" ${1:+--target "$@"} >"$folder.build.log" 2>&1
}

for suite in "$@"; do
  case "$suite" in
    build)
      # Unpacked once per machine: a second unpacking would make every file new to the build.
      if [[ ! -d "$old_src" ]]; then
        mkdir -p "$old_src" && tar -xzf "${GEMMKIT_AB_OLD:?a tarball of the reference tree}" -C "$old_src"
      fi
      start=$(date +%s)
      configure_and_build "$old_src" build-ab/old 7 OFF gemmkit-bench & old_pid=$!
      configure_and_build . build-device 9 ON & new_pid=$!
      wait "$old_pid" || { status=1; tail -20 build-ab/old.build.log; }
      wait "$new_pid" || { status=1; tail -20 build-device.build.log; }
      echo "both builds: $(( $(date +%s) - start )) s"
      continue ;;
    dgemm) command=(gemm --suite dgemm) ;;
    sgemm) command=(gemm --suite sgemm) ;;
    batched) command=(batched ${GEMMKIT_AB_BATCHED_ARGS:-}) ;;
    host) command=(ooc --n 16384 --memory pinned,pageable --pipeline 4 --budget-fraction 0) ;;
    *) echo "ab.sh: unknown suite '$suite'" >&2; exit 2 ;;
  esac
  for side in old new; do
    echo "=== $suite, $side ($(date -u +%H:%M:%S))"
    GEMMKIT_COMMIT="$side" "${bin[$side]}" "${command[@]}" --json "$out/ab-$suite-$side.jsonl" \
      > "$out/ab-$suite-$side.log" 2>&1 || { status=1; tail -5 "$out/ab-$suite-$side.log"; }
  done
  python3 bench/ab_table.py "$out/ab-$suite-old.jsonl" "$out/ab-$suite-new.jsonl" || status=1
done
exit "$status"
