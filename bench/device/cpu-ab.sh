# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# cpu-ab (not a default step): the CPU batched suite (`batched --cpu`, no peers, 1 thread and all)
# with this tree's small-kernel table and with the one in GEMMKIT_CPU_AB_CSV (a small_blocking.csv),
# one binary each from build-cpu/, taking turns dtype by dtype (GEMMKIT_CPU_AB_DTYPES, default
# "f64 f32"): $out/cpu-ab-{tree,other}.jsonl.
stage "cpu-ab: CPU batched suite, this tree's table against $GEMMKIT_CPU_AB_CSV"
table=src/cpu/small/small_blocking.csv
mkdir -p build-cpu/ab && cp "$table" build-cpu/ab/tree.csv
declare -A ab_bin
for side in other tree; do  # the tree's table built last, so build-cpu/ ends as the tree's
  [[ $side == other ]] && cp "$GEMMKIT_CPU_AB_CSV" "$table"
  [[ $side == tree ]] && cp build-cpu/ab/tree.csv "$table"
  build_cpu_only gemmkit-bench || exit 1
  cp build-cpu/tools/gemmkit-bench/gemmkit-bench "build-cpu/ab/gemmkit-bench-$side"
  ab_bin[$side]="build-cpu/ab/gemmkit-bench-$side"
done
for dtype in ${GEMMKIT_CPU_AB_DTYPES:-f64 f32}; do
  for side in tree other; do
    "${ab_bin[$side]}" batched --cpu --dtype "$dtype" --peers none --threads "1,$(nproc)" \
      --json "$out/cpu-ab-$side.jsonl" > "$out/cpu-ab-$side-$dtype.log" 2>&1 || status=1
  done
done
