# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# racecheck: compute-sanitizer racecheck on a subset of the GPU tests (GEMMKIT_RACECHECK_FILTER).
# The kernels the selection table runs (and the small batched ones): racecheck is slow, so not
# every registered config; about 4 minutes on the H100.
racecheck_default='*tensorop_32x32x16_w16x16_s3_b8_*:*tensorop_64x64x16_w32x32_s4_b3_*:*GpuSmall*'
racecheck_default+=':*tensorop_64x128x16_w32x32_s4_b2_*:*tensorop_128x128x16_w32x64_s4_*:*Deterministic*'
racecheck_default+=':*tensorop_128x64x16_w64x32_s3_b2_k8_*:*tensorop_64x64x16_w32x32_s4_b3_k8_*:*tensorop_128x64x16_w64x32_s4_b2_k8_*'
# Left out: the staged-pointer ring (148 s alone under racecheck on 2026-11-26) and the tuner's
# every-candidate sweep (past 180 s there): together they took the whole limit.
racecheck_default+='-*_pf_*:*_splitk_*:*_tile*:*257x129*:*batch3*:*RingOfStagedPointersWrapsAround:GpuSmallCandidates.*'  # gtest: after '-', what to leave out

stage "compute-sanitizer racecheck on a subset"
timeout "$sanitizer_limit_s" compute-sanitizer --tool racecheck --error-exitcode 3 "$gpu_tests" \
  --gtest_filter="${GEMMKIT_RACECHECK_FILTER:-$racecheck_default}" \
  > "$out/racecheck.log" 2>&1 || status=1
grep -E "ERROR SUMMARY|RACE|PASSED|FAILED" "$out/racecheck.log" | tail -5
