/*! \file
    \brief Split-K planning on the host, for the two-pass and the cluster forms: slices cover K
    exactly, keep enough depth each, stay within their bound (one wave; one cluster), and depend
    only on the problem and the SM count.
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

using SmallConfig = TensorOpConfig<32, 32, 16, 16, 16, 3, 8>;
constexpr int kPairs = Config::accumulators_per_thread() / 2, kSmallPairs = SmallConfig::accumulators_per_thread() / 2;

TEST(ClusterSplitPlan, SlicesCoverKAndFitOneCluster) {
  for (int sm_count : {1, 108, 132}) {
    for (auto const& p : {shape(256, 256, 262144), shape(65, 33, 1999), shape(1, 1, 100000), shape(512, 512, 512),
                          shape(1536, 1536, 1536), shape(4096, 4096, 4096), shape(256, 256, 16), shape(7, 9, 65)}) {
      SCOPED_TRACE(::testing::Message() << p.m << "x" << p.n << "x" << p.k << " on " << sm_count << " SMs");
      SplitK const s = plan_cluster_split<Config>(p, sm_count, kPairs);
      ASSERT_GE(s.slices, 1);
      EXPECT_LE(s.slices, kMaxClusterSlices);
      EXPECT_EQ(s.slice % Config::kBK, 0);
      EXPECT_GE(s.slices * s.slice, p.k);
      EXPECT_LT((s.slices - 1) * s.slice, p.k);
      if (s.slices > 1) {
        EXPECT_GE(s.slice / Config::kBK, 4);
        EXPECT_EQ(kPairs % s.slices, 0);  // every block of the cluster owns as many pairs
      }
      SplitK const again = plan_cluster_split<Config>(p, sm_count, kPairs);
      EXPECT_EQ(again.slices, s.slices);
      EXPECT_EQ(again.slice, s.slice);
    }
  }
  // What the form is for: 256^3 is 64 tiles of 32x32 with 16 k-tiles each (split 4 ways, 4 k-tiles
  // a slice); 1536^3 is 576 tiles of 64x64, 5 blocks on the busiest SM at 3 a wave (split in two:
  // 9, three full waves of half as long). Large squares fill the SMs many times over and stay
  // whole; 768^3 in 32x32 tiles would spill 1 block per SM into a second wave.
  EXPECT_EQ(plan_cluster_split<SmallConfig>(shape(256, 256, 256), 132, kSmallPairs).slices, 4);
  EXPECT_EQ(plan_cluster_split<Config>(shape(1536, 1536, 1536), 132, kPairs).slices, 2);
  EXPECT_EQ(plan_cluster_split<Config>(shape(4096, 4096, 4096), 132, kPairs).slices, 1);
  EXPECT_EQ(plan_cluster_split<SmallConfig>(shape(1024, 1024, 1024), 132, kSmallPairs).slices, 1);
  EXPECT_EQ(plan_cluster_split<SmallConfig>(shape(768, 768, 768), 132, kSmallPairs).slices, 1);
}

}  // namespace
}  // namespace gemmkit::gemm
