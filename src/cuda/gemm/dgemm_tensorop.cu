/*! \file
    \brief The launcher of the FP64 tensor-core GEMM for one configuration, the one at index
    GEMMKIT_DGEMM_CONFIG_INDEX of DgemmTensorOpConfigs; CMake compiles this file once per index.
*/
#include "cuda/gemm/dgemm_tensorop.cuh"
#include "cuda/gemm/dgemm_tensorop.hpp"
#include "cuda/gemm/split_k_reduce.hpp"
#include "cuda/gemm/tile_launch.cuh"

#include <atomic>
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

/// SM count of the current device, read once per device.
int current_sm_count() {
  static std::atomic<int> counts[64] = {};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device >= 64) return 132;
  int count = counts[device].load(std::memory_order_relaxed);
  if (count == 0) {
    if (cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) count = 132;
    counts[device].store(count, std::memory_order_relaxed);
  }
  return count;
}

}  // namespace

template <typename Cfg>
std::size_t dgemm_tensorop_split_k_workspace(GemmProblem const& problem) {
  SplitK const split = plan_split_k<Cfg>(problem, current_sm_count());
  return split.slices > 1 ? std::size_t(split.slices) * std::size_t(problem.m) * std::size_t(problem.n) * sizeof(double)
                          : 0;
}

template <typename Cfg>
cudaError_t launch_dgemm_tensorop_split_k(KernelParams<double> const& p, double* workspace, cudaStream_t stream) {
  GemmProblem shape;
  shape.m = p.m, shape.n = p.n, shape.k = p.k;
  SplitK const split = plan_split_k<Cfg>(shape, current_sm_count());
  if (split.slices <= 1) return launch_dgemm_tensorop<Cfg>(p, stream);
  // Batch entries run one after another on the stream, so they share the one workspace.
  for (std::int64_t b = 0; b < p.batch; ++b) {
    KernelParams<double> partial = p;
    partial.A += b * p.stride_a;
    partial.B += b * p.stride_b;
    partial.alpha = 1.0;
    partial.beta = 0.0;
    partial.C = workspace;
    partial.ldc = p.m;
    partial.stride_c = p.m * p.n;
    partial.batch = split.slices;
    partial.stride_a = partial.stride_b = 0;  // every slice reads the same A and B
    partial.split_k_slice = split.slice;
    if (cudaError_t e = launch_dgemm_tensorop<Cfg>(partial, stream); e != cudaSuccess) return e;
    if (cudaError_t e = launch_split_k_reduce(p.m, p.n, split.slices, workspace, p.alpha, p.beta, p.C + b * p.stride_c,
                                              p.ldc, stream);
        e != cudaSuccess) {
      return e;
    }
  }
  return cudaSuccess;
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

}  // namespace gemmkit::gemm
