/*! \file
    \brief The tensor-core tile as a mainloop sees it: the tile's loaders, its shared-memory buffers
    and lane addresses, K's extent, and the steps a mainloop is made of (queue a k-tile, convert a
    float k-tile to double); the m16n8k8 mainloop (tensorop_mainloop_k8.cuh) takes it.
*/
#pragma once

#include <cstdint>
#include <type_traits>

namespace gemmkit::gemm {

/// Double tiles the MMAs read, per operand: the whole cp.async ring for double operands; two for
/// float ones, whose ring (kStages deep, after the double tiles) holds the floats as copied.
template <typename Cfg, typename T>
inline constexpr int kTensorOpTileBuffers = std::is_same_v<T, double> ? Cfg::kStages : 2;

/// One block's tile as its mainloop sees it: A and B loaders (TileLoader), the double tiles the
/// MMAs read (smem_a, smem_b), for float operands the ring the floats land in (staging_a,
/// staging_b), the lane addresses of stage 0, and K's extent in elements and k-tiles.
template <typename Cfg_, typename T_, typename LoaderA, typename LoaderB>
struct TensorOpMainloop {
  using Cfg = Cfg_;
  using T = T_;
  using TileA = typename LoaderA::Tile;
  using TileB = typename LoaderB::Tile;
  static constexpr bool kStaged = !std::is_same_v<T, double>;
  static constexpr int kTileBuffers = kTensorOpTileBuffers<Cfg, T>;

  // References to the tile routine's locals, as a lambda capturing them would hold: the mainloop
  // compiles to the code it had as a lambda inside the tile routine (identical SASS).
  LoaderA const& load_a;
  LoaderB const& load_b;
  double* const& smem_a;
  double* const& smem_b;
  T* const& staging_a;
  T* const& staging_b;
  std::uint32_t const (&a_lane)[2];
  std::uint32_t const (&b_lane)[2];
  std::int64_t const& k_count;
  std::int64_t const& k_tiles;

  /// Queues k-tile `k_tile` into stage `stage` (bounds checked: edge tiles, a partial k-tile).
  __device__ __forceinline__ void load_stage(std::int64_t k_tile, int stage) const {
    std::int64_t const k_left = k_count - k_tile * Cfg::kBK;
    load_a.load(staging_a + stage * Cfg::kStageElementsA, k_tile, k_left);
    load_b.load(staging_b + stage * Cfg::kStageElementsB, k_tile, k_left);
  }
  /// Float operands: this thread's chunks of the k-tile in staging slot `stage` into double tile
  /// `buffer`.
  __device__ __forceinline__ void convert_stage(int stage, int buffer) const {
    if constexpr (kStaged) {
      load_a.convert(staging_a + stage * Cfg::kStageElementsA, smem_a + buffer * Cfg::kStageElementsA);
      load_b.convert(staging_b + stage * Cfg::kStageElementsB, smem_b + buffer * Cfg::kStageElementsB);
    }
  }
};

/// A block's accumulators per thread (FRAGS_M, FRAGS_N, 4), as a mainloop over `Tile` takes them.
template <typename Tile>
using TileAccumulators = double[Tile::Cfg::kFragsM][Tile::Cfg::kFragsN][4];

}  // namespace gemmkit::gemm
