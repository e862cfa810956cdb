/*! \file
    \brief A warp's fragments of the tensor-core tile: loading an operand's 16-wide groups and A's
    row blocks from the swizzled shared tiles (tensorop_layout.hpp), the MMAs of a column pair or a
    row block, and one stage's MMAs (warp_tile_mma) for the m16n8k16 mainloops.
*/
#pragma once

#include "cuda/arch/mma_f64.cuh"
#include "cuda/arch/shared_load.cuh"
#include "cuda/gemm/tensorop_layout.hpp"
#include "cuda/gemm/tile_order.cuh"

#include <cstdint>

namespace gemmkit::gemm {

/// A lane's values of one 16-wide group of an operand for one k step: v[h][c] (tensorop_layout.hpp).
template <typename Tile, int kGroup, int kKStep>
__device__ __forceinline__ void load_group(std::uint32_t const (&lane_base)[2], double (&v)[Tile::kValues]) {
  static_for<Tile::kLoads>([&](auto l) {
    constexpr int kL = decltype(l)::value;
    constexpr int kOffset = 8 * Tile::group_offset(kGroup, kKStep, kL);
    arch::load_shared_f64x2<kOffset>(lane_base[Tile::base_of(kKStep, kL)], v[Tile::value_slot(kL, 0)],
                                     v[Tile::value_slot(kL, 1)]);
  });
}

/// The A fragment of row block kGroup for one k step, in MMA register order.
template <typename TileA, int kGroup, int kKStep>
__device__ __forceinline__ void load_a_fragment(std::uint32_t const (&a_lane)[2], double (&a)[TileA::kValues]) {
  double v[TileA::kValues];
  load_group<TileA, kGroup, kKStep>(a_lane, v);
  static_for<TileA::kValues>([&](auto slot) {  // slot = kPerRow * h + c holds v[h][c]
    constexpr int kSlot = decltype(slot)::value;
    a[FragmentMap::a_register(kSlot / TileA::kPerRow, kSlot % TileA::kPerRow)] = v[kSlot];
  });
}

/// The A fragments of one k step for all kFragsM row blocks.
template <typename Cfg, typename TileA, int kKStep>
__device__ __forceinline__ void load_a_fragments(std::uint32_t const (&a_lane)[2], double (&a)[Cfg::kFragsM][8]) {
  static_for<Cfg::kFragsM>([&](auto i) { load_a_fragment<TileA, decltype(i)::value, kKStep>(a_lane, a[decltype(i)::value]); });
}

/// The MMAs of B column pair kPair (values v[h][c] in `b`) against all A row blocks.
template <typename Cfg, int kPair>
__device__ __forceinline__ void mma_column_pair(double (&acc)[Cfg::kFragsM][Cfg::kFragsN][4],
                                                double const (&a)[Cfg::kFragsM][8], double const (&b)[8]) {
  static_for<2>([&](auto h) {
    constexpr int kH = decltype(h)::value;
    double const fragment[4] = {b[4 * kH + 0], b[4 * kH + 1], b[4 * kH + 2], b[4 * kH + 3]};
    static_for<Cfg::kFragsM>([&](auto i) { arch::mma_f64_m16n8k16(acc[i][2 * kPair + kH], a[i], fragment); });
  });
}

/// The MMAs of A row block kRow (fragment `a`) against all B column pairs (values v[h][c] in `b`).
template <typename Cfg, int kRow>
__device__ __forceinline__ void mma_row_block(double (&acc)[Cfg::kFragsM][Cfg::kFragsN][4], double const (&a)[8],
                                              double const (&b)[Cfg::kFragsN / 2][8]) {
  static_for<Cfg::kFragsN>([&](auto j) {
    constexpr int kJ = decltype(j)::value;  // column block kJ is member kJ % 2 of pair kJ / 2
    double const fragment[4] = {b[kJ / 2][4 * (kJ % 2) + 0], b[kJ / 2][4 * (kJ % 2) + 1], b[kJ / 2][4 * (kJ % 2) + 2],
                                b[kJ / 2][4 * (kJ % 2) + 3]};
    arch::mma_f64_m16n8k16(acc[kRow][kJ], a, fragment);
  });
}

/// One stage's MMAs for a warp, k step by k step. The operand with fewer 16-wide groups stays
/// whole in registers; the other streams through one group at a time, the next group's loads
/// issued before the current group's MMAs so they overlap (Cfg::kStreamA says which).
template <typename Cfg, typename TileA, typename TileB>
__device__ __forceinline__ void warp_tile_mma(double (&acc)[Cfg::kFragsM][Cfg::kFragsN][4],
                                              std::uint32_t const (&a_lane)[2], std::uint32_t const (&b_lane)[2]) {
  constexpr int kPairs = Cfg::kFragsN / 2;
  static_for<Cfg::kBK / Cfg::kMmaK>([&](auto kstep) {
    constexpr int kKStep = decltype(kstep)::value * Cfg::kMmaK;
    if constexpr (Cfg::kStreamA) {
      double b[kPairs][8];
      static_for<kPairs>([&](auto pair) { load_group<TileB, decltype(pair)::value, kKStep>(b_lane, b[decltype(pair)::value]); });
      double a[2][8];  // one row block's fragment, double-buffered
      load_a_fragment<TileA, 0, kKStep>(a_lane, a[0]);
      static_for<Cfg::kFragsM>([&](auto row) {
        constexpr int kR = decltype(row)::value;
        if constexpr (Cfg::kPrefetchStreamed && kR + 1 < Cfg::kFragsM) load_a_fragment<TileA, kR + 1, kKStep>(a_lane, a[(kR + 1) % 2]);
        if constexpr (!Cfg::kPrefetchStreamed && kR > 0) load_a_fragment<TileA, kR, kKStep>(a_lane, a[kR % 2]);
        mma_row_block<Cfg, kR>(acc, a[kR % 2], b);
      });
      return;
    }
    double a[Cfg::kFragsM][8];
    load_a_fragments<Cfg, TileA, kKStep>(a_lane, a);
    double b[2][8];  // (buffer, v[h][c]) of one column pair, double-buffered when kPrefetchStreamed
    load_group<TileB, 0, kKStep>(b_lane, b[0]);
    static_for<kPairs>([&](auto pair) {
      constexpr int kP = decltype(pair)::value;
      if constexpr (Cfg::kPrefetchStreamed && kP + 1 < kPairs) load_group<TileB, kP + 1, kKStep>(b_lane, b[(kP + 1) % 2]);
      if constexpr (!Cfg::kPrefetchStreamed && kP > 0) load_group<TileB, kP, kKStep>(b_lane, b[kP % 2]);
      mma_column_pair<Cfg, kP>(acc, a, b[kP % 2]);
    });
  });
}

}  // namespace gemmkit::gemm
