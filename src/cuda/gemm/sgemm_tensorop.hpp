/*! \file
    \brief Host side of the FP32 GEMM on the FP64 tensor cores: float operands converted exactly to
    double in shared memory, m16n8k8 FP64 MMAs, C rounded to float once.
*/
#pragma once

#include "base/problem.hpp"
#include "cuda/gemm/config_forms.hpp"
#include "cuda/gemm/tensorop_config.hpp"
#include "cuda/kernel_params.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>
#include <tuple>
#include <type_traits>

namespace gemmkit::gemm {

/// Every tile config, named (SgemmTensorOp_<name>), from the one list sgemm_tensorop_configs.def;
/// each carries the forms it is built in (kForms).
#define GEMMKIT_SGEMM_TENSOROP_CONFIG(name, arguments, forms)                      \
  struct SgemmTensorOp_##name : TensorOpConfig<GEMMKIT_CONFIG_ARGS arguments> {    \
    static constexpr unsigned kForms = forms;                                      \
    static constexpr char const* kName = #name;                                    \
  };
#include "cuda/gemm/sgemm_tensorop_configs.def"
#undef GEMMKIT_SGEMM_TENSOROP_CONFIG

/// All of them in the list's order.
#define GEMMKIT_SGEMM_TENSOROP_CONFIG(name, arguments, forms) , std::tuple<SgemmTensorOp_##name>()
using SgemmTensorOpConfigs = decltype(std::tuple_cat(std::tuple<>()
#include "cuda/gemm/sgemm_tensorop_configs.def"
                                                     ));
#undef GEMMKIT_SGEMM_TENSOROP_CONFIG
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
/// kept in double, so C is rounded once as in the plain form. Built for the configs with the
/// kStreamK form.
template <typename Cfg>
inline constexpr bool kSgemmTensorOpStreamK = has_form<Cfg>(kStreamK);
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
