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
/// global memory, laid out by access, then thread: every store and load is coalesced. An access
/// moves kWidth accumulators adjacent in [i][j][e] order (1 or 2): a 2-wide one makes them an
/// aligned register pair for the whole kernel, which the tensor-core fragments are anyway.
template <int kThreads, typename T, int kM, int kN, int kE, int kWidth>
struct PartialTile {
  static_assert((kWidth == 1 || kWidth == 2) && kE % kWidth == 0, "an access holds 1 or 2 accumulators of a row");
  using Access = std::conditional_t<kWidth == 1, T, std::conditional_t<sizeof(T) == 8, double2, float2>>;
  static constexpr int kAccessesPerThread = kM * kN * kE / kWidth;
  static constexpr std::int64_t kAccesses = std::int64_t(kAccessesPerThread) * kThreads;  ///< per tile

  template <int kQ>  // access kQ = accumulators kWidth * kQ ... in [i][j][e] order
  static __device__ __forceinline__ T* first(T (&acc)[kM][kN][kE]) {
    constexpr int kFirst = kWidth * kQ;
    return &acc[kFirst / (kN * kE)][kFirst / kE % kN][kFirst % kE];
  }
  static __device__ __forceinline__ Access gather(T const* a) {
    if constexpr (kWidth == 1) {
      return a[0];
    } else {
      return Access{a[0], a[1]};
    }
  }
  static __device__ __forceinline__ void scatter_add(T* a, Access const& v) {
    if constexpr (kWidth == 1) {
      a[0] += v;
    } else {
      a[0] += v.x;
      a[1] += v.y;
    }
  }
  /// Stores this thread's accumulators into tile `tile` of `partials`.
  static __device__ __forceinline__ void store(T* partials, std::int64_t tile, T (&acc)[kM][kN][kE]) {
    Access* const out = reinterpret_cast<Access*>(partials) + tile * kAccesses + threadIdx.x;
    static_for<kAccessesPerThread>([&](auto q) {
      __stcg(out + decltype(q)::value * kThreads, gather(first<decltype(q)::value>(acc)));
    });
  }
  /// Adds tile `tile` of `partials` (written on another SM: read from L2) to this thread's accumulators.
  static __device__ __forceinline__ void add(T const* partials, std::int64_t tile, T (&acc)[kM][kN][kE]) {
    Access const* const in = reinterpret_cast<Access const*>(partials) + tile * kAccesses + threadIdx.x;
    static_for<kAccessesPerThread>([&](auto q) {
      scatter_add(first<decltype(q)::value>(acc), __ldcg(in + decltype(q)::value * kThreads));
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
template <int kThreads, int kWidth = 2, typename T, int kM, int kN, int kE>
__device__ __forceinline__ bool split_k_fixup(SplitKFixup<T> const& fixup, T (&acc)[kM][kN][kE], std::int64_t tile,
                                              int slice) {
  using Partial = PartialTile<kThreads, T, kM, kN, kE, kWidth>;
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
template <int kThreads, int kWidth = 2, typename T, int kM, int kN, int kE>
__device__ __forceinline__ bool stream_k_fixup(StreamKFixup<T> const& sk, T (&acc)[kM][kN][kE],
                                               StreamKSegment const& segment, int block) {
  using Partial = PartialTile<kThreads, T, kM, kN, kE, kWidth>;
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

/// The same for accumulators held as (rows, columns), the FP32 SIMT kernel's, one at a time: pairs
/// would tie each lane's accumulators to aligned register pairs along columns, while its fragments
/// come as quads along rows and columns, and ptxas then gave the mainloop's FFMAs three to four
/// times the plain kernel's register-bank conflicts (SASS of the 128x128 s4 instances, 2026-11-24).
template <int kThreads, typename T, int kM, int kN>
__device__ __forceinline__ bool split_k_fixup(SplitKFixup<T> const& fixup, T (&acc)[kM][kN], std::int64_t tile,
                                              int slice) {
  return split_k_fixup<kThreads, 1>(fixup, reinterpret_cast<T(&)[kM][kN][1]>(acc), tile, slice);
}

/// The same for a stream-K segment.
template <int kThreads, typename T, int kM, int kN>
__device__ __forceinline__ bool stream_k_fixup(StreamKFixup<T> const& sk, T (&acc)[kM][kN],
                                               StreamKSegment const& segment, int block) {
  return stream_k_fixup<kThreads, 1>(sk, reinterpret_cast<T(&)[kM][kN][1]>(acc), segment, block);
}

}  // namespace gemmkit::gemm
