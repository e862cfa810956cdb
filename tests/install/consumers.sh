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
[[ "$installed_headers" == "./gemmkit/cblas_batch.h ./gemmkit/gemmkit.h ./gemmkit/gemmkit.hpp ./gemmkit/introspect.h " ]] ||
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
# The static consumer carries gemmkit inside it; the shared one loads libgemmkit.so. (ldd's output is
# taken whole first: `ldd | grep -q` under pipefail fails when grep stops reading early.)
static_libs="$(ldd "$scratch/cpp-static/gemm_cpp")"
if grep -q libgemmkit <<<"$static_libs"; then echo "static consumer loads libgemmkit" >&2; exit 1; fi
shared_libs="$(ldd "$scratch/cpp/gemm_cpp")"
grep -q "$prefix/lib.*/libgemmkit.so" <<<"$shared_libs" ||
  { echo "shared consumer does not load the installed libgemmkit.so" >&2; exit 1; }

export PKG_CONFIG_PATH="$(dirname "$(find "$prefix" -name gemmkit.pc)")"
libdir="$(pkg-config --variable=libdir gemmkit)"
cc "$source/examples/c/gemm.c" $(pkg-config --cflags --libs gemmkit) -lm -Wl,-rpath,"$libdir" -o "$scratch/gemm_c_pc"
"$scratch/gemm_c_pc"
c++ -std=c++17 "$source/examples/cpp/gemm.cpp" $(pkg-config --cflags --libs gemmkit) -Wl,-rpath,"$libdir" \
  -o "$scratch/gemm_cpp_pc"
"$scratch/gemm_cpp_pc"
# The BLAS drop-in, installed with its libblas.so.3 / libcblas.so.3 names, runs a program linked
# against the system BLAS: the trace shows gemmkit took the call.
libdir_blas="$(dirname "$(find "$prefix" -name libgemmkit_blas.so.0)")"
for name in libblas.so.3 libcblas.so.3; do
  [[ "$(readlink -f "$libdir_blas/gemmkit-blas/$name")" == "$(readlink -f "$libdir_blas/libgemmkit_blas.so.0")" ]] ||
    { echo "$libdir_blas/gemmkit-blas/$name is not the installed libgemmkit_blas" >&2; exit 1; }
done
cat > "$scratch/blas_consumer.c" <<'PROGRAM'
#include <stdio.h>
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*, const int*,
            const double*, const int*, const double*, double*, const int*);
int main(void) {
  const int two = 2;
  const double one = 1.0, zero = 0.0, a[4] = {1, 2, 3, 4}, b[4] = {5, 6, 7, 8};
  double c[4] = {0, 0, 0, 0};
  dgemm_("N", "N", &two, &two, &two, &one, a, &two, b, &two, &zero, c, &two);
  /* column-major: [1 3; 2 4] * [5 7; 6 8] = [23 31; 34 46] */
  return c[0] == 23 && c[1] == 34 && c[2] == 31 && c[3] == 46 ? 0 : 1;
}
PROGRAM
cc "$scratch/blas_consumer.c" -o "$scratch/blas_consumer" -lblas
GEMMKIT_BLAS_TRACE="$scratch/blas_trace.jsonl" LD_LIBRARY_PATH="$libdir_blas/gemmkit-blas" "$scratch/blas_consumer"
grep -q '"routine":"dgemm_".*"route":"cpu"' "$scratch/blas_trace.jsonl" ||
  { echo "the installed BLAS drop-in did not take dgemm_" >&2; exit 1; }
echo "consumers built and ran against $prefix"
