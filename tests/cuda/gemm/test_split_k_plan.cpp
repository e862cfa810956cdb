/*! \file
    \brief Split-K planning on the host: slices cover K exactly, keep enough depth each, fill at
    most one wave of blocks (two-pass form) or the fewest waves of k-tiles (fixup form), and
    depend only on the problem and the SM count.
*/
#include "cuda/gemm/dgemm_tensorop.hpp"

#include <gtest/gtest.h>

namespace gemmkit::gemm {
namespace {

using Config = TensorOpConfig<64, 64, 16, 32, 32, 4, 3>;

GemmProblem shape(std::int64_t m, std::int64_t n, std::int64_t k) {
  GemmProblem p;
  p.m = m, p.n = n, p.k = k;
  return p;
}

TEST(SplitKPlan, SlicesCoverKWithinOneWave) {
  for (int sm_count : {1, 108, 132}) {
    for (auto const& p : {shape(256, 256, 262144), shape(65, 33, 1999), shape(1, 1, 100000), shape(512, 512, 4096),
                          shape(4096, 4096, 4096), shape(256, 256, 16)}) {
      SplitK const s = plan_split_k<Config>(p, sm_count);
      SCOPED_TRACE(::testing::Message() << p.m << "x" << p.n << "x" << p.k << " on " << sm_count << " SMs");
      ASSERT_GE(s.slices, 1);
      EXPECT_EQ(s.slice % Config::kBK, 0);
      EXPECT_GE(s.slices * s.slice, p.k);          // every k is in a slice
      EXPECT_LT((s.slices - 1) * s.slice, p.k);    // and no slice is empty
      if (s.slices > 1) {
        std::int64_t const tiles = ((p.m + 63) / 64) * ((p.n + 63) / 64);
        EXPECT_LE(tiles * s.slices, std::int64_t(Config::kBlocksPerSm) * sm_count);
        EXPECT_GE(s.slice / Config::kBK, 8);
      }
      SplitK const again = plan_split_k<Config>(p, sm_count);
      EXPECT_EQ(again.slices, s.slices);
      EXPECT_EQ(again.slice, s.slice);
    }
  }
  // The case the plan is for: few tiles, very long K, spread over the whole device.
  EXPECT_EQ(plan_split_k<Config>(shape(256, 256, 262144), 132).slices, 3 * 132 / 16);
  EXPECT_EQ(plan_split_k<Config>(shape(4096, 4096, 4096), 132).slices, 1);
}

TEST(SplitKFixupPlan, SlicesCoverKAndKeepFourKTilesEach) {
  for (int slices : {1, 2, 3, 4}) {
    for (auto const& p : {shape(256, 256, 262144), shape(65, 33, 1999), shape(1, 1, 100000), shape(768, 768, 768),
                          shape(1536, 1536, 1536), shape(256, 256, 16), shape(100, 100, 1), shape(64, 64, 129)}) {
      SplitK const s = plan_split_k_fixup<Config>(p, slices);
      SCOPED_TRACE(::testing::Message() << p.m << "x" << p.n << "x" << p.k << " in " << slices);
      ASSERT_GE(s.slices, 1);
      ASSERT_LE(s.slices, slices);
      EXPECT_EQ(s.slice % Config::kBK, 0);
      EXPECT_GE(s.slices * s.slice, p.k);
      EXPECT_LT((s.slices - 1) * s.slice, p.k);
      if (s.slices > 1) {
        EXPECT_GE(s.slice / Config::kBK, 4);
      }
    }
  }
  EXPECT_EQ(plan_split_k_fixup<Config>(shape(768, 768, 768), 3).slices, 3);  // 16 k-tiles each
  EXPECT_EQ(plan_split_k_fixup<Config>(shape(768, 768, 768), 3).slice, 256);
  EXPECT_EQ(plan_split_k_fixup<Config>(shape(64, 64, 129), 3).slices, 2);     // 9 k-tiles: two of 5 and 4
  EXPECT_EQ(plan_split_k_fixup<Config>(shape(256, 256, 16), 4).slices, 1);    // one k-tile
}

TEST(SplitKFixupPlan, WorkspaceHoldsFlagsThenPartialTiles) {
  GemmProblem const p = shape(768, 768, 768);
  SplitK const split = plan_split_k_fixup<Config>(p, 2);
  SplitKFixupLayout const layout = split_k_fixup_layout<Config, double>(p, split);
  EXPECT_EQ(layout.partials_offset, 1280u);  // 144 partial tiles' flags of 8 bytes, rounded up to 256
  EXPECT_EQ(layout.bytes, 1280u + 144u * 64 * 64 * 8);
  GemmProblem batched = p;
  batched.batch = 3;
  EXPECT_EQ((split_k_fixup_layout<Config, double>(batched, split).bytes), 3584u + 3u * 144u * 64 * 64 * 8);
  EXPECT_EQ((split_k_fixup_layout<Config, double>(p, plan_split_k_fixup<Config>(p, 3)).partials_offset),
            2304u);  // two partials per tile
  EXPECT_EQ((split_k_fixup_layout<Config, double>(p, SplitK{1, 768}).bytes), 0u);
}

}  // namespace
}  // namespace gemmkit::gemm
