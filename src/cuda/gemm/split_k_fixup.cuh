/*! \file
    \brief Split K fixed up inside the GEMM kernel (SplitKFixup, split_k.hpp), device side: the
    slices of a tile hand their partial accumulators to the tile's last slice through L2.
*/
#pragma once

#include "cuda/gemm/split_k.hpp"
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

/// Run by every block of a fixup launch after its mainloop, with the block's accumulators (kThreads
/// threads, the same register shape in each). A slice other than the last stores them as a
/// partial tile (laid out by register, then thread: every store and load is coalesced), publishes
/// it (release) and returns false: it has nothing more to do. The last slice waits until the
/// other slices of its tile have arrived (acquire), adds their partials in slice order (the same
/// order on every run: deterministic), leaves the tile's counter zero for the next launch and
/// returns true: it goes on to the epilogue. `tile` numbers the tile across the launch's batch.
template <int kThreads, typename T, int kM, int kN, int kE>
__device__ __forceinline__ bool split_k_fixup(SplitKFixup<T> const& fixup, T (&acc)[kM][kN][kE], std::int64_t tile,
                                              int slice) {
  static_assert(kE % 2 == 0, "accumulators move in pairs");
  using Pair = std::conditional_t<sizeof(T) == 8, double2, float2>;
  constexpr int kPairsPerThread = kM * kN * kE / 2;
  constexpr std::int64_t kTilePairs = std::int64_t(kPairsPerThread) * kThreads;
  int const slices = fixup.slices;
  Pair* const partials = reinterpret_cast<Pair*>(fixup.partials) + tile * (slices - 1) * kTilePairs + threadIdx.x;
  cuda::atomic_ref<unsigned, cuda::thread_scope_device> arrived(fixup.arrivals[tile]);
  auto pair_of = [&](auto q) -> auto& {  // pair q = accumulators 2q, 2q + 1 in [i][j][e] order
    constexpr int kFirst = 2 * decltype(q)::value;
    return acc[kFirst / (kN * kE)][kFirst / kE % kN];
  };
  if (slice + 1 < slices) {
    Pair* const out = partials + slice * kTilePairs;
    static_for<kPairsPerThread>([&](auto q) {
      constexpr int kE0 = 2 * decltype(q)::value % kE;
      auto const& a = pair_of(q);
      __stcg(out + decltype(q)::value * kThreads, Pair{a[kE0], a[kE0 + 1]});
    });
    __threadfence();  // this thread's partials before the arrival is counted
    __syncthreads();
    if (threadIdx.x == 0) arrived.fetch_add(1u, cuda::memory_order_release);
    return false;
  }
  if (threadIdx.x == 0) {
    while (arrived.load(cuda::memory_order_acquire) != unsigned(slices - 1)) __nanosleep(32);
    arrived.store(0u, cuda::memory_order_relaxed);
  }
  __syncthreads();
  for (int s = 0; s + 1 < slices; ++s) {
    Pair const* const in = partials + s * kTilePairs;
    static_for<kPairsPerThread>([&](auto q) {
      constexpr int kE0 = 2 * decltype(q)::value % kE;
      auto& a = pair_of(q);
      Pair const v = __ldcg(in + decltype(q)::value * kThreads);  // written on another SM: read from L2
      a[kE0] += v.x;
      a[kE0 + 1] += v.y;
    });
  }
  return true;
}

/// The same for accumulators held as (rows, columns) with an even number of columns.
template <int kThreads, typename T, int kM, int kN>
__device__ __forceinline__ bool split_k_fixup(SplitKFixup<T> const& fixup, T (&acc)[kM][kN], std::int64_t tile,
                                              int slice) {
  static_assert(kN % 2 == 0, "accumulators move in pairs");
  return split_k_fixup<kThreads>(fixup, reinterpret_cast<T(&)[kM][kN / 2][2]>(acc), tile, slice);
}

}  // namespace gemmkit::gemm
