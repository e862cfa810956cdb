/*! \file
    \brief The small-GEMM kernel tables of every ISA this CPU runs (AVX-512 and AVX2 both, where
    present), called directly: sizes 1..32 in m with a spread of n and k, alpha/beta cases, padded
    leading dimensions with poisoned padding, beta = 0 with NaN-filled C.
*/
#include "cpu/small/small_kernels.hpp"
#include "support/gemm_check.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace gemmkit::test {
namespace {

template <typename T>
struct IsaTable {
  std::string name;
  cpu::SmallKernelTable<T> const* table;
};

template <typename T>
std::vector<IsaTable<T>> tables_this_cpu_runs() {
  __builtin_cpu_init();
  std::vector<IsaTable<T>> tables;
  bool const avx512 =
      __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
  bool const avx2 = __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
  if constexpr (sizeof(T) == 8) {
    if (avx512) tables.push_back({"avx512", &cpu::small_kernels_avx512_f64()});
    if (avx2) tables.push_back({"avx2", &cpu::small_kernels_avx2_f64()});
  } else {
    if (avx512) tables.push_back({"avx512", &cpu::small_kernels_avx512_f32()});
    if (avx2) tables.push_back({"avx2", &cpu::small_kernels_avx2_f32()});
  }
  return tables;
}

/// Runs the table's kernel for one untransposed problem and checks it against the reference.
template <typename T>
::testing::AssertionResult check_kernel(cpu::SmallKernelTable<T> const& table, std::int64_t m, std::int64_t n,
                                        std::int64_t k, double alpha, double beta, std::int64_t ld_pad) {
  GemmProblem const p = make_problem(dtype_of<T>(), GK_OP_N, GK_OP_N, m, n, k, ld_pad);
  Operands<T> ops = make_operands<T>(p, beta);
  Matrix<T> const C0 = ops.C;
  auto const reference = reference_result(p, alpha, ops.A, ops.B, beta, C0);
  cpu::SmallGemmFn<T> const kernel = table.lookup(int(m), int(n), int(k));
  if (kernel == nullptr) return ::testing::AssertionFailure() << "no kernel for " << describe(p);
  kernel(1, int(n), int(k), T(alpha), ops.A.data(), p.lda, 0, ops.B.data(), p.ldb, 0, T(beta), ops.C.data(), p.ldc, 0);
  return check_result(p, alpha, beta, ops.A, ops.B, C0, ops.C, reference) << " (" << table.isa << ")";
}

template <typename T>
class SmallKernels : public ::testing::Test {};
using Types = ::testing::Types<double, float>;
TYPED_TEST_SUITE(SmallKernels, Types);

TYPED_TEST(SmallKernels, EveryMWithASpreadOfNAndK) {
  auto const tables = tables_this_cpu_runs<TypeParam>();
  if (tables.empty()) GTEST_SKIP() << "CPU has neither AVX-512 nor AVX2+FMA";
  for (auto const& t : tables) {
    for (int m = 1; m <= cpu::kSmallMax; ++m) {
      for (int n : {1, 2, 3, 7, 8, 9, 13, 17, 32}) {
        for (int k : {1, 2, 5, 16, 31, 32}) {
          EXPECT_TRUE(check_kernel(*t.table, m, n, k, 1.0, 1.0, 0)) << t.name;
        }
      }
    }
  }
}

TYPED_TEST(SmallKernels, SquaresWithScalarsAndPadding) {
  auto const tables = tables_this_cpu_runs<TypeParam>();
  if (tables.empty()) GTEST_SKIP() << "CPU has neither AVX-512 nor AVX2+FMA";
  for (auto const& t : tables) {
    for (int s = 1; s <= cpu::kSmallMax; ++s) {
      EXPECT_TRUE(check_kernel(*t.table, s, s, s, 1.0, 0.0, 0)) << t.name;    // C is NaN: must not be read
      EXPECT_TRUE(check_kernel(*t.table, s, s, s, -1.5, 0.25, 3)) << t.name;  // padded, poisoned ld
      EXPECT_TRUE(check_kernel(*t.table, s, s, s, 2.0, -1.0, 1)) << t.name;
    }
  }
}

/// The packed kernels (several problems per vector): whole runs and every remainder, with beta 0
/// on a NaN C, 1 and -0.5.
TYPED_TEST(SmallKernels, PackedKernelsRunWholeVectorsAndTheRemainder) {
  auto const tables = tables_this_cpu_runs<TypeParam>();
  if (tables.empty()) GTEST_SKIP() << "CPU has neither AVX-512 nor AVX2+FMA";
  for (auto const& t : tables) {
    EXPECT_NE(t.table->packed[2], nullptr) << t.name;
    for (int s = 1; s <= cpu::kSmallMax; ++s) {
      if (t.table->packed[s] == nullptr) continue;
      for (std::int64_t batch : {1, 2, 3, 5, 7, 8, 9, 15, 16, 17, 33, 40}) {
        for (double beta : {0.0, 1.0, -0.5}) {
          GemmProblem const p = make_problem(dtype_of<TypeParam>(), GK_OP_N, GK_OP_N, s, s, s, 0, batch);
          ASSERT_EQ(p.stride_a, s * s);
          Operands<TypeParam> ops = make_operands<TypeParam>(p, beta);
          Matrix<TypeParam> const C0 = ops.C;
          auto const reference = reference_result(p, 1.5, ops.A, ops.B, beta, C0);
          t.table->packed[s](batch, s, s, TypeParam(1.5), ops.A.data(), s, s * s, ops.B.data(), s, s * s,
                             TypeParam(beta), ops.C.data(), s, s * s);
          EXPECT_TRUE(check_result(p, 1.5, beta, ops.A, ops.B, C0, ops.C, reference))
              << t.name << " size " << s << " batch " << batch << " beta " << beta;
        }
      }
    }
  }
}

TEST(SmallKernels, LookupUsesTheSquareKernelOnlyForSquares) {
  auto const* table = cpu::small_kernels_for_this_cpu<double>();
  if (table == nullptr) GTEST_SKIP() << "CPU has neither AVX-512 nor AVX2+FMA";
  EXPECT_EQ(table->lookup(8, 8, 8), table->square[8]);
  EXPECT_EQ(table->lookup(8, 8, 7), table->by_m[8]);
  EXPECT_EQ(table->lookup(8, 9, 8), table->by_m[8]);
  for (int s = 1; s <= cpu::kSmallMax; ++s) {
    EXPECT_NE(table->square[s], nullptr);
    EXPECT_NE(table->by_m[s], nullptr);
  }
}

}  // namespace
}  // namespace gemmkit::test
