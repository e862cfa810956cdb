#!/usr/bin/env bash
# gemmkit's entry point. Each command installs what is missing (Debian/apt), builds, then runs.
#   ./dev.sh tour      build and run `gemmkit-bench tour` (GPU when present, else CPU)
#   ./dev.sh test      build and run the whole test suite (GPU tests skip without a device)
#   ./dev.sh sanitize  the CPU library and its tests under AddressSanitizer and UBSan (CUDA off)
#   ./dev.sh build     install and build only
#   ./dev.sh install   build, then install the library, its headers and the Python package (`import gemmkit`)
#   ./dev.sh docs      the API reference from the public headers (Doxygen), in build/api-reference
set -euo pipefail
cd "$(dirname "$0")"
command="${1:-tour}"
build_dir="${GEMMKIT_BUILD_DIR:-build}"

case "$command" in
  tour) scripts/install-deps.sh base peers ;;
  test) scripts/install-deps.sh base python pytest blas ;;
  build|install) scripts/install-deps.sh base python ;;
  sanitize) scripts/install-deps.sh base ;;
  docs) scripts/install-deps.sh docs
        doxygen docs/Doxyfile && echo "API reference: build/api-reference/html/index.html"
        exit 0 ;;
  *) echo "usage: $0 tour|test|sanitize|build|install|docs" >&2; exit 2 ;;
esac

jobs="$(nproc 2>/dev/null || echo 2)"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)

case "$command" in
  sanitize)
    # Its own folder: the instrumented objects must not mix with the release build. -O1 keeps the
    # intrinsic kernels' tests fast enough; no recovery, so any UB report fails its test. -g1 (line
    # tables, all a report's stack needs): with full -g the assembler took 13 GB for the AVX-512
    # kernel file and, beside the AVX2 one, was killed on a 24 GiB machine (2026-11-28).
    build_dir="${GEMMKIT_SANITIZE_DIR:-build-sanitize}"
    flags="-O1 -g1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined"
    # No Python package: an instrumented extension cannot load into an uninstrumented interpreter.
    configure=(-DCMAKE_BUILD_TYPE=None -DGEMMKIT_ENABLE_CUDA=OFF -DGEMMKIT_BUILD_TESTS=ON -DGEMMKIT_BUILD_BENCH=OFF
               -DGEMMKIT_BUILD_PYTHON=OFF
               -DCMAKE_C_FLAGS="$flags" -DCMAKE_CXX_FLAGS="$flags" -DCMAKE_EXE_LINKER_FLAGS="-fsanitize=address,undefined")
    ;;
  *)
    # Tests and the bench on explicitly: a reused build folder may have had them switched off.
    configure=(-DCMAKE_BUILD_TYPE=Release -DGEMMKIT_BUILD_TESTS=ON -DGEMMKIT_BUILD_BENCH=ON)
    ;;
esac
# Without a GPU the CUDA code cannot run here: it is compiled for sm_90a only (that it builds is
# what this machine can check), which halves the device-code compile time; with one, for every
# target of GEMMKIT_CUDA_GENCODES.
if command -v nvidia-smi >/dev/null && nvidia-smi -L >/dev/null 2>&1; then
  configure+=(-UGEMMKIT_CUDA_GENCODES)
else
  configure+=(-DGEMMKIT_CUDA_GENCODES="arch=compute_90a,code=sm_90a")
fi
cmake -S . -B "$build_dir" "${generator[@]}" "${configure[@]}" >/dev/null
cmake --build "$build_dir" -j "$jobs"

case "$command" in
  tour) "$build_dir/tools/gemmkit-bench/gemmkit-bench" tour ;;
  test) ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" ;;
  sanitize) ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
    ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" ;;
  build) ;;
  install)
    sudo=()
    [[ "$(id -u)" -ne 0 ]] && sudo=(sudo)
    "${sudo[@]}" cmake --install "$build_dir"
    "${sudo[@]}" ldconfig 2>/dev/null || true
    (cd / && /usr/bin/python3 -c "import gemmkit; print('gemmkit', gemmkit.__version__, 'installed for', __import__('sys').executable)") ;;
esac
