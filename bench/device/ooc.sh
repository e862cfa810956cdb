# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# ooc (not a default step): the host-resident GEMM's GPU tests (OocExecutor*), then gemmkit-bench ooc
# at n = 16384, pinned and pageable, pipeline levels 1-4, budgets "the device's free memory" and a
# quarter of the operands, on 1..N GPUs, next to cuBLASXt (block 8192 and default) and in-core cuBLAS:
# $out/ooc.jsonl, and the pipeline timeline of one run in $out/ooc-timeline.jsonl. GEMMKIT_OOC_ARGS
# replaces the bench options; on multi-GPU kinds e.g. "--n 16384,32768 --pipeline 4 --gpus 1,2,4".
stage "host-resident GEMM: OocExecutor GPU tests, then gemmkit-bench ooc vs cuBLASXt and in-core cuBLAS"
"$gpu_tests" --gtest_filter='OocExecutor*' --gtest_brief=1 > "$out/ooc-tests.log" 2>&1 || status=1
tail -4 "$out/ooc-tests.log"
# shellcheck disable=SC2086  # the options are meant to split
"$bench_bin" ooc ${GEMMKIT_OOC_ARGS:---n 16384 --memory pinned,pageable --pipeline 1,2,3,4 --budget-fraction 0,0.25} \
  --timeline "$out/ooc-timeline.jsonl" --json "$out/ooc.jsonl" || status=1
