/*! \file
    \brief The launcher of the FP32 GEMM on the FP64 tensor cores for one configuration, the one at
    index GEMMKIT_SGEMM_TENSOROP_CONFIG_INDEX of SgemmTensorOpConfigs; CMake compiles this file once
    per index.
*/
#include "cuda/gemm/dgemm_tensorop.cuh"
#include "cuda/gemm/sgemm_tensorop.hpp"
#include "cuda/gemm/tile_launch.cuh"
#include "cuda/gemm/transpose.hpp"

namespace gemmkit::gemm {

namespace {

template <typename Cfg, bool kTransA, bool kTransB, bool kCTransposed>
cudaError_t launch_aligned_or_not(KernelParams<float> const& p, cudaStream_t stream) {
  std::int64_t const tiles = ((p.m + Cfg::kBM - 1) / Cfg::kBM) * ((p.n + Cfg::kBN - 1) / Cfg::kBN);
  constexpr std::size_t kSmem = tensorop_smem_bytes<Cfg, float>();
  bool const wide = vector_aligned(p.A, p.lda, p.stride_a, p.batch) && vector_aligned(p.B, p.ldb, p.stride_b, p.batch);
  return wide ? launch_tiles<dgemm_tensorop_kernel<Cfg, kTransA, kTransB, 4, 4, kCTransposed, float>>(
                    p, tiles, Cfg::kThreads, kSmem, stream)
              : launch_tiles<dgemm_tensorop_kernel<Cfg, kTransA, kTransB, 1, 1, kCTransposed, float>>(
                    p, tiles, Cfg::kThreads, kSmem, stream);
}

}  // namespace

/// As the FP64 launcher does, A^T B^T runs as the NN product C^T = B A with C stored transposed.
template <typename Cfg>
cudaError_t launch_sgemm_tensorop(KernelParams<float> const& p, cudaStream_t stream) {
  if (!p.trans_a && !p.trans_b) return launch_aligned_or_not<Cfg, false, false, false>(p, stream);
  if (!p.trans_a && p.trans_b) return launch_aligned_or_not<Cfg, false, true, false>(p, stream);
  if (p.trans_a && !p.trans_b) return launch_aligned_or_not<Cfg, true, false, false>(p, stream);
  return launch_aligned_or_not<Cfg, false, false, true>(transposed_product(p), stream);
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

using InstanceConfig = std::tuple_element_t<GEMMKIT_SGEMM_TENSOROP_CONFIG_INDEX, SgemmTensorOpConfigs>;
template cudaError_t launch_sgemm_tensorop<InstanceConfig>(KernelParams<float> const&, cudaStream_t);
template std::size_t sgemm_tensorop_packed_workspace<InstanceConfig>(GemmProblem const&);
template std::size_t sgemm_tensorop_split_k_workspace<InstanceConfig>(GemmProblem const&);
template cudaError_t launch_sgemm_tensorop_split_k<InstanceConfig>(KernelParams<float> const&, float*, cudaStream_t);
template cudaError_t launch_sgemm_tensorop_packed<InstanceConfig>(KernelParams<float> const&, float*, cudaStream_t);

}  // namespace gemmkit::gemm
