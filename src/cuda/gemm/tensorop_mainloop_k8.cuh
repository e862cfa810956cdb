/*! \file
    \brief The m16n8k8 mainloop of the tensor-core tile: a k step's fragments double-buffered in
    registers, the next step's loads issued between the current step's MMAs.
*/
#pragma once

#include "cuda/arch/cp_async.cuh"
#include "cuda/arch/mma_f64.cuh"
#include "cuda/gemm/tensorop_fragments.cuh"
#include "cuda/gemm/tensorop_mainloop.cuh"
#include "cuda/gemm/tile_order.cuh"

#include <cstdint>

namespace gemmkit::gemm {

/// The m16n8k8 mainloop's fragments for a warp: B's column pairs (values v[h][c]) for two k steps
/// (8 deep), this one's and the next one's, and A's row blocks (MMA register order) once. A row
/// block's next-step fragment loads one row block of MMAs after its last MMA was issued, so no
/// load waits for an MMA to have read the registers it overwrites, in half the registers of two
/// whole steps.
template <typename Cfg, typename TileA, typename TileB>
struct FragmentsK8 {
  static constexpr int kRows = Cfg::kFragsM, kPairs = Cfg::kFragsN / 2;
  double a[kRows][4];
  double b[2][kPairs][4];

  template <int kRow, int kKStep>
  __device__ __forceinline__ void load_a(std::uint32_t const (&a_lane)[2]) {
    load_a_fragment<TileA, kRow, kKStep>(a_lane, a[kRow]);
  }
  template <int kBuffer, int kPair, int kKStep>
  __device__ __forceinline__ void load_b(std::uint32_t const (&b_lane)[2]) {
    load_group<TileB, kPair, kKStep>(b_lane, b[kBuffer][kPair]);
  }
  /// The MMAs of row block kRow against every column block of buffer kBuffer.
  template <int kBuffer, int kRow>
  __device__ __forceinline__ void mma_row(double (&acc)[Cfg::kFragsM][Cfg::kFragsN][4]) const {
    static_for<Cfg::kFragsN>([&](auto j) {
      constexpr int kJ = decltype(j)::value;  // column block kJ is member kJ % 2 of pair kJ / 2
      double const fragment[2] = {b[kBuffer][kJ / 2][2 * (kJ % 2)], b[kBuffer][kJ / 2][2 * (kJ % 2) + 1]};
      arch::mma_f64_m16n8k8(acc[kRow][kJ], a[kRow], fragment);
    });
  }
};

/// m16n8k8: a whole k step's fragments fit twice in registers, so step s+1 loads into the other
/// buffer, row block by row block, between step s's MMAs, and no load waits for an MMA to have
/// read the registers it overwrites. At a tile's last step the wait and barrier for the next
/// tile come first (this warp's MMAs of the step before are still in the pipe), then that
/// step's MMAs with the next tile's first loads between them (kStages tiles in flight).
/// Blocks wholly inside the matrix (edge tiles shifted in: edge_tile_origin) run a copy of the
/// loop whose copies are unchecked and walk two pointers: with the edge state dead there, the
/// double-buffered fragments fit in 255 registers. There a partial k-tile comes first, copied
/// in the prologue, so the loop has no tail case (a check in it cost 3 % at 4096 and 8192);
/// the later k-tiles then start off the BK grid, which 16-byte copies along K allow when the
/// partial tile is even.
/// kChecked: the copy of the loop for edge blocks, whose copies check bounds.
template <bool kChecked, typename Tile>
__device__ __forceinline__ void mainloop_k8(Tile const& tile, TileAccumulators<Tile>& acc) {
  using Cfg = typename Tile::Cfg;
  using T = typename Tile::T;
  using TileA = typename Tile::TileA;
  using TileB = typename Tile::TileB;
  constexpr bool kStaged = Tile::kStaged;
  constexpr int kTileBuffers = Tile::kTileBuffers;
  constexpr int kSteps = Cfg::kBK / 8;
  using Fragments = FragmentsK8<Cfg, TileA, TileB>;
  constexpr int kRows = Fragments::kRows, kPairs = Fragments::kPairs;
  static_assert(kRows >= 2, "row blocks 1.. carry the next step's loads");
  T const* a_src = tile.load_a.origin;  // the next k-tile's chunks, unchecked loop only
  T const* b_src = tile.load_b.origin;
  auto queue = [&](std::int64_t k_tile, int stage) {
    if constexpr (kChecked) {
      tile.load_stage(k_tile, stage);
    } else {
      tile.load_a.load_whole(tile.staging_a + stage * Cfg::kStageElementsA, a_src);
      tile.load_b.load_whole(tile.staging_b + stage * Cfg::kStageElementsB, b_src);
      a_src += tile.load_a.k_tile_step;
      b_src += tile.load_b.k_tile_step;
    }
  };
  std::int64_t const k_first = tile.k_count - (tile.k_tiles - 1) * Cfg::kBK;  // K of the first k-tile
#pragma unroll
  for (int s = 0; s < Cfg::kStages; ++s) {
    if (!kChecked && s == 0 && k_first < Cfg::kBK) {
      tile.load_a.load_k_part(tile.staging_a, a_src, k_first);
      tile.load_b.load_k_part(tile.staging_b, b_src, k_first);
      a_src += tile.load_a.k_step(k_first);
      b_src += tile.load_b.k_step(k_first);
    } else if (s < tile.k_tiles) {
      queue(s, s);
    }
    arch::cp_async_commit();
  }
  arch::cp_async_wait<Cfg::kStages - 1>();
  // Float operands: slot `fill` holds the next k-tile to convert, then takes the one kStages on.
  [[maybe_unused]] int fill = 0;
  auto convert_next = [&](std::int64_t k_tile) {
    if constexpr (kStaged) {
      if (k_tile < tile.k_tiles) tile.convert_stage(fill, int(k_tile % 2));
      if (k_tile + Cfg::kStages < tile.k_tiles) queue(k_tile + Cfg::kStages, fill);
      arch::cp_async_commit();
      fill = fill + 1 == Cfg::kStages ? 0 : fill + 1;
    }
  };
  convert_next(0);
  __syncthreads();
  Fragments f;
  // Step 0 of tile 0: every row block but the last (loaded after row block 0's MMAs), all pairs.
  static_for<kRows - 1>([&](auto i) { f.template load_a<decltype(i)::value, 0>(tile.a_lane); });
  static_for<kPairs>([&](auto q) { f.template load_b<0, decltype(q)::value, 0>(tile.b_lane); });
  int read_stage = 0;
  std::uint32_t a_stage[2] = {tile.a_lane[0], tile.a_lane[1]}, b_stage[2] = {tile.b_lane[0], tile.b_lane[1]};
  for (std::int64_t kt = 0; kt < tile.k_tiles; ++kt) {
    static_for<kSteps>([&](auto s) {
      constexpr int kS = decltype(s)::value, kNow = kS % 2, kNext = 1 - kNow;
      constexpr int kNextStep = (kS + 1) % kSteps * 8;  // k offset of the next step in its tile
      f.template mma_row<kNow, 0>(acc);
      f.template load_a<kRows - 1, kS * 8>(a_stage);  // this step's last row block
      if constexpr (kStaged && kS == 0) {
        // Tile kt+1 into the double tile tile kt-1 used (its reads were issued before the
        // last barrier), while this step's MMAs run; the barrier below publishes it.
        arch::cp_async_wait<Cfg::kStages - 1>();
        convert_next(kt + 1);
      }
      bool more = true;
      if constexpr (kS + 1 == kSteps) {
        if constexpr (kStaged) {
          __syncthreads();  // tile kt+1 converted by every thread; every lane has read tile kt
        } else {
          arch::cp_async_wait<Cfg::kStages - 2>();
          __syncthreads();  // tile kt+1 visible; every lane has issued its reads of tile kt
          if (kt + Cfg::kStages < tile.k_tiles) queue(kt + Cfg::kStages, read_stage);
          arch::cp_async_commit();
        }
        read_stage = read_stage + 1 == kTileBuffers ? 0 : read_stage + 1;
        for (int l = 0; l < 2; ++l) {
          a_stage[l] = tile.a_lane[l] + std::uint32_t(read_stage) * (8u * Cfg::kStageElementsA);
          b_stage[l] = tile.b_lane[l] + std::uint32_t(read_stage) * (8u * Cfg::kStageElementsB);
        }
        more = kt + 1 < tile.k_tiles;
      }
      static_for<kRows - 1>([&](auto r) {
        constexpr int kI = decltype(r)::value + 1;
        f.template mma_row<kNow, kI>(acc);
        if (more) {
          f.template load_a<kI - 1, kNextStep>(a_stage);  // its MMAs were issued a row block ago
          // Pair kI - 1 here; the last row block takes whatever pairs are left.
          static_for<kPairs>([&](auto q) {
            constexpr int kQ = decltype(q)::value;
            if constexpr (kQ == kI - 1 || (kI == kRows - 1 && kQ > kI - 1)) {
              f.template load_b<kNext, kQ, kNextStep>(b_stage);
            }
          });
        }
      });
    });
  }
}

}  // namespace gemmkit::gemm
