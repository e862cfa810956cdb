#!/usr/bin/env bash
# Runs pdgemm_check under mpirun with a chosen BLAS and proves from gemmkit's trace that ScaLAPACK's
# local DGEMMs went through gemmkit. Exit 77 (CTest skip) when mpirun is missing, or with --gpu when
# `nvidia-smi -L` fails; 1 when the check or the trace fails.
# Usage: run_pdgemm_test.sh --ranks N --blas preload|folder|system [--lib libgemmkit_blas.so.0]
#          [--alt-dir as-libblas] [--route cpu|host-resident] [--gpu] [--crossover X] --work DIR
#          --wrapper rank-env.sh [--mpirun PATH] -- pdgemm_check [args]
#   preload: LD_PRELOAD=--lib for each rank; folder: LD_LIBRARY_PATH=--alt-dir, whose libblas.so.3
#   replaces the one libscalapack links; system: the BLAS the system links (no trace check).
#   --route: every rank's trace must hold dgemm calls with this route, and none with route "error"
#   (gemmkit could not run the call; it says why on stderr).
set -euo pipefail
ranks=2 blas=system lib="" alt_dir="" route="" gpu=0 crossover="" work="" wrapper="" mpirun=mpirun
while [[ $# -gt 0 ]]; do
  case "$1" in
    --ranks) ranks="$2"; shift 2 ;;
    --blas) blas="$2"; shift 2 ;;
    --lib) lib="$2"; shift 2 ;;
    --alt-dir) alt_dir="$2"; shift 2 ;;
    --route) route="$2"; shift 2 ;;
    --gpu) gpu=1; shift ;;
    --crossover) crossover="$2"; shift 2 ;;
    --work) work="$2"; shift 2 ;;
    --wrapper) wrapper="$2"; shift 2 ;;
    --mpirun) mpirun="$2"; shift 2 ;;
    --) shift; break ;;
    *) echo "run_pdgemm_test: unknown argument '$1'" >&2; exit 2 ;;
  esac
done
[[ $# -ge 1 && -n "$work" && -n "$wrapper" ]] || { echo "run_pdgemm_test: see the usage in $0" >&2; exit 2; }
exe="$1"

if ! command -v "$mpirun" >/dev/null 2>&1; then
  echo "skipped: no mpirun ($mpirun)"; exit 77
fi
if [[ "$gpu" == 1 ]] && ! nvidia-smi -L >/dev/null 2>&1; then
  echo "skipped: nvidia-smi -L finds no GPU"; exit 77
fi

rm -rf "$work" && mkdir -p "$work"
# The library's settings come from the test alone (locally started ranks inherit this environment).
unset GEMMKIT_BLAS GEMMKIT_BLAS_CONFIG GEMMKIT_BLAS_CROSSOVER GEMMKIT_BLAS_TRACE GEMMKIT_BLAS_GPUS LD_PRELOAD
run_env=(-x OPENBLAS_NUM_THREADS=1 -x OMP_NUM_THREADS=1)
case "$blas" in
  preload)
    [[ -f "$lib" ]] || { echo "no BLAS library at '$lib'" >&2; exit 1; }
    run_env+=(-x GEMMKIT_RANK_PRELOAD="$lib") ;;
  folder)
    [[ -e "$alt_dir/libblas.so.3" ]] || { echo "no libblas.so.3 in '$alt_dir'" >&2; exit 1; }
    # libscalapack links libblas.so.3 by name: the folder's copy must be the one the loader picks.
    loaded="$(LD_LIBRARY_PATH="$alt_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ldd "$exe" | grep 'libblas\.so\.3')"
    echo "ldd: $loaded"
    [[ "$loaded" == *"$alt_dir/libblas.so.3"* ]] ||
      { echo "pdgemm_check does not load libblas.so.3 from $alt_dir" >&2; exit 1; }
    export LD_LIBRARY_PATH="$alt_dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
    run_env+=(-x LD_LIBRARY_PATH) ;;
  system) ;;
  *) echo "run_pdgemm_test: --blas preload|folder|system" >&2; exit 2 ;;
esac
[[ -n "$route" ]] && run_env+=(-x GEMMKIT_RANK_TRACE="$work/trace")
[[ -n "$crossover" ]] && run_env+=(-x GEMMKIT_BLAS_CROSSOVER="$crossover")

# One host, shared memory only, no binding (a container's CPU set may not allow it), no ssh.
export OMPI_MCA_plm=isolated OMPI_MCA_pml=ob1 OMPI_MCA_btl=self,vader
export OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_hwloc_base_binding_policy=none
export OMPI_MCA_rmaps_base_oversubscribe=1
root=()
[[ "$(id -u)" -eq 0 ]] && root=(--allow-run-as-root)
set -x
"$mpirun" "${root[@]}" --oversubscribe -np "$ranks" "${run_env[@]}" bash "$wrapper" "$@"
{ set +x; } 2>/dev/null

[[ -z "$route" ]] && exit 0
# Count each rank's DGEMM calls (routine dgemm or dgemm_) by route.
status=0
for ((rank = 0; rank < ranks; ++rank)); do
  trace="$work/trace.$rank.jsonl"
  if [[ ! -s "$trace" ]]; then
    echo "rank $rank: no trace at $trace: ScaLAPACK did not call gemmkit" >&2; status=1; continue
  fi
  counts="$(awk '
    function field(key,   s) {
      if (!match($0, "\"" key "\"[ \t]*:[ \t]*\"[^\"]*\"")) return ""
      s = substr($0, RSTART, RLENGTH); sub(/^[^:]*:[ \t]*"/, "", s); sub(/"$/, "", s); return s
    }
    { routine = tolower(field("routine")); if (routine == "dgemm" || routine == "dgemm_") { ++by[field("route")]; ++all } }
    END { printf "%d", all; for (r in by) printf " %s=%d", r, by[r] }' "$trace")"
  echo "rank $rank: dgemm calls: $counts"
  [[ " $counts " == *" $route="[1-9]* ]] ||
    { echo "rank $rank: no dgemm call with route \"$route\" in $trace" >&2; status=1; }
  [[ " $counts " != *" error="* ]] ||
    { echo "rank $rank: dgemm calls gemmkit could not run (route \"error\") in $trace" >&2; status=1; }
done
exit "$status"
