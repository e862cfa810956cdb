/*! \file
    \brief The seeds' optimisation ladder for GEMM: configs and launchers of each step.
*/
#pragma once

#include "cuda/kernel_params.hpp"
#include "cuda/ladder/ladder_config.hpp"

#include <cuda_runtime.h>

namespace gemmkit::ladder {

template <typename T>
using Params = KernelParams<T>;

/// Step 01: one thread per element of C, operands read straight from global memory.
struct NaiveConfig {
  static constexpr int kBlockM = 16;  ///< threads along the rows of C (the coalesced direction)
  static constexpr int kBlockN = 16;
  static constexpr int kThreads = kBlockM * kBlockN;
  static constexpr bool valid() { return kThreads <= 1024 && kBlockM % 16 == 0; }
  template <typename T>
  static constexpr std::size_t smem_bytes() { return 0; }
};

/// Step 02 (seed 002): square kTile x kTile tiles of A and B staged in shared memory, one
/// element of C per thread.
template <int Tile_>
struct TiledConfig {
  static constexpr int kTile = Tile_;
  static constexpr int kThreads = kTile * kTile;
  static constexpr bool valid() { return kTile >= 8 && kTile <= 32 && kThreads <= 1024; }
  /// A tile (BK, BM+1) and B tile (BN, BK+1): the +1 column keeps transposed stores conflict-free.
  template <typename T>
  static constexpr std::size_t smem_bytes() { return 2 * std::size_t(kTile) * (kTile + 1) * sizeof(T); }
};

/// Steps 03-06 (RegisterBlockedConfig in ladder_config.hpp): the register-blocked kernel with its
/// optimisations added one by one, each step's tile routine in its own file (03_register_blocked.cu
/// ... 06_shared_prefetch.cu) over the pieces they share (register_blocked.cuh).
template <typename Cfg, typename T>
cudaError_t launch_register_blocked(KernelParams<T> const& params, cudaStream_t stream);

/// Registers per thread and local-memory (spill) bytes the compiled kernel of a step has on this
/// device, for the model and the ladder table.
template <typename Cfg, typename T>
cudaError_t register_blocked_attributes(cudaFuncAttributes* attributes);

template <typename T>
cudaError_t launch_naive(Params<T> const& params, cudaStream_t stream);

template <typename T, typename Cfg>
cudaError_t launch_tiled(Params<T> const& params, cudaStream_t stream);

}  // namespace gemmkit::ladder
