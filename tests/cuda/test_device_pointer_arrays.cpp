/*! \file
    \brief gk_?gemm_batched and gk_?gemm_grouped with their pointer arrays in device memory: the small
    kernel reads them in place, k = 0 / alpha = 0 scale C through them, larger sizes and forced
    variants without arrays fall back to a host copy, groups run whole, mixed array locations and
    the CPU policy are refused with nothing written. Skip without a device.
*/
#include "support/api_calls.hpp"
#include "support/device_memory.hpp"
#include "support/gemm_check.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <memory>
#include <string>
#include <vector>

namespace gemmkit::test {
namespace {

#define GEMMKIT_REQUIRE_DEVICE() \
  if (!gk_gpu_available()) GTEST_SKIP() << "no CUDA device"

/// One shape's problems on the device, stored as a strided batch (padding poisoned, fresh random
/// data, NaN C when beta = 0), and the pointers to its entries in reverse order: problem i of a
/// pointer-array call is entry batch-1-i, so a kernel that followed the strides instead of the
/// arrays would pair the wrong A, B and C.
template <typename T>
class DeviceBatch {
 public:
  DeviceBatch(GemmProblem const& strided, double beta)
      : problem_(strided),
        originals_(make_operands<T>(strided, beta)),
        a_(originals_.A.storage()),
        b_(originals_.B.storage()),
        c_(originals_.C.storage()) {
    for (std::int64_t i = problem_.batch - 1; i >= 0; --i) {
      a_entries_.push_back(a_.get() + i * problem_.stride_a);
      b_entries_.push_back(b_.get() + i * problem_.stride_b);
      c_entries_.push_back(c_.get() + i * problem_.stride_c);
    }
  }

  GemmProblem const& problem() const { return problem_; }
  std::vector<T const*> const& a_entries() const { return a_entries_; }
  std::vector<T const*> const& b_entries() const { return b_entries_; }
  std::vector<T*> const& c_entries() const { return c_entries_; }
  std::string error() const { return a_.error() + b_.error() + c_.error(); }

  /// C against the reference of every entry, C's padding, and A and B left as they were.
  ::testing::AssertionResult check(double alpha, double beta) {
    if (!unchanged(a_, originals_.A) || !unchanged(b_, originals_.B)) {
      return ::testing::AssertionFailure() << "an input matrix was written (or could not be read back)";
    }
    Matrix<T> result = originals_.C;
    std::vector<T> const back = c_.download();
    if (!c_.error().empty()) return ::testing::AssertionFailure() << c_.error();
    std::copy(back.begin(), back.end(), result.data());
    auto const reference = reference_result(problem_, alpha, originals_.A, originals_.B, beta, originals_.C);
    return check_result(problem_, alpha, beta, originals_.A, originals_.B, originals_.C, result, reference);
  }

  /// True when C (window and padding) still has the bits it started with.
  bool c_unchanged() { return unchanged(c_, originals_.C); }

 private:
  /// Bit for bit: NaN-filled windows and the poisoned padding compare unequal as values.
  static bool unchanged(DeviceBuffer<T>& buffer, Matrix<T> const& original) {
    std::vector<T> const back = buffer.download();
    return buffer.error().empty() && back.size() == original.size() &&
           std::memcmp(back.data(), original.data(), original.bytes()) == 0;
  }

  GemmProblem problem_;
  Operands<T> originals_;
  DeviceBuffer<T> a_, b_, c_;
  std::vector<T const*> a_entries_, b_entries_;
  std::vector<T*> c_entries_;
};

/// The device arrays of one call over several batches (a grouped call's groups in order).
template <typename T>
struct DeviceArrays {
  explicit DeviceArrays(std::vector<DeviceBatch<T> const*> const& batches)
      : A(joined(batches, &DeviceBatch<T>::a_entries)),
        B(joined(batches, &DeviceBatch<T>::b_entries)),
        C(joined(batches, &DeviceBatch<T>::c_entries)) {}

  template <typename P>
  static std::vector<P> joined(std::vector<DeviceBatch<T> const*> const& batches,
                               std::vector<P> const& (DeviceBatch<T>::*entries)() const) {
    std::vector<P> all;
    for (DeviceBatch<T> const* b : batches) all.insert(all.end(), (b->*entries)().begin(), (b->*entries)().end());
    if (all.empty()) all.push_back(nullptr);  // a valid allocation even for an empty call
    return all;
  }
  std::string error() const { return A.error() + B.error() + C.error(); }

  DeviceBuffer<T const*> A, B;
  DeviceBuffer<T*> C;
};

/// gk_?gemm_batched, column-major, over a batch's device arrays.
template <typename T>
gk_status call_batched(gk_context ctx, DeviceBatch<T> const& batch, DeviceArrays<T> const& arrays, double alpha,
                       double beta) {
  GemmProblem const& p = batch.problem();
  return api_gemm_batched(ctx, GK_COL_MAJOR, p.trans_a, p.trans_b, p.m, p.n, p.k, T(alpha), arrays.A.get(), p.lda,
                          arrays.B.get(), p.ldb, T(beta), arrays.C.get(), p.ldc, p.batch);
}

char const* small_variant(Dtype dtype) { return dtype == Dtype::kF64 ? "dgemm_gpu_small" : "sgemm_gpu_small"; }

template <typename T>
class DevicePointerArrays : public ::testing::Test {};
using ElementTypes = ::testing::Types<double, float>;
TYPED_TEST_SUITE(DevicePointerArrays, ElementTypes);

/// Sizes up to 32 (square, non-square, every op, padded or not, beta = 0 on a NaN C): one launch of
/// the small kernel on the arrays as given.
TYPED_TEST(DevicePointerArrays, SmallSizesRunTheSmallKernelOnTheArrays) {
  using T = TypeParam;
  GEMMKIT_REQUIRE_DEVICE();
  struct Case {
    std::int64_t m, n, k;
    gk_op ta, tb;
    double alpha, beta;
    std::int64_t ld_pad, batch;
  };
  Case const cases[] = {{1, 1, 1, GK_OP_N, GK_OP_N, 1.0, 0.0, 0, 3},       {4, 4, 4, GK_OP_N, GK_OP_N, 1.0, 1.0, 0, 257},
                        {7, 5, 9, GK_OP_T, GK_OP_N, -1.5, 0.25, 2, 61},   {16, 8, 32, GK_OP_N, GK_OP_T, 0.5, 0.0, 1, 40},
                        {32, 32, 32, GK_OP_T, GK_OP_T, 2.0, -1.0, 3, 19}, {13, 29, 3, GK_OP_C, GK_OP_N, 1.0, 2.0, 0, 33}};
  ScopedContext ctx;
  for (Case const& c : cases) {
    GemmProblem const p = make_problem(dtype_of<T>(), c.ta, c.tb, c.m, c.n, c.k, c.ld_pad, c.batch);
    SCOPED_TRACE(describe(p) + " alpha " + std::to_string(c.alpha) + " beta " + std::to_string(c.beta));
    DeviceBatch<T> batch(p, c.beta);
    DeviceArrays<T> const arrays({&batch});
    ASSERT_EQ(batch.error() + arrays.error(), "");
    ASSERT_EQ(call_batched(ctx, batch, arrays, c.alpha, c.beta), GK_SUCCESS) << gk_last_error(ctx);
    EXPECT_STREQ(gk_last_variant(ctx), small_variant(dtype_of<T>()));
    ASSERT_EQ(device_memory()->synchronize(), "");
    EXPECT_TRUE(batch.check(c.alpha, c.beta));
  }
}

/// Row-major swaps the A and B arrays like the matrices: C^T = op(B)^T op(A)^T column-major.
TYPED_TEST(DevicePointerArrays, RowMajorSwapsTheArrays) {
  using T = TypeParam;
  GEMMKIT_REQUIRE_DEVICE();
  std::int64_t const m = 9, n = 6, k = 11;
  // The column-major problem the row-major call becomes: m' = n, n' = m, A' = row-major B (n x k
  // stored, op T), B' = row-major A (m x k stored, op N).
  GemmProblem const column_major = make_problem(dtype_of<T>(), GK_OP_T, GK_OP_N, n, m, k, 0, 5);
  DeviceBatch<T> batch(column_major, 0.5);
  DeviceArrays<T> const arrays({&batch});
  ASSERT_EQ(batch.error() + arrays.error(), "");
  ScopedContext ctx;
  // Row-major A (m x k, N) is B', row-major B (k x n, stored n x k, T) is A'.
  ASSERT_EQ(api_gemm_batched(ctx, GK_ROW_MAJOR, GK_OP_N, GK_OP_T, m, n, k, T(1.25), arrays.B.get(), k, arrays.A.get(),
                             k, T(0.5), arrays.C.get(), n, column_major.batch),
            GK_SUCCESS)
      << gk_last_error(ctx);
  ASSERT_EQ(device_memory()->synchronize(), "");
  EXPECT_TRUE(batch.check(1.25, 0.5));
}

/// k = 0 and alpha = 0: C = beta*C through the arrays in one launch, A and B never read (their
/// arrays may hold anything), beta = 0 writing zeros over a NaN C.
TYPED_TEST(DevicePointerArrays, ScalingCasesGoThroughTheArrays) {
  using T = TypeParam;
  GEMMKIT_REQUIRE_DEVICE();
  ScopedContext ctx;
  for (double beta : {0.0, -2.0}) {
    for (bool k_zero : {true, false}) {
      SCOPED_TRACE(std::string(k_zero ? "k = 0" : "alpha = 0") + ", beta = " + std::to_string(beta));
      GemmProblem const p = make_problem(dtype_of<T>(), GK_OP_N, GK_OP_N, 19, 6, k_zero ? 0 : 5, 2, 7);
      DeviceBatch<T> batch(p, beta);
      DeviceArrays<T> const arrays({&batch});
      ASSERT_EQ(batch.error() + arrays.error(), "");
      double const alpha = k_zero ? 1.0 : 0.0;
      ASSERT_EQ(call_batched(ctx, batch, arrays, alpha, beta), GK_SUCCESS) << gk_last_error(ctx);
      EXPECT_STREQ(gk_last_variant(ctx), "scale_c");
      ASSERT_EQ(device_memory()->synchronize(), "");
      EXPECT_TRUE(batch.check(alpha, beta));
    }
  }
}

/// Sizes above 32 have no variant that takes arrays: the arrays are copied to the host once and the
/// problems run one by one, correctly, with a note at verbosity 2 saying why it is slow.
TYPED_TEST(DevicePointerArrays, LargerSizesFallBackThroughAHostCopy) {
  using T = TypeParam;
  GEMMKIT_REQUIRE_DEVICE();
  GemmProblem const p = make_problem(dtype_of<T>(), GK_OP_N, GK_OP_T, 40, 33, 35, 1, 4);
  DeviceBatch<T> batch(p, 0.0);
  DeviceArrays<T> const arrays({&batch});
  ASSERT_EQ(batch.error() + arrays.error(), "");
  ScopedContext ctx;
  ASSERT_EQ(gk_set_verbosity(ctx, 2), GK_SUCCESS);
  testing::internal::CaptureStderr();
  gk_status const s = call_batched(ctx, batch, arrays, -0.75, 0.0);
  std::string const printed = testing::internal::GetCapturedStderr();
  ASSERT_EQ(s, GK_SUCCESS) << gk_last_error(ctx);
  EXPECT_NE(printed.find("copied to the host"), std::string::npos) << printed;
  EXPECT_STRNE(gk_last_variant(ctx), "");
  ASSERT_EQ(device_memory()->synchronize(), "");
  EXPECT_TRUE(batch.check(-0.75, 0.0));
}

/// A forced variant that takes no arrays runs each problem through the same host copy; a forced
/// small kernel gets the arrays in place.
TYPED_TEST(DevicePointerArrays, ForcedVariantsWithAndWithoutArrays) {
  using T = TypeParam;
  GEMMKIT_REQUIRE_DEVICE();
  char const* const naive = dtype_of<T>() == Dtype::kF64 ? "dgemm_ladder01_naive" : "sgemm_ladder01_naive";
  for (char const* forced : {naive, small_variant(dtype_of<T>())}) {
    SCOPED_TRACE(forced);
    GemmProblem const p = make_problem(dtype_of<T>(), GK_OP_T, GK_OP_N, 8, 12, 10, 0, 9);
    DeviceBatch<T> batch(p, 1.0);
    DeviceArrays<T> const arrays({&batch});
    ASSERT_EQ(batch.error() + arrays.error(), "");
    ScopedContext ctx;
    ASSERT_EQ(gk_set_variant(ctx, forced), GK_SUCCESS);
    ASSERT_EQ(call_batched(ctx, batch, arrays, 1.5, 1.0), GK_SUCCESS) << gk_last_error(ctx);
    EXPECT_STREQ(gk_last_variant(ctx), forced);
    ASSERT_EQ(device_memory()->synchronize(), "");
    EXPECT_TRUE(batch.check(1.5, 1.0));
  }
}

/// Groups of different shapes, ops and scalars (beta = 0 on a NaN C, a group above 32 that falls
/// back, an empty group, an m = 0 group) in one call on device arrays: each group whole, info set.
TYPED_TEST(DevicePointerArrays, GroupedRunsEachGroupWhole) {
  using T = TypeParam;
  GEMMKIT_REQUIRE_DEVICE();
  struct Group {
    GemmProblem p;
    double alpha, beta;
  };
  Dtype const d = dtype_of<T>();
  std::vector<Group> const groups = {
      {make_problem(d, GK_OP_N, GK_OP_N, 4, 4, 4, 0, 50), 1.0, 0.0},
      {make_problem(d, GK_OP_T, GK_OP_N, 5, 7, 3, 1, 23), -0.5, 2.0},
      {make_problem(d, GK_OP_N, GK_OP_T, 32, 16, 8, 0, 11), 2.0, 0.5},
      {make_problem(d, GK_OP_N, GK_OP_N, 6, 6, 6, 0, 0), 1.0, 1.0},
      {make_problem(d, GK_OP_N, GK_OP_N, 40, 33, 17, 2, 3), 1.5, -1.0},
      {make_problem(d, GK_OP_N, GK_OP_N, 0, 5, 5, 0, 4), 1.0, 1.0},
      {make_problem(d, GK_OP_C, GK_OP_C, 17, 3, 29, 0, 7), 0.75, 0.0},
  };
  std::vector<std::unique_ptr<DeviceBatch<T>>> batches;
  std::vector<DeviceBatch<T> const*> views;
  std::vector<gk_op> ta, tb;
  std::vector<std::int64_t> m, n, k, lda, ldb, ldc, group_size;
  std::vector<T> alpha, beta;
  for (Group const& g : groups) {
    batches.push_back(std::make_unique<DeviceBatch<T>>(g.p, g.beta));
    ASSERT_EQ(batches.back()->error(), "");
    views.push_back(batches.back().get());
    ta.push_back(g.p.trans_a), tb.push_back(g.p.trans_b);
    m.push_back(g.p.m), n.push_back(g.p.n), k.push_back(g.p.k);
    lda.push_back(g.p.lda), ldb.push_back(g.p.ldb), ldc.push_back(g.p.ldc);
    group_size.push_back(g.p.batch);
    alpha.push_back(T(g.alpha)), beta.push_back(T(g.beta));
  }
  DeviceArrays<T> const arrays(views);
  ASSERT_EQ(arrays.error(), "");
  std::int64_t problems = 0;
  for (std::int64_t s : group_size) problems += s;
  std::vector<gk_status> info(std::size_t(problems), GK_INTERNAL_ERROR);
  ScopedContext ctx;
  ASSERT_EQ(api_gemm_grouped(ctx, GK_COL_MAJOR, ta.data(), tb.data(), m.data(), n.data(), k.data(), alpha.data(),
                             arrays.A.get(), lda.data(), arrays.B.get(), ldb.data(), beta.data(), arrays.C.get(),
                             ldc.data(), std::int64_t(groups.size()), group_size.data(), info.data()),
            GK_SUCCESS)
      << gk_last_error(ctx);
  ASSERT_EQ(device_memory()->synchronize(), "");
  for (std::size_t i = 0; i < info.size(); ++i) EXPECT_EQ(info[i], GK_SUCCESS) << "problem " << i;
  for (std::size_t g = 0; g < groups.size(); ++g) {
    if (groups[g].p.m == 0) {
      EXPECT_TRUE(batches[g]->c_unchanged()) << "group " << g << " has m = 0";
    } else if (groups[g].p.batch > 0) {
      EXPECT_TRUE(batches[g]->check(groups[g].alpha, groups[g].beta)) << "group " << g;
    }
  }
}

/// Arrays in different memories are refused before anything runs: the call's status, a message,
/// every C as it was, and (grouped) info untouched.
TYPED_TEST(DevicePointerArrays, MixedArrayLocationsAreNotSupported) {
  using T = TypeParam;
  GEMMKIT_REQUIRE_DEVICE();
  GemmProblem const p = make_problem(dtype_of<T>(), GK_OP_N, GK_OP_N, 8, 8, 8, 1, 6);
  DeviceBatch<T> batch(p, 1.0);
  DeviceArrays<T> const arrays({&batch});
  ASSERT_EQ(batch.error() + arrays.error(), "");
  std::vector<T const*> const host_a = batch.a_entries();
  std::vector<T*> const host_c = batch.c_entries();
  ScopedContext ctx;
  // Host A array with device B and C arrays, then device A and B arrays with a host C array.
  EXPECT_EQ(api_gemm_batched(ctx, GK_COL_MAJOR, p.trans_a, p.trans_b, p.m, p.n, p.k, T(1), host_a.data(), p.lda,
                             arrays.B.get(), p.ldb, T(1), arrays.C.get(), p.ldc, p.batch),
            GK_NOT_SUPPORTED);
  EXPECT_NE(std::string(gk_last_error(ctx)).find("A_array, B_array and C_array"), std::string::npos)
      << gk_last_error(ctx);
  EXPECT_EQ(api_gemm_batched(ctx, GK_COL_MAJOR, p.trans_a, p.trans_b, p.m, p.n, p.k, T(1), arrays.A.get(), p.lda,
                             arrays.B.get(), p.ldb, T(1), host_c.data(), p.ldc, p.batch),
            GK_NOT_SUPPORTED);
  gk_op const ta[] = {p.trans_a}, tb[] = {p.trans_b};
  std::int64_t const m[] = {p.m}, n[] = {p.n}, k[] = {p.k}, lda[] = {p.lda}, ldb[] = {p.ldb}, ldc[] = {p.ldc};
  std::int64_t const group_size[] = {p.batch};
  T const alpha[] = {T(1)}, beta[] = {T(1)};
  std::vector<gk_status> info(std::size_t(p.batch), GK_INTERNAL_ERROR);
  EXPECT_EQ(api_gemm_grouped(ctx, GK_COL_MAJOR, ta, tb, m, n, k, alpha, arrays.A.get(), lda, arrays.B.get(), ldb, beta,
                             host_c.data(), ldc, 1, group_size, info.data()),
            GK_NOT_SUPPORTED);
  for (gk_status s : info) EXPECT_EQ(s, GK_INTERNAL_ERROR) << "info was written";
  ASSERT_EQ(device_memory()->synchronize(), "");
  EXPECT_TRUE(batch.c_unchanged()) << "a refused call wrote C";
}

/// The CPU policy cannot run device arrays: refused, C untouched.
TYPED_TEST(DevicePointerArrays, CpuPolicyRefusesDeviceArrays) {
  using T = TypeParam;
  GEMMKIT_REQUIRE_DEVICE();
  GemmProblem const p = make_problem(dtype_of<T>(), GK_OP_N, GK_OP_N, 6, 5, 4, 0, 3);
  DeviceBatch<T> batch(p, 1.0);
  DeviceArrays<T> const arrays({&batch});
  ASSERT_EQ(batch.error() + arrays.error(), "");
  ScopedContext ctx;
  ASSERT_EQ(gk_set_backend(ctx, GK_BACKEND_CPU), GK_SUCCESS);
  EXPECT_EQ(call_batched(ctx, batch, arrays, 1.0, 1.0), GK_NOT_SUPPORTED);
  EXPECT_STRNE(gk_last_error(ctx), "");
  ASSERT_EQ(device_memory()->synchronize(), "");
  EXPECT_TRUE(batch.c_unchanged());
}

}  // namespace
}  // namespace gemmkit::test
