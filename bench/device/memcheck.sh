# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# memcheck: compute-sanitizer memcheck on the GPU test binary (GEMMKIT_MEMCHECK_FILTER narrows it).
stage "compute-sanitizer memcheck on the GPU test binary"
# CudaApiStream's control leg needs the default stream to overtake a held stream; the sanitizer
# serializes streams, so that test runs in ctest above and not under memcheck. The host-resident
# allocation-failure test, CudaApiErrors and the workspace hog make allocations fail on purpose,
# which memcheck counts as API errors (the hog's 8 were once its only errors).
timeout "$sanitizer_limit_s" compute-sanitizer --tool memcheck --error-exitcode 3 "$gpu_tests" \
  --gtest_filter="${GEMMKIT_MEMCHECK_FILTER:-*}-CudaApiStream.*:CudaApiErrors.*:*WorkspaceCannotBeAllocated:OocExecutorFailure.AllocationFailure*" \
  > "$out/memcheck.log" 2>&1 || status=1
grep -E "ERROR SUMMARY|PASSED|FAILED" "$out/memcheck.log" | tail -5
