#!/usr/bin/env bash
# The one GPU run: build on the device, run every test (the `gpu` label included), compute-sanitizer
# memcheck on the GPU test binary and racecheck on a subset, then the benchmarks. Results land in
# $OUT (device tool) or ./device-out. Prepare once here with scripts/stage-device-deps.sh, then:
#   run(command="bench/device.sh", carry=[".deps"])
# Steps to run can be narrowed: GEMMKIT_DEVICE_STEPS="build test memcheck racecheck tour dgemm sweep ncu batched";
# GEMMKIT_TEST_FILTER=<gtest filter> makes the test step run only those GPU tests;
# GEMMKIT_TEST_SHARD=i/n runs shard i (0-based) of n of the GPU test binary (the whole binary is past
# 10 minutes on the H100: 11776 tests in 3 x 180-205 s at 3259eac); the CPU tests run in shard 0.
# GEMMKIT_MEMCHECK_FILTER (positive patterns) narrows memcheck the same way.
# tune: the small batched GPU kernel's tuner; its table lands in $OUT/small_tuning.csv and is built
# into this run's binaries, so a later batched step measures the tuned kernels.
# sass: per-kernel instruction mix (DMMA, LDS, LDGSTS, BAR, spills) from cuobjdump, and the FP64
# tensor-core and FP32 SIMT instances' registers, main-loop mix and spill bytes ($out/sass-spills.jsonl,
# for the model).
# ladder (not a default step): gemmkit-bench ladder --dtype both at 1024, 2048, 4096 (seed 000's
# version table with the model's bound per row, on this GPU's description where the micro step ran
# first) into $out/ladder.jsonl, and the SASS instruction mix of the ladder steps and production
# kernels, whole kernel and main loop, into $out/sass-mix.jsonl (GEMMKIT_LADDER_SASS=0 skips it).
# sweep: every FP64 tensor-core config forced, side by side with cuBLAS (the tuner's input);
# GEMMKIT_SWEEP_VARIANTS narrows the configs, GEMMKIT_SWEEP_SIZES (squares) or GEMMKIT_SWEEP_SHAPES (a
# --shapes file) sets the sizes, for sgemm-sweep too (GEMMKIT_SGEMM_SWEEP_VARIANTS narrows its configs);
# sgemm / sgemm-sweep (not default steps): the same shape set in FP32 with the selection's pick, and
# every FP32 SIMT config forced, each next to cuBLAS;
# ncu: Nsight Compute sections of the production kernel at 8192 (what limits it).
# ncu-dgemm: FP64 tensor-core kernels (GEMMKIT_NCU_DGEMM_VARIANTS) and cuBLAS's DGEMM at 8192 with the
# full section set, raw metrics and per-instruction SASS of each; the SM clock and power under load.
# ncu-sgemm: the FP32 SIMT kernel next to cuBLAS's SGEMM kernel at 8192, plus the SIMT kernels' SASS.
# ncu-small: the same for the small batched kernel at the sizes furthest from the bound
# (GEMMKIT_NCU_SMALL_CASES="f64 5;f32 7" picks them).
# overhead (a default step): host cost per call of gk_dgemm and cuBLAS at small sizes, and of the
# CUDA calls a gemmkit call is made of.
# micro (a default step, about 10 s): the device micro-benchmarks (FMA and FP64 tensor-core peaks per
# mma shape, launch latency, copy bandwidth by width and offset, memcpy, L2, host<->device copies,
# shared-memory and instruction latencies) beside the H100 anchors (src/model/machine.hpp): $out/micro.jsonl, and the
# measured machine description $out/machine.json, which the model then reads (gemmkit-bench model
# --machine) to show its bounds on this device.
# batched (not a default step): batched small GEMM on the GPU, f64 and f32, n = 2..32 and four other
# shapes at >= 1 GiB per case, gemmkit strided and pointer-array vs cuBLAS, against the bandwidth
# bound measured in the same run; GEMMKIT_BATCHED_ARGS adds options (e.g. "--beta 0").
# host (not a default step): lscpu, vector flags, the CPU quota and OpenBLAS DGEMM at 4096 on all cores,
# as OpenBLAS picks its core and as GEMMKIT_HOST_CORETYPES forces it (what the host-resident GEMM's CPU
# share can add): $out/host-blas.jsonl.
# cpu-tune (not a default step): the CPU small-GEMM tuner on this host's CPU, without the GPU: a
# CPU-only build in build-cpu/, the CPU small-kernel tests, then one tuner process per set of
# GEMMKIT_CPU_TUNE_SETS ("f64:1-8 f32:1-8", ...), all at once, each on one thread pinned to its own
# core (one such thread streams about 20 GB/s on the H100 host): $out/cpu-tune-<dtype>-<sizes>.csv
# (the whole table with those rows retuned) and .log.
# cpu-ab (not a default step): the CPU batched suite (`batched --cpu`, no peers, 1 thread and all)
# with this tree's small-kernel table and with the one in GEMMKIT_CPU_AB_CSV (a small_blocking.csv),
# one binary each from build-cpu/, taking turns dtype by dtype (GEMMKIT_CPU_AB_DTYPES, default
# "f64 f32"): $out/cpu-ab-{tree,other}.jsonl.
# ooc (not a default step): the host-resident GEMM's GPU tests (OocExecutor*), then gemmkit-bench ooc
# at n = 16384, pinned and pageable, pipeline levels 1-4, budgets "the device's free memory" and a
# quarter of the operands, on 1..N GPUs, next to cuBLASXt (block 8192 and default) and in-core cuBLAS:
# $out/ooc.jsonl, and the pipeline timeline of one run in $out/ooc-timeline.jsonl. GEMMKIT_OOC_ARGS
# replaces the bench options; on multi-GPU kinds e.g. "--n 16384,32768 --pipeline 4 --gpus 1,2,4".
# ooc-beyond (not a default step): one host-resident size whose operands exceed device 0's memory
# (n from nvidia-smi and /proc/meminfo), pinned, level 4, verified, on 1 and all GPUs, with cuBLASXt:
# $out/ooc-beyond.jsonl (GEMMKIT_OOC_BEYOND_ARGS adds options, e.g. "--reps 1").
set -uo pipefail
# GoogleTest's shard variables in the environment would make the build's test discovery list one
# shard's CPU tests (144 of 426 at 3259eac) and shard racecheck's subset: shard the GPU binary with
# GEMMKIT_TEST_SHARD instead.
unset GTEST_TOTAL_SHARDS GTEST_SHARD_INDEX
cd "$(dirname "$0")/.."
out="${OUT:-$PWD/device-out}"
mkdir -p "$out"
steps="${GEMMKIT_DEVICE_STEPS:-build test memcheck racecheck tour dgemm overhead micro}"
sanitizer_limit_s="${GEMMKIT_SANITIZER_LIMIT_S:-240}"
build=build-device
log="$out/device.log"
# scripts/stage-device-deps.sh packs the runtimes with xz (the tree travels under 64 MiB): unpack once.
for packed in .deps/openblas/lib/*.xz; do
  [[ -e "$packed" && ! -e "${packed%.xz}" ]] && xz -dk "$packed"
done
export LD_LIBRARY_PATH="$PWD/.deps/openblas/lib:${LD_LIBRARY_PATH:-}"
export PATH="/usr/local/cuda/bin:$PATH"
# OpenBLAS 0.3.21's DYNAMIC_ARCH does not know the H100 hosts' Xeon model and falls back to its SSE
# core (Prescott): 101 GFLOP/s at 4096 on 16 cores against 532 as Cooperlake (host step, fc8bb9d).
# The CPU path and the host-resident GEMM's CPU share get the core the CPU's flags call for, unless
# the caller sets OPENBLAS_CORETYPE; every row's cpu_blas key names the core that ran.
if [[ -z "${OPENBLAS_CORETYPE+set}" ]]; then
  if grep -qw avx512_bf16 /proc/cpuinfo; then export OPENBLAS_CORETYPE=Cooperlake
  elif grep -qw avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SkylakeX
  elif grep -qw avx2 /proc/cpuinfo; then export OPENBLAS_CORETYPE=Haswell
  fi
fi
# The device copy's .git (where it has one) can name an older HEAD than the tree it runs: pass
# GEMMKIT_COMMIT=<hash> so result rows name their commit.
export GEMMKIT_COMMIT="${GEMMKIT_COMMIT:-unknown}"
status=0
want() { [[ " $steps " == *" $1 "* ]]; }
stage() { echo; echo "=== $* ($(date -u +%H:%M:%S))"; }
# The CPU-only build (build-cpu/, no CUDA) of the given targets, for the steps that measure the host CPU.
build_cpu_only() {
  cmake -S . -B build-cpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DGEMMKIT_ENABLE_CUDA=OFF \
    -DGEMMKIT_DEPS_DIR="$PWD/.deps" >/dev/null || return 1
  cmake --build build-cpu -j "$(nproc)" --target "$@" 2>&1 | grep -E "error|FAILED"
  return "${PIPESTATUS[0]}"
}

{
  stage machine
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,memory.total --format=csv
  nvcc --version | tail -2
  cmake --version | head -1

  if want build; then
    stage build
    # The sweeps and the SASS steps measure every tile config, not only those the selection table picks.
    all_configs=OFF
    if want sweep || want sgemm-sweep || want sass || want tune; then all_configs=ON; fi  # tune: every small batched candidate
    cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=Release -DGEMMKIT_DEPS_DIR="$PWD/.deps" \
      -DGEMMKIT_BUILD_ALL_CONFIGS="$all_configs" >/dev/null || exit 1
    cmake --build "$build" -j "$(nproc)" 2>&1 | grep -E "error|warning|FAILED" ; [[ ${PIPESTATUS[0]} -eq 0 ]] || exit 1
  fi
  bench_bin="$build/tools/gemmkit-bench/gemmkit-bench"
  gpu_tests="$build/tests/gemmkit_gpu_tests"

  if want test; then
    shard_env=()
    if [[ -n "${GEMMKIT_TEST_SHARD:-}" ]]; then
      shard_env=(env "GTEST_SHARD_INDEX=${GEMMKIT_TEST_SHARD%/*}" "GTEST_TOTAL_SHARDS=${GEMMKIT_TEST_SHARD#*/}")
    fi
    if [[ -n "${GEMMKIT_TEST_FILTER:-}" ]]; then  # a quick check of what changed, not the full run
      stage "GPU tests matching $GEMMKIT_TEST_FILTER ${GEMMKIT_TEST_SHARD:+(shard $GEMMKIT_TEST_SHARD)}"
      "${shard_env[@]}" "$gpu_tests" --gtest_filter="$GEMMKIT_TEST_FILTER" --gtest_brief=1 > "$out/ctest.log" 2>&1 || status=1
    elif [[ -n "${GEMMKIT_TEST_SHARD:-}" && "${GEMMKIT_TEST_SHARD%/*}" != 0 ]]; then
      stage "GPU test binary, shard $GEMMKIT_TEST_SHARD"
      "${shard_env[@]}" "$gpu_tests" --gtest_brief=1 > "$out/ctest.log" 2>&1 || status=1
    else
      # One process per test (ctest) costs a CUDA context each: past 4000 tests that is over ten
      # minutes, and tests that size their buffers from the free device memory (host-resident
      # GEMM) then race each other. The CPU tests run under ctest in parallel; the GPU binary runs
      # once, in process, one test after another: 5919 tests at 5bf87cf, over 6 minutes on the H100
      # (2272 done in 150 s), so a call with the whole test step has room for little else.
      stage "ctest (CPU tests), then the GPU test binary in one process"
      ctest --test-dir "$build" -j 8 -LE gpu --output-on-failure > "$out/ctest.log" 2>&1 || status=1
      "${shard_env[@]}" "$gpu_tests" --gtest_brief=1 >> "$out/ctest.log" 2>&1 || status=1
    fi
    tail -15 "$out/ctest.log"
  fi
  if want memcheck; then
    stage "compute-sanitizer memcheck on the GPU test binary"
    # CudaApiStream's control leg needs the default stream to overtake a held stream; the sanitizer
    # serializes streams, so that test runs in ctest above and not under memcheck. The host-resident
    # allocation-failure test, CudaApiErrors and the workspace hog make allocations fail on purpose,
    # which memcheck counts as API errors (at 26aba77 the hog's 8 were its only errors).
    timeout "$sanitizer_limit_s" compute-sanitizer --tool memcheck --error-exitcode 3 "$gpu_tests" \
      --gtest_filter="${GEMMKIT_MEMCHECK_FILTER:-*}-CudaApiStream.*:CudaApiErrors.*:*WorkspaceCannotBeAllocated:OocExecutorFailure.AllocationFailure*" \
      > "$out/memcheck.log" 2>&1 || status=1
    grep -E "ERROR SUMMARY|PASSED|FAILED" "$out/memcheck.log" | tail -5
  fi
  # The kernels the selection table runs (and the small batched ones): racecheck is slow, so not
  # every registered config; about 4 minutes on the H100.
  racecheck_default='*tensorop_32x32x16_w16x16_s3_b8_*:*tensorop_64x64x16_w32x32_s4_b3_*:*GpuSmall*'
  racecheck_default+=':*tensorop_64x128x16_w32x32_s4_b2_*:*tensorop_128x128x16_w32x64_s4_*:*Deterministic*'
  racecheck_default+=':*tensorop_128x64x16_w64x32_s3_b2_k8_*:*tensorop_64x64x16_w32x32_s4_b3_k8_*:*tensorop_128x64x16_w64x32_s4_b2_k8_*'
  # Left out: the staged-pointer ring (148 s alone under racecheck at 3259eac) and the tuner's
  # every-candidate sweep (past 180 s there): together they took the whole limit.
  racecheck_default+='-*_pf_*:*_splitk_*:*_tile*:*257x129*:*batch3*:*RingOfStagedPointersWrapsAround:GpuSmallCandidates.*'  # gtest: after '-', what to leave out
  if want racecheck; then
    stage "compute-sanitizer racecheck on a subset"
    timeout "$sanitizer_limit_s" compute-sanitizer --tool racecheck --error-exitcode 3 "$gpu_tests" \
      --gtest_filter="${GEMMKIT_RACECHECK_FILTER:-$racecheck_default}" \
      > "$out/racecheck.log" 2>&1 || status=1
    grep -E "ERROR SUMMARY|RACE|PASSED|FAILED" "$out/racecheck.log" | tail -5
  fi
  if want tour; then
    stage "gemmkit-bench tour"
    "$bench_bin" tour --json "$out/tour.jsonl" || status=1
  fi
  if want dgemm; then
    stage "gemmkit-bench gemm --suite dgemm"
    "$bench_bin" gemm --suite dgemm --json "$out/dgemm.jsonl" || status=1
  fi
  if want overhead; then
    stage "gemmkit-bench overhead: host cost per call"
    "$bench_bin" overhead --json "$out/overhead.jsonl" || status=1
  fi
  if want micro; then
    stage "gemmkit-bench micro: peaks, bandwidth, copies, latencies; the machine description"
    "$bench_bin" micro --json "$out/micro.jsonl" --machine-out "$out/machine.json" || status=1
    if [[ -s "$out/machine.json" ]]; then
      "$bench_bin" model --machine "$out/machine.json" || status=1
    fi
  fi
  if want host; then
    # What the CPU share of the host-resident GEMM can add: the host's cores and vector ISA, its CPU
    # quota, and the CPU BLAS (gemmkit's CPU path, OpenBLAS) on large DGEMMs with all threads, with
    # the core OpenBLAS picks itself and with the ones GEMMKIT_HOST_CORETYPES forces (its
    # OPENBLAS_CORETYPE; each row's cpu_blas names the core that ran).
    stage "host: CPU, quota, CPU BLAS rate on large DGEMMs"
    lscpu | grep -E "Model name|^CPU\(s\)|Thread|Core|Socket|NUMA node\(s\)|MHz" | cut -c1-160
    grep -o -w -E "avx|avx2|fma|avx512f|avx512_bf16|amx_tile" /proc/cpuinfo | sort | uniq -c
    cat /sys/fs/cgroup/cpu.max 2>/dev/null || true
    for coretype in default ${GEMMKIT_HOST_CORETYPES:-Cooperlake}; do
      ( if [[ $coretype == default ]]; then unset OPENBLAS_CORETYPE; else export OPENBLAS_CORETYPE=$coretype; fi
        "$bench_bin" gemm --cpu --m 4096 --peer none --no-verify --reps 3 --json "$out/host-blas.jsonl" 2>&1 | grep -E "^f64" ) || status=1
    done
  fi
  if want ooc; then
    stage "host-resident GEMM: OocExecutor GPU tests, then gemmkit-bench ooc vs cuBLASXt and in-core cuBLAS"
    "$gpu_tests" --gtest_filter='OocExecutor*' --gtest_brief=1 > "$out/ooc-tests.log" 2>&1 || status=1
    tail -4 "$out/ooc-tests.log"
    # shellcheck disable=SC2086  # the options are meant to split
    "$bench_bin" ooc ${GEMMKIT_OOC_ARGS:---n 16384 --memory pinned,pageable --pipeline 1,2,3,4 --budget-fraction 0,0.25} \
      --timeline "$out/ooc-timeline.jsonl" --json "$out/ooc.jsonl" || status=1
  fi
  if want ooc-beyond; then
    # The issue's run with operands larger than the GPU's memory: the smallest n (a multiple of 4096)
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
  fi
  if want tune; then
    stage "gemmkit-bench batched --tune: the small GPU kernel's shape per size (copy into src/cuda/batched/)"
    # GEMMKIT_TUNE_ARGS="--n 5,7 --dtype f32": only those square buckets, merged into the committed table.
    cp src/cuda/batched/small_tuning.csv "$out/small_tuning.csv"
    # shellcheck disable=SC2086  # the extra arguments are meant to split
    if "$bench_bin" batched --tune --bytes 1G ${GEMMKIT_TUNE_ARGS:-} --tune-out "$out/small_tuning.csv"; then
      # The later steps of this run (batched) use the table just measured: it is compiled in.
      cp "$out/small_tuning.csv" src/cuda/batched/small_tuning.csv
      cmake --build "$build" -j "$(nproc)" 2>&1 | grep -E "error|FAILED" ; [[ ${PIPESTATUS[0]} -eq 0 ]] || status=1
    else
      status=1
    fi
  fi
  if want batched; then
    stage "gemmkit-bench batched: small GEMMs on the GPU vs cuBLAS, against the bandwidth bound"
    # shellcheck disable=SC2086  # the extra arguments are meant to split
    "$bench_bin" batched ${GEMMKIT_BATCHED_ARGS:-} --json "$out/batched.jsonl" || status=1
  fi
  sweep_sizes=(--m "${GEMMKIT_SWEEP_SIZES:-1024,2048,4096,8192,4097}")
  [[ -n "${GEMMKIT_SWEEP_SHAPES:-}" ]] && sweep_sizes=(--shapes "$GEMMKIT_SWEEP_SHAPES")
  if want sweep; then
    stage "sweep: every FP64 tensor-core config vs cuBLAS"
    "$bench_bin" gemm --suite dgemm-sweep --variants "${GEMMKIT_SWEEP_VARIANTS:-dgemm_tensorop_*}" \
      "${sweep_sizes[@]}" --json "$out/sweep.jsonl" || status=1
  fi
  if want sgemm; then
    stage "gemmkit-bench gemm --suite sgemm (the DGEMM issue's shape set in FP32) vs cuBLAS"
    "$bench_bin" gemm --suite sgemm --json "$out/sgemm.jsonl" || status=1
  fi
  if want sgemm-sweep; then
    stage "sgemm-sweep: every FP32 SIMT config vs cuBLAS"
    "$bench_bin" gemm --suite sgemm-sweep --dtype f32 --variants "${GEMMKIT_SGEMM_SWEEP_VARIANTS:-sgemm_simt_*}" \
      "${sweep_sizes[@]}" --json "$out/sgemm-sweep.jsonl" || status=1
  fi
  if want sass; then
    stage "SASS instruction mix of the tensor-core and small batched kernels"
    bench/sass_summary.sh "$build"/src/CMakeFiles/gemmkit_layer_kernels.dir/__/generated/cuda/*.o > "$out/sass-summary.txt" 2>&1 || status=1
    grep -c . "$out/sass-summary.txt"
    # Registers and main-loop mix and spill traffic per tensor-core and FP32 SIMT instance: the model
    # reads them (gemmkit-bench model --kernels).
    python3 bench/sass_spills.py --commit "$GEMMKIT_COMMIT" "$build"/src/CMakeFiles/gemmkit_layer_kernels.dir/__/generated/cuda/dgemm_tensorop_*.o \
      "$build"/src/CMakeFiles/gemmkit_layer_kernels.dir/__/generated/cuda/sgemm_*.o > "$out/sass-spills.jsonl" || status=1
  fi
  if want ladder; then
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
  fi
  if want ncu; then
    stage "ncu: production kernel at 8192"
    timeout 300 ncu --kernel-name regex:dgemm_tensorop --launch-skip 3 --launch-count 1 \
      --section SpeedOfLight --section ComputeWorkloadAnalysis --section MemoryWorkloadAnalysis \
      --section Occupancy --section WarpStateStats --section LaunchStats \
      "$bench_bin" gemm --m 8192 --dtype f64 --reps 1 --warmup 1 > "$out/ncu.txt" 2>&1 || status=1
    grep -E "Duration|Throughput|Pipe|Occupancy|Registers|Stall|Issue" "$out/ncu.txt" | head -40
  fi
  if want ncu-dgemm; then
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
  fi
  if want ncu-sgemm; then
    # The FP32 SIMT kernel and cuBLAS's SGEMM kernel in the same run (the peer's tile shape is in its
    # name), and the SIMT kernels' SASS for reading the main loop.
    stage "ncu: FP32 SIMT kernel and cuBLAS SGEMM at 8192"
    timeout 300 ncu --kernel-name regex:"gemm" --launch-skip 6 --launch-count 2 \
      --section SpeedOfLight --section ComputeWorkloadAnalysis --section Occupancy --section WarpStateStats \
      --section SchedulerStats --section LaunchStats --section InstructionStats \
      "$bench_bin" gemm --m 8192 --dtype f32 --variants "${GEMMKIT_NCU_SGEMM_VARIANT:-sgemm_simt_128x128x16*}" \
      --reps 1 --warmup 2 --no-verify > "$out/ncu-sgemm.txt" 2>&1 || status=1
    grep -E "gemm|Duration|SM Frequency|Issue Slots|Executed Ipc|Registers|Stall|No Eligible|Theoretical Occ" \
      "$out/ncu-sgemm.txt" | head -40
    for object in "$build"/src/CMakeFiles/gemmkit_layer_kernels.dir/__/generated/cuda/sgemm_simt_*.o; do  # one file per call
      cuobjdump -sass "$object" || status=1
    done > "$out/sgemm-simt.sass" 2>&1
  fi
  if want ncu-small; then
    # What limits the small batched kernel where it is furthest from the bound. A case is "dtype
    # size" or "dtype m,n,k", then optionally "ptr": the strided launch and the device-pointer-array
    # launch of the same problems, profiled in one run.
    IFS=';' read -ra ncu_small_cases <<< "${GEMMKIT_NCU_SMALL_CASES:-f64 7;f64 28;f32 32;f64 32}"
    for case in "${ncu_small_cases[@]}"; do
      set -- $case
      size_arg=(--n "$2")
      [[ "$2" == *,* ]] && size_arg=(--shapes "$2")
      form_args=(--peers none)
      launches=1
      [[ "${3:-}" == ptr ]] && form_args=(--peers gemmkit_ptr) && launches=5
      name="ncu-small-$1-${2//,/x}${3:+-$3}"
      stage "ncu: small batched kernel, $1 $2 ${3:-}"
      timeout 150 ncu --kernel-name regex:small_batched_kernel --launch-skip 2 --launch-count "$launches" \
        --section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section WarpStateStats \
        --section SchedulerStats --section LaunchStats --section InstructionStats \
        "$bench_bin" batched "${size_arg[@]}" --dtype "$1" --bytes 256M "${form_args[@]}" --reps 1 --warmup 1 \
        > "$out/$name.txt" 2>&1 || status=1
      grep -E "small_batched_kernel|Duration|Memory Throughput|DRAM Throughput|Issue Slots|Achieved Occupancy|Registers Per|Theoretical Occ|No Eligible|Executed Ipc" \
        "$out/$name.txt" | head -60
    done
  fi
  if want cpu-tune; then
    stage "cpu-tune: CPU-only build, CPU small-kernel tests, tuner sets ${GEMMKIT_CPU_TUNE_SETS:-f64:1-8}"
    build_cpu_only gemmkit-bench gemmkit_tests || exit 1
    build-cpu/tests/gemmkit_tests --gtest_brief=1 \
      --gtest_filter='*Small*:*small*:*Blocking*:*Batched*Cpu*:*Cpu*' 2>&1 | tail -3
    core=1
    tuners=()
    for set in ${GEMMKIT_CPU_TUNE_SETS:-f64:1-8}; do
      dtype="${set%%:*}" range="${set#*:}"
      sizes="$(seq -s, "${range%-*}" "${range#*-}")"
      name="cpu-tune-$dtype-$range"
      taskset -c "$core" build-cpu/tools/gemmkit-bench/gemmkit-bench batched --cpu --tune --dtype "$dtype" \
        --n "$sizes" --reps 7 --tune-out "$out/$name.csv" > "$out/$name.log" 2>&1 &
      tuners+=($!)
      core=$((core + 1))
    done
    for pid in "${tuners[@]}"; do wait "$pid" || status=1; done
    grep -h "<" "$out"/cpu-tune-*.log | head -80
  fi
  if want cpu-ab; then
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
  fi
  stage "done, status $status"
  exit "$status"
} 2>&1 | tee "$log"
exit "${PIPESTATUS[0]}"
