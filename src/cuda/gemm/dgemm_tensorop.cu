/*! \file
    \brief The launcher of the FP64 tensor-core GEMM for one configuration, the one at index
    GEMMKIT_DGEMM_CONFIG_INDEX of DgemmTensorOpConfigs; CMake compiles this file once per index.
*/
#include "cuda/gemm/dgemm_tensorop.cuh"
#include "cuda/gemm/dgemm_tensorop.hpp"
#include "cuda/gemm/tile_launch.cuh"

#include <cstdint>

namespace gemmkit::gemm {

namespace {

template <typename Cfg, bool kTransA, bool kTransB, int kVec>
cudaError_t launch_instance(KernelParams<double> const& p, cudaStream_t stream) {
  std::int64_t const tiles = ((p.m + Cfg::kBM - 1) / Cfg::kBM) * ((p.n + Cfg::kBN - 1) / Cfg::kBN);
  return launch_tiles<dgemm_tensorop_kernel<Cfg, kTransA, kTransB, kVec, kVec>>(p, tiles, Cfg::kThreads,
                                                                               Cfg::smem_bytes(), stream);
}

template <typename Cfg, bool kTransA, bool kTransB>
cudaError_t launch_aligned_or_not(KernelParams<double> const& p, cudaStream_t stream) {
  bool const wide = vector_aligned(p.A, p.lda, p.stride_a, p.batch) && vector_aligned(p.B, p.ldb, p.stride_b, p.batch);
  return wide ? launch_instance<Cfg, kTransA, kTransB, 2>(p, stream) : launch_instance<Cfg, kTransA, kTransB, 1>(p, stream);
}

template <typename Cfg, bool kTransA, bool kTransB, int kVec>
cudaError_t launch_serial_instance(KernelParams<double> const& p, unsigned* turns, cudaStream_t stream) {
  return launch_serial_split_k<dgemm_tensorop_kernel<Cfg, kTransA, kTransB, kVec, kVec, true>, Cfg>(
      p, turns, Cfg::kThreads, Cfg::smem_bytes(), stream, launch_instance<Cfg, kTransA, kTransB, kVec>);
}

template <typename Cfg, bool kTransA, bool kTransB>
cudaError_t launch_serial_aligned_or_not(KernelParams<double> const& p, unsigned* turns, cudaStream_t stream) {
  bool const wide = vector_aligned(p.A, p.lda, p.stride_a, p.batch) && vector_aligned(p.B, p.ldb, p.stride_b, p.batch);
  return wide ? launch_serial_instance<Cfg, kTransA, kTransB, 2>(p, turns, stream)
              : launch_serial_instance<Cfg, kTransA, kTransB, 1>(p, turns, stream);
}

}  // namespace

template <typename Cfg>
std::size_t dgemm_tensorop_serial_split_k_workspace(GemmProblem const& problem) {
  return serial_split_k_workspace_bytes<Cfg>(problem);
}

template <typename Cfg>
cudaError_t launch_dgemm_tensorop_serial_split_k(KernelParams<double> const& p, double* workspace, cudaStream_t stream) {
  if constexpr (!kDgemmSerialSplit<Cfg>) {
    return cudaErrorNotSupported;  // not built for this config (dgemm_tensorop.hpp)
  } else {
    auto* const turns = reinterpret_cast<unsigned*>(workspace);  // the workspace holds turn counters here
    if (!p.trans_a && !p.trans_b) return launch_serial_aligned_or_not<Cfg, false, false>(p, turns, stream);
    if (!p.trans_a && p.trans_b) return launch_serial_aligned_or_not<Cfg, false, true>(p, turns, stream);
    if (p.trans_a && !p.trans_b) return launch_serial_aligned_or_not<Cfg, true, false>(p, turns, stream);
    return launch_serial_aligned_or_not<Cfg, true, true>(p, turns, stream);
  }
}

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
  if (!p.trans_a && !p.trans_b) return launch_aligned_or_not<Cfg, false, false>(p, stream);
  if (!p.trans_a && p.trans_b) return launch_aligned_or_not<Cfg, false, true>(p, stream);
  if (p.trans_a && !p.trans_b) return launch_aligned_or_not<Cfg, true, false>(p, stream);
  return launch_aligned_or_not<Cfg, true, true>(p, stream);
}

using InstanceConfig = std::tuple_element_t<GEMMKIT_DGEMM_CONFIG_INDEX, DgemmTensorOpConfigs>;
template cudaError_t launch_dgemm_tensorop<InstanceConfig>(KernelParams<double> const&, cudaStream_t);
template std::size_t dgemm_tensorop_split_k_workspace<InstanceConfig>(GemmProblem const&);
template cudaError_t launch_dgemm_tensorop_split_k<InstanceConfig>(KernelParams<double> const&, double*, cudaStream_t);
template std::size_t dgemm_tensorop_serial_split_k_workspace<InstanceConfig>(GemmProblem const&);
template cudaError_t launch_dgemm_tensorop_serial_split_k<InstanceConfig>(KernelParams<double> const&, double*,
                                                                          cudaStream_t);

}  // namespace gemmkit::gemm
