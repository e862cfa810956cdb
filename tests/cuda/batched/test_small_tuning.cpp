/*! \file
    \brief The small batched kernel's tuning table on the host: every bucket of both precisions has
    a row naming an existing candidate, bucket lookup, and the parser's refusals.
*/
#include "cuda/batched/small_tuning.hpp"
#include "cuda/batched/small_tuning_data.hpp"

#include <gtest/gtest.h>

#include <stdexcept>

namespace gemmkit::small {
namespace {

TEST(SmallTuning, EveryBucketOfBothPrecisionsHasACandidate) {
  std::vector<SmallTuningRow> const rows = parse_small_tuning(kSmallTuningCsv);
  for (int bytes : {8, 4}) {
    for (int size : {2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 20, 24, 28, 32}) {
      bool found = false;
      for (SmallTuningRow const& r : rows) found |= r.element_bytes == bytes && r.size == size;
      EXPECT_TRUE(found) << "no row for " << bytes << "-byte elements, size " << size;
      int const c = small_tuned_candidate(bytes, size);
      ASSERT_GE(c, 0);
      EXPECT_EQ(small_candidates()[c].size, size);
      EXPECT_EQ(small_candidates()[c].threads % 32, 0);
    }
  }
}

TEST(SmallTuning, BucketIsTheSmallestThatHolds) {
  EXPECT_EQ(small_bucket_size(1, 1, 1), 2);
  EXPECT_EQ(small_bucket_size(2, 2, 2), 2);
  EXPECT_EQ(small_bucket_size(9, 3, 1), 10);
  EXPECT_EQ(small_bucket_size(4, 17, 3), 20);
  EXPECT_EQ(small_bucket_size(32, 32, 32), 32);
  EXPECT_EQ(small_bucket_size(8, 33, 8), -1);
}

TEST(SmallTuning, ParserRefusesBadRows) {
  char const* header = "dtype,size,rows_per_thread,cols_per_thread,problems_per_block\n";
  EXPECT_NO_THROW(parse_small_tuning(std::string(header) + "f64,32,2,2,1\n"));
  EXPECT_THROW(parse_small_tuning(std::string(header) + "f64,32,3,3,1\n"), std::invalid_argument);  // no such shape
  EXPECT_THROW(parse_small_tuning(std::string(header) + "f16,32,4,4,1\n"), std::invalid_argument);
  EXPECT_THROW(parse_small_tuning(std::string(header) + "f64,32,4,4\n"), std::invalid_argument);
  // The old four-column header is refused, not misread.
  EXPECT_THROW(parse_small_tuning("dtype,size,rows_per_thread,problems_per_block\nf64,32,4,1\n"), std::invalid_argument);
  EXPECT_THROW(parse_small_tuning("size,dtype\n"), std::invalid_argument);
}

}  // namespace
}  // namespace gemmkit::small
