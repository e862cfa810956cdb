/*! \file
    \brief gk_first_touch_batch: zeros exactly each problem's bytes, leaves the gaps, checks its arguments.
*/
#include <gemmkit/gemmkit.h>

#include <gtest/gtest.h>

#include <vector>

namespace {

TEST(FirstTouchBatch, ZeroesEachProblemAndNothingBetween) {
  constexpr int64_t kBatch = 1000, kBytes = 24, kStride = 40;
  std::vector<unsigned char> data(kBatch * kStride, 0xAB);
  ASSERT_EQ(gk_first_touch_batch(data.data(), kBytes, kStride, kBatch), GK_SUCCESS);
  for (int64_t b = 0; b < kBatch; ++b) {
    for (int64_t i = 0; i < kStride; ++i) {
      ASSERT_EQ(data[b * kStride + i], i < kBytes ? 0 : 0xAB) << "problem " << b << " byte " << i;
    }
  }
}

TEST(FirstTouchBatch, RejectsBadArguments) {
  std::vector<unsigned char> data(64);
  EXPECT_EQ(gk_first_touch_batch(data.data(), 8, 8, -1), GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_first_touch_batch(data.data(), -8, 8, 1), GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_first_touch_batch(data.data(), 16, 8, 2), GK_INVALID_ARGUMENT);  // problems would overlap
  EXPECT_EQ(gk_first_touch_batch(nullptr, 8, 8, 2), GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_first_touch_batch(nullptr, 8, 8, 0), GK_SUCCESS);  // nothing to touch
}

}  // namespace
