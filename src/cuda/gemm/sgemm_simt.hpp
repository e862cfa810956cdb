/*! \file
    \brief Host side of the FP32 SIMT GEMM: which configs exist and how they are launched.
*/
#pragma once

#include "base/problem.hpp"
#include "cuda/gemm/config_forms.hpp"
#include "cuda/gemm/simt_config.hpp"
#include "cuda/kernel_params.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <tuple>
#include <type_traits>

namespace gemmkit::gemm {

/// Every tile config, named (SgemmSimt_<name>), from the one list sgemm_simt_configs.def; each
/// carries the forms it is built in (kForms).
#define GEMMKIT_SGEMM_SIMT_CONFIG(name, arguments, forms)                     \
  struct SgemmSimt_##name : SimtConfig<GEMMKIT_CONFIG_ARGS arguments> {       \
    static constexpr unsigned kForms = forms;                                 \
    static constexpr char const* kName = #name;                               \
  };
#include "cuda/gemm/sgemm_simt_configs.def"
#undef GEMMKIT_SGEMM_SIMT_CONFIG

/// All of them in the list's order.
#define GEMMKIT_SGEMM_SIMT_CONFIG(name, arguments, forms) , std::tuple<SgemmSimt_##name>()
using SgemmSimtConfigs = decltype(std::tuple_cat(std::tuple<>()
#include "cuda/gemm/sgemm_simt_configs.def"
                                                 ));
#undef GEMMKIT_SGEMM_SIMT_CONFIG
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

/// Split K fixed up in the kernel (dgemm_tensorop.hpp says how): built for the configs with the
/// kSplitFixup form.
template <typename Cfg>
inline constexpr bool kSgemmSplitFixup = has_form<Cfg>(kSplitFixup);
template <typename Cfg>
std::size_t sgemm_simt_split_fixup_workspace(GemmProblem const& problem, int slices);
template <typename Cfg>
cudaError_t launch_sgemm_simt_split_fixup(KernelParams<float> const& params, int slices, float* workspace,
                                          cudaStream_t stream);

/// Stream-K form (stream_k.hpp, dgemm_tensorop.hpp says how), and the same on packed operands:
/// built for the configs with the kStreamK form.
template <typename Cfg>
inline constexpr bool kSgemmStreamK = has_form<Cfg>(kStreamK);
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
