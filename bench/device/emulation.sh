# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# emulation: `gemmkit-bench gemm --emulate` (FP64 emulated on the INT8 tensor cores, fast and accurate
# scaling and AUTO, beside native gemmkit, cuBLAS and cuBLAS's emulation; errors, moduli, time split):
# squares at phi = 0, the large shapes of bench/shapes/emulation-large.txt, then the exponent-spread
# sweep and the split case at GEMMKIT_EMULATION_SWEEP_N (default 8192). Rows: $out/emulation.jsonl.
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
