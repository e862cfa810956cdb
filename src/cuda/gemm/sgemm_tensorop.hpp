/*! \file
    \brief Host side of the FP32 GEMM on the FP64 tensor cores: float operands converted exactly to
    double in shared memory, m16n8k8 FP64 MMAs, C rounded to float once.
*/
#pragma once

#include "base/problem.hpp"
#include "cuda/gemm/tensorop_config.hpp"
#include "cuda/kernel_params.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>

namespace gemmkit::gemm {

/// Every registered configuration, as data; CMake compiles one instance file per entry, and the
/// registry adds one variant each. BM, BN, BK, warp M, warp N, stages, blocks per SM, two-level
/// prefetch (off), MMA depth 8. Swept at 2d36712 (bench/results/h100/logs/sgemm-sweep-tensorop-
/// 2d36712.jsonl) with two more of the FP64 kernel's m16n8k8 configs: 128x64 w64x32 s3 b2 ran within
/// 1 % of s4, and 128x64 w32x32 s4 at one block per SM 15-25 % behind; 32x32x32 w32x16 s3 b4 was behind
/// the SIMT 32x32 split below 1024^3, and the FP64 kernel's 1024^3 pick (128x64 w32x32 s4, one block
/// per SM) behind 64x64 b3 and the SIMT splits from 896^3 to 2048^3 (docs/dgemm.md, "FP32 below 1024^3").
using SgemmTensorOpConfigs = std::tuple<TensorOpConfig<128, 64, 16, 64, 32, 4, 2, false, 8>,  //
                                        TensorOpConfig<64, 64, 16, 32, 32, 4, 3, false, 8>>;
inline constexpr int kSgemmTensorOpConfigCount = std::tuple_size_v<SgemmTensorOpConfigs>;

/// Launches the instance for the problem's transposes and operand alignment (16-byte copies when
/// both operands allow them, else 4-byte ones).
template <typename Cfg>
cudaError_t launch_sgemm_tensorop(KernelParams<float> const& params, cudaStream_t stream);

/// Packed form (packed_operand.hpp, NN's layout as for the FP64 kernel): NT and TN transpose their
/// transposed operand into `workspace`, and an operand whose leading dimension is no whole number of
/// 16-byte chunks is copied into one that is; then the 16-byte instance runs on the copies.
template <typename Cfg>
std::size_t sgemm_tensorop_packed_workspace(GemmProblem const& problem);
template <typename Cfg>
cudaError_t launch_sgemm_tensorop_packed(KernelParams<float> const& params, float* workspace, cudaStream_t stream);

/// Split-K form (two passes): each K slice's partial product, summed in double and rounded to float,
/// into `workspace`, then the slices added in order in float with alpha and beta (so C is rounded
/// once per slice, as the FP32 kernels' splits do).
template <typename Cfg>
std::size_t sgemm_tensorop_split_k_workspace(GemmProblem const& problem);
template <typename Cfg>
cudaError_t launch_sgemm_tensorop_split_k(KernelParams<float> const& params, float* workspace, cudaStream_t stream);

/// Stream-K form (stream_k.hpp, as the FP64 kernel's), and the same on packed operands: partial tiles
/// kept in double, so C is rounded once as in the plain form. Built for the configs
/// kSgemmTensorOpStreamK names.
template <typename Cfg>
inline constexpr bool kSgemmTensorOpStreamK = std::is_same_v<Cfg, std::tuple_element_t<0, SgemmTensorOpConfigs>>;  // 128x64 b2
template <typename Cfg>
std::size_t sgemm_tensorop_stream_k_workspace(GemmProblem const& problem);
template <typename Cfg>
cudaError_t launch_sgemm_tensorop_stream_k(KernelParams<float> const& params, float* workspace, cudaStream_t stream);
template <typename Cfg>
std::size_t sgemm_tensorop_packed_stream_k_workspace(GemmProblem const& problem);
template <typename Cfg>
cudaError_t launch_sgemm_tensorop_packed_stream_k(KernelParams<float> const& params, float* workspace,
                                                  cudaStream_t stream);

/// True for FP32 problems whose tiles of one problem fit a 31-bit grid.x.
template <typename Cfg>
bool sgemm_tensorop_can_implement(GemmProblem const& problem) {
  std::int64_t const tiles = ((problem.m + Cfg::kBM - 1) / Cfg::kBM) * ((problem.n + Cfg::kBN - 1) / Cfg::kBN);
  return problem.dtype == Dtype::kF32 && tiles <= 2147483647;
}

}  // namespace gemmkit::gemm
