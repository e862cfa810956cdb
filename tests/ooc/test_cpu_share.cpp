/*! \file
    \brief The CPU share's split without a GPU: nothing before the CPU is probed, proportional to the
    measured rates, whole granules rounded down, off under one granule, the GPUs never left without
    columns, the split kept once balanced, off for a size whose split ran no faster than the GPUs
    alone, and never on cores the pipeline uses.
*/
#include "ooc/cpu_share.hpp"

#include <gtest/gtest.h>

namespace gemmkit::ooc {
namespace {

TEST(OocCpuShare, NothingBeforeTheCpuIsProbed) {
  ShareState fresh;
  std::string why;
  EXPECT_EQ(cpu_columns(65536, fresh, 256, &why), 0);
  EXPECT_NE(why.find("probe"), std::string::npos) << why;
  record_probe(fresh, 2.0 * 2048 * 256 * 2048, 0.01);
  EXPECT_DOUBLE_EQ(fresh.cpu_flops, 2.0 * 2048 * 256 * 2048 / 0.01);
  EXPECT_EQ(cpu_columns(65536, fresh, 256, &why), 0);  // the GPUs' rate is still unknown
  record_share(fresh, 65536, 65536, 65536, 0, 0.0, 10.0);  // the probe call: the GPUs alone
  EXPECT_GT(fresh.gpu_alone_flops, 0);
  EXPECT_GT(cpu_columns(65536, fresh, kCpuShareGranule, &why), 0) << why;  // 249 columns: 192
}

TEST(OocCpuShare, SplitFollowsTheRatesInWholeGranules) {
  ShareState s;
  s.cpu_flops = 2e12, s.gpu_flops = 48e12;  // CPU share 4%
  std::int64_t const cols = cpu_columns(32768, s, 256);
  EXPECT_EQ(cols % 256, 0);
  EXPECT_NEAR(double(cols), 0.04 * 32768, 256);
  s.cpu_flops = 10e12, s.gpu_flops = 10e12;
  EXPECT_EQ(cpu_columns(32768, s, 256), 16384);
}

TEST(OocCpuShare, SharesUnderAGranuleAreOffAndTheGpusKeepOne) {
  ShareState s;
  s.cpu_flops = 1e12, s.gpu_flops = 100e12;
  std::string why;
  EXPECT_EQ(cpu_columns(4096, s, 256, &why), 0);  // 1% of 4096 is under a granule
  EXPECT_NE(why.find("under one 256-column granule"), std::string::npos) << why;
  // The H100 host of 2026-11-21: OpenBLAS at 93 GFLOP/s next to 41 TFLOP/s of GPU is off at 16384.
  s.cpu_flops = 93e9, s.gpu_flops = 41e12;
  EXPECT_EQ(cpu_columns(16384, s, 256), 0);
  s.cpu_flops = 1e18;  // the CPU would take everything
  EXPECT_EQ(cpu_columns(4096, s, 256), 4096 - 256);
  EXPECT_EQ(cpu_columns(300, s, 256), 0);  // no room for a granule on each side
}

TEST(OocCpuShare, RoundsDownSoTheCpuNeverRunsPastTheBalance) {
  ShareState s;
  s.cpu_flops = 1.9e12, s.gpu_flops = 48e12;  // share 3.8 %: 1253 columns of 32768, 4.9 granules
  EXPECT_EQ(cpu_columns(32768, s, 256), 4 * 256);
  // The H100 host of 2026-11-21 (OpenBLAS 93 GFLOP/s, GPU 41 TFLOP/s): 74 of 32768 columns is
  // under the GPU tiles' granule but one of the CPU share's own.
  s.cpu_flops = 93e9, s.gpu_flops = 41e12;
  EXPECT_EQ(cpu_columns(32768, s, 256), 0);
  EXPECT_EQ(cpu_columns(32768, s, kCpuShareGranule), kCpuShareGranule);
  static_assert(kCpuShareGranule <= kProbeColumns, "the probe covers at least one share granule");
}

TEST(OocCpuShare, RecordLearnsRatesAndKeepsABalancedSplit) {
  ShareState s;
  std::int64_t const m = 8192, n = 8192, k = 8192;
  // 1024 columns on the CPU in 1.0 s, 7168 on the GPU in 0.5 s: the CPU is slower than assumed.
  record_share(s, m, n, k, 1024, 1.0, 0.5);
  EXPECT_DOUBLE_EQ(s.cpu_flops, 2.0 * m * k * 1024 / 1.0);
  EXPECT_DOUBLE_EQ(s.gpu_flops, 2.0 * m * k * 7168 / 0.5);
  EXPECT_FALSE(s.balanced);
  EXPECT_FALSE(s.off);  // the GPUs alone not measured: nothing to compare with
  std::int64_t const next = cpu_columns(n, s, 256);
  EXPECT_LT(next, 1024);
  EXPECT_GT(next, 0);
  // Balanced within the threshold: the same split again (the same bits from call to call).
  record_share(s, m, n, k, next, 0.50, 0.51);
  EXPECT_TRUE(s.balanced);
  s.cpu_flops *= 3;  // even if a rate moves a little
  EXPECT_EQ(cpu_columns(n, s, 256), next);
  EXPECT_NE(cpu_columns(n + 256, s, 256), -1);  // another n starts over from the rates
  record_share(s, m, n, k, next, 0.30, 0.60);
  EXPECT_FALSE(s.balanced);
}

TEST(OocCpuShare, ASplitNoFasterThanTheGpusAloneTurnsTheShareOffForThatSize) {
  ShareState s;
  std::int64_t const n = 16384;
  record_share(s, n, n, n, 0, 0.0, 0.250);  // the GPUs alone: 250 ms
  record_share(s, n, n, n, 512, 0.30, 0.26);  // the split took 300 ms
  EXPECT_TRUE(s.off);
  std::string why;
  EXPECT_EQ(cpu_columns(n, s, 256, &why), 0);
  EXPECT_NE(why.find("GPUs alone"), std::string::npos) << why;
  record_share(s, n, n, n, 0, 0.0, 0.250);
  EXPECT_TRUE(s.off);  // stays off for this size
  EXPECT_GT(cpu_columns(2 * n, s, 256), 0);  // another size tries again
  record_share(s, n, 2 * n, n, 0, 0.0, 0.5);
  EXPECT_FALSE(s.off);
  // A split that helps keeps it on.
  ShareState t;
  record_share(t, n, n, n, 0, 0.0, 0.250);
  record_share(t, n, n, n, 1024, 0.235, 0.236);
  EXPECT_FALSE(t.off);
}

TEST(OocCpuShare, TheCpuBlasGetsOnlyTheCoresThePipelineLeaves) {
  EXPECT_EQ(cpu_share_threads(16, 1), 15);       // pinned, one GPU: its feeding thread
  EXPECT_EQ(cpu_share_threads(16, 17), 0);       // pageable: 8 packing + 8 copy-out + 1 feeding
  EXPECT_EQ(cpu_share_threads(16, 15), 0);       // one core left is not worth a share
  EXPECT_EQ(cpu_share_threads(16, 16 - kMinCpuShareThreads), kMinCpuShareThreads);
}

}  // namespace
}  // namespace gemmkit::ooc
