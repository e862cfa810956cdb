/*! \file
    \brief Host side of the FP64 tensor-core GEMM: which configs exist and how they are launched.
*/
#pragma once

#include "base/problem.hpp"
#include "cuda/gemm/config_forms.hpp"
#include "cuda/gemm/split_k.hpp"
#include "cuda/gemm/tensorop_config.hpp"
#include "cuda/kernel_params.hpp"

#include <cuda_runtime.h>

#include <tuple>
#include <type_traits>

namespace gemmkit::gemm {

/// Every tile config, named (DgemmTensorOp_<name>), from the one list dgemm_tensorop_configs.def;
/// each carries the forms it is built in (kForms).
#define GEMMKIT_DGEMM_TENSOROP_CONFIG(name, arguments, forms)                      \
  struct DgemmTensorOp_##name : TensorOpConfig<GEMMKIT_CONFIG_ARGS arguments> {    \
    static constexpr unsigned kForms = forms;                                      \
    static constexpr char const* kName = #name;                                    \
  };
#include "cuda/gemm/dgemm_tensorop_configs.def"
#undef GEMMKIT_DGEMM_TENSOROP_CONFIG

/// All of them in the list's order (the model reads every config, built or not).
#define GEMMKIT_DGEMM_TENSOROP_CONFIG(name, arguments, forms) , std::tuple<DgemmTensorOp_##name>()
using DgemmTensorOpConfigs = decltype(std::tuple_cat(std::tuple<>()
#include "cuda/gemm/dgemm_tensorop_configs.def"
                                                     ));
#undef GEMMKIT_DGEMM_TENSOROP_CONFIG
inline constexpr int kDgemmTensorOpConfigCount = std::tuple_size_v<DgemmTensorOpConfigs>;

/// Launches the kernel instance matching the problem's transposes and operand alignment.
template <typename Cfg>
cudaError_t launch_dgemm_tensorop(KernelParams<double> const& params, cudaStream_t stream);

/// Split-K form of the same kernel: partial sums into `workspace`, then a reduction, per batch entry.
template <typename Cfg>
std::size_t dgemm_tensorop_split_k_workspace(GemmProblem const& problem);
template <typename Cfg>
cudaError_t launch_dgemm_tensorop_split_k(KernelParams<double> const& params, double* workspace, cudaStream_t stream);

/// Packed form (packed_operand.hpp): NT and TN first copy their transposed operand into `workspace`
/// in NN's layout, and any operand whose leading dimension is not in whole 16-byte chunks is copied
/// into one in whole 128-byte lines; then the kernel runs on the copies. Aligned NN and TT need no
/// workspace.
template <typename Cfg>
std::size_t dgemm_tensorop_packed_workspace(GemmProblem const& problem);
template <typename Cfg>
cudaError_t launch_dgemm_tensorop_packed(KernelParams<double> const& params, double* workspace, cudaStream_t stream);

/// Split K fixed up in the kernel (SplitKFixup, plan_split_k_fixup): one launch of
/// tiles x `slices` blocks, the slices of a tile summed in order by its last slice; unsplit when K
/// is too short to split. Built for the configs with the kSplitFixup form (each adds a set of
/// kernel instances).
template <typename Cfg>
inline constexpr bool kDgemmSplitFixup = has_form<Cfg>(kSplitFixup);
template <typename Cfg>
std::size_t dgemm_tensorop_split_fixup_workspace(GemmProblem const& problem, int slices);
template <typename Cfg>
cudaError_t launch_dgemm_tensorop_split_fixup(KernelParams<double> const& params, int slices, double* workspace,
                                              cudaStream_t stream);

/// Stream-K form (stream_k.hpp): the tiles of the last one to two waves shared evenly, k-tile by
/// k-tile, by one wave of blocks in the same launch; plain where whole waves fill the GPU. Built for
/// the configs kDgemmStreamK names.
template <typename Cfg>
inline constexpr bool kDgemmStreamK = has_form<Cfg>(kStreamK);
template <typename Cfg>
std::size_t dgemm_tensorop_stream_k_workspace(GemmProblem const& problem);
template <typename Cfg>
cudaError_t launch_dgemm_tensorop_stream_k(KernelParams<double> const& params, double* workspace, cudaStream_t stream);

/// B-resident form (resident_b.hpp): persistent blocks, each keeping one column panel of B in
/// shared memory and streaming its row tiles of A; the plain kernel where the panel does not fit.
/// Built for the configs with the kResidentB form.
template <typename Cfg>
inline constexpr bool kDgemmResidentB = has_form<Cfg>(kResidentB);
template <typename Cfg>
cudaError_t launch_dgemm_tensorop_resident_b(KernelParams<double> const& params, cudaStream_t stream);

/// The stream-K form on packed operands (the packed form's copies, then stream-K on them): for odd
/// leading dimensions where 128x64 tiles leave the last wave mostly empty (4097).
template <typename Cfg>
std::size_t dgemm_tensorop_packed_stream_k_workspace(GemmProblem const& problem);
template <typename Cfg>
cudaError_t launch_dgemm_tensorop_packed_stream_k(KernelParams<double> const& params, double* workspace,
                                                  cudaStream_t stream);

/// True when the grid for this config fits (tiles of one problem index a 31-bit grid.x).
template <typename Cfg>
bool dgemm_tensorop_can_implement(GemmProblem const& problem) {
  std::int64_t const tiles = ((problem.m + Cfg::kBM - 1) / Cfg::kBM) * ((problem.n + Cfg::kBN - 1) / Cfg::kBN);
  return problem.dtype == Dtype::kF64 && tiles <= 2147483647;
}

}  // namespace gemmkit::gemm
