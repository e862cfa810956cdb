/*! \file
    \brief The launchers of the FP64 tensor-core GEMM for one named config, GEMMKIT_INSTANCE_CONFIG; CMake
    compiles this file once per config it builds (dgemm_tensorop_configs.def).
*/
#include "cuda/gemm/dgemm_tensorop.hpp"
#include "cuda/gemm/resident_b.hpp"
#include "cuda/gemm/tensorop_launch.cuh"
#include "cuda/gemm/tile_launch.cuh"
#include "cuda/gemm/transpose.hpp"

#include <cstddef>

namespace gemmkit::gemm {

template <typename Cfg>
std::size_t dgemm_tensorop_split_k_workspace(GemmProblem const& problem) {
  return split_k_workspace_bytes<Cfg, double>(problem);
}

template <typename Cfg>
cudaError_t launch_dgemm_tensorop_split_k(KernelParams<double> const& p, double* workspace, cudaStream_t stream) {
  return launch_split_k<Cfg>(p, workspace, stream, launch_dgemm_tensorop<Cfg>);
}

template <typename Cfg>
cudaError_t launch_dgemm_tensorop(KernelParams<double> const& p, cudaStream_t stream) {
  return launch_tensorop_transposes<Cfg, double>(p, PlainTiles{}, stream);
}

template <typename Cfg>
std::size_t dgemm_tensorop_split_fixup_workspace(GemmProblem const& problem, int slices) {
  bool const both_transposed = is_transposed(problem.trans_a) && is_transposed(problem.trans_b);
  return split_k_fixup_workspace_bytes<Cfg, double>(launched_shape(problem, both_transposed), slices);
}

template <typename Cfg>
cudaError_t launch_dgemm_tensorop_split_fixup(KernelParams<double> const& p, int slices, double* workspace,
                                              cudaStream_t stream) {
  if constexpr (!kDgemmSplitFixup<Cfg>) {
    return cudaErrorNotSupported;  // not built for this config (dgemm_tensorop.hpp)
  } else {
    return launch_split_fixup<Cfg>(p, launched_shape(problem_shape(p), p.trans_a && p.trans_b), slices, workspace,
                                   stream, launch_dgemm_tensorop<Cfg>, launch_tensorop_transposes<Cfg, double, SplitKFixup<double>>);
  }
}

template <typename Cfg>
std::size_t dgemm_tensorop_stream_k_workspace(GemmProblem const& problem) {
  bool const both_transposed = is_transposed(problem.trans_a) && is_transposed(problem.trans_b);
  return stream_k_workspace_bytes<Cfg, double>(launched_shape(problem, both_transposed));
}

template <typename Cfg>
cudaError_t launch_dgemm_tensorop_stream_k(KernelParams<double> const& p, double* workspace, cudaStream_t stream) {
  if constexpr (!kDgemmStreamK<Cfg>) {
    return cudaErrorNotSupported;  // not built for this config (dgemm_tensorop.hpp)
  } else {
    return launch_stream_k<Cfg>(p, launched_shape(problem_shape(p), p.trans_a && p.trans_b), workspace, stream,
                                launch_dgemm_tensorop<Cfg>, launch_tensorop_transposes<Cfg, double, StreamKFixup<double>>);
  }
}

template <typename Cfg>
cudaError_t launch_dgemm_tensorop_resident_b(KernelParams<double> const& p, cudaStream_t stream) {
  if constexpr (!kDgemmResidentB<Cfg>) {
    return cudaErrorNotSupported;  // not built for this config (dgemm_tensorop.hpp)
  } else {
    if (!resident_b_fits<Cfg>(p.k)) return launch_dgemm_tensorop<Cfg>(p, stream);
    return launch_tensorop_transposes<Cfg, double>(p, ResidentBTiles{}, stream);
  }
}

template <typename Cfg>
std::size_t dgemm_tensorop_packed_workspace(GemmProblem const& problem) {
  return packed_workspace_bytes<double>(problem, PackedLayout::kNN);
}

template <typename Cfg>
cudaError_t launch_dgemm_tensorop_packed(KernelParams<double> const& p, double* workspace, cudaStream_t stream) {
  return launch_packed(p, workspace, PackedLayout::kNN, stream, launch_dgemm_tensorop<Cfg>);
}

template <typename Cfg>
std::size_t dgemm_tensorop_packed_stream_k_workspace(GemmProblem const& problem) {
  // Packing keeps m, n, k and whether both operands are transposed (NN's layout turns only NT and
  // TN, into NN), so stream-K's workspace is the unpacked problem's.
  return packed_prefix_bytes<double>(problem, PackedLayout::kNN) + dgemm_tensorop_stream_k_workspace<Cfg>(problem);
}

template <typename Cfg>
cudaError_t launch_dgemm_tensorop_packed_stream_k(KernelParams<double> const& p, double* workspace,
                                                  cudaStream_t stream) {
  return launch_packed(p, workspace, PackedLayout::kNN, stream, launch_dgemm_tensorop_stream_k<Cfg>);
}

using InstanceConfig = GEMMKIT_INSTANCE_CONFIG;
template cudaError_t launch_dgemm_tensorop<InstanceConfig>(KernelParams<double> const&, cudaStream_t);
template cudaError_t launch_dgemm_tensorop_resident_b<InstanceConfig>(KernelParams<double> const&, cudaStream_t);
template std::size_t dgemm_tensorop_split_k_workspace<InstanceConfig>(GemmProblem const&);
template cudaError_t launch_dgemm_tensorop_split_k<InstanceConfig>(KernelParams<double> const&, double*, cudaStream_t);
template std::size_t dgemm_tensorop_packed_workspace<InstanceConfig>(GemmProblem const&);
template cudaError_t launch_dgemm_tensorop_packed<InstanceConfig>(KernelParams<double> const&, double*, cudaStream_t);
template std::size_t dgemm_tensorop_stream_k_workspace<InstanceConfig>(GemmProblem const&);
template cudaError_t launch_dgemm_tensorop_stream_k<InstanceConfig>(KernelParams<double> const&, double*, cudaStream_t);
template std::size_t dgemm_tensorop_packed_stream_k_workspace<InstanceConfig>(GemmProblem const&);
template cudaError_t launch_dgemm_tensorop_packed_stream_k<InstanceConfig>(KernelParams<double> const&, double*,
                                                                           cudaStream_t);
template std::size_t dgemm_tensorop_split_fixup_workspace<InstanceConfig>(GemmProblem const&, int);
template cudaError_t launch_dgemm_tensorop_split_fixup<InstanceConfig>(KernelParams<double> const&, int, double*,
                                                                       cudaStream_t);

}  // namespace gemmkit::gemm
