# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# emulation: `gemmkit-bench gemm --emulate` (FP64 emulated on the INT8 tensor cores, fast and accurate
# scaling and AUTO, beside native gemmkit, cuBLAS and cuBLAS's emulation; errors, moduli, time split):
# squares at phi = 0, the large shapes of bench/shapes/emulation-large.txt, then the exponent-spread
# sweep and the split case at GEMMKIT_EMULATION_SWEEP_N (default 8192), then host operands through the
# host-resident pipeline. Rows: $out/emulation.jsonl, $out/ooc.jsonl (and its timeline).
emulation_sizes="${GEMMKIT_EMULATION_SIZES:-4096,6144,8192,16384}"
emulation_sweep_n="${GEMMKIT_EMULATION_SWEEP_N:-8192}"
stage "gemm --emulate at $emulation_sizes, the large shapes, then phi 0.5, 1, 2 and split at $emulation_sweep_n"
"$bench_bin" gemm --emulate --m "$emulation_sizes" --phi 0 --variants "${GEMMKIT_EMULATION_VARIANTS:-dgemm_ozaki2_int8_cublas}" \
  --json "$out/emulation.jsonl" > "$out/emulation.log" 2>&1 || status=1
"$bench_bin" gemm --emulate --shapes bench/shapes/emulation-large.txt --reps 3 \
  --json "$out/emulation.jsonl" >> "$out/emulation.log" 2>&1 || status=1
"$bench_bin" gemm --emulate --m "$emulation_sweep_n" --phi 0.5,1,2 --split --reps 3 \
  --json "$out/emulation.jsonl" >> "$out/emulation.log" 2>&1 || status=1
grep -v "^gemmkit:" "$out/emulation.log" | tail -80
# Host operands: the host-resident pipeline at n = 32768 (pinned) with its blocks native, emulated with the
# fast and with the accurate scaling, beside cuBLASXt; the timeline has one call per mode.
stage "gemmkit-bench ooc --emulate off,fast,accurate at n = ${GEMMKIT_EMULATION_OOC_N:-32768}"
"$bench_bin" ooc --n "${GEMMKIT_EMULATION_OOC_N:-32768}" --memory pinned --pipeline 4 --budget-fraction 0 \
  --cpu-share off --emulate off,fast,accurate --peers cublasxt --xt-blocks 8192 --reps 2 \
  --json "$out/ooc.jsonl" --timeline "$out/ooc-timeline.jsonl" > "$out/emulation-ooc.log" 2>&1 || status=1
grep -v "^gemmkit:" "$out/emulation-ooc.log" | tail -12
