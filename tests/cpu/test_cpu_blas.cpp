/*! \file
    \brief The CPU BLAS: its GEMM past the 32-bit interface (leading dimensions and sizes above 2^31), and
    the core hint: silent when OpenBLAS's core uses the CPU's vectors, the right OPENBLAS_CORETYPE named
    when it falls back to SSE on an AVX2 or AVX-512 CPU.
*/
#include "cpu/cpu_blas.hpp"

#include "support/gemm_check.hpp"
#include "support/sparse_buffer.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>

namespace gemmkit::cpu {
namespace {

template <typename T>
class CpuBlasGemm : public ::testing::Test {};
using ElementTypes = ::testing::Types<double, float>;
TYPED_TEST_SUITE(CpuBlasGemm, ElementTypes);

/// One GEMM whose operands have leading dimensions past 2^31 (only their first lines touched), against a
/// long-double product of the same elements; one element past each column of C stays poisoned.
template <typename T>
void check_wide_leading_dimensions(gk_op transa, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t lda,
                                   std::int64_t ldb, std::int64_t ldc, T alpha, T beta) {
  bool const ta = is_transposed(transa);
  std::int64_t const a_rows = ta ? k : m, a_cols = ta ? m : k;
  test::SparseBuffer<T> A(std::size_t(lda * (a_cols - 1) + a_rows)), B(std::size_t(ldb * (n - 1) + k)),
      C(std::size_t(ldc * (n - 1) + m + 1));
  ASSERT_TRUE(A.data() != nullptr && B.data() != nullptr && C.data() != nullptr) << "no room for the mappings";
  std::mt19937_64 rng = test::fresh_generator();
  auto a = [&](std::int64_t i, std::int64_t h) -> T& { return ta ? A.data()[h + i * lda] : A.data()[i + h * lda]; };
  auto b = [&](std::int64_t h, std::int64_t j) -> T& { return B.data()[h + j * ldb]; };
  auto c = [&](std::int64_t i, std::int64_t j) -> T& { return C.data()[i + j * ldc]; };
  for (std::int64_t i = 0; i < m; ++i) {
    for (std::int64_t h = 0; h < k; ++h) a(i, h) = test::random_value<T>(rng);
  }
  for (std::int64_t j = 0; j < n; ++j) {
    for (std::int64_t h = 0; h < k; ++h) b(h, j) = test::random_value<T>(rng);
    for (std::int64_t i = 0; i < m; ++i) c(i, j) = beta == T(0) ? std::numeric_limits<T>::quiet_NaN() : test::random_value<T>(rng);
    c(m, j) = test::poison_value<T>();
  }
  std::vector<long double> expected(std::size_t(m * n)), scale(std::size_t(m * n));
  for (std::int64_t j = 0; j < n; ++j) {
    for (std::int64_t i = 0; i < m; ++i) {
      long double sum = 0, magnitude = 0;
      for (std::int64_t h = 0; h < k; ++h) {
        sum += (long double)a(i, h) * b(h, j);
        magnitude += std::fabs((long double)a(i, h) * b(h, j));
      }
      long double const c0 = beta == T(0) ? 0.0L : (long double)c(i, j);
      expected[std::size_t(i + j * m)] = alpha * sum + beta * c0;
      scale[std::size_t(i + j * m)] = std::fabs(alpha) * magnitude + std::fabs(beta * c0);
    }
  }
  blas_gemm<T>(transa, GK_OP_N, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, C.data(), ldc);
  long double const eps = std::numeric_limits<T>::epsilon();
  for (std::int64_t j = 0; j < n; ++j) {
    for (std::int64_t i = 0; i < m; ++i) {
      long double const error = std::fabs(c(i, j) - expected[std::size_t(i + j * m)]);
      ASSERT_LE(error, 2 * (k + 2) * eps * scale[std::size_t(i + j * m)]) << "C(" << i << "," << j << ")";
    }
    EXPECT_TRUE(test::same_bits(c(m, j), test::poison_value<T>())) << "wrote past column " << j;
  }
}

TYPED_TEST(CpuBlasGemm, LeadingDimensionsPastTheIntInterface) {
  using T = TypeParam;
  std::int64_t const wide = (std::int64_t(1) << 31) + 64;
  // The case that once had no CPU variant: m = 40, n = k = 2 with lda and ldc past 2^31.
  check_wide_leading_dimensions<T>(GK_OP_N, 40, 2, 2, wide, 2, wide, T(1.5), T(0.5));
  check_wide_leading_dimensions<T>(GK_OP_N, 40, 2, 2, wide, 2, wide, T(1), T(0));  // C not read
  // k past the block edge: op(A) = A^T packed, B and C wide, k blocked with beta applied once.
  check_wide_leading_dimensions<T>(GK_OP_T, 40, 2, 3000, 3000, wide, wide, T(-1), T(2));
}

TEST(CpuBlasCoreHint, NamesTheCoreTypeThatUsesTheCpusVectors) {
  VectorIsa const sapphire_rapids{true, true, true}, skylake{true, true, false}, haswell{true, false, false};
  EXPECT_NE(cpu_blas_core_hint("Prescott", sapphire_rapids).find("OPENBLAS_CORETYPE=Cooperlake"), std::string::npos);
  EXPECT_NE(cpu_blas_core_hint("Prescott", skylake).find("OPENBLAS_CORETYPE=SkylakeX"), std::string::npos);
  EXPECT_NE(cpu_blas_core_hint("Nehalem", haswell).find("OPENBLAS_CORETYPE=Haswell"), std::string::npos);
}

TEST(CpuBlasCoreHint, SilentWhenTheCoreFitsTheCpu) {
  EXPECT_EQ(cpu_blas_core_hint("Cooperlake", {true, true, true}), "");
  EXPECT_EQ(cpu_blas_core_hint("Haswell", {true, false, false}), "");
  EXPECT_EQ(cpu_blas_core_hint("Prescott", {false, false, false}), "");  // an SSE-only CPU: Prescott is right
}

TEST(CpuBlasCoreHint, TheLoadedLibraryIsDescribed) {
  EXPECT_EQ(cpu_blas_description().rfind("OpenBLAS ", 0), 0u);
  std::string const hint = cpu_blas_core_hint();  // empty where OpenBLAS knows the CPU (CI, the dev VM)
  EXPECT_TRUE(hint.empty() || hint.find("OPENBLAS_CORETYPE=") != std::string::npos) << hint;
}

}  // namespace
}  // namespace gemmkit::cpu
