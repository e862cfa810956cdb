#!/usr/bin/env bash
# Copies what the device machine lacks (it has CUDA and CMake but no apt access) into .deps/,
# which bench/device.sh builds against: GoogleTest sources, CLI11's headers (gemmkit-bench's command
# line), the OpenBLAS runtime with its Fortran runtime, and netlib's level-3 BLAS testers (the BLAS
# drop-in's tests run them on the GPU route). .deps/ is git-ignored and travels with `run`'s carry.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh base blas
rm -rf .deps && mkdir -p .deps/openblas/include .deps/openblas/lib
cp -r /usr/src/googletest .deps/googletest
# Only what the build uses (BUILD_GMOCK off, no samples or tests): the device tool carries at most
# 64 MiB with the working tree, and the OpenBLAS runtime alone is 38 MB.
rm -rf .deps/googletest/googlemock .deps/googletest/googletest/{test,samples,docs}
# CLI11 is header-only: tools/gemmkit-bench/CMakeLists.txt finds CLI/CLI.hpp under .deps/cli11/include.
mkdir -p .deps/cli11/include
cp -r /usr/include/CLI .deps/cli11/include/CLI
openblas_include=/usr/include/x86_64-linux-gnu/openblas-pthread
openblas_lib=/usr/lib/x86_64-linux-gnu/openblas-pthread
cp "$openblas_include"/{cblas.h,openblas_config.h} .deps/openblas/include/
cp -L "$openblas_lib/libopenblas.so.0" .deps/openblas/lib/libopenblas.so.0
ln -s libopenblas.so.0 .deps/openblas/lib/libopenblas.so
cp -L /usr/lib/x86_64-linux-gnu/libgfortran.so.5 /usr/lib/x86_64-linux-gnu/libquadmath.so.0 .deps/openblas/lib/
mkdir -p .deps/blas-test
cp /usr/lib/x86_64-linux-gnu/blas/{xblat3d,xblat3s,dblat3.in,sblat3.in} .deps/blas-test/
# The working tree and .deps travel together under 64 MiB, and the tracked tree alone is over 30: the
# runtimes travel xz-compressed (36 MB -> 4 MB for OpenBLAS); bench/device.sh unpacks them there.
xz -T0 -6 .deps/openblas/lib/libopenblas.so.0 .deps/openblas/lib/libgfortran.so.5 .deps/openblas/lib/libquadmath.so.0
du -sh .deps
