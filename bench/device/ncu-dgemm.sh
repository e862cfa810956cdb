# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# ncu-dgemm: FP64 tensor-core kernels (GEMMKIT_NCU_DGEMM_VARIANTS) and cuBLAS's DGEMM at 8192 with the
# full section set, raw metrics and per-instruction SASS of each; the SM clock and power under load.
# Our DGEMM kernels and cuBLAS's in one run, every section, then the raw metrics and the SASS with
# per-instruction counters (stall samples included) of each: what cuBLAS's main loop does that ours
# does not. Then the SM clock and power while each side runs for a while (power throttling).
stage "ncu: FP64 tensor-core kernels and cuBLAS DGEMM at 8192, full set"
ncu_variants="${GEMMKIT_NCU_DGEMM_VARIANTS:-dgemm_tensorop_128x64x16_w64x32_s3_b2_k8}"
for variant in $ncu_variants; do
  timeout 240 ncu --kernel-name regex:"gemm" --launch-skip 6 --launch-count 2 --set full \
    --import-source no -f -o "$out/ncu-$variant" \
    "$bench_bin" gemm --m 8192 --dtype f64 --variants "$variant" --reps 1 --warmup 2 --no-verify \
    > "$out/ncu-$variant.log" 2>&1 || status=1
  ncu --import "$out/ncu-$variant.ncu-rep" --page details > "$out/ncu-$variant.txt" 2>&1 || status=1
  ncu --import "$out/ncu-$variant.ncu-rep" --page raw --csv > "$out/ncu-$variant-raw.csv" 2>&1 || status=1
  ncu --import "$out/ncu-$variant.ncu-rep" --page source --csv --print-source sass \
    > "$out/ncu-$variant-sass.csv" 2>&1 || status=1
  grep -E "gemm|Duration|SM Frequency|Issue Slots|Registers|Theoretical Occ|Bank" "$out/ncu-$variant.txt" | head -30
  rm -f "$out/ncu-$variant.ncu-rep"  # 16 MB, and $OUT returns at most 8 files: the pages above hold it
done
stage "SM clock and power while each side runs (nvidia-smi every 100 ms)"
nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active \
  --format=csv -lms 100 > "$out/clocks-dgemm.csv" 2>&1 &
smi_pid=$!
for variant in "${ncu_variants%% *}" cublas_dgemm; do  # the first kernel profiled; about 6 s each, one side at a time
  echo "# $variant from $(date -u +%H:%M:%S.%N)" >> "$out/clocks-dgemm-bench.txt"
  "$bench_bin" gemm --m 8192 --dtype f64 --variants "$variant" --peer none --reps 30 --target-ms 200 \
    --no-verify >> "$out/clocks-dgemm-bench.txt" 2>&1 || status=1
done
kill "$smi_pid" 2>/dev/null
tail -3 "$out/clocks-dgemm-bench.txt"
