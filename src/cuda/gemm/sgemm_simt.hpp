/*! \file
    \brief Host side of the FP32 SIMT GEMM: which configs exist and how they are launched.
*/
#pragma once

#include "base/problem.hpp"
#include "cuda/gemm/simt_config.hpp"
#include "cuda/kernel_params.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <tuple>
#include <type_traits>

namespace gemmkit::gemm {

/// Every registered configuration, as data: CMake compiles one instance file per entry and the
/// registry adds one variant per entry (id suffix = Cfg::name()).
/// BM, BN, BK, warp M, warp N, thread M, thread N, stages[, blocks per SM].
/// 32x32 b8 (with its split fixups) runs the sizes up to about 448^3; 64x32 b6 was swept beside it and
/// never ahead (docs/dgemm.md, "FP32 below 1024^3").
using SgemmSimtConfigs = std::tuple<SimtConfig<128, 128, 16, 32, 64, 8, 8, 3, 2>, //
                                    SimtConfig<128, 128, 16, 32, 64, 8, 8, 4, 2>, //
                                    SimtConfig<128, 128, 32, 32, 64, 8, 8, 3, 2>, //
                                    SimtConfig<128, 64, 16, 32, 32, 8, 4, 3, 3>,  //
                                    SimtConfig<64, 64, 16, 32, 32, 8, 4, 3, 5>,   //
                                    SimtConfig<256, 128, 16, 64, 64, 16, 8, 3, 1>, //
                                    SimtConfig<32, 32, 16, 32, 16, 4, 4, 3, 8>>;
inline constexpr int kSgemmSimtConfigCount = std::tuple_size_v<SgemmSimtConfigs>;

/// Launches the kernel instance matching the problem's transposes and operand alignment.
template <typename Cfg>
cudaError_t launch_sgemm_simt(KernelParams<float> const& params, cudaStream_t stream);

/// Split-K form of the same kernel (split_k.hpp): partial sums into `workspace`, then a reduction.
template <typename Cfg>
std::size_t sgemm_simt_split_k_workspace(GemmProblem const& problem);
template <typename Cfg>
cudaError_t launch_sgemm_simt_split_k(KernelParams<float> const& params, float* workspace, cudaStream_t stream);

/// Operand packing (packed_operand.hpp): K-contiguous operands (B in NN, A and B in TN, A in TT)
/// are transposed into `workspace` first, and operands with odd leading dimensions copied into
/// aligned ones, so the NT instance runs with 16-byte copies.
template <typename Cfg>
std::size_t sgemm_simt_packed_workspace(GemmProblem const& problem);
template <typename Cfg>
cudaError_t launch_sgemm_simt_packed(KernelParams<float> const& params, float* workspace, cudaStream_t stream);

/// Split K fixed up in the kernel (dgemm_tensorop.hpp says how): built for the configs
/// kSgemmSplitFixup names.
template <typename Cfg>
inline constexpr bool kSgemmSplitFixup = std::is_same_v<Cfg, std::tuple_element_t<1, SgemmSimtConfigs>> ||  // 128x128 s4 b2
                                         std::is_same_v<Cfg, std::tuple_element_t<4, SgemmSimtConfigs>> ||  // 64x64 b5
                                         std::is_same_v<Cfg, std::tuple_element_t<6, SgemmSimtConfigs>>;    // 32x32 b8
template <typename Cfg>
std::size_t sgemm_simt_split_fixup_workspace(GemmProblem const& problem, int slices);
template <typename Cfg>
cudaError_t launch_sgemm_simt_split_fixup(KernelParams<float> const& params, int slices, float* workspace,
                                          cudaStream_t stream);

/// Stream-K form (stream_k.hpp, dgemm_tensorop.hpp says how), and the same on packed operands:
/// built for the configs kSgemmStreamK names.
template <typename Cfg>
inline constexpr bool kSgemmStreamK = std::is_same_v<Cfg, std::tuple_element_t<1, SgemmSimtConfigs>>;  // 128x128 s4 b2
template <typename Cfg>
std::size_t sgemm_simt_stream_k_workspace(GemmProblem const& problem);
template <typename Cfg>
cudaError_t launch_sgemm_simt_stream_k(KernelParams<float> const& params, float* workspace, cudaStream_t stream);
template <typename Cfg>
std::size_t sgemm_simt_packed_stream_k_workspace(GemmProblem const& problem);
template <typename Cfg>
cudaError_t launch_sgemm_simt_packed_stream_k(KernelParams<float> const& params, float* workspace,
                                              cudaStream_t stream);

/// True when the grid for this config fits (tiles of one problem index a 31-bit grid.x).
template <typename Cfg>
bool sgemm_simt_can_implement(GemmProblem const& problem) {
  std::int64_t const tiles = ((problem.m + Cfg::kBM - 1) / Cfg::kBM) * ((problem.n + Cfg::kBN - 1) / Cfg::kBN);
  return problem.dtype == Dtype::kF32 && tiles <= 2147483647;
}

}  // namespace gemmkit::gemm
