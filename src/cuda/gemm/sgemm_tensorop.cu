/*! \file
    \brief The launcher of the FP32 GEMM on the FP64 tensor cores for one configuration, the one at
    index GEMMKIT_SGEMM_TENSOROP_CONFIG_INDEX of SgemmTensorOpConfigs; CMake compiles this file once
    per index.
*/
#include "cuda/gemm/dgemm_tensorop.cuh"
#include "cuda/gemm/sgemm_tensorop.hpp"
#include "cuda/gemm/tile_launch.cuh"
#include "cuda/gemm/transpose.hpp"

#include <type_traits>

namespace gemmkit::gemm {

namespace {

/// What a launch form passes its kernel besides the params: nothing (the plain kernel) or the
/// stream-K plan with its double partial tiles.
struct Plain {};

template <typename Cfg, bool kTransA, bool kTransB, bool kCTransposed, int kVec, typename Extra>
cudaError_t launch_instance(KernelParams<float> const& p, Extra const& extra, cudaStream_t stream) {
  constexpr std::size_t kSmem = tensorop_smem_bytes<Cfg, float>();
  if constexpr (std::is_same_v<Extra, StreamKFixup<double>>) {
    return launch_tiles<dgemm_tensorop_stream_k_kernel<Cfg, kTransA, kTransB, kVec, kVec, kCTransposed, float>>(
        p, extra.plan.blocks(), Cfg::kThreads, kSmem, stream, extra);
  } else {
    std::int64_t const tiles = ((p.m + Cfg::kBM - 1) / Cfg::kBM) * ((p.n + Cfg::kBN - 1) / Cfg::kBN);
    return launch_tiles<dgemm_tensorop_kernel<Cfg, kTransA, kTransB, kVec, kVec, kCTransposed, float>>(
        p, tiles, Cfg::kThreads, kSmem, stream);
  }
}

/// 16-byte copies when both operands allow them, else 4-byte ones.
template <typename Cfg, bool kTransA, bool kTransB, bool kCTransposed, typename Extra>
cudaError_t launch_aligned_or_not(KernelParams<float> const& p, Extra const& extra, cudaStream_t stream) {
  bool const wide = vector_aligned(p.A, p.lda, p.stride_a, p.batch) && vector_aligned(p.B, p.ldb, p.stride_b, p.batch);
  return wide ? launch_instance<Cfg, kTransA, kTransB, kCTransposed, 4>(p, extra, stream)
              : launch_instance<Cfg, kTransA, kTransB, kCTransposed, 1>(p, extra, stream);
}

/// As the FP64 launcher does, A^T B^T runs as the NN product C^T = B A with C stored transposed.
template <typename Cfg, typename Extra>
cudaError_t launch_transposes(KernelParams<float> const& p, Extra const& extra, cudaStream_t stream) {
  if (!p.trans_a && !p.trans_b) return launch_aligned_or_not<Cfg, false, false, false>(p, extra, stream);
  if (!p.trans_a && p.trans_b) return launch_aligned_or_not<Cfg, false, true, false>(p, extra, stream);
  if (p.trans_a && !p.trans_b) return launch_aligned_or_not<Cfg, true, false, false>(p, extra, stream);
  return launch_aligned_or_not<Cfg, false, false, true>(transposed_product(p), extra, stream);
}

}  // namespace

template <typename Cfg>
cudaError_t launch_sgemm_tensorop(KernelParams<float> const& p, cudaStream_t stream) {
  return launch_transposes<Cfg>(p, Plain{}, stream);
}

template <typename Cfg>
std::size_t sgemm_tensorop_packed_workspace(GemmProblem const& problem) {
  return packed_workspace_bytes<float>(problem, PackedLayout::kNN);
}

template <typename Cfg>
cudaError_t launch_sgemm_tensorop_packed(KernelParams<float> const& p, float* workspace, cudaStream_t stream) {
  return launch_packed(p, workspace, PackedLayout::kNN, stream, launch_sgemm_tensorop<Cfg>);
}

template <typename Cfg>
std::size_t sgemm_tensorop_split_k_workspace(GemmProblem const& problem) {
  return split_k_workspace_bytes<Cfg, float>(problem);
}

template <typename Cfg>
cudaError_t launch_sgemm_tensorop_split_k(KernelParams<float> const& p, float* workspace, cudaStream_t stream) {
  return launch_split_k<Cfg>(p, workspace, stream, launch_sgemm_tensorop<Cfg>);
}

template <typename Cfg>
std::size_t sgemm_tensorop_stream_k_workspace(GemmProblem const& problem) {
  bool const both_transposed = is_transposed(problem.trans_a) && is_transposed(problem.trans_b);
  return stream_k_workspace_bytes<Cfg, double>(launched_shape(problem, both_transposed));
}

template <typename Cfg>
cudaError_t launch_sgemm_tensorop_stream_k(KernelParams<float> const& p, float* workspace, cudaStream_t stream) {
  if constexpr (!kSgemmTensorOpStreamK<Cfg>) {
    return cudaErrorNotSupported;  // not built for this config (sgemm_tensorop.hpp)
  } else {
    return launch_stream_k<Cfg>(p, launched_shape(problem_shape(p), p.trans_a && p.trans_b), workspace, stream,
                                launch_sgemm_tensorop<Cfg>, launch_transposes<Cfg, StreamKFixup<double>>);
  }
}

template <typename Cfg>
std::size_t sgemm_tensorop_packed_stream_k_workspace(GemmProblem const& problem) {
  // As for the FP64 form: packing keeps the shape and whether both operands are transposed.
  return packed_prefix_bytes<float>(problem, PackedLayout::kNN) + sgemm_tensorop_stream_k_workspace<Cfg>(problem);
}

template <typename Cfg>
cudaError_t launch_sgemm_tensorop_packed_stream_k(KernelParams<float> const& p, float* workspace, cudaStream_t stream) {
  return launch_packed(p, workspace, PackedLayout::kNN, stream, launch_sgemm_tensorop_stream_k<Cfg>);
}

using InstanceConfig = std::tuple_element_t<GEMMKIT_SGEMM_TENSOROP_CONFIG_INDEX, SgemmTensorOpConfigs>;
template cudaError_t launch_sgemm_tensorop<InstanceConfig>(KernelParams<float> const&, cudaStream_t);
template std::size_t sgemm_tensorop_packed_workspace<InstanceConfig>(GemmProblem const&);
template std::size_t sgemm_tensorop_split_k_workspace<InstanceConfig>(GemmProblem const&);
template cudaError_t launch_sgemm_tensorop_split_k<InstanceConfig>(KernelParams<float> const&, float*, cudaStream_t);
template cudaError_t launch_sgemm_tensorop_packed<InstanceConfig>(KernelParams<float> const&, float*, cudaStream_t);
template std::size_t sgemm_tensorop_stream_k_workspace<InstanceConfig>(GemmProblem const&);
template cudaError_t launch_sgemm_tensorop_stream_k<InstanceConfig>(KernelParams<float> const&, float*, cudaStream_t);
template std::size_t sgemm_tensorop_packed_stream_k_workspace<InstanceConfig>(GemmProblem const&);
template cudaError_t launch_sgemm_tensorop_packed_stream_k<InstanceConfig>(KernelParams<float> const&, float*,
                                                                           cudaStream_t);

}  // namespace gemmkit::gemm
