#!/usr/bin/env bash
# Installs the Debian packages gemmkit needs that are not there yet. Groups:
#   base   compiler, CMake, Ninja, OpenBLAS, GoogleTest, CLI11 (building and testing)
#   python the Python package's build: Python headers, pybind11, numpy
#   pytest its tests: pytest, and torch (CPU tensors through DLPack)
#   blas   what the BLAS drop-in's tests run: netlib's testers, gfortran, numpy and scipy, ScaLAPACK
#          over OpenMPI
#   peers  the peer libraries the benchmarks compare against, and matplotlib for bench/plot.py
#   docs   Doxygen, for the API reference (./dev.sh docs)
# nvcc is not an apt package: without it gemmkit builds its CPU library and tools alone.
set -euo pipefail
declare -A groups=(
  [base]="g++ cmake ninja-build git libopenblas-dev libgtest-dev libcli11-dev"
  [python]="python3-dev python3-pybind11 python3-numpy"
  [pytest]="python3-pytest python3-torch"
  [blas]="libblas-test gfortran python3-numpy python3-scipy libscalapack-openmpi-dev libopenmpi-dev openmpi-bin"
  [peers]="libblis-dev libxsmm-dev libeigen3-dev python3-matplotlib"
  [docs]="doxygen"
)
wanted=()
for group in "${@:-base}"; do
  [[ -n "${groups[$group]+x}" ]] || { echo "install-deps: unknown group '$group'" >&2; exit 2; }
  for package in ${groups[$group]}; do
    dpkg -s "$package" >/dev/null 2>&1 || wanted+=("$package")
  done
done
[[ ${#wanted[@]} -eq 0 ]] && exit 0
echo "install-deps: installing ${wanted[*]}" >&2
sudo=()
[[ "$(id -u)" -ne 0 ]] && sudo=(sudo)
export DEBIAN_FRONTEND=noninteractive
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${wanted[@]}" >/dev/null
