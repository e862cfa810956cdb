/*! \file
    \brief The launchers of the FP32 GEMM on FP64 tensor cores for one named config, GEMMKIT_INSTANCE_CONFIG; CMake
    compiles this file once per config it builds (sgemm_tensorop_configs.def).
*/
#include "cuda/gemm/sgemm_tensorop.hpp"
#include "cuda/gemm/tensorop_launch.cuh"
#include "cuda/gemm/tile_launch.cuh"
#include "cuda/gemm/transpose.hpp"

#include <cstddef>

namespace gemmkit::gemm {

template <typename Cfg>
cudaError_t launch_sgemm_tensorop(KernelParams<float> const& p, cudaStream_t stream) {
  return launch_tensorop_transposes<Cfg, float>(p, PlainTiles{}, stream);
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
                                launch_sgemm_tensorop<Cfg>, launch_tensorop_transposes<Cfg, float, StreamKFixup<double>>);
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

using InstanceConfig = GEMMKIT_INSTANCE_CONFIG;
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
