/*! \file
    \brief BLAS argument rules: every bad argument of gemm and its batched forms returns
    GK_INVALID_ARGUMENT with its CBLAS parameter index and a message, and writes nothing.
*/
#include "api/argument_check.hpp"
#include "cpu/reference_gemm.hpp"
#include "support/api_calls.hpp"
#include "support/gemm_check.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <string>
#include <vector>

namespace gemmkit::test {
namespace {

/// Operands large enough for every case below, C random so "untouched" is a byte comparison.
template <typename T>
struct Buffers {
  std::vector<T> A, B, C, C_before;
  Buffers() {
    std::mt19937_64 rng = fresh_generator();
    for (auto* v : {&A, &B, &C}) {
      v->resize(256);
      for (T& x : *v) x = random_value<T>(rng);
    }
    C_before = C;
  }
  bool c_untouched() const { return std::memcmp(C.data(), C_before.data(), C.size() * sizeof(T)) == 0; }
};

/// Expects a rejected call: status, parameter index, a message, and C unchanged.
template <typename T>
void expect_rejected(gk_context ctx, gk_status status, int parameter, Buffers<T> const& buffers) {
  EXPECT_EQ(status, GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_error_parameter(ctx), parameter);
  EXPECT_STRNE(gk_last_error(ctx), "");
  EXPECT_TRUE(buffers.c_untouched()) << "a rejected call wrote C";
}

// ---- gemm -----------------------------------------------------------------------------------------

struct GemmArgs {
  gk_layout layout = GK_COL_MAJOR;
  gk_op ta = GK_OP_N, tb = GK_OP_N;
  std::int64_t m = 4, n = 3, k = 5, lda = 4, ldb = 5, ldc = 4;
};

struct BadGemmCase {
  std::string name;
  GemmArgs args;
  int parameter;  ///< expected CBLAS index
};

void PrintTo(BadGemmCase const& c, std::ostream* os) { *os << c.name; }

/// Starts from a valid col-major (or row-major) call and breaks one thing.
std::vector<BadGemmCase> bad_gemm_cases() {
  GemmArgs const col{};
  GemmArgs row{};
  row.layout = GK_ROW_MAJOR, row.lda = 5, row.ldb = 3, row.ldc = 3;  // A 4x5, B 5x3, C 4x3 stored by rows
  std::vector<BadGemmCase> cases;
  auto add = [&](std::string name, GemmArgs a, int parameter) { cases.push_back({std::move(name), a, parameter}); };
  GemmArgs a;
  a = col, a.layout = gk_layout(2), add("layout_2", a, 1);
  a = col, a.layout = gk_layout(-1), add("layout_neg", a, 1);
  a = col, a.ta = gk_op(3), add("transa_3", a, 2);
  a = col, a.ta = gk_op(-1), add("transa_neg", a, 2);
  a = col, a.tb = gk_op(17), add("transb_17", a, 3);
  a = col, a.m = -1, add("m_neg", a, 4);
  a = col, a.n = -1, add("n_neg", a, 5);
  a = col, a.k = -1, add("k_neg", a, 6);
  // Column-major: lda >= rows of A as stored (m for N, k for T/C), ldb likewise, ldc >= m.
  a = col, a.lda = 3, add("col_lda_n_below_m", a, 9);
  a = col, a.ta = GK_OP_T, a.lda = 4, add("col_lda_t_below_k", a, 9);
  a = col, a.ta = GK_OP_C, a.lda = 4, add("col_lda_c_below_k", a, 9);
  a = col, a.ldb = 4, add("col_ldb_n_below_k", a, 11);
  a = col, a.tb = GK_OP_T, a.ldb = 2, add("col_ldb_t_below_n", a, 11);
  a = col, a.ldc = 3, add("col_ldc_below_m", a, 14);
  a = col, a.m = 0, a.lda = 0, add("col_lda_zero_when_m_zero", a, 9);
  a = col, a.k = 0, a.ldb = 0, add("col_ldb_zero_when_k_zero", a, 11);
  a = col, a.m = 0, a.ldc = 0, add("col_ldc_zero_when_m_zero", a, 14);
  // Row-major: the minimum is the length of a stored row (k for N A, m for T A, n for N B, ...).
  a = row, a.lda = 4, add("row_lda_n_below_k", a, 9);
  a = row, a.ta = GK_OP_T, a.lda = 3, add("row_lda_t_below_m", a, 9);
  a = row, a.ldb = 2, add("row_ldb_n_below_n", a, 11);
  a = row, a.tb = GK_OP_T, a.ldb = 4, add("row_ldb_t_below_k", a, 11);
  a = row, a.ldc = 2, add("row_ldc_below_n", a, 14);
  a = row, a.n = 0, a.ldc = 0, add("row_ldc_zero_when_n_zero", a, 14);
  // Reference CBLAS order: the first bad parameter is the one reported.
  a = col, a.layout = gk_layout(5), a.m = -1, add("order_layout_before_m", a, 1);
  a = col, a.ta = gk_op(9), a.tb = gk_op(9), add("order_transa_before_transb", a, 2);
  a = col, a.m = -1, a.lda = 0, add("order_m_before_lda", a, 4);
  a = col, a.k = -2, a.n = -2, add("order_n_before_k", a, 5);
  a = col, a.lda = 1, a.ldb = 1, a.ldc = 1, add("order_lda_before_ldb_ldc", a, 9);
  a = col, a.ldb = 1, a.ldc = 1, add("order_ldb_before_ldc", a, 11);
  return cases;
}

class BadGemmArgument : public ::testing::TestWithParam<BadGemmCase> {};

TEST_P(BadGemmArgument, CheckReportsIndex) {
  GemmArgs const& a = GetParam().args;
  ArgumentError const e = check_gemm_arguments(a.layout, a.ta, a.tb, a.m, a.n, a.k, a.lda, a.ldb, a.ldc);
  EXPECT_TRUE(bool(e));
  EXPECT_EQ(e.parameter, GetParam().parameter);
  EXPECT_FALSE(e.message.empty());
}

TEST_P(BadGemmArgument, DgemmRejectsWithoutWriting) {
  GemmArgs const& a = GetParam().args;
  ScopedContext ctx;
  Buffers<double> buf;
  gk_status const s = gk_dgemm(ctx, a.layout, a.ta, a.tb, a.m, a.n, a.k, 1.0, buf.A.data(), a.lda, buf.B.data(),
                               a.ldb, 0.5, buf.C.data(), a.ldc);
  expect_rejected(ctx, s, GetParam().parameter, buf);
}

TEST_P(BadGemmArgument, SgemmRejectsWithoutWriting) {
  GemmArgs const& a = GetParam().args;
  ScopedContext ctx;
  Buffers<float> buf;
  gk_status const s = gk_sgemm(ctx, a.layout, a.ta, a.tb, a.m, a.n, a.k, 1.0f, buf.A.data(), a.lda, buf.B.data(),
                               a.ldb, 0.0f, buf.C.data(), a.ldc);
  expect_rejected(ctx, s, GetParam().parameter, buf);
}

/// The leading dimension positions move in the strided-batched signature; the rules do not.
TEST_P(BadGemmArgument, StridedPositionsRenumberOnlyLeadingDimensions) {
  GemmArgs const& a = GetParam().args;
  ArgumentError const e =
      check_gemm_arguments(a.layout, a.ta, a.tb, a.m, a.n, a.k, a.lda, a.ldb, a.ldc, kStridedBatchedPositions);
  int expected = GetParam().parameter;
  expected = expected == 11 ? 12 : (expected == 14 ? 16 : expected);
  EXPECT_EQ(e.parameter, expected);
}

INSTANTIATE_TEST_SUITE_P(Gemm, BadGemmArgument, ::testing::ValuesIn(bad_gemm_cases()),
                         [](auto const& info) { return info.param.name; });

TEST(ArgumentCheck, ValidCallsPass) {
  // Minimal leading dimensions, including the max(1, .) floor and row-major lda < m.
  EXPECT_FALSE(check_gemm_arguments(GK_COL_MAJOR, GK_OP_N, GK_OP_N, 4, 3, 5, 4, 5, 4));
  EXPECT_FALSE(check_gemm_arguments(GK_COL_MAJOR, GK_OP_T, GK_OP_C, 4, 3, 5, 5, 3, 4));
  EXPECT_FALSE(check_gemm_arguments(GK_COL_MAJOR, GK_OP_N, GK_OP_N, 0, 0, 0, 1, 1, 1));
  EXPECT_FALSE(check_gemm_arguments(GK_ROW_MAJOR, GK_OP_N, GK_OP_N, 9, 3, 2, 2, 3, 3));
  EXPECT_FALSE(check_gemm_arguments(GK_ROW_MAJOR, GK_OP_T, GK_OP_T, 4, 3, 5, 4, 5, 3));
  EXPECT_EQ(check_gemm_arguments(GK_COL_MAJOR, GK_OP_N, GK_OP_N, 4, 3, 5, 4, 5, 4).parameter, 0);
}

TEST(ArgumentCheck, SuccessClearsThePreviousError) {
  ScopedContext ctx;
  Buffers<double> buf;
  ASSERT_EQ(gk_dgemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 4, 3, 5, 1.0, buf.A.data(), 3, buf.B.data(), 5, 0.0,
                     buf.C.data(), 4),
            GK_INVALID_ARGUMENT);
  ASSERT_EQ(gk_error_parameter(ctx), 9);
  ASSERT_EQ(gk_dgemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 4, 3, 5, 1.0, buf.A.data(), 4, buf.B.data(), 5, 0.0,
                     buf.C.data(), 4),
            GK_SUCCESS);
  EXPECT_EQ(gk_error_parameter(ctx), 0);
  EXPECT_STREQ(gk_last_error(ctx), "");
}

TEST(ArgumentCheck, NullOperandsOfGemmReportTheirIndices) {
  ScopedContext ctx;
  Buffers<double> buf;
  EXPECT_EQ(gk_dgemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 4, 3, 5, 1.0, nullptr, 4, buf.B.data(), 5, 0.0,
                     buf.C.data(), 4),
            GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_error_parameter(ctx), 8);
  EXPECT_EQ(gk_dgemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 4, 3, 5, 1.0, buf.A.data(), 4, nullptr, 5, 0.0,
                     buf.C.data(), 4),
            GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_error_parameter(ctx), 10);
  EXPECT_EQ(gk_dgemm(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 4, 3, 5, 1.0, buf.A.data(), 4, buf.B.data(), 5, 0.0,
                     nullptr, 4),
            GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_error_parameter(ctx), 13);
  EXPECT_TRUE(buf.c_untouched());
}

// ---- strided batched ------------------------------------------------------------------------------

struct StridedArgs {
  gk_layout layout = GK_COL_MAJOR;
  gk_op ta = GK_OP_N, tb = GK_OP_N;
  std::int64_t m = 4, n = 3, k = 5;
  std::int64_t lda = 4, stride_a = 20, ldb = 5, stride_b = 15, ldc = 4, stride_c = 12, batch = 2;
};

struct BadStridedCase {
  std::string name;
  StridedArgs args;
  int parameter;
};

void PrintTo(BadStridedCase const& c, std::ostream* os) { *os << c.name; }

std::vector<BadStridedCase> bad_strided_cases() {
  StridedArgs const col{};
  StridedArgs row{};
  row.layout = GK_ROW_MAJOR, row.lda = 5, row.ldb = 3, row.ldc = 3;  // C windows need stride_c >= 3*3+3 = 12
  std::vector<BadStridedCase> cases;
  auto add = [&](std::string name, StridedArgs a, int parameter) { cases.push_back({std::move(name), a, parameter}); };
  StridedArgs a;
  a = col, a.layout = gk_layout(3), add("layout", a, 1);
  a = col, a.ta = gk_op(4), add("transa", a, 2);
  a = col, a.tb = gk_op(4), add("transb", a, 3);
  a = col, a.m = -1, add("m_neg", a, 4);
  a = col, a.n = -1, add("n_neg", a, 5);
  a = col, a.k = -1, add("k_neg", a, 6);
  a = col, a.lda = 3, add("lda", a, 9);
  a = col, a.stride_a = -1, add("stride_a_neg", a, 10);
  a = col, a.ldb = 4, add("ldb", a, 12);
  a = col, a.stride_b = -4, add("stride_b_neg", a, 13);
  a = col, a.ldc = 3, add("ldc", a, 16);
  a = col, a.stride_c = 11, add("stride_c_overlap", a, 17);  // ldc*(n-1)+m = 12
  a = col, a.stride_c = 0, add("stride_c_zero", a, 17);
  a = col, a.stride_c = -12, add("stride_c_neg", a, 17);
  a = col, a.batch = -1, add("batch_neg", a, 18);
  a = row, a.lda = 4, add("row_lda", a, 9);
  a = row, a.ldb = 2, add("row_ldb", a, 12);
  a = row, a.ldc = 2, add("row_ldc", a, 16);
  a = row, a.stride_c = 11, add("row_stride_c_overlap", a, 17);
  return cases;
}

class BadStridedArgument : public ::testing::TestWithParam<BadStridedCase> {};

TEST_P(BadStridedArgument, RejectedWithoutWriting) {
  StridedArgs const& a = GetParam().args;
  ScopedContext ctx;
  Buffers<double> buf;
  gk_status s = gk_dgemm_strided_batched(ctx, a.layout, a.ta, a.tb, a.m, a.n, a.k, 1.0, buf.A.data(), a.lda,
                                         a.stride_a, buf.B.data(), a.ldb, a.stride_b, 1.0, buf.C.data(), a.ldc,
                                         a.stride_c, a.batch);
  expect_rejected(ctx, s, GetParam().parameter, buf);
  Buffers<float> fbuf;
  s = gk_sgemm_strided_batched(ctx, a.layout, a.ta, a.tb, a.m, a.n, a.k, 1.0f, fbuf.A.data(), a.lda, a.stride_a,
                               fbuf.B.data(), a.ldb, a.stride_b, 1.0f, fbuf.C.data(), a.ldc, a.stride_c, a.batch);
  expect_rejected(ctx, s, GetParam().parameter, fbuf);
}

INSTANTIATE_TEST_SUITE_P(StridedBatched, BadStridedArgument, ::testing::ValuesIn(bad_strided_cases()),
                         [](auto const& info) { return info.param.name; });

TEST(StridedBatchedArguments, OverlapRulesAllowValidStrides) {
  ScopedContext ctx;
  Buffers<double> buf;
  // The minimum non-overlapping stride, a single problem with stride_c 0, and broadcast A and B.
  EXPECT_EQ(gk_dgemm_strided_batched(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 4, 3, 5, 1.0, buf.A.data(), 4, 0,
                                     buf.B.data(), 5, 0, 1.0, buf.C.data(), 4, 12, 2),
            GK_SUCCESS)
      << gk_last_error(ctx);
  EXPECT_EQ(gk_dgemm_strided_batched(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 4, 3, 5, 1.0, buf.A.data(), 4, 20,
                                     buf.B.data(), 5, 15, 1.0, buf.C.data(), 4, 0, 1),
            GK_SUCCESS)
      << gk_last_error(ctx);
  EXPECT_EQ(gk_dgemm_strided_batched(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 4, 3, 5, 1.0, buf.A.data(), 4, 20,
                                     buf.B.data(), 5, 15, 1.0, buf.C.data(), 4, 0, 0),
            GK_SUCCESS)
      << gk_last_error(ctx);
}

/// Null operands are named by their own position in the strided signature (A 8, B 11, C 15), not
/// by the positions they have in plain gemm (B 10 = stride_a, C 13 = stride_b here).
TEST(StridedBatchedArguments, NullOperandsReportTheirOwnIndices) {
  ScopedContext ctx;
  Buffers<double> buf;
  EXPECT_EQ(gk_dgemm_strided_batched(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 4, 3, 5, 1.0, nullptr, 4, 20,
                                     buf.B.data(), 5, 15, 1.0, buf.C.data(), 4, 12, 2),
            GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_error_parameter(ctx), 8);
  EXPECT_EQ(gk_dgemm_strided_batched(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 4, 3, 5, 1.0, buf.A.data(), 4, 20,
                                     nullptr, 5, 15, 1.0, buf.C.data(), 4, 12, 2),
            GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_error_parameter(ctx), 11);
  EXPECT_EQ(gk_dgemm_strided_batched(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 4, 3, 5, 1.0, buf.A.data(), 4, 20,
                                     buf.B.data(), 5, 15, 1.0, nullptr, 4, 12, 2),
            GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_error_parameter(ctx), 15);
  EXPECT_TRUE(buf.c_untouched());
}

// ---- pointer-array batched ------------------------------------------------------------------------

TEST(PointerArrayArguments, BadArgumentsReportIndices) {
  ScopedContext ctx;
  Buffers<double> buf;
  double const* A[2] = {buf.A.data(), buf.A.data() + 20};
  double const* B[2] = {buf.B.data(), buf.B.data() + 15};
  double* C[2] = {buf.C.data(), buf.C.data() + 12};
  auto call = [&](gk_layout layout, gk_op ta, std::int64_t m, std::int64_t lda, std::int64_t ldb, std::int64_t ldc,
                  std::int64_t batch, double const* const* a = nullptr) {
    return gk_dgemm_batched(ctx, layout, ta, GK_OP_N, m, 3, 5, 1.0, a ? a : A, lda, B, ldb, 1.0, C, ldc, batch);
  };
  expect_rejected(ctx, call(gk_layout(7), GK_OP_N, 4, 4, 5, 4, 2), 1, buf);
  expect_rejected(ctx, call(GK_COL_MAJOR, gk_op(7), 4, 4, 5, 4, 2), 2, buf);
  expect_rejected(ctx, call(GK_COL_MAJOR, GK_OP_N, -3, 4, 5, 4, 2), 4, buf);
  expect_rejected(ctx, call(GK_COL_MAJOR, GK_OP_N, 4, 3, 5, 4, 2), 9, buf);
  expect_rejected(ctx, call(GK_COL_MAJOR, GK_OP_N, 4, 4, 4, 4, 2), 11, buf);
  expect_rejected(ctx, call(GK_COL_MAJOR, GK_OP_N, 4, 4, 5, 3, 2), 14, buf);
  expect_rejected(ctx, call(GK_ROW_MAJOR, GK_OP_N, 4, 5, 3, 2, 2), 14, buf);
  expect_rejected(ctx, call(GK_COL_MAJOR, GK_OP_N, 4, 4, 5, 4, -1), 15, buf);
  EXPECT_EQ(gk_dgemm_batched(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 4, 3, 5, 1.0, nullptr, 4, B, 5, 1.0, C, 4, 2),
            GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_error_parameter(ctx), 8);
  EXPECT_EQ(gk_dgemm_batched(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 4, 3, 5, 1.0, A, 4, nullptr, 5, 1.0, C, 4, 2),
            GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_error_parameter(ctx), 10);
  EXPECT_EQ(gk_dgemm_batched(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 4, 3, 5, 1.0, A, 4, B, 5, 1.0, nullptr, 4, 2),
            GK_INVALID_ARGUMENT);
  EXPECT_EQ(gk_error_parameter(ctx), 13);
  EXPECT_TRUE(buf.c_untouched());
  // batch = 0 with NULL arrays is a valid no-op.
  EXPECT_EQ(gk_dgemm_batched(ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, 4, 3, 5, 1.0, nullptr, 4, nullptr, 5, 1.0, nullptr,
                             4, 0),
            GK_SUCCESS);
}

// ---- grouped --------------------------------------------------------------------------------------

/// Two valid groups (sizes 1 and 2) over Buffers, to be broken one field at a time.
struct GroupedArgs {
  gk_op ta[2] = {GK_OP_N, GK_OP_T}, tb[2] = {GK_OP_N, GK_OP_N};
  std::int64_t m[2] = {4, 3}, n[2] = {3, 2}, k[2] = {5, 4};
  std::int64_t lda[2] = {4, 4}, ldb[2] = {5, 4}, ldc[2] = {4, 3};
  double alpha[2] = {1.0, 2.0}, beta[2] = {0.5, 0.0};
  std::int64_t group_size[2] = {1, 2};
  std::int64_t group_count = 2;
  gk_status info[3] = {GK_INTERNAL_ERROR, GK_INTERNAL_ERROR, GK_INTERNAL_ERROR};

  gk_status call(gk_context ctx, Buffers<double>& buf) {
    double const* A[3] = {buf.A.data(), buf.A.data() + 32, buf.A.data() + 64};
    double const* B[3] = {buf.B.data(), buf.B.data() + 32, buf.B.data() + 64};
    double* C[3] = {buf.C.data(), buf.C.data() + 32, buf.C.data() + 64};
    return gk_dgemm_grouped(ctx, GK_COL_MAJOR, ta, tb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, group_count,
                            group_size, info);
  }
};

TEST(GroupedArguments, ValidCallSucceeds) {
  ScopedContext ctx;
  Buffers<double> buf;
  GroupedArgs g;
  EXPECT_EQ(g.call(ctx, buf), GK_SUCCESS) << gk_last_error(ctx);
  for (gk_status s : g.info) EXPECT_EQ(s, GK_SUCCESS);
  EXPECT_FALSE(buf.c_untouched());
}

TEST(GroupedArguments, BadArgumentsReportIndicesAndWriteNothing) {
  struct Case {
    char const* name;
    void (*breaks)(GroupedArgs&);
    int parameter;
  };
  Case const cases[] = {
      {"group_count", [](GroupedArgs& g) { g.group_count = -1; }, 15},
      {"group_size", [](GroupedArgs& g) { g.group_size[1] = -1; }, 16},
      {"transa", [](GroupedArgs& g) { g.ta[1] = gk_op(5); }, 2},
      {"transb", [](GroupedArgs& g) { g.tb[1] = gk_op(5); }, 3},
      {"m", [](GroupedArgs& g) { g.m[1] = -1; }, 4},
      {"n", [](GroupedArgs& g) { g.n[1] = -1; }, 5},
      {"k", [](GroupedArgs& g) { g.k[1] = -1; }, 6},
      {"lda", [](GroupedArgs& g) { g.lda[1] = 3; }, 9},  // group 1 is T: lda >= k = 4
      {"ldb", [](GroupedArgs& g) { g.ldb[1] = 3; }, 11},
      {"ldc", [](GroupedArgs& g) { g.ldc[1] = 2; }, 14},
  };
  for (Case const& c : cases) {
    SCOPED_TRACE(c.name);
    ScopedContext ctx;
    Buffers<double> buf;
    GroupedArgs g;
    c.breaks(g);
    // The bad group is the second one: the first must not have run either.
    expect_rejected(ctx, g.call(ctx, buf), c.parameter, buf);
  }
}

TEST(GroupedArguments, NullPerGroupArraysReportIndices) {
  ScopedContext ctx;
  Buffers<double> buf;
  GroupedArgs g;
  double const* A[3] = {buf.A.data(), buf.A.data() + 32, buf.A.data() + 64};
  double const* B[3] = {buf.B.data(), buf.B.data() + 32, buf.B.data() + 64};
  double* C[3] = {buf.C.data(), buf.C.data() + 32, buf.C.data() + 64};
  expect_rejected(ctx,
                  gk_dgemm_grouped(ctx, GK_COL_MAJOR, nullptr, g.tb, g.m, g.n, g.k, g.alpha, A, g.lda, B, g.ldb,
                                   g.beta, C, g.ldc, 2, g.group_size, nullptr),
                  2, buf);
  expect_rejected(ctx,
                  gk_dgemm_grouped(ctx, GK_COL_MAJOR, g.ta, g.tb, g.m, g.n, g.k, g.alpha, A, g.lda, B, g.ldb, g.beta,
                                   C, g.ldc, 2, nullptr, nullptr),
                  16, buf);
  expect_rejected(ctx,
                  gk_dgemm_grouped(ctx, GK_COL_MAJOR, g.ta, g.tb, g.m, g.n, g.k, g.alpha, nullptr, g.lda, B, g.ldb,
                                   g.beta, C, g.ldc, 2, g.group_size, nullptr),
                  8, buf);
  // group_count = 0 needs no arrays at all.
  EXPECT_EQ(gk_dgemm_grouped(ctx, GK_COL_MAJOR, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                             nullptr, nullptr, nullptr, nullptr, nullptr, 0, nullptr, nullptr),
            GK_SUCCESS);
}

// ---- to_column_major ------------------------------------------------------------------------------

TEST(ToColumnMajor, ColumnMajorIsUnchanged) {
  GemmProblem const p = to_column_major(GK_COL_MAJOR, Dtype::kF32, GK_OP_T, GK_OP_C, 7, 5, 3, 9, 8, 11);
  EXPECT_EQ(p.dtype, Dtype::kF32);
  EXPECT_EQ(p.trans_a, GK_OP_T);
  EXPECT_EQ(p.trans_b, GK_OP_C);
  EXPECT_EQ(p.m, 7);
  EXPECT_EQ(p.n, 5);
  EXPECT_EQ(p.k, 3);
  EXPECT_EQ(p.lda, 9);
  EXPECT_EQ(p.ldb, 8);
  EXPECT_EQ(p.ldc, 11);
  EXPECT_EQ(p.batch, 1);
}

TEST(ToColumnMajor, RowMajorSwapsOperands) {
  GemmProblem const p = to_column_major(GK_ROW_MAJOR, Dtype::kF64, GK_OP_T, GK_OP_N, 7, 5, 3, 9, 8, 11);
  EXPECT_EQ(p.dtype, Dtype::kF64);
  EXPECT_EQ(p.trans_a, GK_OP_N);  // was transb
  EXPECT_EQ(p.trans_b, GK_OP_T);  // was transa
  EXPECT_EQ(p.m, 5);
  EXPECT_EQ(p.n, 7);
  EXPECT_EQ(p.k, 3);
  EXPECT_EQ(p.lda, 8);
  EXPECT_EQ(p.ldb, 9);
  EXPECT_EQ(p.ldc, 11);
}

/// The rewritten problem, fed B then A, computes the row-major product the caller asked for.
TEST(ToColumnMajor, RowMajorRewriteComputesTheRowMajorProduct) {
  std::int64_t const m = 6, n = 4, k = 5;
  for (gk_op ta : {GK_OP_N, GK_OP_T}) {
    for (gk_op tb : {GK_OP_N, GK_OP_T}) {
      std::mt19937_64 rng = fresh_generator();
      // Row-major storage: A is m x k (N) or k x m (T), rows padded by 2.
      std::int64_t const a_rows = ta == GK_OP_N ? m : k, a_cols = ta == GK_OP_N ? k : m;
      std::int64_t const b_rows = tb == GK_OP_N ? k : n, b_cols = tb == GK_OP_N ? n : k;
      std::int64_t const lda = a_cols + 2, ldb = b_cols + 1, ldc = n + 3;
      std::vector<double> A(a_rows * lda), B(b_rows * ldb);
      for (double& x : A) x = random_value<double>(rng);
      for (double& x : B) x = random_value<double>(rng);
      auto opA = [&](std::int64_t i, std::int64_t l) { return ta == GK_OP_N ? A[i * lda + l] : A[l * lda + i]; };
      auto opB = [&](std::int64_t l, std::int64_t j) { return tb == GK_OP_N ? B[l * ldb + j] : B[j * ldb + l]; };

      GemmProblem const p = to_column_major(GK_ROW_MAJOR, Dtype::kF64, ta, tb, m, n, k, lda, ldb, ldc);
      ASSERT_FALSE(check_gemm_arguments(GK_ROW_MAJOR, ta, tb, m, n, k, lda, ldb, ldc));
      std::vector<long double> out(p.m * p.n);
      reference_gemm<double>(p, 1.0, B.data(), A.data(), 0.0, nullptr, out.data());
      // out is column-major p.m x p.n = n x m, i.e. C^T: out(j, i) = C(i, j).
      for (std::int64_t i = 0; i < m; ++i) {
        for (std::int64_t j = 0; j < n; ++j) {
          long double expected = 0;
          for (std::int64_t l = 0; l < k; ++l) expected += (long double)opA(i, l) * opB(l, j);
          EXPECT_NEAR(double(out[j + i * n]), double(expected), 1e-14) << "ta=" << ta << " tb=" << tb;
        }
      }
    }
  }
}

}  // namespace
}  // namespace gemmkit::test
