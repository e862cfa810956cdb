/*! \file
    \brief Split K fixed up inside the GEMM kernel (SplitKFixup, split_k.hpp; StreamKFixup,
    stream_k.hpp), device side: the parts of a tile hand their partial accumulators to the block
    that finishes it through L2, each behind a ready flag.
*/
#pragma once

#include "cuda/gemm/split_k.hpp"
#include "cuda/gemm/stream_k.hpp"
#include "cuda/gemm/tile_order.cuh"

#include <cuda/atomic>

#include <cstdint>
#include <type_traits>

namespace gemmkit::gemm {

/// Which block of a fixup launch computes what: blockIdx.x numbers (tile, slice) pairs with the
/// slice fastest, so a tile's slices start together and its last slice (the one that waits) is
/// dispatched after the slices it waits for, which never wait themselves.
struct FixupBlock {
  std::int64_t tile;  ///< the tile's linear index (TileOrder::map's input)
  int slice;
};

template <typename T>
__device__ __forceinline__ FixupBlock fixup_block(SplitKFixup<T> const& fixup) {
  return {std::int64_t(blockIdx.x) / fixup.slices, int(std::int64_t(blockIdx.x) % fixup.slices)};
}

/// A block's accumulators (kThreads threads, the same register shape in each) as a partial tile in
/// global memory, laid out by register pair, then thread: every store and load is coalesced.
template <int kThreads, typename T, int kM, int kN, int kE>
struct PartialTile {
  static_assert(kE % 2 == 0, "accumulators move in pairs");
  using Pair = std::conditional_t<sizeof(T) == 8, double2, float2>;
  static constexpr int kPairsPerThread = kM * kN * kE / 2;
  static constexpr std::int64_t kPairs = std::int64_t(kPairsPerThread) * kThreads;  ///< per tile

  template <int kQ>  // pair kQ = accumulators 2kQ, 2kQ + 1 in [i][j][e] order
  static __device__ __forceinline__ T* pair(T (&acc)[kM][kN][kE]) {
    constexpr int kFirst = 2 * kQ;
    return &acc[kFirst / (kN * kE)][kFirst / kE % kN][kFirst % kE];
  }
  /// Stores this thread's accumulators into tile `tile` of `partials`.
  static __device__ __forceinline__ void store(T* partials, std::int64_t tile, T (&acc)[kM][kN][kE]) {
    Pair* const out = reinterpret_cast<Pair*>(partials) + tile * kPairs + threadIdx.x;
    static_for<kPairsPerThread>([&](auto q) {
      T const* a = pair<decltype(q)::value>(acc);
      __stcg(out + decltype(q)::value * kThreads, Pair{a[0], a[1]});
    });
  }
  /// Adds tile `tile` of `partials` (written on another SM: read from L2) to this thread's accumulators.
  static __device__ __forceinline__ void add(T const* partials, std::int64_t tile, T (&acc)[kM][kN][kE]) {
    Pair const* const in = reinterpret_cast<Pair const*>(partials) + tile * kPairs + threadIdx.x;
    static_for<kPairsPerThread>([&](auto q) {
      T* a = pair<decltype(q)::value>(acc);
      Pair const v = __ldcg(in + decltype(q)::value * kThreads);
      a[0] += v.x;
      a[1] += v.y;
    });
  }
};

/// After every thread of the block stored its part of partial tile `slot`: marks it ready
/// (release), once the stores are visible device-wide.
__device__ __forceinline__ void publish_partial(PartialFlags const& flags, std::int64_t slot) {
  __threadfence();
  __syncthreads();
  if (threadIdx.x == 0) {
    cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device>(flags.ready[slot]).store(flags.epoch,
                                                                                     cuda::memory_order_release);
  }
}

/// Waits until partial tiles [first, first + count) are ready (acquire), a thread per flag, and
/// zeroes their flags for a graph's next replay; the whole block returns together.
template <int kThreads>
__device__ __forceinline__ void await_partials(PartialFlags const& flags, std::int64_t first, int count) {
  for (int i = int(threadIdx.x); i < count; i += kThreads) {
    cuda::atomic_ref<std::uint64_t, cuda::thread_scope_device> ready(flags.ready[first + i]);
    while (ready.load(cuda::memory_order_acquire) != flags.epoch) __nanosleep(32);
    ready.store(0, cuda::memory_order_relaxed);
  }
  __syncthreads();
}

/// Run by every block of a fixup launch after its mainloop, with the block's accumulators. A slice
/// other than the last stores them as a partial tile, publishes it and returns false: it has
/// nothing more to do. The last slice waits until the other slices of its tile have published, adds
/// their partials in slice order (the same order on every run: deterministic) and returns true: it
/// goes on to the epilogue. `tile` numbers the tile across the launch's batch.
template <int kThreads, typename T, int kM, int kN, int kE>
__device__ __forceinline__ bool split_k_fixup(SplitKFixup<T> const& fixup, T (&acc)[kM][kN][kE], std::int64_t tile,
                                              int slice) {
  using Partial = PartialTile<kThreads, T, kM, kN, kE>;
  int const slices = fixup.slices;
  std::int64_t const first = tile * (slices - 1);  // the tile's partials
  if (slice + 1 < slices) {
    Partial::store(fixup.partials, first + slice, acc);
    publish_partial(fixup.flags, first + slice);
    return false;
  }
  await_partials<kThreads>(fixup.flags, first, slices - 1);
  for (int s = 0; s + 1 < slices; ++s) Partial::add(fixup.partials, first + s, acc);
  return true;
}

/// The same for a stream-K segment (stream_k.hpp) of block `block`: a publishing worker stores its
/// partial in its own slot and returns false; the collector adds its contributors' partials in
/// worker order and returns true, as does a whole tile.
template <int kThreads, typename T, int kM, int kN, int kE>
__device__ __forceinline__ bool stream_k_fixup(StreamKFixup<T> const& sk, T (&acc)[kM][kN][kE],
                                               StreamKSegment const& segment, int block) {
  using Partial = PartialTile<kThreads, T, kM, kN, kE>;
  if (segment.role == StreamKSegment::kWhole) return true;
  if (segment.role == StreamKSegment::kPublishes) {
    Partial::store(sk.partials, block, acc);
    publish_partial(sk.flags, block);
    return false;
  }
  await_partials<kThreads>(sk.flags, segment.first_contributor, block - segment.first_contributor);
  for (int w = segment.first_contributor; w < block; ++w) Partial::add(sk.partials, w, acc);
  return true;
}

/// The same for accumulators held as (rows, columns) with an even number of columns.
template <int kThreads, typename T, int kM, int kN>
__device__ __forceinline__ bool split_k_fixup(SplitKFixup<T> const& fixup, T (&acc)[kM][kN], std::int64_t tile,
                                              int slice) {
  static_assert(kN % 2 == 0, "accumulators move in pairs");
  return split_k_fixup<kThreads>(fixup, reinterpret_cast<T(&)[kM][kN / 2][2]>(acc), tile, slice);
}

/// The same for a stream-K segment.
template <int kThreads, typename T, int kM, int kN>
__device__ __forceinline__ bool stream_k_fixup(StreamKFixup<T> const& sk, T (&acc)[kM][kN],
                                               StreamKSegment const& segment, int block) {
  static_assert(kN % 2 == 0, "accumulators move in pairs");
  return stream_k_fixup<kThreads>(sk, reinterpret_cast<T(&)[kM][kN / 2][2]>(acc), segment, block);
}

}  // namespace gemmkit::gemm
