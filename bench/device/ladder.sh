# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# ladder (not a default step): gemmkit-bench ladder --dtype both at 1024, 2048, 4096 (seed 000's
# version table with the model's bound per row, on this GPU's description where the micro step ran
# first) into $out/ladder.jsonl, and the SASS instruction mix of the ladder steps and production
# kernels, whole kernel and main loop, into $out/sass-mix.jsonl (GEMMKIT_LADDER_SASS=0 skips it).
stage "ladder: seed 000's version table (every ladder step and the production pick beside cuBLAS, with the model)"
# The model reads this GPU's description where the micro step wrote one, and the compiled
# kernels' resources from the sass step or GEMMKIT_LADDER_KERNELS (a committed sass-spills file).
ladder_model=()
[[ -s "$out/machine.json" ]] && ladder_model+=(--machine "$out/machine.json")
ladder_kernels="${GEMMKIT_LADDER_KERNELS:-$out/sass-spills.jsonl}"
[[ -s "$ladder_kernels" ]] && ladder_model+=(--kernels "$ladder_kernels")
"$bench_bin" ladder --dtype both "${ladder_model[@]}" --json "$out/ladder.jsonl" || status=1
# The SASS of sm_90a is the same on every Hopper GPU, and reading it all takes minutes:
# GEMMKIT_LADDER_SASS=0 leaves it to a run that needs it.
if [[ "${GEMMKIT_LADDER_SASS:-1}" != 0 ]]; then
  stage "SASS instruction mix of the ladder steps and the production kernels (seed 001 Table 3)"
  bench/sass_mix.sh --json "$out/sass-mix.jsonl" \
    "$build"/src/CMakeFiles/gemmkit_layer_kernels.dir/cuda/ladder/*.o "$build"/src/CMakeFiles/gemmkit_layer_kernels.dir/__/generated/cuda/*.o \
    > "$out/sass-mix.txt" 2>&1 || status=1
  grep -E "scope|loop" "$out/sass-mix.txt" | cut -c1-220 | head -40
fi
