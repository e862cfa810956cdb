/*! \file
    \brief Host side of the FP64 tensor-core GEMM: which configs exist and how they are launched.
*/
#pragma once

#include "core/problem.hpp"
#include "cuda/gemm/tensorop_config.hpp"
#include "cuda/kernel_params.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <tuple>

namespace gemmkit::gemm {

/// Every registered configuration, as data: CMake compiles one instance file per entry (in
/// parallel) and the registry adds one variant per entry (id suffix = Cfg::name()).
/// BM, BN, BK, warp M, warp N, stages[, blocks per SM[, two-level fragment prefetch]].
using DgemmTensorOpConfigs = std::tuple<TensorOpConfig<128, 128, 16, 32, 64, 3>,  //
                                        TensorOpConfig<128, 128, 16, 32, 64, 4>,  //
                                        TensorOpConfig<128, 128, 32, 32, 64, 3>,  //
                                        TensorOpConfig<128, 64, 16, 32, 32, 4, 2>, //
                                        TensorOpConfig<128, 64, 16, 32, 32, 4>,   //
                                        TensorOpConfig<64, 128, 16, 32, 32, 4>,   //
                                        TensorOpConfig<64, 64, 16, 32, 32, 4>,    //
                                        TensorOpConfig<64, 64, 32, 32, 32, 3>,    //
                                        TensorOpConfig<64, 64, 16, 32, 32, 4, 3>, //
                                        TensorOpConfig<128, 128, 16, 32, 32, 4>,  //
                                        TensorOpConfig<64, 128, 16, 32, 32, 4, 2>, //
                                        TensorOpConfig<64, 64, 16, 32, 32, 3, 4>, //
                                        TensorOpConfig<32, 32, 16, 16, 16, 3, 8>, //
                                        TensorOpConfig<64, 64, 16, 32, 32, 4, 3, true>, //
                                        TensorOpConfig<128, 128, 16, 32, 64, 4, 1, true>>;
inline constexpr int kDgemmTensorOpConfigCount = std::tuple_size_v<DgemmTensorOpConfigs>;

/// Launches the kernel instance matching the problem's transposes and operand alignment.
template <typename Cfg>
cudaError_t launch_dgemm_tensorop(KernelParams<double> const& params, cudaStream_t stream);

/// How split-K divides K: `slices` slices of `slice` elements (a multiple of BK; the last may be
/// shorter). Chosen so tiles x slices fills one wave (kBlocksPerSm blocks on every SM: a second,
/// partial wave would cost as much as a full one) while every slice keeps at least
/// kMinKTilesPerSlice k-tiles; a function of the problem and the SM count only, so the same call
/// always splits the same way (deterministic results).
struct SplitK {
  std::int64_t slices = 1;
  std::int64_t slice = 0;
};

template <typename Cfg>
SplitK plan_split_k(GemmProblem const& problem, int sm_count) {
  constexpr std::int64_t kMinKTilesPerSlice = 8;
  std::int64_t const tiles = ((problem.m + Cfg::kBM - 1) / Cfg::kBM) * ((problem.n + Cfg::kBN - 1) / Cfg::kBN);
  std::int64_t const k_tiles = (problem.k + Cfg::kBK - 1) / Cfg::kBK;
  std::int64_t slices = std::int64_t(Cfg::kBlocksPerSm) * sm_count / tiles;
  slices = std::min<std::int64_t>({slices, k_tiles / kMinKTilesPerSlice, 65535});
  if (slices < 1) slices = 1;
  std::int64_t const slice = ((k_tiles + slices - 1) / slices) * Cfg::kBK;
  return SplitK{(problem.k + slice - 1) / slice, slice};
}

/// Split-K form of the same kernel: partial sums into `workspace`, then a reduction, per batch entry.
template <typename Cfg>
std::size_t dgemm_tensorop_split_k_workspace(GemmProblem const& problem);
template <typename Cfg>
cudaError_t launch_dgemm_tensorop_split_k(KernelParams<double> const& params, double* workspace, cudaStream_t stream);

/// True when the grid for this config fits (tiles of one problem index a 31-bit grid.x).
template <typename Cfg>
bool dgemm_tensorop_can_implement(GemmProblem const& problem) {
  std::int64_t const tiles = ((problem.m + Cfg::kBM - 1) / Cfg::kBM) * ((problem.n + Cfg::kBN - 1) / Cfg::kBN);
  return problem.dtype == Dtype::kF64 && tiles <= 2147483647;
}

}  // namespace gemmkit::gemm
