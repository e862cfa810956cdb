/*! \file
    \brief The checks themselves must fail on wrong variants: planted faults (a wrong element, a
    written pad, a read of C under beta = 0, a modified input, an ignored batch or transpose) are
    caught by check_variant, and a faithful wrapper passes.
*/
#include "registry/function_variant.hpp"
#include "registry/registry.hpp"
#include "variants/variants.hpp"
#include "support/gemm_check.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <functional>
#include <set>

namespace gemmkit::test {
namespace {

/// A CPU f64 variant that runs the reference and then applies `fault` to the arguments or result.
FunctionVariant faulty_variant(std::function<void(GemmArguments&)> before,
                               std::function<void(GemmArguments const&)> after) {
  return FunctionVariant(
      VariantInfo{"dgemm_faulty", Dtype::kF64, Platform::kCpu, VariantKind::kProduction, 0, "planted fault"}, {},
      [before, after](GemmArguments const& given, void* ws, ExecutionContext const& exec) {
        GemmArguments args = given;
        if (before) before(args);
        gk_status const s = variant_registry().find("reference_dgemm")->run(args, ws, exec);
        if (after) after(given);
        return s;
      });
}

CheckOptions const kDirectOnly{.direct = true, .api = false};

TEST(GemmCheck, FaithfulWrapperPasses) {
  FunctionVariant const v = faulty_variant({}, {});
  for (gk_op ta : {GK_OP_N, GK_OP_T}) {
    EXPECT_TRUE(check_variant(v, make_problem(Dtype::kF64, ta, GK_OP_T, 17, 16, 15, 2, 3), 1.0, 0.0, false, kDirectOnly));
    EXPECT_TRUE(check_variant(v, make_problem(Dtype::kF64, ta, GK_OP_N, 5, 9, 7), -1.5, 0.25, false, kDirectOnly));
  }
}

TEST(GemmCheck, CatchesOneWrongElement) {
  FunctionVariant const v = faulty_variant({}, [](GemmArguments const& a) {
    auto* C = static_cast<double*>(a.C);
    C[a.problem.ldc * (a.problem.n - 1)] += 1e-6;  // far below a visible error, far above 8 eps of the norm
  });
  EXPECT_FALSE(check_variant(v, make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 31, 33, 37), 1.0, 1.0, false, kDirectOnly));
}

TEST(GemmCheck, CatchesAWrittenPad) {
  FunctionVariant const v = faulty_variant({}, [](GemmArguments const& a) {
    static_cast<double*>(a.C)[a.problem.m] = 0.0;  // row m of column 0 is padding when ldc > m
  });
  EXPECT_FALSE(check_variant(v, make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 8, 8, 8, 1), 1.0, 0.5, false, kDirectOnly));
}

TEST(GemmCheck, CatchesAReadOfCWhenBetaIsZero) {
  // tiny * NaN = NaN: the check fills C with NaN for beta = 0.
  FunctionVariant const v = faulty_variant([](GemmArguments& a) { a.beta = a.beta == 0.0 ? 1e-300 : a.beta; }, {});
  EXPECT_FALSE(check_variant(v, make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 8, 8, 8), 1.0, 0.0, false, kDirectOnly));
}

TEST(GemmCheck, CatchesAModifiedInput) {
  FunctionVariant const v = faulty_variant({}, [](GemmArguments const& a) {
    auto* B = const_cast<double*>(static_cast<double const*>(a.B));
    B[0] = -B[0];
  });
  EXPECT_FALSE(check_variant(v, make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 8, 8, 8), 1.0, 0.0, false, kDirectOnly));
}

TEST(GemmCheck, CatchesAnIgnoredBatchEntry) {
  FunctionVariant const v = faulty_variant([](GemmArguments& a) { a.problem.batch -= 1; }, {});
  EXPECT_FALSE(
      check_variant(v, make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 6, 5, 4, 0, 3), 1.0, 0.5, false, kDirectOnly));
}

TEST(GemmCheck, CatchesAnIgnoredTranspose) {
  FunctionVariant const v = faulty_variant([](GemmArguments& a) { a.problem.trans_b = GK_OP_N; }, {});
  EXPECT_FALSE(check_variant(v, make_problem(Dtype::kF64, GK_OP_N, GK_OP_T, 16, 16, 16), 1.0, 0.0, false, kDirectOnly));
}

TEST(GemmCheck, CatchesAFailedStatus) {
  FunctionVariant const v(
      VariantInfo{"dgemm_failing", Dtype::kF64, Platform::kCpu, VariantKind::kProduction, 0, "returns an error"}, {},
      [](GemmArguments const&, void*, ExecutionContext const&) { return GK_INTERNAL_ERROR; });
  EXPECT_FALSE(check_variant(v, make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 4, 4, 4), 1.0, 0.0, false, kDirectOnly));
}

TEST(GemmCheck, NaNInResultFailsEvenIfTheErrorIsSmall) {
  GemmProblem const p = make_problem(Dtype::kF32, GK_OP_N, GK_OP_N, 4, 3, 2);
  Operands<float> ops = make_operands<float>(p, 1.0);
  auto const reference = reference_result(p, 1.0, ops.A, ops.B, 1.0, ops.C);
  Matrix<float> C = ops.C;
  for (std::int64_t j = 0; j < 3; ++j) {
    for (std::int64_t i = 0; i < 4; ++i) C.at(i, j) = float(reference[i + j * 4]);
  }
  EXPECT_TRUE(check_result(p, 1.0, 1.0, ops.A, ops.B, ops.C, C, reference));
  C.at(2, 1) = std::numeric_limits<float>::quiet_NaN();
  EXPECT_FALSE(check_result(p, 1.0, 1.0, ops.A, ops.B, ops.C, C, reference));
}

TEST(GemmCheck, MatrixPoisonsPaddingAndCountsChanges) {
  std::mt19937_64 rng = fresh_generator();
  Matrix<double> M(3, 4, 5, 2, 22);  // 2 entries of 3x4 in ld 5, 2 elements of gap between them
  M.fill_random(rng);
  EXPECT_EQ(M.size(), 22u + 5 * 4);
  EXPECT_EQ(M.padding_changes(), 0u);
  std::size_t window = 0;
  for (std::size_t e = 0; e < M.size(); ++e) {
    if (M.in_window(e)) {
      ++window;
      EXPECT_NE(M.data()[e], 0.0);
      EXPECT_LE(std::fabs(M.data()[e]), 1.0);
    } else {
      EXPECT_TRUE(std::isnan(M.data()[e]));
    }
  }
  EXPECT_EQ(window, 2u * 3 * 4);
  M.data()[3] = poison_value<double>();  // padding, same bits: no change
  M.data()[4] = 0.0;                      // padding changed
  M.data()[21] = 1.0;                     // the gap between entries
  EXPECT_EQ(M.padding_changes(), 2u);
  // stride 0: one stored matrix for the whole batch.
  Matrix<float> shared(3, 4, 3, 5, 0);
  EXPECT_EQ(shared.size(), 12u);
  EXPECT_EQ(&shared.at(1, 2, 4), &shared.at(1, 2, 0));
}

TEST(GemmCheck, EveryCheckGetsFreshData) {
  std::set<std::uint64_t> seeds;
  for (int i = 0; i < 100; ++i) seeds.insert(next_seed());
  EXPECT_EQ(seeds.size(), 100u);
  GemmProblem const p = make_problem(Dtype::kF64, GK_OP_N, GK_OP_N, 4, 4, 4);
  EXPECT_FALSE(make_operands<double>(p, 1.0).A.bitwise_equal(make_operands<double>(p, 1.0).A));
}

}  // namespace
}  // namespace gemmkit::test
