/*! \file
    \brief Split-K planning on the host: slices cover K exactly, keep enough depth each, fill at
    most one wave of blocks, and depend only on the problem and the SM count.
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

}  // namespace
}  // namespace gemmkit::gemm
