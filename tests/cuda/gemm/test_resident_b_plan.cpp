/*! \file
    \brief The B-resident form's plan (resident_b.hpp), without a GPU: shared memory per depth, where
    the panel stops fitting, and that the persistent blocks cover every tile of C once.
*/
#include "cuda/gemm/resident_b.hpp"
#include "cuda/gemm/tensorop_config.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <vector>

namespace gemmkit::gemm {
namespace {

using Config = TensorOpConfig<64, 64, 16, 32, 32, 4, 3>;  // the config the form is built for (dgemm_tensorop.hpp)

TEST(ResidentBPlan, SharedMemoryIsTheRingThenThePanel) {
  // The ring's 64x16 k-tiles of A (8 KB each), then one 64x16 k-tile of B per 16 of K, the last partial.
  std::size_t const ring = std::size_t(kResidentBRing) * 8192;
  EXPECT_EQ(resident_b_smem_bytes<Config>(64), ring + 4 * 8192);
  EXPECT_EQ(resident_b_smem_bytes<Config>(61), ring + 4 * 8192);
  EXPECT_EQ(resident_b_smem_bytes<Config>(1), ring + 8192);
}

TEST(ResidentBPlan, FitsWhileTwoBlocksShareAnSm) {
  static_assert(kResidentBRing == 4, "the depths below are for a 4-deep ring (32 KB)");
  EXPECT_FALSE(resident_b_fits<Config>(0));
  EXPECT_TRUE(resident_b_fits<Config>(1));
  EXPECT_TRUE(resident_b_fits<Config>(160));   // 32 KB ring + 80 KB panel = 112 KB
  EXPECT_FALSE(resident_b_fits<Config>(161));  // 120 KB
  EXPECT_LE(kResidentBBlocksPerSm * (kResidentBMaxSmemBytes + 1024), std::size_t(228 * 1024));
}

/// Replays the kernel's assignment: block b takes column panel b % tiles_n and row tiles
/// b / tiles_n + i * per_column.
void expect_every_tile_once(std::int64_t tiles_m, std::int64_t tiles_n, std::int64_t batch, std::int64_t slots) {
  std::int64_t const per_column = resident_b_blocks_per_column(tiles_m, tiles_n, batch, slots);
  ASSERT_GE(per_column, 1);
  ASSERT_LE(per_column, tiles_m) << "a block without a row tile";
  std::int64_t const blocks = per_column * tiles_n;
  if (tiles_n * batch <= slots) {
    EXPECT_LE(blocks * batch, slots) << "more blocks than resident slots";
  }
  if (tiles_m * tiles_n * batch >= slots && tiles_n * batch <= slots) {
    EXPECT_GT((per_column + 1) * tiles_n * batch, slots) << "slots left idle";
  }
  std::vector<int> seen(std::size_t(tiles_m * tiles_n), 0);
  for (std::int64_t b = 0; b < blocks; ++b) {
    for (std::int64_t tm = b / tiles_n; tm < tiles_m; tm += per_column) ++seen[std::size_t(tm * tiles_n + b % tiles_n)];
  }
  for (std::size_t i = 0; i < seen.size(); ++i) ASSERT_EQ(seen[i], 1) << "tile " << i;
}

TEST(ResidentBPlan, PersistentBlocksCoverEveryTileOnce) {
  for (std::int64_t slots : {264, 396, 1}) {
    expect_every_tile_once(4096, 1, 1, slots);  // 262144 x 64
    expect_every_tile_once(626, 1, 1, slots);
    expect_every_tile_once(469, 3, 1, slots);
    expect_every_tile_once(3, 5, 1, slots);     // fewer tiles than slots: one tile per block
    expect_every_tile_once(100, 300, 1, slots); // more column panels than slots
    expect_every_tile_once(50, 2, 7, slots);    // a batch shares the slots
  }
}

}  // namespace
}  // namespace gemmkit::gemm
