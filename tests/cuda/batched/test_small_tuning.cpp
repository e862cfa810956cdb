/*! \file
    \brief The small batched kernel's buckets and tuning table on the host: every square size and
    every power-of-two bucket of both precisions has a candidate, the table's rows name existing
    candidates, bucket lookup picks the least padding, and the parser refuses bad rows; the build
    compiled every candidate the table picks, and a launch of one it did not is refused.
*/
#include "cuda/batched/small_batched.hpp"
#include "cuda/batched/small_built.hpp"
#include "cuda/batched/small_tuning.hpp"
#include "cuda/batched/small_tuning_data.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <set>
#include <stdexcept>
#include <tuple>
#include <string>
#include <utility>
#include <vector>

namespace gemmkit::small {
namespace {

TEST(SmallTuning, EverySquareSizeOfBothPrecisionsHasARow) {
  std::vector<SmallTuningRow> const rows = parse_small_tuning(kSmallTuningCsv);
  for (int bytes : {8, 4}) {
    for (int size : {2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 20, 24, 28, 32}) {
      SmallBucket const square{size, size, size};
      bool found = false;
      for (SmallTuningRow const& r : rows) found |= r.gpu == rows.front().gpu && r.element_bytes == bytes && r.bucket == square;
      EXPECT_TRUE(found) << "no row for " << bytes << "-byte elements, size " << size;
    }
  }
}

TEST(SmallTuning, EveryBucketHasACandidateOfWholeWarps) {
  EXPECT_EQ(small_buckets().size(), 14u + 125u - 5u);  // the squares, and the grid less its 5 squares
  for (SmallBucket const& bucket : small_buckets()) {
    for (int bytes : {8, 4}) {
      int const c = small_tuned_candidate("h100", bytes, bucket);
      ASSERT_GE(c, 0);
      EXPECT_EQ(small_candidates()[c].bucket, bucket);
      EXPECT_EQ(small_candidates()[c].threads % 32, 0);
    }
  }
  EXPECT_EQ(small_tuned_candidate("h100", 8, SmallBucket{3, 5, 7}), -1);  // no such bucket
}

TEST(SmallTuning, EveryCandidateTheTablePicksIsBuilt) {
  int built = 0;
  std::vector<SmallTuningRow> const rows = parse_small_tuning(kSmallTuningCsv);
  std::vector<std::string> keys{"unknown-gpu"};  // a GPU without rows: the default's
  for (SmallTuningRow const& r : rows) {
    if (std::find(keys.begin(), keys.end(), r.gpu) == keys.end()) keys.push_back(r.gpu);
  }
  std::set<std::pair<int, int>> picked;  // (candidate, bytes)
  for (std::string const& key : keys) {
    for (SmallBucket const& bucket : small_buckets()) {
      for (int bytes : {8, 4}) {
        int const c = small_tuned_candidate(key, bytes, bucket);
        picked.insert({c, bytes});
        EXPECT_TRUE(small_candidate_built(c, bytes)) << key << ": candidate " << c << ", " << bytes << "-byte elements";
      }
    }
  }
  for (int c = 0; c < kSmallCandidateCount; ++c) {
    for (int bytes : {8, 4}) {
      built += small_candidate_built(c, bytes) ? 1 : 0;
      int const part = small_candidate_part<kSmallLaunchParts>(c, bytes);
      EXPECT_EQ(part >= 0 && part < kSmallLaunchParts, small_candidate_built(c, bytes)) << c;
    }
  }
  if (kSmallAllCandidatesBuilt) {
    EXPECT_EQ(built, 2 * kSmallCandidateCount);
  } else {
    EXPECT_EQ(built, int(picked.size()));  // what some GPU's lookup picks, nothing more
  }
  EXPECT_FALSE(small_candidate_built(-1, 8));
  EXPECT_FALSE(small_candidate_built(kSmallCandidateCount, 8));
  EXPECT_FALSE(small_candidate_built(0, 2));
}

/// Refused before the device is asked for, so this runs without one.
TEST(SmallTuning, LaunchOfACandidateNotBuiltIsNotSupported) {
  int unbuilt = -1;
  for (int c = 0; c < kSmallCandidateCount && unbuilt < 0; ++c) unbuilt = small_candidate_built(c, 8) ? -1 : c;
  if (unbuilt < 0) GTEST_SKIP() << "every candidate built (GEMMKIT_BUILD_ALL_CONFIGS)";
  SmallBucket const b = small_candidates()[std::size_t(unbuilt)].bucket;
  SmallBatchParams<double> params{};
  params.gemm.m = b.m;
  params.gemm.n = b.n;
  params.gemm.k = b.k;
  params.gemm.batch = 1;
  EXPECT_EQ(launch_small_batched<double>(params, nullptr, {.candidate = unbuilt}), cudaErrorNotSupported);
}

TEST(SmallTuning, BucketHoldsTheProblemWithTheLeastPadding) {
  auto bucket = [](int m, int n, int k) { return small_bucket_for(m, n, k); };
  EXPECT_EQ(bucket(1, 1, 1), (SmallBucket{2, 2, 2}));
  EXPECT_EQ(bucket(5, 5, 5), (SmallBucket{5, 5, 5}));
  EXPECT_EQ(bucket(4, 8, 4), (SmallBucket{4, 8, 4}));
  EXPECT_EQ(bucket(32, 16, 8), (SmallBucket{32, 16, 8}));
  EXPECT_EQ(bucket(16, 8, 32), (SmallBucket{16, 8, 32}));
  EXPECT_EQ(bucket(6, 6, 3), (SmallBucket{6, 6, 6}));       // 108 padded elements against 8x8x4's 128
  EXPECT_EQ(bucket(9, 3, 1), (SmallBucket{16, 4, 2}));      // 32 + 8 + 64 against 10x10x10's 300
  EXPECT_EQ(bucket(24, 24, 8), (SmallBucket{32, 32, 8}));   // 1536 against 24x24x24's 1728
  EXPECT_EQ(bucket(20, 20, 10), (SmallBucket{20, 20, 20}));  // 1200 against 32x32x16's 2048
  EXPECT_EQ(bucket(32, 32, 32), (SmallBucket{32, 32, 32}));
  EXPECT_FALSE(bucket(8, 33, 8).valid());
  EXPECT_FALSE(bucket(8, 8, 33).valid());
  // Whatever it picks holds the problem.
  for (int m = 1; m <= 32; m += 3) {
    for (int n = 1; n <= 32; n += 5) {
      for (int k = 1; k <= 32; k += 7) {
        SmallBucket const b = bucket(m, n, k);
        EXPECT_TRUE(b.m >= m && b.n >= n && b.k >= k) << m << "x" << n << "x" << k;
      }
    }
  }
}

TEST(SmallTuning, GpuKeysAndTheirFallback) {
  EXPECT_EQ(gpu_tuning_key("NVIDIA H100 80GB HBM3"), "h100");
  EXPECT_EQ(gpu_tuning_key("NVIDIA H200"), "h200");
  EXPECT_EQ(gpu_tuning_key("NVIDIA A100-SXM4-80GB"), "a100-sxm4-80gb");
  EXPECT_EQ(gpu_tuning_key(""), "");
  // Two GPUs' rows for the 8x8x8 bucket, only the first's for 4x4x4: each GPU its own row, the first
  // GPU's row where a GPU has none, the bucket's first candidate where neither has one.
  std::vector<SmallTuningRow> const table = parse_small_tuning(
      "gpu,dtype,m,n,k,rows_per_thread,cols_per_thread,problems_per_block,registers,stages\n"
      "h100,f64,8,8,8,2,2,32,80,2\n"
      "h100,f64,4,4,4,2,2,128,80,2\n"
      "h200,f64,8,8,8,2,2,16,80,2\n");
  auto const shape = [](int c) {
    SmallCandidateInfo const& i = small_candidates()[std::size_t(c)];
    return std::tuple{i.rows_per_thread, i.cols_per_thread, i.problems_per_block, i.register_budget};
  };
  SmallBucket const eight{8, 8, 8}, four{4, 4, 4}, two{2, 2, 2};
  EXPECT_EQ(shape(small_tuned_candidate(table, "h100", 8, eight)), std::tuple(2, 2, 32, 80));
  EXPECT_EQ(shape(small_tuned_candidate(table, "h200", 8, eight)), std::tuple(2, 2, 16, 80));
  EXPECT_EQ(shape(small_tuned_candidate(table, "h200", 8, four)), std::tuple(2, 2, 128, 80));
  EXPECT_EQ(shape(small_tuned_candidate(table, "b200", 8, eight)), std::tuple(2, 2, 32, 80));
  int first_two = -1;
  for (SmallCandidateInfo const& c : small_candidates()) {
    if (first_two < 0 && c.bucket == two) first_two = c.index;
  }
  EXPECT_EQ(small_tuned_candidate(table, "h200", 8, two), first_two);
}

TEST(SmallTuning, ParserRefusesBadRows) {
  char const* header = "gpu,dtype,m,n,k,rows_per_thread,cols_per_thread,problems_per_block,registers,stages\n";
  EXPECT_NO_THROW(parse_small_tuning(std::string(header) + "h100,f64,32,32,32,2,2,1,80,2\n"));
  EXPECT_NO_THROW(parse_small_tuning(std::string(header) + "h100,f32,32,16,8,2,2,2,64,2\n"));
  EXPECT_THROW(parse_small_tuning(std::string(header) + "h100,f32,32,16,8,2,2,2,80,2\n"), std::invalid_argument);  // the grid's is 64
  EXPECT_NO_THROW(parse_small_tuning(std::string(header) + "h100,f64,5,5,5,1,1,20,40,2\n"));
  EXPECT_THROW(parse_small_tuning(std::string(header) + "h100,f64,32,32,32,3,3,1,80,2\n"), std::invalid_argument);  // no such shape
  EXPECT_THROW(parse_small_tuning(std::string(header) + "h100,f64,32,16,8,4,4,1,80,2\n"), std::invalid_argument);
  EXPECT_THROW(parse_small_tuning(std::string(header) + "h100,f64,5,5,5,1,1,20,48,2\n"), std::invalid_argument);  // no such budget
  EXPECT_THROW(parse_small_tuning(std::string(header) + "h100,f16,32,32,32,4,4,1,80,2\n"), std::invalid_argument);
  EXPECT_THROW(parse_small_tuning(std::string(header) + "h100,f64,32,32,32,2,2,1,2\n"), std::invalid_argument);
  EXPECT_NO_THROW(parse_small_tuning(std::string(header) + "h100,f64,5,5,5,1,1,20,40,3\n"));
  EXPECT_THROW(parse_small_tuning(std::string(header) + "h100,f64,5,5,5,1,1,20,40,4\n"), std::invalid_argument);  // no such stages
  EXPECT_THROW(parse_small_tuning(std::string(header) + "H100,f64,5,5,5,1,1,20,40,2\n"), std::invalid_argument);  // not a key
  EXPECT_THROW(parse_small_tuning(std::string(header) + ",f64,5,5,5,1,1,20,40,2\n"), std::invalid_argument);
  // The older headers are refused, not misread.
  EXPECT_THROW(parse_small_tuning("dtype,m,n,k,rows_per_thread,cols_per_thread,problems_per_block,registers,stages\n"
                                  "f64,5,5,5,1,1,20,40,2\n"),
               std::invalid_argument);
  EXPECT_THROW(parse_small_tuning("dtype,m,n,k,rows_per_thread,cols_per_thread,problems_per_block,registers\n"
                                  "f64,5,5,5,1,1,20,40\n"),
               std::invalid_argument);
  EXPECT_THROW(parse_small_tuning("dtype,m,n,k,rows_per_thread,cols_per_thread,problems_per_block\nf64,32,32,32,2,2,1\n"),
               std::invalid_argument);
  EXPECT_THROW(parse_small_tuning("dtype,size,rows_per_thread,cols_per_thread,problems_per_block\nf64,32,2,2,1\n"),
               std::invalid_argument);
  EXPECT_THROW(parse_small_tuning("size,dtype\n"), std::invalid_argument);
}

}  // namespace
TEST(SmallTuning, FlatKernelRule) {
  EXPECT_NEAR(multiply_adds_per_element(8, 8, 8), 512.0 / 256.0, 1e-12);
  // Strided float: up to 5 multiply-adds per element moved.
  EXPECT_TRUE(small_flat_preferred(4, 5, 7, 3, SmallBucket{8, 8, 4}, false));
  EXPECT_TRUE(small_flat_preferred(4, 15, 15, 15, SmallBucket{16, 16, 16}, false));
  EXPECT_FALSE(small_flat_preferred(4, 31, 31, 31, SmallBucket{32, 32, 32}, false));
  // Strided double and pointer arrays: few multiply-adds per element, or a bucket twice the
  // problem's volume.
  EXPECT_TRUE(small_flat_preferred(8, 24, 24, 8, SmallBucket{32, 32, 8}, false));
  EXPECT_FALSE(small_flat_preferred(8, 15, 15, 15, SmallBucket{16, 16, 16}, false));
  EXPECT_TRUE(small_flat_preferred(8, 20, 12, 28, SmallBucket{32, 16, 32}, false));
  EXPECT_TRUE(small_flat_preferred(4, 5, 7, 3, SmallBucket{8, 8, 4}, true));
  EXPECT_FALSE(small_flat_preferred(4, 11, 11, 11, SmallBucket{12, 12, 12}, true));
  EXPECT_TRUE(small_flat_preferred(8, 20, 12, 28, SmallBucket{32, 16, 32}, true));
  EXPECT_FALSE(flat_two_by_two(8, 24, 24, 8));  // 3.0: single elements in double, 2 x 2 in float
  EXPECT_TRUE(flat_two_by_two(4, 24, 24, 8));
}

}  // namespace gemmkit::small
