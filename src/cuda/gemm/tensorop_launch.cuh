/*! \file
    \brief Launch dispatch of the FP64 tensor-core kernels, shared by the double and the float
    launchers (include from .cu files): the launch form, 16-byte or element copies, and the
    transposes, with A^T B^T run as an NN product.
*/
#pragma once

#include "cuda/gemm/dgemm_resident_b.cuh"
#include "cuda/gemm/dgemm_tensorop.cuh"
#include "cuda/gemm/resident_b.hpp"
#include "cuda/gemm/tile_launch.cuh"
#include "cuda/kernel_params.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <type_traits>

namespace gemmkit::gemm {

/// What a launch form passes its kernel besides the params: nothing (the plain kernel), the split-K
/// fixup or the stream-K plan (SplitKFixup / StreamKFixup); or which kernel it is (the B-resident
/// form, whose grid comes from its occupancy).
struct PlainTiles {};
struct ResidentBTiles {};

/// The kernel of the form `Extra` names, over its blocks. The split-K fixup and B-resident forms
/// exist for double operands only.
template <typename Cfg, bool kTransA, bool kTransB, bool kCTransposed, int kVec, typename T, typename Extra>
cudaError_t launch_tensorop_instance(KernelParams<T> const& p, Extra const& extra, cudaStream_t stream) {
  constexpr std::size_t kSmemBytes = tensorop_smem_bytes<Cfg, T>();
  std::int64_t const tiles = ((p.m + Cfg::kBM - 1) / Cfg::kBM) * ((p.n + Cfg::kBN - 1) / Cfg::kBN);
  if constexpr (std::is_same_v<Extra, SplitKFixup<double>>) {
    static_assert(std::is_same_v<T, double>, "the split-K fixup form is built for double operands only");
    return launch_tiles<dgemm_tensorop_fixup_kernel<Cfg, kTransA, kTransB, kVec, kVec, kCTransposed>>(
        p, tiles * extra.slices, Cfg::kThreads, kSmemBytes, stream, extra);
  } else if constexpr (std::is_same_v<Extra, StreamKFixup<double>>) {
    return launch_tiles<dgemm_tensorop_stream_k_kernel<Cfg, kTransA, kTransB, kVec, kVec, kCTransposed, T>>(
        p, extra.plan.blocks(), Cfg::kThreads, kSmemBytes, stream, extra);
  } else if constexpr (std::is_same_v<Extra, ResidentBTiles>) {
    static_assert(std::is_same_v<T, double>, "the B-resident form is built for double operands only");
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
    static_assert(std::is_same_v<Extra, PlainTiles>, "unknown launch form");
    return launch_tiles<dgemm_tensorop_kernel<Cfg, kTransA, kTransB, kVec, kVec, kCTransposed, T>>(
        p, tiles, Cfg::kThreads, kSmemBytes, stream);
  }
}

/// 16-byte copies when both operands allow them, else one element per copy.
template <typename Cfg, bool kTransA, bool kTransB, bool kCTransposed, typename T, typename Extra>
cudaError_t launch_tensorop_aligned_or_not(KernelParams<T> const& p, Extra const& extra, cudaStream_t stream) {
  constexpr int kWide = 16 / sizeof(T);
  bool const wide = vector_aligned(p.A, p.lda, p.stride_a, p.batch) && vector_aligned(p.B, p.ldb, p.stride_b, p.batch);
  return wide ? launch_tensorop_instance<Cfg, kTransA, kTransB, kCTransposed, kWide>(p, extra, stream)
              : launch_tensorop_instance<Cfg, kTransA, kTransB, kCTransposed, 1>(p, extra, stream);
}

/// The instance for the problem's transposes. A^T B^T runs as the NN product C^T = B A with C
/// stored transposed: both operands then copy the way NN's do, where the TT kernel's MN-contiguous
/// B spilled in the 128x64 configs.
template <typename Cfg, typename T, typename Extra>
cudaError_t launch_tensorop_transposes(KernelParams<T> const& p, Extra const& extra, cudaStream_t stream) {
  if (!p.trans_a && !p.trans_b) return launch_tensorop_aligned_or_not<Cfg, false, false, false>(p, extra, stream);
  if (!p.trans_a && p.trans_b) return launch_tensorop_aligned_or_not<Cfg, false, true, false>(p, extra, stream);
  if (p.trans_a && !p.trans_b) return launch_tensorop_aligned_or_not<Cfg, true, false, false>(p, extra, stream);
  return launch_tensorop_aligned_or_not<Cfg, false, false, true>(transposed_product(p), extra, stream);
}

}  // namespace gemmkit::gemm
