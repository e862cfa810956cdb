# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# ooc-beyond (not a default step): one host-resident size whose operands exceed device 0's memory
# (n from nvidia-smi and /proc/meminfo), pinned, level 4, verified, on 1 and all GPUs, with cuBLASXt:
# $out/ooc-beyond.jsonl (GEMMKIT_OOC_BEYOND_ARGS adds options, e.g. "--reps 1").
# The run with operands larger than the GPU's memory: the smallest n (a multiple of 4096)
# whose three matrices exceed device 0's memory by 5 %, if they fit in 70 % of host memory
# (pinned); 1 GPU and all of them, verified, next to cuBLASXt (in-core cuBLAS cannot run).
device_mib=$(nvidia-smi --query-gpu=memory.total --format=csv,noheader,nounits -i 0)
host_kib=$(awk '/^MemTotal/ {print $2}' /proc/meminfo)
beyond_n=$(python3 -c "import math; d = $device_mib * 2**20 * 1.05; n = math.ceil(math.sqrt(d / 24) / 4096) * 4096; print(n if 24 * n * n < 0.7 * $host_kib * 1024 else 0)")
gpu_count=$(nvidia-smi -L | wc -l)
gpu_list=1
[[ $gpu_count -gt 1 ]] && gpu_list="1,$gpu_count"
stage "host-resident GEMM past device memory: n = $beyond_n (device $device_mib MiB, host $((host_kib / 1024)) MiB)"
if [[ "$beyond_n" -gt 0 ]]; then
  "$bench_bin" ooc --n "$beyond_n" --memory pinned --pipeline 4 --budget-fraction 0 --cpu-share off \
    --gpus "$gpu_list" --xt-blocks 8192 \
    ${GEMMKIT_OOC_BEYOND_ARGS:-} --json "$out/ooc-beyond.jsonl" || status=1
else
  echo "skipped: host memory cannot hold operands larger than the device's"
fi
