/*! \file
    \brief The C++ API: gemmkit::Context, gemmkit::gemm overloads, and gemmkit::Error carrying the
    status and the BLAS parameter index.

    Includes only public headers, as a user's program does, so the reference here is a plain loop
    instead of the shared support.
*/
#include <gemmkit/gemmkit.hpp>

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <vector>

namespace {

template <typename T>
std::vector<T> random_vector(std::size_t size, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<T> dist(T(-1), T(1));
  std::vector<T> v(size);
  for (T& x : v) x = dist(rng);
  return v;
}

/// Column-major N/N reference in long double.
template <typename T>
std::vector<long double> naive_gemm(std::int64_t m, std::int64_t n, std::int64_t k, T alpha, std::vector<T> const& A,
                                    std::int64_t lda, std::vector<T> const& B, std::int64_t ldb, T beta,
                                    std::vector<T> const& C, std::int64_t ldc) {
  std::vector<long double> out(m * n);
  for (std::int64_t j = 0; j < n; ++j) {
    for (std::int64_t i = 0; i < m; ++i) {
      long double sum = 0;
      for (std::int64_t l = 0; l < k; ++l) sum += (long double)A[i + l * lda] * B[l + j * ldb];
      out[i + j * m] = alpha * sum + (long double)beta * C[i + j * ldc];
    }
  }
  return out;
}

template <typename T>
class CppApi : public ::testing::Test {};
using ElementTypes = ::testing::Types<double, float>;
TYPED_TEST_SUITE(CppApi, ElementTypes);

TYPED_TEST(CppApi, GemmComputesTheProduct) {
  using T = TypeParam;
  std::int64_t const m = 9, n = 7, k = 5, lda = 10, ldb = 6, ldc = 11;
  auto const A = random_vector<T>(lda * k, 11), B = random_vector<T>(ldb * n, 12);
  auto C = random_vector<T>(ldc * n, 13);
  auto const C0 = C;
  gemmkit::Context ctx;
  gemmkit::gemm(ctx, gemmkit::Layout::kColMajor, gemmkit::Op::kN, gemmkit::Op::kN, m, n, k, T(2), A.data(), lda,
                B.data(), ldb, T(-1), C.data(), ldc);
  auto const ref = naive_gemm<T>(m, n, k, T(2), A, lda, B, ldb, T(-1), C0, ldc);
  double const tol = 64 * std::numeric_limits<T>::epsilon();
  for (std::int64_t j = 0; j < n; ++j) {
    for (std::int64_t i = 0; i < m; ++i) EXPECT_NEAR(double(C[i + j * ldc]), double(ref[i + j * m]), tol);
    for (std::int64_t i = m; i < ldc; ++i) EXPECT_EQ(C[i + j * ldc], C0[i + j * ldc]) << "padding written";
  }
  EXPECT_FALSE(ctx.last_variant().empty());
}

TYPED_TEST(CppApi, StridedBatchedComputesEveryEntry) {
  using T = TypeParam;
  std::int64_t const m = 4, n = 3, k = 6, batch = 3, sa = m * k, sb = k * n, sc = m * n + 2;
  auto const A = random_vector<T>(sa * batch, 21), B = random_vector<T>(sb * batch, 22);
  auto C = random_vector<T>(sc * batch, 23);
  auto const C0 = C;
  gemmkit::Context ctx;
  gemmkit::gemm_strided_batched(ctx, gemmkit::Layout::kColMajor, gemmkit::Op::kN, gemmkit::Op::kN, m, n, k, T(1),
                                A.data(), m, sa, B.data(), k, sb, T(0.5), C.data(), m, sc, batch);
  double const tol = 64 * std::numeric_limits<T>::epsilon();
  for (std::int64_t b = 0; b < batch; ++b) {
    std::vector<T> const a(A.begin() + b * sa, A.begin() + (b + 1) * sa), bm(B.begin() + b * sb, B.begin() + (b + 1) * sb);
    std::vector<T> const c0(C0.begin() + b * sc, C0.begin() + b * sc + m * n);
    auto const ref = naive_gemm<T>(m, n, k, T(1), a, m, bm, k, T(0.5), c0, m);
    for (std::int64_t e = 0; e < m * n; ++e) EXPECT_NEAR(double(C[b * sc + e]), double(ref[e]), tol);
    for (std::int64_t e = m * n; e < sc; ++e) EXPECT_EQ(C[b * sc + e], C0[b * sc + e]) << "gap between entries written";
  }
}

TYPED_TEST(CppApi, BadArgumentThrowsErrorWithParameter) {
  using T = TypeParam;
  auto const A = random_vector<T>(64, 31), B = random_vector<T>(64, 32);
  auto C = random_vector<T>(64, 33);
  auto const C0 = C;
  gemmkit::Context ctx;
  try {
    gemmkit::gemm(ctx, gemmkit::Layout::kColMajor, gemmkit::Op::kN, gemmkit::Op::kN, 5, 4, 3, T(1), A.data(), 4,
                  B.data(), 3, T(0), C.data(), 5);
    FAIL() << "lda < m did not throw";
  } catch (gemmkit::Error const& e) {
    EXPECT_EQ(e.status(), GK_INVALID_ARGUMENT);
    EXPECT_EQ(e.parameter(), 9);
    EXPECT_NE(std::string(e.what()).find("lda"), std::string::npos) << e.what();
  }
  EXPECT_THROW(gemmkit::gemm(ctx, gemmkit::Layout::kRowMajor, gemmkit::Op::kT, gemmkit::Op::kN, 5, 4, 3, T(1),
                             A.data(), 5, B.data(), 4, T(0), C.data(), 3),
               gemmkit::Error);  // row-major ldc < n
  EXPECT_EQ(std::memcmp(C.data(), C0.data(), C.size() * sizeof(T)), 0) << "a rejected call wrote C";
}

TEST(CppApi, ContextOptionsThrowOnBadValues) {
  gemmkit::Context ctx;
  try {
    ctx.set_device(-1);
    FAIL() << "set_device(-1) did not throw";
  } catch (gemmkit::Error const& e) {
    EXPECT_EQ(e.status(), GK_INVALID_ARGUMENT);
    EXPECT_EQ(e.parameter(), 2);
  }
  EXPECT_THROW(ctx.set_backend(static_cast<gemmkit::Backend>(42)), gemmkit::Error);
  EXPECT_NO_THROW(ctx.set_device_memory_budget(1 << 20));
  EXPECT_NO_THROW(ctx.set_verbosity(0));

  // A forced variant that does not exist fails the call, not set_variant.
  ctx.set_variant("no_such_variant");
  std::vector<double> A(4, 1.0), B(4, 1.0), C(4, 0.0);
  try {
    gemmkit::gemm(ctx, gemmkit::Layout::kColMajor, gemmkit::Op::kN, gemmkit::Op::kN, 2, 2, 2, 1.0, A.data(), 2,
                  B.data(), 2, 0.0, C.data(), 2);
    FAIL() << "unknown forced variant did not throw";
  } catch (gemmkit::Error const& e) {
    EXPECT_NE(e.status(), GK_SUCCESS);
    EXPECT_NE(std::string(e.what()).find("no_such_variant"), std::string::npos) << e.what();
  }
  ctx.set_variant("");
  EXPECT_NO_THROW(gemmkit::gemm(ctx, gemmkit::Layout::kColMajor, gemmkit::Op::kN, gemmkit::Op::kN, 2, 2, 2, 1.0,
                                A.data(), 2, B.data(), 2, 0.0, C.data(), 2));
  EXPECT_EQ(C[0], 2.0);
}

/// Host pointers under the GPU policy go through the host-resident pipeline (any size); without a
/// GPU the call fails with GK_NO_DEVICE and C is untouched.
TEST(CppApi, GpuPolicyWithHostPointersRunsHostResidentOrThrows) {
  gemmkit::Context ctx;
  ctx.set_backend(gemmkit::Backend::kGpu);
  std::vector<double> A(4, 1.0), B(4, 1.0), C(4, -3.0);
  if (gk_gpu_available()) {
    gemmkit::gemm(ctx, gemmkit::Layout::kColMajor, gemmkit::Op::kN, gemmkit::Op::kN, 2, 2, 2, 1.0, A.data(), 2,
                  B.data(), 2, 0.0, C.data(), 2);
    for (double c : C) EXPECT_EQ(c, 2.0);
    return;
  }
  try {
    gemmkit::gemm(ctx, gemmkit::Layout::kColMajor, gemmkit::Op::kN, gemmkit::Op::kN, 2, 2, 2, 1.0, A.data(), 2,
                  B.data(), 2, 0.0, C.data(), 2);
    FAIL() << "host pointers under the GPU policy did not throw without a GPU";
  } catch (gemmkit::Error const& e) {
    EXPECT_EQ(e.status(), GK_NO_DEVICE);
    EXPECT_EQ(e.parameter(), 0);
  }
  for (double c : C) EXPECT_EQ(c, -3.0);
}

TEST(CppApi, ContextIsMovable) {
  gemmkit::Context a;
  gk_context const handle = a.get();
  ASSERT_NE(handle, nullptr);
  gemmkit::Context b(std::move(a));
  EXPECT_EQ(b.get(), handle);
  EXPECT_EQ(a.get(), nullptr);  // NOLINT(bugprone-use-after-move): the moved-from state is specified
  gemmkit::Context c;
  c = std::move(b);
  EXPECT_EQ(c.get(), handle);
  std::vector<float> A(4, 1.0f), B(4, 2.0f), C(4, 0.0f);
  gemmkit::gemm(c, gemmkit::Layout::kColMajor, gemmkit::Op::kN, gemmkit::Op::kN, 2, 2, 2, 1.0f, A.data(), 2, B.data(),
                2, 0.0f, C.data(), 2);
  EXPECT_EQ(C[3], 4.0f);
}

}  // namespace
