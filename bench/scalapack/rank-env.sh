#!/usr/bin/env bash
# Per-rank environment for an MPI program over gemmkit's BLAS: mpirun starts this script, which sets
# what differs between ranks and execs the program. Settings (all optional, passed with mpirun -x):
#   GEMMKIT_RANK_GPUS=0,1,2,3      CUDA_VISIBLE_DEVICES = the (local rank mod count)-th entry: one GPU
#                                  per rank on a node (ranks beyond the count share round-robin)
#   GEMMKIT_RANK_PRELOAD=<lib.so>  prepended to LD_PRELOAD for the program only (not for mpirun,
#                                  orted or this shell)
#   GEMMKIT_RANK_TRACE=<prefix>    GEMMKIT_BLAS_TRACE=<prefix>.<rank>.jsonl, one trace file per rank
# Usage: mpirun -np 8 -x GEMMKIT_RANK_GPUS=0,1,2,3,4,5,6,7 bench/scalapack/rank-env.sh ./app args
set -euo pipefail
rank="${OMPI_COMM_WORLD_RANK:-${PMIX_RANK:-${PMI_RANK:-${SLURM_PROCID:-0}}}}"
local_rank="${OMPI_COMM_WORLD_LOCAL_RANK:-${MPI_LOCALRANKID:-${SLURM_LOCALID:-0}}}"
if [[ -n "${GEMMKIT_RANK_GPUS:-}" ]]; then
  IFS=, read -r -a gpus <<<"$GEMMKIT_RANK_GPUS"
  export CUDA_VISIBLE_DEVICES="${gpus[local_rank % ${#gpus[@]}]}"
fi
if [[ -n "${GEMMKIT_RANK_TRACE:-}" ]]; then
  export GEMMKIT_BLAS_TRACE="$GEMMKIT_RANK_TRACE.$rank.jsonl"
fi
if [[ -n "${GEMMKIT_RANK_PRELOAD:-}" ]]; then
  export LD_PRELOAD="$GEMMKIT_RANK_PRELOAD${LD_PRELOAD:+:$LD_PRELOAD}"
fi
exec "$@"
