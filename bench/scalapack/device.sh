#!/usr/bin/env bash
# ScaLAPACK PDGEMM over OpenBLAS and over gemmkit's libgemmkit_blas (LD_PRELOAD), MPI ranks on one
# node sharing its GPU. Runs on the device machine from the repository root, after a build there:
#   run(command="bench/scalapack/device.sh build-device", carry=[".deps"])
# Prepare once where apt works: scripts/stage-device-deps.sh, then scripts/stage-device-mpi.sh.
# Steps: unpack Open MPI + ScaLAPACK (bench/scalapack/mpi-env.sh); build pdgemm_check with that mpicc;
# the ctest cases blas.scalapack.* over the build's library (the gpu one included); then the timed
# PDGEMMs, each `mpirun -np R pdgemm_check --bench --n N --nb NB --panel K`, C := A*B.
# Cases, most informative first (each later one only while the time budget lasts):
#   N (32768) with k-panel K (4096): gemmkit and OpenBLAS at each rank count
#   STOCK_N (8192) with ScaLAPACK's own k-panel (32): gemmkit and OpenBLAS at each rank count
# Settings (environment): GEMMKIT_SCALAPACK_N, _STOCK_N (0: no stock cases), _NB (512), _PANEL,
#   _RANKS ("2 4"), _BLAS ("gemmkit openblas"), _REPS (timed calls of the N cases, 1; the stock
#   ones take the best of 2), _BUDGET_S (420: no run starts after that many
#   seconds; each is cut at the time left), _CTEST (1), _THREADS (CPU threads per rank: cores/ranks).
#   GEMMKIT_SCALAPACK_N=2048 GEMMKIT_SCALAPACK_STOCK_N=1024 runs it in a minute on a 2-core CPU machine.
# Writes $OUT (or ./device-out)/scalapack.jsonl: one row per run (suite "scalapack", case, n, ranks,
# grid, nb, panel, blas "openblas"|"gemmkit", gflops, seconds, status, the routes of gemmkit's
# trace) and ratio rows (blas "gemmkit/openblas", ratio = gemmkit's GFLOP/s over OpenBLAS's at the
# same n, ranks and panel), and scalapack.log.
set -uo pipefail
build="${1:?usage: bench/scalapack/device.sh <build folder>}"
cd "$(dirname "$0")/../.." || exit 2
build="$(cd "$build" && pwd)" || exit 2
out="${OUT:-$PWD/device-out}"
mkdir -p "$out"
n="${GEMMKIT_SCALAPACK_N:-32768}"
stock_n="${GEMMKIT_SCALAPACK_STOCK_N:-8192}"
nb="${GEMMKIT_SCALAPACK_NB:-512}"
panel="${GEMMKIT_SCALAPACK_PANEL:-4096}"
rank_counts="${GEMMKIT_SCALAPACK_RANKS:-2 4}"
blas_list="${GEMMKIT_SCALAPACK_BLAS:-gemmkit openblas}"
budget_s="${GEMMKIT_SCALAPACK_BUDGET_S:-420}"
rows="$out/scalapack.jsonl"
work="${TMPDIR:-/tmp}/gemmkit-scalapack"
traces="$work/trace"  # summarized in the rows: the device tool brings back 8 files at most
export GEMMKIT_COMMIT="${GEMMKIT_COMMIT:-unknown}"
status=0

{
  echo "=== scalapack ($(date -u +%H:%M:%S)): build $build"
  # shellcheck source=/dev/null
  source bench/scalapack/mpi-env.sh
  gemmkit_mpi_env || exit 1
  mpirun --version | head -1
  # OpenBLAS 0.3.21 falls back to its SSE core on CPUs it does not know (bench/device.sh says more).
  if [[ -z "${OPENBLAS_CORETYPE+set}" ]]; then
    if grep -qw avx512_bf16 /proc/cpuinfo; then export OPENBLAS_CORETYPE=Cooperlake
    elif grep -qw avx512f /proc/cpuinfo; then export OPENBLAS_CORETYPE=SkylakeX
    elif grep -qw avx2 /proc/cpuinfo; then export OPENBLAS_CORETYPE=Haswell
    fi
  fi
  gemmkit_lib="$(ls "$build"/blas/libgemmkit_blas.so.0 2>/dev/null)"
  [[ -n "$gemmkit_lib" ]] || echo "no $build/blas/libgemmkit_blas.so.0: OpenBLAS runs only"
  gpu="$(nvidia-smi --query-gpu=name --format=csv,noheader 2>/dev/null | head -1)"
  echo "GPU: ${gpu:-none}; cores: $(nproc); OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-}"

  rm -rf "$work" "$traces" && mkdir -p "$work" "$traces"
  mpicc -O2 -std=c11 -o "$work/pdgemm_check" tests/blas/scalapack/pdgemm_check.c -L"$GEMMKIT_MPI_LIB" \
    -lscalapack-openmpi -lm -ldl -Wl,-rpath-link,"$GEMMKIT_MPI_BLAS" || exit 1

  # One host, shared memory, no binding, no ssh (as tests/blas/scalapack/run_pdgemm_test.sh).
  export OMPI_MCA_plm=isolated OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader
  export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_hwloc_base_binding_policy=none
  export OMPI_MCA_rmaps_base_oversubscribe=1
  root=()
  [[ "$(id -u)" -eq 0 ]] && root=(--allow-run-as-root)

  if [[ "${GEMMKIT_SCALAPACK_CTEST:-1}" == 1 && -n "$gemmkit_lib" ]]; then
    echo "=== ctest blas.scalapack.* ($(date -u +%H:%M:%S))"
    tests="$work/tests"
    if cmake -S tests/blas/scalapack -B "$tests" -DMPI_C_COMPILER="$GEMMKIT_MPI_ROOT/usr/bin/mpicc" \
         -DMPIEXEC_EXECUTABLE="$GEMMKIT_MPI_ROOT/usr/bin/mpiexec" \
         -DGEMMKIT_SCALAPACK_LIBRARY="$GEMMKIT_MPI_LIB/libscalapack-openmpi.so" \
         -DCMAKE_EXE_LINKER_FLAGS="-Wl,-rpath-link,$GEMMKIT_MPI_BLAS" \
         -DGEMMKIT_BLAS_LIBRARY="$gemmkit_lib" -DGEMMKIT_BLAS_ALTERNATIVE_DIR="$build/blas/as-libblas" >/dev/null &&
       cmake --build "$tests" >/dev/null; then
      ctest --test-dir "$tests" --output-on-failure --timeout 240 || status=1
    else
      echo "the ctest build failed"; status=1
    fi
  fi

  start=$SECONDS
  # run_case <case> <n> <panel> <ranks> <blas> <reps>: the best of <reps> timed PDGEMMs, one row.
  run_case() {
    local name="$1" size="$2" k_panel="$3" ranks="$4" blas="$5" reps="$6"
    local left=$((budget_s - (SECONDS - start)))
    local threads="${GEMMKIT_SCALAPACK_THREADS:-$(( $(nproc) / ranks > 0 ? $(nproc) / ranks : 1 ))}"
    local trace="$traces/$name-$blas"
    local env=(-x OPENBLAS_NUM_THREADS="$threads" -x OMP_NUM_THREADS="$threads")
    [[ "$blas" == gemmkit ]] && env+=(-x GEMMKIT_RANK_PRELOAD="$gemmkit_lib" -x GEMMKIT_RANK_TRACE="$trace")
    # Ranks sharing one GPU split its memory: each pipeline plans within its share, not 90 % of what is free.
    if [[ "$blas" == gemmkit ]] && command -v nvidia-smi >/dev/null; then
      local free_mib
      free_mib="$(nvidia-smi --query-gpu=memory.free --format=csv,noheader,nounits -i 0 2>/dev/null | head -1)"
      [[ "$free_mib" =~ ^[0-9]+$ ]] && env+=(-x GEMMKIT_BLAS_DEVICE_MEMORY="$(( free_mib * 85 / 100 / ranks ))M")
    fi
    local result="" run_status=ok t0=$SECONDS
    if ((left < 10)); then
      run_status=skipped
    else
      echo "--- $name $blas: $ranks ranks x $threads threads, n=$size nb=$nb panel=$k_panel reps=$reps (limit ${left}s)"
      timeout -k 10 "$left" mpirun "${root[@]}" -np "$ranks" "${env[@]}" \
        bash bench/scalapack/rank-env.sh "$work/pdgemm_check" --bench --n "$size" --nb "$nb" \
        --panel "$k_panel" --reps "$reps" >"$work/$name-$blas.out" 2>&1
      local rc=$?
      tail -n 20 "$work/$name-$blas.out"
      result="$(grep '^{' "$work/$name-$blas.out" | tail -1)"
      if ((rc == 124 || rc == 137)); then run_status=timeout
      elif ((rc != 0)) || [[ -z "$result" ]]; then run_status=failed
      fi
    fi
    [[ -n "$result" ]] || result='{}'
    python3 bench/scalapack/rows.py row --case "$name" --blas "$blas" --n "$size" --ranks "$ranks" --nb "$nb" \
      --panel "$k_panel" --threads "$threads" --status "$run_status" --wall "$((SECONDS - t0))" --gpu "${gpu:-none}" \
      --trace "$trace" --result "$result" >>"$rows"
    [[ "$run_status" == ok || "$run_status" == skipped ]] || status=1
  }
  : >"$rows"
  for ranks in $rank_counts; do
    for blas in $blas_list; do
      [[ "$blas" == gemmkit && -z "$gemmkit_lib" ]] && continue
      run_case "pdgemm_n${n}_r${ranks}_k${panel}" "$n" "$panel" "$ranks" "$blas" "${GEMMKIT_SCALAPACK_REPS:-1}"
    done
  done
  if ((stock_n > 0)); then
    for ranks in $rank_counts; do
      for blas in $blas_list; do
        [[ "$blas" == gemmkit && -z "$gemmkit_lib" ]] && continue
        run_case "pdgemm_n${stock_n}_r${ranks}_k32" "$stock_n" 32 "$ranks" "$blas" 2
      done
    done
  fi
  python3 bench/scalapack/rows.py ratios "$rows"
  echo "=== scalapack rows"
  cat "$rows"
  echo "=== scalapack done, status $status ($(date -u +%H:%M:%S))"
  exit "$status"
} 2>&1 | tee "$out/scalapack.log"
exit "${PIPESTATUS[0]}"
