# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# scalapack: PDGEMM under mpirun on this machine, over gemmkit's drop-in and over OpenBLAS
# (bench/scalapack/device.sh; MPI and ScaLAPACK staged by scripts/stage-device-mpi.sh): $out/scalapack.jsonl.
stage "scalapack: PDGEMM over gemmkit and over OpenBLAS"
bench/scalapack/device.sh "$build" || status=1
