# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# host (not a default step): lscpu, vector flags, the CPU quota and OpenBLAS DGEMM at 4096 on all cores,
# as OpenBLAS picks its core and as GEMMKIT_HOST_CORETYPES forces it (what the host-resident GEMM's CPU
# share can add): $out/host-blas.jsonl.
# What the CPU share of the host-resident GEMM can add: the host's cores and vector ISA, its CPU
# quota, and the CPU BLAS (gemmkit's CPU path, OpenBLAS) on large DGEMMs with all threads, with
# the core OpenBLAS picks itself and with the ones GEMMKIT_HOST_CORETYPES forces (its
# OPENBLAS_CORETYPE; each row's cpu_blas names the core that ran).
stage "host: CPU, quota, CPU BLAS rate on large DGEMMs"
lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|NUMA node\(s\)|MHz" | cut -c1-160
grep -o -w -E "avx|avx2|fma|avx512f|avx512_bf16|amx_tile" /proc/cpuinfo | sort | uniq -c
cat /sys/fs/cgroup/cpu.max 2>/dev/null || true
for coretype in default ${GEMMKIT_HOST_CORETYPES:-Cooperlake}; do
  ( if [[ $coretype == default ]]; then unset OPENBLAS_CORETYPE; else export OPENBLAS_CORETYPE=$coretype; fi
    "$bench_bin" gemm --cpu --m 4096 --peer none --no-verify --reps 3 --json "$out/host-blas.jsonl" 2>&1 | grep -E "^f64" ) || status=1
done
