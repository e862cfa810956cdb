#!/usr/bin/env bash
# gemmkit's entry point. Each command installs what is missing (Debian/apt), builds, then runs.
#   ./dev.sh tour    build and run `gemmkit-bench tour` (GPU when present, else CPU)
#   ./dev.sh test    build and run the whole test suite (GPU tests skip without a device)
#   ./dev.sh build   install and build only
set -euo pipefail
cd "$(dirname "$0")"
command="${1:-tour}"
build_dir="${GEMMKIT_BUILD_DIR:-build}"

case "$command" in
  tour) scripts/install-deps.sh base peers ;;
  test|build) scripts/install-deps.sh base ;;
  *) echo "usage: $0 tour|test|build" >&2; exit 2 ;;
esac

jobs="$(nproc 2>/dev/null || echo 2)"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
# Tests and the bench on explicitly: a reused build folder may have had them switched off.
cmake -S . -B "$build_dir" "${generator[@]}" -DCMAKE_BUILD_TYPE=Release -DGEMMKIT_BUILD_TESTS=ON \
  -DGEMMKIT_BUILD_BENCH=ON >/dev/null
cmake --build "$build_dir" -j "$jobs"

case "$command" in
  tour) "$build_dir/tools/gemmkit-bench/gemmkit-bench" tour ;;
  test) ctest --test-dir "$build_dir" --output-on-failure -j "$jobs" ;;
  build) ;;
esac
