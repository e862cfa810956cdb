/*! \file
    \brief The CPU share's split without a GPU: proportional to the measured rates, whole granules,
    nothing when the CPU's share is under one granule, the GPUs never left without columns, the
    split kept once balanced, and rates learned from a call's two times.
*/
#include "ooc/cpu_share.hpp"

#include <gtest/gtest.h>

namespace gemmkit::ooc {
namespace {

TEST(OocCpuShare, SplitFollowsTheRatesInWholeGranules) {
  ShareState s;
  s.cpu_flops = 2e12, s.gpu_flops = 48e12;  // CPU share 4%
  std::int64_t const cols = cpu_columns(32768, s, 1, 256);
  EXPECT_EQ(cols % 256, 0);
  EXPECT_NEAR(double(cols), 0.04 * 32768, 256);
  s.cpu_flops = 10e12, s.gpu_flops = 10e12;
  EXPECT_EQ(cpu_columns(32768, s, 1, 256), 16384);
  // Before any measurement: the first-call guesses, more GPUs taking more.
  ShareState fresh;
  EXPECT_GT(cpu_columns(65536, fresh, 1, 256), cpu_columns(65536, fresh, 4, 256));
}

TEST(OocCpuShare, SharesUnderAGranuleAreOffAndTheGpusKeepOne) {
  ShareState s;
  s.cpu_flops = 1e12, s.gpu_flops = 100e12;
  EXPECT_EQ(cpu_columns(4096, s, 1, 256), 0);  // 1% of 4096 is under a granule
  s.cpu_flops = 1e18;                           // the CPU would take everything
  EXPECT_EQ(cpu_columns(4096, s, 1, 256), 4096 - 256);
  EXPECT_EQ(cpu_columns(300, s, 1, 256), 0);    // no room for a granule on each side
}

TEST(OocCpuShare, RecordLearnsRatesAndKeepsABalancedSplit) {
  ShareState s;
  std::int64_t const m = 8192, n = 8192, k = 8192;
  // 1024 columns on the CPU in 1.0 s, 7168 on the GPU in 0.5 s: the CPU is slower than assumed.
  record_share(s, m, n, k, 1024, 1.0, 0.5);
  EXPECT_DOUBLE_EQ(s.cpu_flops, 2.0 * m * k * 1024 / 1.0);
  EXPECT_DOUBLE_EQ(s.gpu_flops, 2.0 * m * k * 7168 / 0.5);
  EXPECT_FALSE(s.balanced);
  std::int64_t const next = cpu_columns(n, s, 1, 256);
  EXPECT_LT(next, 1024);
  EXPECT_GT(next, 0);
  // Balanced within the threshold: the same split again (the same bits from call to call).
  record_share(s, m, n, k, next, 0.50, 0.51);
  EXPECT_TRUE(s.balanced);
  s.cpu_flops *= 3;  // even if a rate moves a little
  EXPECT_EQ(cpu_columns(n, s, 1, 256), next);
  EXPECT_NE(cpu_columns(n + 256, s, 1, 256), -1);  // another n starts over from the rates
  record_share(s, m, n, k, next, 0.30, 0.60);
  EXPECT_FALSE(s.balanced);
}

}  // namespace
}  // namespace gemmkit::ooc
