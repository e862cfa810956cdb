/*! \file
    \brief The small batched GPU kernels (dgemm_gpu_small, sgemm_gpu_small; each family alone as
    ?gemm_gpu_small_flat and ?gemm_gpu_small_buckets): every size bucket and the sizes between them, non-square shapes,
    all transposes, alpha/beta, padded leading dimensions, batches that span several blocks,
    broadcast operands, and pointer arrays through the public API; the flat kernel's plan and copy
    modes. Device tests skip without a device.
*/
#include "base/device.hpp"
#include "cuda/batched/flat_batched.hpp"
#include "cuda/batched/small_batched.hpp"
#include "cuda/batched/small_batched_config.hpp"
#include "cuda/batched/small_built.hpp"
#include "cuda/batched/small_tuning.hpp"
#include "registry/registry.hpp"
#include "variants/variants.hpp"
#include "support/device_memory.hpp"
#include "support/gemm_check.hpp"

#include <gemmkit/gemmkit.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <vector>

namespace gemmkit::test {
namespace {

class GpuSmall : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (!gk_gpu_available()) GTEST_SKIP() << "no CUDA device";
    variant_ = variant_registry().find(GetParam());
    ASSERT_NE(variant_, nullptr);
    if (compute_capability(device_memory()->device()) < variant_->info().min_sm) GTEST_SKIP() << "needs sm_80";
  }
  ::testing::AssertionResult check(std::int64_t m, std::int64_t n, std::int64_t k, gk_op ta, gk_op tb, double alpha,
                                   double beta, std::int64_t ld_pad, std::int64_t batch) const {
    GemmProblem const p = make_problem(variant_->info().dtype, ta, tb, m, n, k, ld_pad, batch);
    return check_variant(*variant_, p, alpha, beta, /*on_device=*/true);
  }
  GemmVariant const* variant_ = nullptr;
};

TEST_P(GpuSmall, EverySquareSizeAndTranspose) {
  for (int s = 1; s <= 32; ++s) {
    int i = 0;
    for (gk_op ta : {GK_OP_N, GK_OP_T}) {
      for (gk_op tb : {GK_OP_N, GK_OP_T}) {
        EXPECT_TRUE(check(s, s, s, ta, tb, 1.0, 0.0, (i++ % 2) * 3, 7));   // NaN C must not be read
        EXPECT_TRUE(check(s, s, s, ta, tb, -1.5, 0.25, (i++ % 2) * 2, 5));
      }
    }
  }
}

TEST_P(GpuSmall, NonSquareShapes) {
  std::mt19937 rng(20261121);
  std::uniform_int_distribution<int> size(1, 32);
  for (int trial = 0; trial < 60; ++trial) {
    int const m = size(rng), n = size(rng), k = size(rng);
    gk_op const ta = trial % 2 ? GK_OP_T : GK_OP_N, tb = trial % 3 ? GK_OP_N : GK_OP_C;
    EXPECT_TRUE(check(m, n, k, ta, tb, 0.5, trial % 4 == 0 ? 0.0 : -1.0, trial % 5, 3 + trial % 4));
  }
  for (auto [m, n, k] : {std::tuple{32, 1, 32}, {1, 32, 32}, {32, 32, 1}, {2, 31, 17}, {31, 2, 5}}) {
    EXPECT_TRUE(check(m, n, k, GK_OP_N, GK_OP_N, 1.0, 1.0, 1, 4));
  }
}

TEST_P(GpuSmall, BatchesSpanningManyBlocks) {
  // Sizes whose blocks aggregate many problems; batch counts that leave the last block partial.
  for (int s : {2, 3, 5, 8, 12, 20, 32}) {
    EXPECT_TRUE(check(s, s, s, GK_OP_N, GK_OP_N, 1.0, 1.0, 0, 1001));
    EXPECT_TRUE(check(s, s, s, GK_OP_T, GK_OP_N, 2.0, 0.0, 1, 67));
  }
}

TEST_P(GpuSmall, NonSquareBucketsPackedAndStrided) {
  // Exact power-of-two buckets (packed: the 16-byte span copy), one smaller, all transposes,
  // batches that leave the last block partial.
  for (auto [m, n, k] : {std::tuple{4, 8, 4}, {8, 4, 16}, {16, 8, 32}, {32, 16, 8}, {2, 32, 4}, {32, 2, 32}, {16, 32, 2}}) {
    EXPECT_TRUE(check(m, n, k, GK_OP_N, GK_OP_N, 1.0, 1.0, 0, 1001));
    EXPECT_TRUE(check(m, n, k, GK_OP_N, GK_OP_N, -2.0, 0.0, 0, 77));
    EXPECT_TRUE(check(m - 1, n, k - 1, GK_OP_N, GK_OP_N, 0.5, -1.0, 0, 131));
    EXPECT_TRUE(check(m, n, k, GK_OP_T, GK_OP_N, 1.0, 0.5, 1, 33));
    EXPECT_TRUE(check(m, n, k, GK_OP_N, GK_OP_T, 1.0, 0.5, 2, 33));
    EXPECT_TRUE(check(m, n, k, GK_OP_T, GK_OP_C, 1.5, 0.0, 0, 33));
  }
}

TEST_P(GpuSmall, DeclinesPast32) {
  GemmProblem p = make_problem(variant_->info().dtype, GK_OP_N, GK_OP_N, 33, 8, 8);
  EXPECT_NE(variant_->can_implement(p), GK_SUCCESS);
  p = make_problem(variant_->info().dtype, GK_OP_N, GK_OP_N, 8, 8, 33);
  EXPECT_NE(variant_->can_implement(p), GK_SUCCESS);
  p = make_problem(variant_->info().dtype, GK_OP_N, GK_OP_N, 32, 32, 32, 0, 1000000);
  EXPECT_EQ(variant_->can_implement(p), GK_SUCCESS);
}

INSTANTIATE_TEST_SUITE_P(Registered, GpuSmall,
                         ::testing::Values("dgemm_gpu_small", "sgemm_gpu_small", "dgemm_gpu_small_flat",
                                           "sgemm_gpu_small_flat", "dgemm_gpu_small_buckets",
                                           "sgemm_gpu_small_buckets"));

/// Pointer arrays (in host memory, as the API says) to matrices in device memory, in shuffled
/// order and with a broadcast A, run through the variant's lifecycle: one launch of the small
/// kernel, the arrays copied into its workspace, checked per problem on the host.
/// B of slot s starts at s * (k * n + b_gap): a gap of one element leaves every other problem's B
/// off 16-byte alignment.
void check_shuffled_pointer_array(int m, int n, int k, int b_gap, char const* variant = "dgemm_gpu_small") {
  GemmVariant const* v = variant_registry().find(variant);
  ASSERT_NE(v, nullptr);
  constexpr int batch = 300;
  std::size_t const b_slot = std::size_t(k) * n + b_gap;
  std::mt19937_64 rng(7);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<double> a(m * k), b(std::size_t(batch) * b_slot), c(std::size_t(batch) * m * n);
  for (double& x : a) x = value(rng);
  for (double& x : b) x = value(rng);
  for (double& x : c) x = value(rng);
  DeviceBuffer<double> da(a), db(b), dc(c);
  ASSERT_EQ(da.error() + db.error() + dc.error(), "");
  std::vector<void const*> a_array(batch), b_array(batch);
  std::vector<void*> c_array(batch);
  for (int i = 0; i < batch; ++i) {
    int const slot = (i * 7) % batch;  // a permutation: problem i uses slot `slot`
    a_array[i] = da.get();             // every problem shares A
    b_array[i] = db.get() + std::size_t(slot) * b_slot;
    c_array[i] = dc.get() + std::size_t(slot) * m * n;
  }
  double const alpha = 1.25, beta = -0.5;
  GemmArguments args;
  args.problem = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, m, n, k, 0, batch);
  args.problem.pointer_array = true;
  args.alpha = alpha;
  args.beta = beta;
  args.A = a_array.data();
  args.B = b_array.data();
  args.C = c_array.data();
  ASSERT_EQ(v->can_implement(args.problem), GK_SUCCESS);
  DeviceBuffer<unsigned char> workspace(v->workspace_bytes(args.problem));
  ASSERT_EQ(workspace.error(), "");
  ExecutionContext const exec{nullptr, device_memory()->device()};
  ASSERT_EQ(v->initialize(exec), GK_SUCCESS);
  ASSERT_EQ(v->run(args, workspace.get(), exec), GK_SUCCESS);
  ASSERT_EQ(device_memory()->synchronize(), "");
  std::vector<double> const out = dc.download();
  ASSERT_EQ(dc.error(), "");
  double worst = 0;
  for (int slot = 0; slot < batch; ++slot) {
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < m; ++i) {
        long double sum = 0;
        for (int p = 0; p < k; ++p) sum += (long double)a[i + p * m] * b[std::size_t(slot) * b_slot + p + j * k];
        double const expected = double(alpha * sum + beta * (long double)c[std::size_t(slot) * m * n + i + j * m]);
        double const got = out[std::size_t(slot) * m * n + i + j * m];
        ASSERT_TRUE(std::isfinite(got)) << m << "x" << n << "x" << k << " slot " << slot;
        worst = std::max(worst, std::abs(got - expected));
      }
    }
  }
  EXPECT_LT(worst, 1e-13) << variant << " " << m << "x" << n << "x" << k << " B gap " << b_gap;
}

TEST(GpuSmallPointerArray, ShuffledProblemsAndABroadcastA) {
  if (!gk_gpu_available()) GTEST_SKIP() << "no CUDA device";
  if (compute_capability(device_memory()->device()) < 80) GTEST_SKIP() << "needs sm_80";
  check_shuffled_pointer_array(7, 5, 9, 0);  // a bucket larger than the problem: element copies
  // Exact bucket sizes: problem by problem in 16-byte copies, element by element where a
  // problem's B is off 16-byte alignment.
  check_shuffled_pointer_array(8, 4, 16, 0);
  check_shuffled_pointer_array(8, 4, 16, 1);
  check_shuffled_pointer_array(16, 16, 16, 1);
  // The flat kernel: element copies (A of 7 x 9 doubles is no whole number of 16-byte copies) and
  // 16-byte copies of each problem, one problem in two off alignment.
  check_shuffled_pointer_array(7, 5, 9, 0, "dgemm_gpu_small_flat");
  check_shuffled_pointer_array(8, 4, 16, 1, "dgemm_gpu_small_flat");
}


/// One launch (`options`: which kernel, how many blocks) on random problems stored one after another (leading dimensions
/// the stored rows plus ld_pad), checked on the host against a long-double reference; C is NaN
/// when beta = 0 (it must not leak). With
/// `device_arrays` the kernel gets device pointer arrays in reverse order (problem p is stored in
/// slot batch-1-p), so following the strides instead would pair the wrong A, B and C.
/// max_blocks > 0 caps the grid, so each block walks many groups (its stages and pointer slots
/// reused many times over).
template <typename T>
void check_launch(small::SmallLaunchOptions const& options, std::string const& kernel, int m, int n, int k, bool trans_a,
                  bool trans_b, T alpha, T beta, std::int64_t batch, bool device_arrays, std::uint64_t seed,
                  int ld_pad = 0, int stride_pad = 0) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  int const lda = (trans_a ? k : m) + ld_pad, ldb = (trans_b ? n : k) + ld_pad, ldc = m + ld_pad;
  std::int64_t const stride_a = std::int64_t(lda) * (trans_a ? m : k) + stride_pad,
                     stride_b = std::int64_t(ldb) * (trans_b ? k : n) + stride_pad,
                     stride_c = std::int64_t(ldc) * n + stride_pad;
  std::vector<T> a(std::size_t(batch * stride_a)), b(std::size_t(batch * stride_b)), c(std::size_t(batch * stride_c));
  for (T& x : a) x = T(value(rng));
  for (T& x : b) x = T(value(rng));
  for (T& x : c) x = beta == T(0) ? std::numeric_limits<T>::quiet_NaN() : T(value(rng));
  auto op_a = [&](std::int64_t p, int i, int q) { return a[p * stride_a + (trans_a ? q + i * lda : i + q * lda)]; };
  auto op_b = [&](std::int64_t p, int q, int j) { return b[p * stride_b + (trans_b ? j + q * ldb : q + j * ldb)]; };
  DeviceBuffer<T> da(a), db(b), dc(c);
  ASSERT_EQ(da.error() + db.error() + dc.error(), "");
  small::SmallBatchParams<T> params{KernelParams<T>{m, n, k, alpha, beta, da.get(), lda, stride_a, db.get(), ldb,
                                                    stride_b, dc.get(), ldc, stride_c, batch, trans_a, trans_b}};
  auto slot_of = [&](std::int64_t p) { return device_arrays ? batch - 1 - p : p; };
  std::vector<T const*> a_entries, b_entries;
  std::vector<T*> c_entries;
  for (std::int64_t p = 0; device_arrays && p < batch; ++p) {
    a_entries.push_back(da.get() + slot_of(p) * stride_a);
    b_entries.push_back(db.get() + slot_of(p) * stride_b);
    c_entries.push_back(dc.get() + slot_of(p) * stride_c);
  }
  DeviceBuffer<T const*> a_array(a_entries), b_array(b_entries);
  DeviceBuffer<T*> c_array(c_entries);
  ASSERT_EQ(a_array.error() + b_array.error() + c_array.error(), "");
  if (device_arrays) {
    params.A_array = a_array.get();
    params.B_array = b_array.get();
    params.C_array = c_array.get();
  }
  int const max_blocks = options.max_blocks;
  std::string const what = kernel + " " + std::to_string(m) + "x" +
                           std::to_string(n) + "x" + std::to_string(k) + " trans " + std::to_string(trans_a) +
                           std::to_string(trans_b) + " beta " + std::to_string(double(beta)) + " batch " +
                           std::to_string(batch) + (device_arrays ? " device arrays" : " strided") +
                           (ld_pad > 0 ? " ld +" + std::to_string(ld_pad) : "") +
                           (stride_pad > 0 ? " stride +" + std::to_string(stride_pad) : "") +
                           (max_blocks > 0 ? " on " + std::to_string(max_blocks) + " blocks" : "");
  ASSERT_EQ(small::launch_small_batched<T>(params, nullptr, options), cudaSuccess) << what;
  ASSERT_EQ(device_memory()->synchronize(), "") << what;
  std::vector<T> const out = dc.download();
  double worst = 0;
  for (std::int64_t p = 0; p < batch; ++p) {
    std::int64_t const slot = slot_of(p);
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < m; ++i) {
        long double sum = 0;
        for (int q = 0; q < k; ++q) sum += (long double)op_a(slot, i, q) * op_b(slot, q, j);
        long double const old = beta == T(0) ? 0.0L : (long double)c[slot * stride_c + i + j * ldc];
        double const expected = double(alpha * sum + beta * old);
        double const got = out[slot * stride_c + i + j * ldc];
        ASSERT_TRUE(std::isfinite(got)) << what << ": problem " << p;
        worst = std::max(worst, std::abs(got - expected));
      }
    }
  }
  double const tolerance = sizeof(T) == 8 ? 1e-12 : 1e-4;  // |C| <= 33: a few ulps per term
  EXPECT_LT(worst, tolerance) << what;
  // Whatever lies outside the problems' m x n (rows past m up to ldc, the gap after each problem)
  // is as it was, bit for bit.
  std::int64_t untouched_wrong = 0;
  for (std::int64_t at = 0; at < batch * stride_c; ++at) {
    std::int64_t const in_problem = at % stride_c;
    bool const inside = in_problem < std::int64_t(ldc) * n && in_problem % ldc < m;
    if (!inside && std::memcmp(&out[std::size_t(at)], &c[std::size_t(at)], sizeof(T)) != 0) ++untouched_wrong;
  }
  EXPECT_EQ(untouched_wrong, 0) << what << ": elements outside the problems written";
}

/// check_launch of candidate `cand` (the bucket's kernel).
template <typename T>
void check_candidate(small::SmallCandidateInfo const& cand, int m, int n, int k, bool trans_a, bool trans_b, T alpha,
                     T beta, std::int64_t batch, bool device_arrays, std::uint64_t seed, int max_blocks = 0,
                     int ld_pad = 0, int stride_pad = 0) {
  std::string const kernel = "candidate " + std::to_string(cand.index) + " (bucket " + std::to_string(cand.bucket.m) +
                             "x" + std::to_string(cand.bucket.n) + "x" + std::to_string(cand.bucket.k) + ", block " +
                             std::to_string(cand.rows_per_thread) + "x" + std::to_string(cand.cols_per_thread) +
                             ", problems " + std::to_string(cand.problems_per_block) + ")";
  check_launch<T>({.candidate = cand.index, .max_blocks = max_blocks}, kernel, m, n, k, trans_a, trans_b, alpha, beta,
                  batch, device_arrays, seed, ld_pad, stride_pad);
}

/// Every candidate shape the tuner may pick, launched directly: exact bucket sizes and smaller ones,
/// all four transposes, beta = 0 on a C full of NaN (must not leak) and beta != 0, several
/// blocks' worth of problems with the last group partial, strided and (every other mode) on
/// device pointer arrays, two of the smaller modes with padded leading dimensions; then two or
/// three blocks walking many groups each, strided (packed, and with gaps between problems) and on
/// device arrays. Only the candidates this build compiled (all with GEMMKIT_BUILD_ALL_CONFIGS).
template <typename T>
void check_every_candidate(bool cache_based_only = false) {
  for (small::SmallCandidateInfo const& cand : small::small_candidates()) {
    if (cache_based_only && cand.stages != 0) continue;
    if (!small::small_candidate_built(cand.index, int(sizeof(T)))) continue;
    for (int mode = 0; mode < 8; ++mode) {
      bool const trans_a = mode & 1, trans_b = mode & 2, shrink = mode & 4;
      int const m = std::max(1, cand.bucket.m - int(shrink)), n = cand.bucket.n,
                k = std::max(1, cand.bucket.k - 2 * int(shrink));
      T const beta = mode % 3 == 0 ? T(0) : T(-0.5);
      check_candidate<T>(cand, m, n, k, trans_a, trans_b, T(1.5), beta, 2 * cand.problems_per_block + 3,
                         /*device_arrays=*/mode % 2 == 1, std::uint64_t(cand.index * 8 + mode), /*max_blocks=*/0,
                         /*ld_pad=*/mode == 5 || mode == 6 ? 1 : 0);
    }
    small::SmallBucket const& b = cand.bucket;
    std::int64_t const walk = 7;  // groups a block walks (about)
    check_candidate<T>(cand, b.m, b.n, b.k, false, false, T(1.0), T(1.0), 2 * walk * cand.problems_per_block + 1,
                       false, std::uint64_t(cand.index * 8 + 100), /*max_blocks=*/2);
    // Exact sizes with a gap of 16 bytes or more after each problem: copied problem by problem, C too.
    check_candidate<T>(cand, b.m, b.n, b.k, false, false, T(0.5), T(-1.0), walk * cand.problems_per_block + 3, false,
                       std::uint64_t(cand.index * 8 + 103), /*max_blocks=*/2, /*ld_pad=*/0, /*stride_pad=*/4);
    check_candidate<T>(cand, std::max(1, b.m - 1), b.n, b.k, true, false, T(-0.5), T(2.0),
                       3 * walk * cand.problems_per_block + 2, true, std::uint64_t(cand.index * 8 + 101),
                       /*max_blocks=*/3);
    check_candidate<T>(cand, b.m, b.n, b.k, false, false, T(0.25), T(0.0), 3 * walk * cand.problems_per_block - 1,
                       true, std::uint64_t(cand.index * 8 + 102), /*max_blocks=*/3);
  }
}

TEST(GpuSmallCandidates, EveryShapeTheTunerMayPick) {
  if (!gk_gpu_available()) GTEST_SKIP() << "no CUDA device";
  if (compute_capability(device_memory()->device()) < 80) GTEST_SKIP() << "needs sm_80";
  check_every_candidate<double>();
  check_every_candidate<float>();
}

/// The cache-based design's shapes alone (zero stages: no shared memory, loads straight from
/// global memory), so that compute-sanitizer can check their reads in a short run.
TEST(GpuSmallCandidates, CacheBasedDesign) {
  if (!gk_gpu_available()) GTEST_SKIP() << "no CUDA device";
  if (compute_capability(device_memory()->device()) < 80) GTEST_SKIP() << "needs sm_80";
  int shapes = 0;
  for (small::SmallCandidateInfo const& cand : small::small_candidates()) shapes += cand.stages == 0 ? 1 : 0;
  EXPECT_EQ(shapes, int(std::size(small::kSmallSizes)));  // one at every square size
  check_every_candidate<double>(true);
  check_every_candidate<float>(true);
}

/// The shapes where a thread holds a whole problem and (exact sizes, C staged) the block stores C
/// from its stage: packed batches ending in a partial group, 2 blocks walking many groups (so a
/// stage is refilled right after its C was stored from it), problems apart by a gap (stored problem
/// by problem), and beta = 0 on a C of NaN.
template <typename T>
void check_whole_problem_candidates() {
  int checked = 0;
  for (small::SmallCandidateInfo const& cand : small::small_candidates()) {
    small::SmallBucket const& b = cand.bucket;
    if (cand.rows_per_thread != b.m || cand.cols_per_thread != b.n) continue;
    if (!small::small_candidate_built(cand.index, int(sizeof(T)))) continue;
    std::int64_t const p = cand.problems_per_block;
    check_candidate<T>(cand, b.m, b.n, b.k, false, false, T(1.25), T(-0.75), 9 * p + 1, false,
                       std::uint64_t(cand.index * 4 + 1), /*max_blocks=*/2);
    check_candidate<T>(cand, b.m, b.n, b.k, false, false, T(0.5), T(0.0), 5 * p - 3, false,
                       std::uint64_t(cand.index * 4 + 2), /*max_blocks=*/2);
    check_candidate<T>(cand, b.m, b.n, b.k, false, false, T(-1.0), T(2.0), 6 * p + 5, false,
                       std::uint64_t(cand.index * 4 + 3), /*max_blocks=*/3, /*ld_pad=*/0, /*stride_pad=*/4);
    ++checked;
  }
  if (small::kSmallAllCandidatesBuilt) {
    EXPECT_GE(checked, 4);  // the 5 x 5 x 5 and 7 x 7 x 7 shapes at least
  }
}

TEST(GpuSmallCandidates, WholeProblemPerThreadStoresThroughTheStage) {
  if (!gk_gpu_available()) GTEST_SKIP() << "no CUDA device";
  if (compute_capability(device_memory()->device()) < 80) GTEST_SKIP() << "needs sm_80";
  check_whole_problem_candidates<float>();
  check_whole_problem_candidates<double>();
}

/// Pointer arrays whose batch gives every block of a full resident wave several groups to walk,
/// so the ring of staged pointers wraps around (at least four iterations a block): the tuned shape
/// of every square size, exact (16-byte copies), one smaller with transposes and one with padded
/// leading dimensions (element copies).
template <typename T>
void check_pointer_ring_wraps() {
  int device = 0, multiprocessors = 0;
  ASSERT_EQ(cudaGetDevice(&device), cudaSuccess);
  ASSERT_EQ(cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device), cudaSuccess);
  for (int size : small::kSmallSizes) {
    int const index = small::small_tuned_candidate_here(int(sizeof(T)), small::small_bucket_for(size, size, size), device);
    ASSERT_GE(index, 0) << size;
    small::SmallCandidateInfo const& cand = small::small_candidates()[std::size_t(index)];
    // At most 2048 resident threads an SM: a wave holds no more blocks than that.
    std::int64_t const wave = std::int64_t(multiprocessors) * (2048 / cand.threads);
    std::int64_t const batch = 4 * wave * cand.problems_per_block + 5;
    check_candidate<T>(cand, size, size, size, false, false, T(0.75), T(1.0), batch, true, std::uint64_t(size));
    int const smaller = std::max(1, size - 1);
    check_candidate<T>(cand, smaller, size, smaller, true, false, T(-1.0), T(0.0), batch / 2 + 1, true,
                       std::uint64_t(100 + size));
    check_candidate<T>(cand, smaller, smaller, size, false, true, T(0.5), T(1.0), batch / 3 + 2, true,
                       std::uint64_t(200 + size), /*max_blocks=*/0, /*ld_pad=*/2);
  }
}

TEST(GpuSmallPointerArray, RingOfStagedPointersWrapsAround) {
  if (!gk_gpu_available()) GTEST_SKIP() << "no CUDA device";
  if (compute_capability(device_memory()->device()) < 80) GTEST_SKIP() << "needs sm_80";
  check_pointer_ring_wraps<double>();
  check_pointer_ring_wraps<float>();
}

TEST(FastDivisor, MatchesIntegerDivision) {
  for (std::uint32_t d = 1; d <= 4096; ++d) {
    small::FastDivisor const by(d);
    for (int x : {0, 1, 2, 3, int(d) - 1, int(d), int(d) + 1, 2 * int(d) - 1, 2 * int(d), 4095, 4096, 65535, 1 << 20,
                  (1 << 30) + 7, std::numeric_limits<int>::max()}) {
      if (x < 0) continue;
      ASSERT_EQ(by.quotient(x), x / int(d)) << x << " / " << d;
    }
    for (int x = 0; x < 3000; ++x) ASSERT_EQ(by.quotient(x), x / int(d)) << x << " / " << d;
  }
}

/// The flat kernel's plan: 16-byte spans for packed aligned strided batches, 16-byte chunks for
/// contiguous problems of whole copies (pointer arrays, gaps between problems), element copies
/// along contiguous problems, else element copies; tiles 16-byte aligned in a stage; the problems
/// of a group fill about the block, within its share of shared memory.
TEST(FlatBatchedPlan, CopyModesAndLayout) {
  using small::FlatCopyMode;
  std::vector<float> storage(1 << 16);
  auto params = [&](int m, int n, int k, bool ta, std::int64_t stride_pad, int ld_pad, float beta) {
    int const lda = (ta ? k : m) + ld_pad;
    return small::SmallBatchParams<float>{KernelParams<float>{m, n, k, 1.0f, beta, storage.data(), lda,
                                                              std::int64_t(lda) * (ta ? m : k) + stride_pad,
                                                              storage.data(), k + ld_pad, std::int64_t(k + ld_pad) * n + stride_pad,
                                                              storage.data(), m + ld_pad, std::int64_t(m + ld_pad) * n + stride_pad,
                                                              1000, ta, false}};
  };
  small::FlatBatchParams<float> plan = small::plan_flat_batched(params(5, 7, 3, false, 0, 0, 1.0f));
  int const per_thread = small::flat_blocks_per_thread<float>(false, 1);
  EXPECT_EQ(plan.problems % 4, 0);  // 15, 21 and 35 floats a problem: spans of 4 problems are whole copies
  EXPECT_LE(plan.problems * 35, small::kFlatThreads * per_thread);
  EXPECT_GT(plan.problems * 35, small::kFlatThreads * (per_thread - 1));
  EXPECT_EQ(plan.a.mode, FlatCopyMode::kSpans);
  EXPECT_EQ(plan.b.mode, FlatCopyMode::kSpans);
  EXPECT_EQ(plan.c.mode, FlatCopyMode::kSpans);
  EXPECT_EQ(plan.b_offset % 4, 0);
  EXPECT_EQ(plan.c_offset % 4, 0);
  EXPECT_EQ(plan.stage_elements % 4, 0);
  EXPECT_EQ(plan.block, 1);
  plan = small::plan_flat_batched(params(12, 24, 6, false, 0, 0, 1.0f));  // whole copies a problem
  EXPECT_EQ(plan.block, 1);
  EXPECT_EQ(plan.problems, small::kFlatThreads * per_thread / (12 * 24));  // so any count of them
  plan = small::plan_flat_batched(params(24, 24, 8, false, 0, 0, 1.0f));
  EXPECT_EQ(plan.block, 2);
  EXPECT_EQ(plan.problems, small::kFlatThreads * small::flat_blocks_per_thread<float>(false, 2) / (12 * 12));
  EXPECT_EQ(plan.a.mode, FlatCopyMode::kSpans);
  plan = small::plan_flat_batched(params(8, 4, 4, false, 4, 0, 1.0f));  // gaps: problem by problem
  EXPECT_EQ(plan.a.mode, FlatCopyMode::kChunks);
  plan = small::plan_flat_batched(params(5, 7, 3, false, 4, 0, 1.0f));  // 15 floats: no whole copies
  EXPECT_EQ(plan.a.mode, FlatCopyMode::kRuns);
  plan = small::plan_flat_batched(params(8, 4, 4, false, 0, 1, 1.0f));  // padded leading dimensions
  EXPECT_EQ(plan.a.mode, FlatCopyMode::kElements);
  EXPECT_EQ(plan.c.mode, FlatCopyMode::kElements);
  plan = small::plan_flat_batched(params(6, 4, 8, true, 0, 0, 0.0f));  // A transposed: 8 x 6 stored, odd pitch
  EXPECT_EQ(plan.a.pitch, 9);
  EXPECT_EQ(plan.a.mode, FlatCopyMode::kElements);
  EXPECT_EQ(plan.a_row_step, 9);
  EXPECT_EQ(plan.a_k_step, 1);
  EXPECT_EQ(plan.stage_elements, plan.c_offset);  // beta = 0: C is not staged
  EXPECT_FALSE(plan.k_vectors);  // 1 x 1 blocks
  plan = small::plan_flat_batched(params(16, 12, 24, true, 0, 0, 1.0f));  // k = 24: six vectors, pitch seven
  EXPECT_TRUE(plan.k_vectors);
  EXPECT_EQ(plan.a.pitch, 28);
  EXPECT_EQ(plan.a.mode, FlatCopyMode::kColumns);
  plan = small::plan_flat_batched(params(8, 4, 4, false, 0, 4, 1.0f));  // leading dimensions padded by a vector
  EXPECT_EQ(plan.a.mode, FlatCopyMode::kColumns);
  EXPECT_EQ(plan.c.mode, FlatCopyMode::kColumns);
  EXPECT_EQ(plan.b.mode, FlatCopyMode::kColumns);
  plan = small::plan_flat_batched(params(20, 12, 28, true, 0, 0, 1.0f));  // k = 28: seven vectors
  EXPECT_TRUE(plan.k_vectors);
  EXPECT_EQ(plan.a.pitch, 28);
  EXPECT_EQ(plan.a.mode, FlatCopyMode::kSpans);
  EXPECT_EQ(plan.a_row_step, 28);
  EXPECT_EQ(plan.b_k_step, 1);
  EXPECT_FALSE(small::plan_flat_batched(params(20, 12, 28, false, 0, 0, 1.0f)).k_vectors);  // A not transposed
  EXPECT_TRUE(small::flat_two_by_two(4, 20, 12, 28));
  EXPECT_FALSE(small::flat_two_by_two(4, 5, 7, 3));
  for (int size : {1, 2, 5, 8, 13, 24, 32}) {
    plan = small::plan_flat_batched(params(size, size, size, true, 0, 3, 1.0f));
    EXPECT_GT(plan.problems, 0) << size;
    EXPECT_LE(small::flat_shared_bytes(plan), small::kFlatBlockBytes + 1024) << size;
    small::SmallBatchParams<double> wide{KernelParams<double>{size, size, size, 1.0, 1.0, nullptr, size, size * size,
                                                              nullptr, size, size * size, nullptr, size, size * size,
                                                              1000, false, false}};
    small::FlatBatchParams<double> const doubles = small::plan_flat_batched(wide);
    EXPECT_GT(doubles.problems, 0) << size;
    EXPECT_LE(small::flat_shared_bytes(doubles), small::kFlatBlockBytes + 1024) << size;
  }
}

/// The flat kernel launched directly over its copy modes: packed strided batches (16-byte spans),
/// gaps between problems (16-byte chunks where a problem is whole copies, else elements), padded
/// leading dimensions and transposes (elements), device pointer arrays in reverse order; beta = 0
/// on C full of NaN; on a full wave and on 1 to 3 blocks walking many groups each.
template <typename T>
void check_flat_kernel() {
  // 1 x 1 blocks of C a thread, and 2 x 2 (flat_two_by_two) with m or n odd or both.
  int const shapes[][3] = {{5, 7, 3}, {4, 4, 4}, {8, 4, 16}, {9, 3, 1}, {20, 12, 6}, {12, 24, 6}, {32, 32, 32},
                           {1, 1, 1}, {2, 31, 17}, {31, 2, 5}, {24, 24, 8}, {3, 3, 3}, {9, 9, 9}, {13, 5, 27},
                           {20, 12, 28}, {17, 15, 19}, {7, 5, 12}, {16, 12, 24}, {8, 8, 8}};
  int seed = 0;
  for (auto const& shape : shapes) {
    int const m = shape[0], n = shape[1], k = shape[2];
    small::SmallBatchParams<T> sizes{KernelParams<T>{m, n, k, T(1), T(1), nullptr, m, m * k, nullptr, k, k * n,
                                                     nullptr, m, m * n, 1, false, false}};
    int const problems = small::plan_flat_batched(sizes).problems;
    ASSERT_GT(problems, 0) << m << "x" << n << "x" << k;
    for (int mode = 0; mode < 8; ++mode) {
      bool const trans_a = mode & 1, trans_b = mode & 2;
      T const beta = mode % 3 == 0 ? T(0) : T(-0.5);
      int const blocks = mode < 4 ? 0 : 1 + mode % 3;
      std::int64_t const batch = blocks == 0 ? 3 * problems + 1 : 7 * blocks * problems + mode;
      check_launch<T>({.family = small::SmallKernelFamily::kFlat, .max_blocks = blocks}, "flat kernel", m, n, k,
                      trans_a, trans_b, T(1.5), beta, batch, /*device_arrays=*/mode % 2 == 1,
                      std::uint64_t(1000 + seed++),
                      /*ld_pad=*/mode == 5 ? 1 : (mode == 6 ? 16 / int(sizeof(T)) : 0),
                      /*stride_pad=*/mode == 2 ? 4 : 0);
    }
  }
}

TEST(GpuSmallFlat, EveryCopyModeAndManyGroupsABlock) {
  if (!gk_gpu_available()) GTEST_SKIP() << "no CUDA device";
  if (compute_capability(device_memory()->device()) < 80) GTEST_SKIP() << "needs sm_80";
  check_flat_kernel<double>();
  check_flat_kernel<float>();
}

}  // namespace
}  // namespace gemmkit::test
