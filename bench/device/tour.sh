# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# tour: gemmkit-bench tour, the README's main job.
stage "gemmkit-bench tour"
"$bench_bin" tour --json "$out/tour.jsonl" || status=1
