/*! \file
    \brief The C API on host pointers (the CPU path): BLAS special cases, NaN rules, layouts,
    transposes, padding, the three batched forms, variant reporting and the NULL context.
*/
#include "registry/registry.hpp"
#include "variants/variants.hpp"
#include "support/api_calls.hpp"
#include "support/gemm_check.hpp"
#include "support/sparse_buffer.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <limits>
#include <string>
#include <thread>

namespace gemmkit::test {
namespace {

constexpr gk_op kOps[] = {GK_OP_N, GK_OP_T, GK_OP_C};

template <typename T>
class GemmApi : public ::testing::Test {};

using ElementTypes = ::testing::Types<double, float>;
TYPED_TEST_SUITE(GemmApi, ElementTypes);

/// C after a call that must compute C = beta*C0 exactly (k = 0 or alpha = 0), padding untouched.
template <typename T>
void expect_scaled(Matrix<T> const& C0, Matrix<T> const& C, T beta) {
  EXPECT_EQ(C.padding_changes(), 0u);
  for (std::int64_t b = 0; b < C.batch(); ++b) {
    for (std::int64_t j = 0; j < C.cols(); ++j) {
      for (std::int64_t i = 0; i < C.rows(); ++i) {
        T const expected = beta == T(0) ? T(0) : beta * C0.at(i, j, b);
        ASSERT_EQ(C.at(i, j, b), expected) << "C(" << i << "," << j << ") of batch " << b << ", beta=" << beta;
      }
    }
  }
}

TYPED_TEST(GemmApi, EmptyProblemsAreNoOps) {
  using T = TypeParam;
  ScopedContext ctx;
  std::mt19937_64 rng = fresh_generator();
  Matrix<T> C(6, 5, 7);
  C.fill_random(rng);
  Matrix<T> const C0 = C;
  // m = 0 and n = 0, with and without operands: nothing is read or written, NULL C included.
  EXPECT_EQ(api_gemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 0, 5, 4, T(1), nullptr, 1, nullptr, 4, T(0), C.data(), 7),
            GK_SUCCESS);
  EXPECT_EQ(api_gemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 6, 0, 4, T(1), nullptr, 6, nullptr, 4, T(0), C.data(), 7),
            GK_SUCCESS);
  EXPECT_EQ(api_gemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 0, 0, 0, T(1), nullptr, 1, nullptr, 1, T(2), nullptr, 1),
            GK_SUCCESS);
  EXPECT_EQ(api_gemm(ctx, GK_ROW_MAJOR, GK_OP_T, GK_OP_N, 0, 5, 4, T(1), nullptr, 1, nullptr, 5, T(0), C.data(), 7),
            GK_SUCCESS);
  // batch = 0 is a no-op too.
  EXPECT_EQ(api_gemm_strided_batched(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 6, 5, 4, T(1), nullptr, 6, 24, nullptr, 4,
                                     20, T(0), C.data(), 7, 35, 0),
            GK_SUCCESS);
  EXPECT_TRUE(C.bitwise_equal(C0)) << "an empty problem wrote C";
}

TYPED_TEST(GemmApi, KZeroScalesCWithoutReadingAB) {
  using T = TypeParam;
  ScopedContext ctx;
  for (T beta : {T(0), T(1), T(-2.5)}) {
    std::mt19937_64 rng = fresh_generator();
    Matrix<T> C(9, 7, 11);
    if (beta == T(0)) C.fill(std::numeric_limits<T>::quiet_NaN());  // beta = 0 must not read C
    else C.fill_random(rng);
    Matrix<T> const C0 = C;
    // NULL operands: k = 0 means they are never dereferenced.
    ASSERT_EQ(api_gemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 9, 7, 0, T(1), nullptr, 9, nullptr, 1, beta, C.data(), 11),
              GK_SUCCESS)
        << gk_last_error(ctx);
    expect_scaled(C0, C, beta);
    EXPECT_STRNE(gk_last_variant(ctx), "");
    // NaN operands: still not read.
    Matrix<T> A(9, 1, 9), B(1, 7, 1);
    A.fill(std::numeric_limits<T>::quiet_NaN());
    B.fill(std::numeric_limits<T>::quiet_NaN());
    Matrix<T> C2 = C0;
    ASSERT_EQ(api_gemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 9, 7, 0, T(1), A.data(), 9, B.data(), 1, beta, C2.data(),
                       11),
              GK_SUCCESS);
    expect_scaled(C0, C2, beta);
  }
}

TYPED_TEST(GemmApi, AlphaZeroScalesCWithoutReadingAB) {
  using T = TypeParam;
  ScopedContext ctx;
  for (T beta : {T(0), T(0.75)}) {
    std::mt19937_64 rng = fresh_generator();
    Matrix<T> A(8, 5, 8), B(5, 6, 5), C(8, 6, 10);
    A.fill(std::numeric_limits<T>::quiet_NaN());
    B.fill(std::numeric_limits<T>::infinity());
    if (beta == T(0)) C.fill(std::numeric_limits<T>::quiet_NaN());
    else C.fill_random(rng);
    Matrix<T> const C0 = C;
    ASSERT_EQ(api_gemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 8, 6, 5, T(0), A.data(), 8, B.data(), 5, beta, C.data(), 10),
              GK_SUCCESS);
    expect_scaled(C0, C, beta);
    Matrix<T> C2 = C0;
    ASSERT_EQ(api_gemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 8, 6, 5, T(0), nullptr, 8, nullptr, 5, beta, C2.data(), 10),
              GK_SUCCESS);
    expect_scaled(C0, C2, beta);
    // The strided form follows the same rule over every batch entry.
    Matrix<T> Cb(8, 6, 10, 3, 64);
    if (beta == T(0)) Cb.fill(std::numeric_limits<T>::quiet_NaN());
    else Cb.fill_random(rng);
    Matrix<T> const Cb0 = Cb;
    ASSERT_EQ(api_gemm_strided_batched(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 8, 6, 5, T(0), nullptr, 8, 40, nullptr, 5,
                                       30, beta, Cb.data(), 10, 64, 3),
              GK_SUCCESS);
    expect_scaled(Cb0, Cb, beta);
  }
}

TYPED_TEST(GemmApi, BetaZeroDoesNotReadC) {
  using T = TypeParam;
  // check_api fills C with NaN when beta = 0; the result must be finite and correct.
  for (gk_op ta : {GK_OP_N, GK_OP_T}) {
    EXPECT_TRUE(check_api(make_problem(dtype_of<T>(), ta, GK_OP_N, 13, 9, 7, 2), 1.0, 0.0, false));
    EXPECT_TRUE(check_api(make_problem(dtype_of<T>(), ta, GK_OP_T, 13, 9, 7, 0, 2), -2.0, 0.0, false));
  }
  // Inf in C as well.
  ScopedContext ctx;
  std::mt19937_64 rng = fresh_generator();
  Matrix<T> A(5, 4, 5), B(4, 3, 4), C(5, 3, 5);
  A.fill_random(rng);
  B.fill_random(rng);
  C.fill(-std::numeric_limits<T>::infinity());
  ASSERT_EQ(api_gemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 5, 3, 4, T(1), A.data(), 5, B.data(), 4, T(0), C.data(), 5),
            GK_SUCCESS);
  for (std::int64_t j = 0; j < 3; ++j) {
    for (std::int64_t i = 0; i < 5; ++i) EXPECT_TRUE(std::isfinite(C.at(i, j))) << i << "," << j;
  }
}

TYPED_TEST(GemmApi, NaNAndInfInOperandsPropagate) {
  using T = TypeParam;
  std::int64_t const m = 11, n = 9, k = 8, i0 = 3, l0 = 5, j0 = 6;
  ScopedContext ctx;
  std::mt19937_64 rng = fresh_generator();
  Matrix<T> A(m, k, m), B(k, n, k), C(m, n, m);
  A.fill_random(rng);
  B.fill_random(rng);
  C.fill_random(rng);
  A.at(i0, l0) = std::numeric_limits<T>::quiet_NaN();  // row i0 of C becomes NaN
  ASSERT_EQ(api_gemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, m, n, k, T(1), A.data(), m, B.data(), k, T(0.5), C.data(), m),
            GK_SUCCESS);
  for (std::int64_t j = 0; j < n; ++j) {
    for (std::int64_t i = 0; i < m; ++i) {
      if (i == i0) EXPECT_TRUE(std::isnan(C.at(i, j))) << "C(" << i << "," << j << ")";
      else EXPECT_TRUE(std::isfinite(C.at(i, j))) << "C(" << i << "," << j << ")";
    }
  }
  A.at(i0, l0) = random_value<T>(rng);
  B.at(l0, j0) = std::numeric_limits<T>::infinity();  // column j0 of C becomes +-Inf
  C.fill_random(rng);
  ASSERT_EQ(api_gemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, m, n, k, T(1), A.data(), m, B.data(), k, T(0), C.data(), m),
            GK_SUCCESS);
  for (std::int64_t j = 0; j < n; ++j) {
    for (std::int64_t i = 0; i < m; ++i) {
      if (j == j0) EXPECT_TRUE(std::isinf(C.at(i, j))) << "C(" << i << "," << j << ")";
      else EXPECT_TRUE(std::isfinite(C.at(i, j))) << "C(" << i << "," << j << ")";
    }
  }
}

TYPED_TEST(GemmApi, AllTransposesAndPaddedLeadingDimensions) {
  using T = TypeParam;
  for (gk_op ta : kOps) {
    for (gk_op tb : kOps) {
      for (std::int64_t pad : {0, 3}) {
        EXPECT_TRUE(check_api(make_problem(dtype_of<T>(), ta, tb, 19, 13, 17, pad), 1.0, 1.0, false));
        EXPECT_TRUE(check_api(make_problem(dtype_of<T>(), ta, tb, 7, 23, 29, pad), -1.5, 0.25, false));
      }
    }
  }
}

/// A row-major call is checked twice: against a reference indexed the row-major way, and bitwise
/// against the column-major call of the transposed problem (C^T = op(B)^T op(A)^T).
TYPED_TEST(GemmApi, RowMajorEqualsTransposedColumnMajor) {
  using T = TypeParam;
  using Acc = ReferenceAccumulator<T>;
  std::int64_t const m = 14, n = 9, k = 11;
  for (gk_op ta : kOps) {
    for (gk_op tb : kOps) {
      SCOPED_TRACE(std::string("ops ") + op_letter(ta) + op_letter(tb));
      std::mt19937_64 rng = fresh_generator();
      // Row-major R x S with leading dimension ld is the column-major S x R Matrix(S, R, ld).
      std::int64_t const a_rows = ta == GK_OP_N ? m : k, a_cols = ta == GK_OP_N ? k : m;
      std::int64_t const b_rows = tb == GK_OP_N ? k : n, b_cols = tb == GK_OP_N ? n : k;
      std::int64_t const lda = a_cols + 2, ldb = b_cols + 3, ldc = n + 1;
      Matrix<T> A(a_cols, a_rows, lda), B(b_cols, b_rows, ldb), C(n, m, ldc);
      A.fill_random(rng);
      B.fill_random(rng);
      C.fill_random(rng);
      Matrix<T> const C0 = C;
      T const alpha = T(1.25), beta = T(-0.5);
      ScopedContext ctx;
      ASSERT_EQ(api_gemm(ctx, GK_ROW_MAJOR, ta, tb, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, C.data(),
                         ldc),
                GK_SUCCESS)
          << gk_last_error(ctx);

      // Row-major reference: C(i, j) at C.at(j, i).
      auto opA = [&](std::int64_t i, std::int64_t l) { return ta == GK_OP_N ? A.at(l, i) : A.at(i, l); };
      auto opB = [&](std::int64_t l, std::int64_t j) { return tb == GK_OP_N ? B.at(j, l) : B.at(l, j); };
      std::vector<Acc> reference(m * n);
      for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
          Acc sum = 0;
          for (std::int64_t l = 0; l < k; ++l) sum += Acc(opA(i, l)) * Acc(opB(l, j));
          reference[j + i * n] = Acc(alpha) * sum + Acc(beta) * Acc(C0.at(j, i));
        }
      }
      // The transposed column-major problem has the same sizes and norms, which is all check_result uses of it.
      GemmProblem const pt = make_problem(dtype_of<T>(), tb, ta, n, m, k);
      EXPECT_TRUE(check_result(pt, alpha, beta, B, A, C0, C, reference));

      Matrix<T> Ct = C0;
      ASSERT_EQ(api_gemm(ctx, GK_COL_MAJOR, tb, ta, n, m, k, alpha, B.data(), ldb, A.data(), lda, beta, Ct.data(),
                         ldc),
                GK_SUCCESS);
      EXPECT_TRUE(Ct.bitwise_equal(C)) << "row-major result differs from the transposed column-major one";
    }
  }
}

TYPED_TEST(GemmApi, StridedBatched) {
  using T = TypeParam;
  for (gk_op ta : kOps) {
    for (gk_op tb : {GK_OP_N, GK_OP_T}) {
      EXPECT_TRUE(check_api(make_problem(dtype_of<T>(), ta, tb, 17, 10, 12, 0, 3), 1.0, 0.0, false));
      EXPECT_TRUE(check_api(make_problem(dtype_of<T>(), ta, tb, 5, 16, 9, 2, 4), 0.5, -1.0, false));
    }
  }
}

TYPED_TEST(GemmApi, StridedBatchedBroadcastsZeroStrides) {
  using T = TypeParam;
  GemmProblem p = make_problem(dtype_of<T>(), GK_OP_T, GK_OP_N, 12, 7, 9, 1, 3);
  p.stride_a = 0;  // one A shared by the batch
  EXPECT_TRUE(check_api(p, 1.0, 0.5, false));
  p = make_problem(dtype_of<T>(), GK_OP_N, GK_OP_C, 12, 7, 9, 0, 4);
  p.stride_b = 0;
  EXPECT_TRUE(check_api(p, -1.0, 0.0, false));
  p.stride_a = 0;  // both broadcast: every C gets the same product
  EXPECT_TRUE(check_api(p, 2.0, 1.0, false));
}

TYPED_TEST(GemmApi, RowMajorStridedBatchedMatchesPerEntryCalls) {
  using T = TypeParam;
  std::int64_t const m = 6, n = 10, k = 7, batch = 3;
  std::int64_t const lda = k + 1, ldb = k + 2, ldc = n + 2;  // A m x k (N), B n x k (T), by rows
  std::int64_t const sa = m * lda + 3, sb = n * ldb, sc = m * ldc + 5;
  std::mt19937_64 rng = fresh_generator();
  Matrix<T> A(k, m, lda, batch, sa), B(k, n, ldb, batch, sb), C(n, m, ldc, batch, sc);
  A.fill_random(rng);
  B.fill_random(rng);
  C.fill_random(rng);
  Matrix<T> C_each = C;
  ScopedContext ctx;
  ASSERT_EQ(api_gemm_strided_batched(ctx, GK_ROW_MAJOR, GK_OP_N, GK_OP_T, m, n, k, T(1.5), A.data(), lda, sa, B.data(),
                                     ldb, sb, T(0.5), C.data(), ldc, sc, batch),
            GK_SUCCESS)
      << gk_last_error(ctx);
  for (std::int64_t b = 0; b < batch; ++b) {
    ASSERT_EQ(api_gemm(ctx, GK_ROW_MAJOR, GK_OP_N, GK_OP_T, m, n, k, T(1.5), A.data() + b * sa, lda, B.data() + b * sb,
                       ldb, T(0.5), C_each.data() + b * sc, ldc),
              GK_SUCCESS);
  }
  EXPECT_TRUE(C.bitwise_equal(C_each));
  EXPECT_EQ(C.padding_changes(), 0u);
}

TYPED_TEST(GemmApi, PointerArrayBatched) {
  using T = TypeParam;
  std::int64_t const batch = 3;
  for (gk_op ta : {GK_OP_N, GK_OP_T}) {
    for (gk_op tb : {GK_OP_N, GK_OP_C}) {
      GemmProblem const p = make_problem(dtype_of<T>(), ta, tb, 15, 8, 21, 2);
      double const alpha = -0.75, beta = 1.5;
      std::vector<Operands<T>> ops, originals;
      for (std::int64_t b = 0; b < batch; ++b) ops.push_back(make_operands<T>(p, beta));
      originals = ops;
      std::vector<T const*> A, B;
      std::vector<T*> C;
      for (auto& o : ops) A.push_back(o.A.data()), B.push_back(o.B.data()), C.push_back(o.C.data());
      ScopedContext ctx;
      ASSERT_EQ(api_gemm_batched(ctx, GK_COL_MAJOR, ta, tb, p.m, p.n, p.k, T(alpha), A.data(), p.lda, B.data(), p.ldb,
                                 T(beta), C.data(), p.ldc, batch),
                GK_SUCCESS)
          << gk_last_error(ctx);
      for (std::int64_t b = 0; b < batch; ++b) {
        Operands<T> const& o = originals[b];
        auto const reference = reference_result(p, alpha, o.A, o.B, beta, o.C);
        EXPECT_TRUE(check_result(p, alpha, beta, o.A, o.B, o.C, ops[b].C, reference)) << "problem " << b;
        EXPECT_TRUE(ops[b].A.bitwise_equal(o.A));
        EXPECT_TRUE(ops[b].B.bitwise_equal(o.B));
      }
      EXPECT_STRNE(gk_last_variant(ctx), "");
    }
  }
}

/// A NULL entry at any problem rejects the whole batch before any problem runs; unread operands may be NULL.
TYPED_TEST(GemmApi, PointerArrayWithANullEntryWritesNothing) {
  using T = TypeParam;
  GemmProblem const p = make_problem(dtype_of<T>(), GK_OP_N, GK_OP_T, 9, 7, 5, 1);
  std::int64_t const batch = 4;
  std::vector<Operands<T>> ops;
  for (std::int64_t b = 0; b < batch; ++b) ops.push_back(make_operands<T>(p, 1.0));
  std::vector<Operands<T>> const originals = ops;
  std::vector<T const*> A, B;
  std::vector<T*> C;
  for (auto& o : ops) A.push_back(o.A.data()), B.push_back(o.B.data()), C.push_back(o.C.data());
  ScopedContext ctx;
  for (int culprit : {0, 1, 2}) {  // C, then A, then B, each NULL at a later problem
    std::vector<T const*> a = A, b = B;
    std::vector<T*> c = C;
    if (culprit == 0) c[2] = nullptr;
    if (culprit == 1) a[3] = nullptr;
    if (culprit == 2) b[1] = nullptr;
    EXPECT_EQ(api_gemm_batched(ctx, GK_COL_MAJOR, p.trans_a, p.trans_b, p.m, p.n, p.k, T(1), a.data(), p.lda,
                               b.data(), p.ldb, T(1), c.data(), p.ldc, batch),
              GK_INVALID_ARGUMENT);
    EXPECT_EQ(gk_error_parameter(ctx), culprit == 0 ? 13 : culprit == 1 ? 8 : 10);
    std::string const problem = culprit == 0 ? "problem 2" : culprit == 1 ? "problem 3" : "problem 1";
    EXPECT_NE(std::string(gk_last_error(ctx)).find(problem), std::string::npos) << gk_last_error(ctx);
    for (std::int64_t i = 0; i < batch; ++i) {
      EXPECT_TRUE(ops[std::size_t(i)].C.bitwise_equal(originals[std::size_t(i)].C)) << "problem " << i << " wrote C";
    }
  }
  // alpha = 0 reads neither A nor B: NULL entries there are fine, C = beta * C.
  std::vector<T const*> no_a = A;
  no_a[1] = nullptr;
  ASSERT_EQ(api_gemm_batched(ctx, GK_COL_MAJOR, p.trans_a, p.trans_b, p.m, p.n, p.k, T(0), no_a.data(), p.lda,
                             B.data(), p.ldb, T(2), C.data(), p.ldc, batch),
            GK_SUCCESS)
      << gk_last_error(ctx);
  for (std::int64_t i = 0; i < batch; ++i) expect_scaled(originals[std::size_t(i)].C, ops[std::size_t(i)].C, T(2));
}

/// C windows: empty ones never overlap, windows interleaved within ldc are disjoint, and a batch whose
/// last matrix ends past a 64-bit address is an argument error, not a wrap.
TYPED_TEST(GemmApi, StridedBatchedWindowsAndSizeOverflow) {
  using T = TypeParam;
  ScopedContext ctx;
  std::mt19937_64 rng = fresh_generator();
  std::vector<T> a(64), b(64), c(64);
  for (auto* v : {&a, &b, &c}) {
    for (T& x : *v) x = random_value<T>(rng);
  }
  std::vector<T> const c0 = c;
  // m = 0: nothing is written, whatever stride_c.
  EXPECT_EQ(api_gemm_strided_batched(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 0, 3, 2, T(1), a.data(), 1, 0, b.data(), 2,
                                     0, T(1), c.data(), 1, 0, 3),
            GK_SUCCESS)
      << gk_last_error(ctx);
  // Interleaved: problem i's 2 x 3 C at c + 2i with ldc = 4 (column-major), and its 3 x 2 row-major twin.
  for (gk_layout layout : {GK_COL_MAJOR, GK_ROW_MAJOR}) {
    bool const col = layout == GK_COL_MAJOR;
    std::int64_t const m = col ? 2 : 3, n = col ? 3 : 2, k = 4;
    std::int64_t const lda = col ? m : k, ldb = col ? k : n;  // A m x k, B k x n, packed
    std::vector<T> got = c0, each = c0;
    ASSERT_EQ(api_gemm_strided_batched(ctx, layout, GK_OP_N, GK_OP_N, m, n, k, T(1), a.data(), lda, m * k, b.data(),
                                       ldb, k * n, T(0.5), got.data(), 4, 2, 2),
              GK_SUCCESS)
        << gk_last_error(ctx);
    for (std::int64_t i = 0; i < 2; ++i) {
      ASSERT_EQ(api_gemm(ctx, layout, GK_OP_N, GK_OP_N, m, n, k, T(1), a.data() + i * m * k, lda,
                         b.data() + i * k * n, ldb, T(0.5), each.data() + 2 * i, 4),
                GK_SUCCESS);
    }
    EXPECT_EQ(std::memcmp(got.data(), each.data(), got.size() * sizeof(T)), 0);
    // Stride 1 interleaves rows of one problem with the next's: they overlap.
    std::vector<T> untouched = c0;
    EXPECT_EQ(api_gemm_strided_batched(ctx, layout, GK_OP_N, GK_OP_N, m, n, k, T(1), a.data(), lda, m * k, b.data(),
                                       ldb, k * n, T(0.5), untouched.data(), 4, 1, 2),
              GK_INVALID_ARGUMENT);
    EXPECT_EQ(gk_error_parameter(ctx), 17);
    EXPECT_EQ(std::memcmp(untouched.data(), c0.data(), c0.size() * sizeof(T)), 0);
  }
  // Sizes whose products leave 64 bits, each an argument error at its parameter.
  std::int64_t const huge = std::int64_t(1) << 62;
  EXPECT_EQ(api_gemm_strided_batched(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 2, 2, 1, T(1), a.data(), 2, 2, b.data(), 1,
                                     2, T(1), c.data(), huge, 1, 2),
            GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_error_parameter(ctx), 16);
  EXPECT_EQ(api_gemm_strided_batched(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 2, 2, 1, T(1), a.data(), 2, huge, b.data(),
                                     1, 2, T(1), c.data(), 2, 4, 3),
            GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_error_parameter(ctx), 10);
  EXPECT_EQ(api_gemm_strided_batched(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 2, 2, 1, T(1), a.data(), 2, 2, b.data(), 1,
                                     2, T(1), c.data(), 2, INT64_MAX / 2, 3),
            GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_error_parameter(ctx), 17);
  EXPECT_EQ(api_gemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 2, 3, 2, T(1), a.data(), huge, b.data(), 2, T(1), c.data(),
                     2),
            GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_error_parameter(ctx), 9);
  EXPECT_EQ(std::memcmp(c.data(), c0.data(), c0.size() * sizeof(T)), 0);
}

/// Leading dimensions past 2^31 on the CPU path, in both layouts (only the operands' first lines are touched):
/// the same result as the compact operands give.
TYPED_TEST(GemmApi, LeadingDimensionsPastTheIntRange) {
  using T = TypeParam;
  std::int64_t const wide = (std::int64_t(1) << 31) + 64;
  ScopedContext ctx;
  ASSERT_EQ(gk_set_backend(ctx, GK_BACKEND_CPU), GK_SUCCESS);
  for (gk_layout layout : {GK_COL_MAJOR, GK_ROW_MAJOR}) {
    bool const col = layout == GK_COL_MAJOR;
    std::int64_t const m = col ? 40 : 2, n = col ? 2 : 40, k = 2;
    // A: m x k, C: m x n, each with `wide` between its lines (columns, or rows); B compact.
    std::int64_t const a_lines = col ? k : m, a_length = col ? m : k, c_lines = col ? n : m, c_length = col ? m : n;
    std::int64_t const ldb = col ? k : n;
    SparseBuffer<T> A(std::size_t(wide * (a_lines - 1) + a_length)), C(std::size_t(wide * (c_lines - 1) + c_length));
    ASSERT_TRUE(A.data() != nullptr && C.data() != nullptr) << "no room for the mappings";
    std::mt19937_64 rng = fresh_generator();
    std::vector<T> a(std::size_t(m * k)), b(std::size_t(k * n)), c(std::size_t(m * n));
    for (auto* v : {&a, &b, &c}) {
      for (T& x : *v) x = random_value<T>(rng);
    }
    for (std::int64_t line = 0; line < a_lines; ++line) {
      std::copy_n(a.data() + line * a_length, a_length, A.data() + line * wide);
    }
    for (std::int64_t line = 0; line < c_lines; ++line) {
      std::copy_n(c.data() + line * c_length, c_length, C.data() + line * wide);
    }
    ASSERT_EQ(api_gemm(ctx, layout, GK_OP_N, GK_OP_N, m, n, k, T(1.5), A.data(), wide, b.data(), ldb, T(-0.5),
                       C.data(), wide),
              GK_SUCCESS)
        << gk_last_error(ctx);
    ASSERT_EQ(api_gemm(ctx, layout, GK_OP_N, GK_OP_N, m, n, k, T(1.5), a.data(), a_length, b.data(), ldb, T(-0.5),
                       c.data(), c_length),
              GK_SUCCESS);
    for (std::int64_t line = 0; line < c_lines; ++line) {
      for (std::int64_t e = 0; e < c_length; ++e) {
        T const got = C.data()[line * wide + e], want = c[std::size_t(line * c_length + e)];
        ASSERT_NEAR(got, want, 8 * std::numeric_limits<T>::epsilon() * (std::fabs(want) + 4))
            << (col ? "column-major" : "row-major") << " line " << line << " element " << e;
      }
    }
  }
}

/// Reference CBLAS checks the layout first: a bad one fails even with no groups.
TYPED_TEST(GemmApi, GroupedChecksTheLayoutBeforeTheGroupCount) {
  using T = TypeParam;
  ScopedContext ctx;
  EXPECT_EQ(api_gemm_grouped(ctx, gk_layout(99), nullptr, nullptr, nullptr, nullptr, nullptr, static_cast<T const*>(nullptr),
                             nullptr, nullptr, nullptr, nullptr, static_cast<T const*>(nullptr), nullptr, nullptr, 0,
                             nullptr, nullptr),
            GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_error_parameter(ctx), 1);
  EXPECT_EQ(api_gemm_grouped(ctx, GK_COL_MAJOR, nullptr, nullptr, nullptr, nullptr, nullptr,
                             static_cast<T const*>(nullptr), nullptr, nullptr, nullptr, nullptr,
                             static_cast<T const*>(nullptr), nullptr, nullptr, 0, nullptr, nullptr),
            GK_SUCCESS);
}

/// Two groups of different shapes, op, scalars and sizes; per-problem info all GK_SUCCESS.
TYPED_TEST(GemmApi, GroupedTwoGroups) {
  using T = TypeParam;
  GemmProblem const g0 = make_problem(dtype_of<T>(), GK_OP_N, GK_OP_N, 5, 7, 3);
  GemmProblem const g1 = make_problem(dtype_of<T>(), GK_OP_T, GK_OP_C, 17, 4, 9, 3);
  gk_op const ta[] = {g0.trans_a, g1.trans_a}, tb[] = {g0.trans_b, g1.trans_b};
  std::int64_t const m[] = {g0.m, g1.m}, n[] = {g0.n, g1.n}, k[] = {g0.k, g1.k};
  std::int64_t const lda[] = {g0.lda, g1.lda}, ldb[] = {g0.ldb, g1.ldb}, ldc[] = {g0.ldc, g1.ldc};
  T const alpha[] = {T(1), T(-1.5)}, beta[] = {T(0), T(0.25)};
  std::int64_t const group_size[] = {2, 3};

  std::vector<Operands<T>> ops;
  for (int p = 0; p < 5; ++p) ops.push_back(make_operands<T>(p < 2 ? g0 : g1, p < 2 ? 0.0 : 0.25));
  std::vector<Operands<T>> const originals = ops;
  std::vector<T const*> A, B;
  std::vector<T*> C;
  for (auto& o : ops) A.push_back(o.A.data()), B.push_back(o.B.data()), C.push_back(o.C.data());
  std::vector<gk_status> info(5, GK_INTERNAL_ERROR);
  ScopedContext ctx;
  ASSERT_EQ(api_gemm_grouped(ctx, GK_COL_MAJOR, ta, tb, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, C.data(),
                             ldc, 2, group_size, info.data()),
            GK_SUCCESS)
      << gk_last_error(ctx);
  for (int p = 0; p < 5; ++p) {
    EXPECT_EQ(info[p], GK_SUCCESS) << "problem " << p;
    GemmProblem const& gp = p < 2 ? g0 : g1;
    double const a = p < 2 ? 1.0 : -1.5, b = p < 2 ? 0.0 : 0.25;
    auto const reference = reference_result(gp, a, originals[p].A, originals[p].B, b, originals[p].C);
    EXPECT_TRUE(check_result(gp, a, b, originals[p].A, originals[p].B, originals[p].C, ops[p].C, reference))
        << "problem " << p;
  }
}

/// A problem that fails at run time is reported in its info slot; the others still run.
TYPED_TEST(GemmApi, GroupedCallWithANullEntryWritesNothing) {
  using T = TypeParam;
  GemmProblem const g = make_problem(dtype_of<T>(), GK_OP_N, GK_OP_T, 6, 5, 4, 1);
  gk_op const ta[] = {g.trans_a, g.trans_a}, tb[] = {g.trans_b, g.trans_b};
  std::int64_t const m[] = {g.m, g.m}, n[] = {g.n, g.n}, k[] = {g.k, g.k};
  std::int64_t const lda[] = {g.lda, g.lda}, ldb[] = {g.ldb, g.ldb}, ldc[] = {g.ldc, g.ldc};
  T const alpha[] = {T(1), T(2)}, beta[] = {T(1), T(1)};
  std::int64_t const group_size[] = {2, 2};
  std::vector<Operands<T>> ops;
  for (int p = 0; p < 4; ++p) ops.push_back(make_operands<T>(g, 1.0));
  std::vector<Operands<T>> const originals = ops;
  std::vector<T const*> A, B;
  std::vector<T*> C;
  for (auto& o : ops) A.push_back(o.A.data()), B.push_back(o.B.data()), C.push_back(o.C.data());
  A[3] = nullptr;  // problem 3 (group 1) has no A although k > 0
  std::vector<gk_status> info(4, GK_INTERNAL_ERROR);
  ScopedContext ctx;
  EXPECT_EQ(api_gemm_grouped(ctx, GK_COL_MAJOR, ta, tb, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, C.data(),
                             ldc, 2, group_size, info.data()),
            GK_INVALID_ARGUMENT);
  EXPECT_NE(std::string(gk_last_error(ctx)).find("problem 3"), std::string::npos) << gk_last_error(ctx);
  EXPECT_EQ(gk_error_parameter(ctx), 8);
  for (int p = 0; p < 4; ++p) {
    EXPECT_EQ(info[std::size_t(p)], GK_INVALID_ARGUMENT) << "problem " << p;
    EXPECT_TRUE(ops[std::size_t(p)].C.bitwise_equal(originals[std::size_t(p)].C)) << "problem " << p << " wrote C";
  }
  // The same call with every entry valid fills info with each group's status.
  A[3] = ops[3].A.data();
  ASSERT_EQ(api_gemm_grouped(ctx, GK_COL_MAJOR, ta, tb, m, n, k, alpha, A.data(), lda, B.data(), ldb, beta, C.data(),
                             ldc, 2, group_size, info.data()),
            GK_SUCCESS);
  for (int p = 0; p < 4; ++p) {
    EXPECT_EQ(info[std::size_t(p)], GK_SUCCESS);
    double const a = p < 2 ? 1.0 : 2.0;
    auto const reference = reference_result(g, a, originals[p].A, originals[p].B, 1.0, originals[p].C);
    EXPECT_TRUE(check_result(g, a, 1.0, originals[p].A, originals[p].B, originals[p].C, ops[p].C, reference))
        << "problem " << p;
  }
}

TYPED_TEST(GemmApi, LastVariantIsTheRegisteredCpuVariantThatRan) {
  using T = TypeParam;
  std::string ran;
  GemmProblem const p = make_problem(dtype_of<T>(), GK_OP_N, GK_OP_N, 20, 20, 20);
  ASSERT_TRUE(check_api(p, 1.0, 0.0, false, &ran));
  GemmVariant const* v = variant_registry().find(ran);
  ASSERT_NE(v, nullptr) << "gk_last_variant '" << ran << "' is not a registered id";
  EXPECT_EQ(v->info().backend, Platform::kCpu);
  EXPECT_EQ(v->info().dtype, dtype_of<T>());
  EXPECT_EQ(v, variant_registry().select(p, Platform::kCpu));
}

TYPED_TEST(GemmApi, ForcedVariants) {
  using T = TypeParam;
  std::string const reference_id = dtype_of<T>() == Dtype::kF64 ? "reference_dgemm" : "reference_sgemm";
  std::string const other_dtype_id = dtype_of<T>() == Dtype::kF64 ? "openblas_sgemm" : "openblas_dgemm";
  ScopedContext ctx;
  std::mt19937_64 rng = fresh_generator();
  Matrix<T> A(6, 4, 6), B(4, 5, 4), C(6, 5, 6);
  A.fill_random(rng);
  B.fill_random(rng);
  C.fill_random(rng);
  Matrix<T> const C0 = C;
  auto call = [&] {
    return api_gemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 6, 5, 4, T(1), A.data(), 6, B.data(), 4, T(1), C.data(), 6);
  };
  ASSERT_EQ(gk_set_variant(ctx, reference_id.c_str()), GK_SUCCESS);
  ASSERT_EQ(call(), GK_SUCCESS);
  EXPECT_EQ(std::string(gk_last_variant(ctx)), reference_id);

  C = C0;
  gk_set_variant(ctx, "no_such_variant");
  EXPECT_EQ(call(), GK_INVALID_ARGUMENT);
  EXPECT_STRNE(gk_last_error(ctx), "");
  EXPECT_STREQ(gk_last_variant(ctx), "");
  EXPECT_TRUE(C.bitwise_equal(C0));

  gk_set_variant(ctx, other_dtype_id.c_str());
  EXPECT_EQ(call(), GK_NOT_SUPPORTED);
  EXPECT_TRUE(C.bitwise_equal(C0));

  gk_set_variant(ctx, nullptr);  // back to the selection table
  ASSERT_EQ(call(), GK_SUCCESS);
  EXPECT_NE(std::string(gk_last_variant(ctx)), reference_id);
}

TYPED_TEST(GemmApi, NullContextUsesThePerThreadDefault) {
  using T = TypeParam;
  std::string const reference_id = dtype_of<T>() == Dtype::kF64 ? "reference_dgemm" : "reference_sgemm";
  // The default context outlives the test: restore table-driven selection however the test ends.
  struct Restore {
    ~Restore() { gk_set_variant(nullptr, nullptr); }
  } const restore;
  std::mt19937_64 rng = fresh_generator();
  Matrix<T> A(3, 2, 3), B(2, 4, 2), C(3, 4, 3);
  A.fill_random(rng);
  B.fill_random(rng);
  C.fill_random(rng);
  ASSERT_EQ(gk_set_variant(nullptr, reference_id.c_str()), GK_SUCCESS);
  ASSERT_EQ(api_gemm(nullptr, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 3, 4, 2, T(1), A.data(), 3, B.data(), 2, T(0), C.data(),
                     3),
            GK_SUCCESS);
  EXPECT_EQ(std::string(gk_last_variant(nullptr)), reference_id);
  // Errors are recorded on the default context too.
  EXPECT_EQ(api_gemm(nullptr, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 3, 4, 2, T(1), A.data(), 2, B.data(), 2, T(0), C.data(),
                     3),
            GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_error_parameter(nullptr), 9);
  EXPECT_STRNE(gk_last_error(nullptr), "");
  // Another thread has its own default context: no forced variant, no last error.
  std::string other_variant, other_error = "unset";
  std::thread([&] {
    other_error = gk_last_error(nullptr);
    Matrix<T> C2 = C;
    if (api_gemm(nullptr, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 3, 4, 2, T(1), A.data(), 3, B.data(), 2, T(0), C2.data(),
                 3) == GK_SUCCESS) {
      other_variant = gk_last_variant(nullptr);
    }
  }).join();
  EXPECT_EQ(other_error, "");
  EXPECT_NE(other_variant, "");
  EXPECT_NE(other_variant, reference_id);
}

TEST(ContextApi, OptionsRoundTripAndBadValuesAreRejected) {
  ScopedContext ctx;
  ASSERT_NE(ctx.get(), nullptr);
  EXPECT_EQ(gk_create(nullptr), GK_INVALID_ARGUMENT);

  void* stream = reinterpret_cast<void*>(0x1);
  EXPECT_EQ(gk_get_stream(ctx, &stream), GK_SUCCESS);
  EXPECT_EQ(stream, nullptr) << "a new context queues on the legacy default stream";
  EXPECT_EQ(gk_get_stream(ctx, nullptr), GK_INVALID_ARGUMENT);

  EXPECT_EQ(gk_set_device_memory_budget(ctx, 123456), GK_SUCCESS);
  std::size_t budget = 0;
  EXPECT_EQ(gk_get_device_memory_budget(ctx, &budget), GK_SUCCESS);
  EXPECT_EQ(budget, 123456u);

  EXPECT_EQ(gk_set_backend(ctx, gk_backend(9)), GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_error_parameter(ctx), 2);
  EXPECT_EQ(gk_set_device(ctx, -1), GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_error_parameter(ctx), 2);
  int device = -1;
  EXPECT_EQ(gk_get_device(ctx, &device), GK_SUCCESS);
  EXPECT_EQ(device, 0);

  for (int s = GK_SUCCESS; s <= GK_NOT_IMPLEMENTED; ++s) EXPECT_STRNE(gk_status_string(gk_status(s)), "");
  EXPECT_NE(std::string(gk_status_string(GK_SUCCESS)), gk_status_string(GK_INVALID_ARGUMENT));
}

/// Notes are built only when the context's verbosity asks for them: nothing at 0, the variant at 2.
/// The FP64 emulation setting: the environment's default (off when unset), set and read back, bad
/// modes and bits refused with their parameter index and nothing changed.
TEST(ContextApi, Fp64EmulationDefaultsFromTheEnvironmentAndChecksItsArguments) {
  ScopedContext ctx;
  char const* env = std::getenv("GEMMKIT_FP64_EMULATION");
  std::string const text = env != nullptr ? env : "";
  gk_fp64_emulation const expected = text == "on"     ? GK_FP64_EMULATION_ON
                                     : text == "auto" ? GK_FP64_EMULATION_AUTO
                                                      : GK_FP64_EMULATION_OFF;
  gk_fp64_emulation mode{};
  ASSERT_EQ(gk_get_fp64_emulation(ctx, &mode), GK_SUCCESS);
  EXPECT_EQ(mode, expected) << "GEMMKIT_FP64_EMULATION='" << text << "'";
  ASSERT_EQ(gk_set_fp64_emulation(ctx, GK_FP64_EMULATION_ON), GK_SUCCESS);
  ASSERT_EQ(gk_get_fp64_emulation(ctx, &mode), GK_SUCCESS);
  EXPECT_EQ(mode, GK_FP64_EMULATION_ON);
  EXPECT_EQ(gk_set_fp64_emulation(ctx, static_cast<gk_fp64_emulation>(7)), GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_error_parameter(ctx), 2);
  ASSERT_EQ(gk_get_fp64_emulation(ctx, &mode), GK_SUCCESS);
  EXPECT_EQ(mode, GK_FP64_EMULATION_ON);
  EXPECT_EQ(gk_get_fp64_emulation(ctx, nullptr), GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_set_fp64_emulation_bits(ctx, 7), GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_set_fp64_emulation_bits(ctx, 63), GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_set_fp64_emulation_bits(ctx, 0), GK_SUCCESS);   // as FP64 accuracy needs
  EXPECT_EQ(gk_set_fp64_emulation_bits(ctx, 62), GK_SUCCESS);
  EXPECT_EQ(gk_set_fp64_emulation_bits(ctx, 40), GK_SUCCESS);
  EXPECT_EQ(gk_set_fp64_emulation_scaling(ctx, static_cast<gk_fp64_emulation_scaling>(3)), GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_error_parameter(ctx), 2);
  EXPECT_EQ(gk_set_fp64_emulation_scaling(ctx, GK_FP64_EMULATION_SCALING_ACCURATE), GK_SUCCESS);
  EXPECT_EQ(gk_set_fp64_emulation_scaling(ctx, GK_FP64_EMULATION_SCALING_FAST), GK_SUCCESS);
  // Host operands this small stay on the CPU, not emulated: the CPU path gives the product as before.
  GemmProblem const p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_T, 37, 29, 41);
  Operands<double> ops = make_operands<double>(p, 0.5);
  Matrix<double> const C0 = ops.C;
  auto const reference = reference_result(p, 1.5, ops.A, ops.B, 0.5, C0);
  ASSERT_EQ(api_gemm(ctx, GK_COL_MAJOR, p.trans_a, p.trans_b, p.m, p.n, p.k, 1.5, ops.A.data(), p.lda, ops.B.data(),
                     p.ldb, 0.5, ops.C.data(), p.ldc),
            GK_SUCCESS);
  EXPECT_TRUE(check_result(p, 1.5, 0.5, ops.A, ops.B, C0, ops.C, reference));
}

TEST(ContextApi, NotesPrintAtTheirVerbosityOnly) {
  ScopedContext ctx;
  std::mt19937_64 rng = fresh_generator();
  Matrix<double> A(4, 4, 4), B(4, 4, 4), C(4, 4, 4);
  A.fill_random(rng);
  B.fill_random(rng);
  auto call = [&] {
    return gk_dgemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 4, 4, 4, 1.0, A.data(), 4, B.data(), 4, 0.0, C.data(), 4);
  };
  for (int level : {0, 1, 2}) {
    ASSERT_EQ(gk_set_verbosity(ctx, level), GK_SUCCESS);
    testing::internal::CaptureStderr();
    gk_status const s = call();
    std::string const printed = testing::internal::GetCapturedStderr();
    ASSERT_EQ(s, GK_SUCCESS) << gk_last_error(ctx);
    std::string const variant_note = std::string("gemmkit: variant ") + gk_last_variant(ctx) + "\n";
    if (level == 0) {
      EXPECT_EQ(printed, "");
    }
    if (level < 2) {
      EXPECT_EQ(printed.find("variant"), std::string::npos) << printed;
    } else {
      EXPECT_NE(printed.find(variant_note), std::string::npos) << printed;
    }
  }
}

/// Host pointers under the GPU policy run the host-resident GPU GEMM (any size); without a GPU
/// the call is refused and C left alone.
TEST(ContextApi, GpuPolicyWithHostPointersNeedsAGpu) {
  ScopedContext ctx;
  ASSERT_EQ(gk_set_backend(ctx, GK_BACKEND_GPU), GK_SUCCESS);
  std::mt19937_64 rng = fresh_generator();
  Matrix<double> A(4, 4, 4), B(4, 4, 4), C(4, 4, 4);
  A.fill_random(rng);
  B.fill_random(rng);
  C.fill_random(rng);
  Matrix<double> const C0 = C;
  gk_status const s =
      gk_dgemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 4, 4, 4, 1.0, A.data(), 4, B.data(), 4, 1.0, C.data(), 4);
  if (gk_gpu_available()) {
    EXPECT_EQ(s, GK_SUCCESS) << gk_last_error(ctx);
    EXPECT_STREQ(gk_last_variant(ctx), "dgemm_host_resident");
    EXPECT_FALSE(C.bitwise_equal(C0));
  } else {
    EXPECT_EQ(s, GK_NO_DEVICE);
    EXPECT_STRNE(gk_last_error(ctx), "");
    EXPECT_TRUE(C.bitwise_equal(C0));
  }
  // The CPU policy runs host pointers as usual.
  ASSERT_EQ(gk_set_backend(ctx, GK_BACKEND_CPU), GK_SUCCESS);
  EXPECT_EQ(gk_dgemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 4, 4, 4, 1.0, A.data(), 4, B.data(), 4, 1.0, C.data(), 4),
            GK_SUCCESS);
}

}  // namespace
}  // namespace gemmkit::test
