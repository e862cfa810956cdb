/*! \file
    \brief The GEMM performance model on the H100 description: seed 001's required bandwidth,
    occupancy limits, wave quantization, and the ranking it gives the tile configs.
*/
#include "model/gemm_model.hpp"

#include <gtest/gtest.h>

namespace gemmkit::model {
namespace {

TileConfig config(int bm, int bn, int bk, int wm, int wn, int stages, int blocks = 1, int registers = 0) {
  TileConfig c;
  c.name = std::to_string(bm) + "x" + std::to_string(bn);
  c.bm = bm, c.bn = bn, c.bk = bk, c.warp_m = wm, c.warp_n = wn, c.stages = stages, c.blocks_per_sm = blocks;
  c.registers_per_thread = registers;
  return c;
}

TEST(GemmModel, RequiredBandwidthIsSeed001s) {
  MachineDescription const h100 = h100_sxm();
  // RB = DF * WB * (1/bm + 1/bn) / 2: 64x64 double tiles need 0.125 byte per flop, 128x128 half.
  Prediction const small = predict(h100, config(64, 64, 16, 32, 32, 4, 3), 8192, 8192, 8192);
  Prediction const large = predict(h100, config(128, 128, 16, 32, 64, 4), 8192, 8192, 8192);
  EXPECT_DOUBLE_EQ(small.l2_bytes_per_flop, 0.125);
  EXPECT_DOUBLE_EQ(large.l2_bytes_per_flop, 0.0625);
  EXPECT_NEAR(small.l2_ceiling, h100.l2_bytes_per_s / 0.125, 1.0);
  // Shared memory carries the warp tile's fragment reads and the block tile's copies.
  EXPECT_DOUBLE_EQ(small.smem_bytes_per_flop, 8.0 * (1.0 / 32 + 1.0 / 32) / 2 + 0.125);
}

TEST(GemmModel, OccupancyFromRegistersSharedMemoryAndTarget) {
  MachineDescription const h100 = h100_sxm();
  EXPECT_EQ(resident_blocks(h100, config(64, 64, 16, 32, 32, 4, 3, 168)), 3);   // 168 x 128 x 3 <= 64K
  EXPECT_EQ(resident_blocks(h100, config(64, 64, 16, 32, 32, 4, 3, 200)), 2);   // registers bind
  EXPECT_EQ(resident_blocks(h100, config(128, 128, 16, 32, 64, 4, 1, 0)), 1);   // the launch-bounds cap
  EXPECT_EQ(resident_blocks(h100, config(128, 128, 32, 32, 64, 4, 2, 120)), 0); // 256 KB of stages: no fit
  EXPECT_EQ(predict(h100, config(128, 128, 32, 32, 64, 4, 2, 120), 4096, 4096, 4096).flops, 0.0);
}

TEST(GemmModel, WaveQuantization) {
  MachineDescription const h100 = h100_sxm();
  TileConfig const one_per_sm = config(64, 64, 16, 32, 32, 4, 1, 200);
  // 256 tiles on 132 slots: two waves, 256 / 264 busy.
  EXPECT_NEAR(predict(h100, one_per_sm, 1024, 1024, 1024).wave_efficiency, 256.0 / 264.0, 1e-12);
  // 133 tiles: the second wave holds one block.
  EXPECT_NEAR(predict(h100, one_per_sm, 64 * 133, 64, 64).wave_efficiency, 133.0 / 264.0, 1e-12);
  // A 65-row problem: two 64-row tiles in one wave of 132 slots, and half their rows padding.
  EXPECT_NEAR(predict(h100, one_per_sm, 65, 64, 64).wave_efficiency, (2.0 / 132.0) * 65.0 / 128.0, 1e-12);
}

TEST(GemmModel, RankPutsL2BoundSmallTilesLast) {
  MachineDescription const h100 = h100_sxm();
  std::vector<TileConfig> const configs = {config(32, 32, 16, 16, 16, 3, 8, 64), config(64, 64, 16, 32, 32, 4, 3, 168),
                                           config(128, 128, 16, 32, 64, 4, 1, 232)};
  auto const ranked = rank(h100, configs, 8192, 8192, 8192);
  ASSERT_EQ(ranked.size(), 3u);
  EXPECT_EQ(ranked.back().first.bm, 32);
  EXPECT_EQ(ranked.back().second.limiter, "L2 bandwidth (block tile)");
  EXPECT_EQ(ranked.front().second.limiter, "FP64 tensor peak");
  EXPECT_GE(ranked.front().second.flops, ranked[1].second.flops);
}

}  // namespace
}  // namespace gemmkit::model
