/*! \file
    \brief The launcher of the FP64 tensor-core GEMM for one configuration, the one at index
    GEMMKIT_DGEMM_CONFIG_INDEX of DgemmTensorOpConfigs; CMake compiles this file once per index.
*/
#include "cuda/gemm/dgemm_resident_b.cuh"
#include "cuda/gemm/dgemm_tensorop.cuh"
#include "cuda/gemm/dgemm_tensorop.hpp"
#include "cuda/gemm/resident_b.hpp"
#include "cuda/gemm/tile_launch.cuh"
#include "cuda/gemm/transpose.hpp"

#include <algorithm>
#include <cstdint>
#include <type_traits>
#include <utility>

namespace gemmkit::gemm {

namespace {

/// What a launch form passes its kernel besides the params: nothing (the plain kernel), the split-K
/// fixup or the stream-K plan; or which kernel it is (the B-resident form, whose grid comes from
/// its occupancy).
struct Plain {};
struct ResidentB {};

/// The kernel of the form `Extra` names, over its blocks.
template <typename Cfg, bool kTransA, bool kTransB, bool kCTransposed, int kVec, typename Extra>
cudaError_t launch_instance(KernelParams<double> const& p, Extra const& extra, cudaStream_t stream) {
  std::int64_t const tiles = ((p.m + Cfg::kBM - 1) / Cfg::kBM) * ((p.n + Cfg::kBN - 1) / Cfg::kBN);
  if constexpr (std::is_same_v<Extra, SplitKFixup<double>>) {
    return launch_tiles<dgemm_tensorop_fixup_kernel<Cfg, kTransA, kTransB, kVec, kVec, kCTransposed>>(
        p, tiles * extra.slices, Cfg::kThreads, Cfg::smem_bytes(), stream, extra);
  } else if constexpr (std::is_same_v<Extra, StreamKFixup<double>>) {
    return launch_tiles<dgemm_tensorop_stream_k_kernel<Cfg, kTransA, kTransB, kVec, kVec, kCTransposed>>(
        p, extra.plan.blocks(), Cfg::kThreads, Cfg::smem_bytes(), stream, extra);
  } else if constexpr (std::is_same_v<Extra, ResidentB>) {
    constexpr auto kKernel = dgemm_tensorop_resident_b_kernel<Cfg, kTransA, kTransB, kVec, kVec, kCTransposed>;
    std::size_t const smem_bytes = resident_b_smem_bytes<Cfg>(p.k);
    if (cudaError_t e = opt_in_shared_memory<kKernel>(kResidentBMaxSmemBytes); e != cudaSuccess) return e;
    int blocks_per_sm = 0;
    if (cudaError_t e = cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm, kKernel, Cfg::kThreads, smem_bytes);
        e != cudaSuccess) {
      return e;
    }
    std::int64_t const tiles_n = (p.n + Cfg::kBN - 1) / Cfg::kBN;
    std::int64_t const per_column = resident_b_blocks_per_column(
        (p.m + Cfg::kBM - 1) / Cfg::kBM, tiles_n, std::min<std::int64_t>(p.batch, 65535),
        std::int64_t(std::max(blocks_per_sm, 1)) * current_sm_count());
    return launch_tiles<kKernel>(p, per_column * tiles_n, Cfg::kThreads, smem_bytes, stream);
  } else {
    return launch_tiles<dgemm_tensorop_kernel<Cfg, kTransA, kTransB, kVec, kVec, kCTransposed>>(
        p, tiles, Cfg::kThreads, Cfg::smem_bytes(), stream);
  }
}

template <typename Cfg, bool kTransA, bool kTransB, bool kCTransposed, typename Extra>
cudaError_t launch_aligned_or_not(KernelParams<double> const& p, Extra const& extra, cudaStream_t stream) {
  bool const wide = vector_aligned(p.A, p.lda, p.stride_a, p.batch) && vector_aligned(p.B, p.ldb, p.stride_b, p.batch);
  return wide ? launch_instance<Cfg, kTransA, kTransB, kCTransposed, 2>(p, extra, stream)
              : launch_instance<Cfg, kTransA, kTransB, kCTransposed, 1>(p, extra, stream);
}

/// The instance for the problem's transposes. A^T B^T runs as the NN product C^T = B A with C
/// stored transposed: both operands then copy the way NN's do, where the TT kernel's MN-contiguous
/// B spilled in the 128x64 configs.
template <typename Cfg, typename Extra>
cudaError_t launch_transposes(KernelParams<double> const& p, Extra const& extra, cudaStream_t stream) {
  if (!p.trans_a && !p.trans_b) return launch_aligned_or_not<Cfg, false, false, false>(p, extra, stream);
  if (!p.trans_a && p.trans_b) return launch_aligned_or_not<Cfg, false, true, false>(p, extra, stream);
  if (p.trans_a && !p.trans_b) return launch_aligned_or_not<Cfg, true, false, false>(p, extra, stream);
  return launch_aligned_or_not<Cfg, false, false, true>(transposed_product(p), extra, stream);
}

}  // namespace

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
  return launch_transposes<Cfg>(p, Plain{}, stream);
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
                                   stream, launch_dgemm_tensorop<Cfg>, launch_transposes<Cfg, SplitKFixup<double>>);
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
                                launch_dgemm_tensorop<Cfg>, launch_transposes<Cfg, StreamKFixup<double>>);
  }
}

template <typename Cfg>
cudaError_t launch_dgemm_tensorop_resident_b(KernelParams<double> const& p, cudaStream_t stream) {
  if constexpr (!kDgemmResidentB<Cfg>) {
    return cudaErrorNotSupported;  // not built for this config (dgemm_tensorop.hpp)
  } else {
    if (!resident_b_fits<Cfg>(p.k)) return launch_dgemm_tensorop<Cfg>(p, stream);
    return launch_transposes<Cfg>(p, ResidentB{}, stream);
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

using InstanceConfig = std::tuple_element_t<GEMMKIT_DGEMM_CONFIG_INDEX, DgemmTensorOpConfigs>;
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
