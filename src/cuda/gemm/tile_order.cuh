/*! \file
    \brief Device helpers every tiled GEMM kernel shares: compile-time loops, the order in which
    blocks walk the tiles of C, where an edge tile starts and what a block reads.
*/
#pragma once

#include "cuda/kernel_params.hpp"

#include <cstdint>
#include <utility>

namespace gemmkit::gemm {

/// Calls f(std::integral_constant<int, I>{}) for I = 0 .. N-1, so indices are compile-time.
template <int N, typename F>
__device__ __forceinline__ void static_for(F&& f) {
  [&]<int... I>(std::integer_sequence<int, I...>) { (f(std::integral_constant<int, I>{}), ...); }(
      std::make_integer_sequence<int, N>{});
}

/// Maps a linear block index to (tile_m, tile_n) in groups of kGroupM tile rows, so blocks running
/// together share A panels and B panels in L2.
struct TileOrder {
  static constexpr int kGroupM = 8;
  __device__ static void map(std::int64_t linear, std::int64_t tiles_m, std::int64_t tiles_n, std::int64_t& tile_m,
                             std::int64_t& tile_n) {
    std::int64_t const per_group = std::int64_t(kGroupM) * tiles_n;
    std::int64_t const group = linear / per_group;
    std::int64_t const first_m = group * kGroupM;
    std::int64_t const rows = tiles_m - first_m < kGroupM ? tiles_m - first_m : kGroupM;
    std::int64_t const in_group = linear % per_group;
    tile_m = first_m + in_group % rows;
    tile_n = in_group / rows;
  }
};

/// Where a tile of kExtent rows (or columns) that stores from `own` starts its copies and MMAs: at
/// `own`, or for the last tile when the matrix is at least a tile wide, at size - kExtent, so it
/// ends at the edge and copies whole chunks (it recomputes part of its neighbour and stores only
/// its own). kVec: the elements per copy chunk along this side (1 when the operand is contiguous
/// along K); the start keeps to whole chunks or stays at `own`.
template <int kExtent, int kVec>
__device__ __forceinline__ std::int64_t edge_tile_origin(std::int64_t own, std::int64_t size) {
  if (own + kExtent <= size || size < kExtent) return own;
  std::int64_t const end_aligned = size - kExtent;
  return end_aligned % kVec != 0 ? own : end_aligned;
}

/// What the block of tile (m0, n0) reads: the start of its A and B tiles and the elements of K it
/// covers.
template <typename T>
struct BlockOperands {
  T const* A;
  T const* B;
  std::int64_t k_count;
};

/// Elements [begin, begin + count) of K.
struct KSpan {
  std::int64_t begin, count;
};

/// The part of K slice `k_slice` covers under split K (KernelParams::split_k_slice > 0), else all.
template <typename T>
__device__ __forceinline__ KSpan slice_k_span(KernelParams<T> const& p, std::int64_t k_slice) {
  bool const split = p.split_k_slice > 0;
  std::int64_t const begin = split ? k_slice * p.split_k_slice : 0;
  return {begin, split ? min(p.split_k_slice, p.k - begin) : p.k};
}

/// kAK / kBK: A / B is contiguous along K in memory (A transposed, B not); A and B of batch entry
/// `operand_batch` over `span` of K.
template <bool kAK, bool kBK, typename T>
__device__ __forceinline__ BlockOperands<T> block_operands(KernelParams<T> const& p, std::int64_t m0, std::int64_t n0,
                                                           std::int64_t operand_batch, KSpan span) {
  std::int64_t const k0 = span.begin;
  return {p.A + operand_batch * p.stride_a + (kAK ? m0 * p.lda + k0 : m0 + k0 * p.lda),
          p.B + operand_batch * p.stride_b + (kBK ? n0 * p.ldb + k0 : n0 + k0 * p.ldb), span.count};
}

/// The same for slice `k_slice` of entry `batch_index`: in the two-pass split-K form grid.z numbers
/// the slices and every slice reads the same A and B, while the fixup form (kSlicesInBatch) keeps
/// the batch in grid.z.
template <bool kAK, bool kBK, bool kSlicesInBatch = false, typename T>
__device__ __forceinline__ BlockOperands<T> block_operands(KernelParams<T> const& p, std::int64_t m0, std::int64_t n0,
                                                           std::int64_t batch_index, std::int64_t k_slice) {
  std::int64_t const operand_batch = p.split_k_slice > 0 && !kSlicesInBatch ? 0 : batch_index;
  return block_operands<kAK, kBK>(p, m0, n0, operand_batch, slice_k_span(p, k_slice));
}

}  // namespace gemmkit::gemm
