# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# micro (a default step, about 10 s): the device micro-benchmarks (FMA and FP64 tensor-core peaks per
# mma shape, launch latency, copy bandwidth by width and offset, memcpy, L2, host<->device copies,
# shared-memory and instruction latencies) beside the H100 anchors (src/model/machine.hpp): $out/micro.jsonl, and the
# measured machine description $out/machine.json, which the model then reads (gemmkit-bench model
# --machine) to show its bounds on this device.
stage "gemmkit-bench micro: peaks, bandwidth, copies, latencies; the machine description"
"$bench_bin" micro --json "$out/micro.jsonl" --machine-out "$out/machine.json" || status=1
if [[ -s "$out/machine.json" ]]; then
  "$bench_bin" model --machine "$out/machine.json" || status=1
fi
