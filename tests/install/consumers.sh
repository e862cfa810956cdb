#!/usr/bin/env bash
# Installs the build tree into a fresh prefix, then builds and runs the examples against it the
# ways a consumer would: find_package (shared and static library) and pkg-config (C and C++).
# Usage: consumers.sh <build dir> <source dir> <scratch dir>
set -euo pipefail
build="$1" source="$2" scratch="$3"
rm -rf "$scratch" && mkdir -p "$scratch"
prefix="$scratch/prefix"
cmake --install "$build" --prefix "$prefix" >/dev/null

# Only the public headers are installed.
installed_headers="$(cd "$prefix/include" && find . -type f | sort | tr '\n' ' ')"
[[ "$installed_headers" == "./gemmkit/gemmkit.h ./gemmkit/gemmkit.hpp ./gemmkit/introspect.h " ]] ||
  { echo "unexpected installed headers: $installed_headers" >&2; exit 1; }

generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
run_cmake_consumer() {  # <example> <build folder> [cmake options]
  local example="$1" folder="$2"; shift 2
  cmake -S "$source/examples/$example" -B "$folder" "${generator[@]}" -DCMAKE_PREFIX_PATH="$prefix" "$@" >/dev/null
  cmake --build "$folder" >/dev/null
}
run_cmake_consumer c "$scratch/c"
"$scratch/c/gemm_c"
run_cmake_consumer cpp "$scratch/cpp"
"$scratch/cpp/gemm_cpp"
run_cmake_consumer cpp "$scratch/cpp-static" -DGEMMKIT_EXAMPLE_STATIC=ON
"$scratch/cpp-static/gemm_cpp"
# The static consumer carries gemmkit inside it; the shared one loads libgemmkit.so.
if ldd "$scratch/cpp-static/gemm_cpp" | grep -q libgemmkit; then echo "static consumer loads libgemmkit" >&2; exit 1; fi
ldd "$scratch/cpp/gemm_cpp" | grep -q "$prefix/lib.*/libgemmkit.so" ||
  { echo "shared consumer does not load the installed libgemmkit.so" >&2; exit 1; }

export PKG_CONFIG_PATH="$(dirname "$(find "$prefix" -name gemmkit.pc)")"
libdir="$(pkg-config --variable=libdir gemmkit)"
cc "$source/examples/c/gemm.c" $(pkg-config --cflags --libs gemmkit) -lm -Wl,-rpath,"$libdir" -o "$scratch/gemm_c_pc"
"$scratch/gemm_c_pc"
c++ -std=c++17 "$source/examples/cpp/gemm.cpp" $(pkg-config --cflags --libs gemmkit) -Wl,-rpath,"$libdir" \
  -o "$scratch/gemm_cpp_pc"
"$scratch/gemm_cpp_pc"
echo "consumers built and ran against $prefix"
