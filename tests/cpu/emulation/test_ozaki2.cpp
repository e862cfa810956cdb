/*! \file
    \brief The Ozaki scheme II on the host: moduli, plans, and the per-element error bound on inputs of
    controlled exponent spread, all transposes, padding, alpha/beta, non-finite inputs, long k.
*/
#include "cpu/emulation/ozaki2.hpp"
#include "cpu/reference_gemm.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <limits>
#include <numeric>
#include <random>
#include <vector>

namespace gemmkit::ozaki2 {
namespace {

TEST(Ozaki2, ModuliArePairwiseCoprimeAndFitInt8Residues) {
  auto const& p = moduli();
  EXPECT_EQ(p[0], 256);
  for (int i = 0; i < kMaxModuli; ++i) {
    EXPECT_LE(p[std::size_t(i)], 256);
    EXPECT_GE(p[std::size_t(i)], 2);
    if (i > 0) {
      EXPECT_LT(p[std::size_t(i)], p[std::size_t(i - 1)]);
    }
    for (int j = 0; j < i; ++j) EXPECT_EQ(std::gcd(p[std::size_t(i)], p[std::size_t(j)]), 1) << p[i] << " " << p[j];
  }
  // 128 * 128 * kExactK stays below 2^31: the int32 sums are exact.
  EXPECT_LT(128.0 * 128.0 * double(kExactK), 2147483648.0);
}

TEST(Ozaki2, PlansCarryTheirBitsAndNoFewerModuliWould) {
  for (std::int64_t k : {1, 7, 1000, 16384, 131071, 1 << 20}) {
    for (int bits : {8, 24, 40, 53, 62}) {
      Plan const plan = plan_for_bits(bits, k);
      if (plan.moduli == 0) {
        EXPECT_GT(1 + std::log2(double(k)) + 2.0 * bits, plan_for_moduli(kMaxModuli, k).log2_product) << bits;
        continue;
      }
      EXPECT_EQ(plan.bits, bits);
      EXPECT_GT(plan.log2_product, 1 + std::log2(double(k)) + 2.0 * bits) << "k " << k << " bits " << bits;
      if (plan.moduli > 1) {
        EXPECT_LT(plan_for_moduli(plan.moduli - 1, k).bits, bits) << "k " << k << " bits " << bits;
      }
      EXPECT_GE(plan_for_moduli(plan.moduli, k).bits, bits);
    }
  }
  EXPECT_EQ(plan_for_bits(0, 10).moduli, 0);
  EXPECT_EQ(plan_for_moduli(kMaxModuli + 1, 10).moduli, 0);
}

/// The accurate scaling's bounds: at their worst (W = k, V = 2k) no fewer moduli than plan_for_bits, and
/// never more; uniform data's W of about k/4 saves one at k = 40000 (16 moduli for 51 bits, then 15); each
/// plan's product exceeds twice the bound on |A'||B'|.
TEST(Ozaki2, BoundedPlansTakeNoMoreModuliThanTheWorstCase) {
  for (std::int64_t k : {1, 1000, 40000, 131071}) {
    for (int bits : {8, 40, 51, 62}) {
      double const kd = double(k);
      Plan const worst = plan_for_bits(bits, k);
      Plan const bounded = plan_for_bounds(bits, kd, 2 * kd, k);
      EXPECT_LE(bounded.moduli == 0 ? kMaxModuli + 1 : bounded.moduli, worst.moduli == 0 ? kMaxModuli + 1 : worst.moduli)
          << "k " << k << " bits " << bits;
      Plan const uniform = plan_for_bounds(bits, kd / 4, kd, k);
      if (uniform.moduli == 0) continue;
      EXPECT_EQ(uniform.bits, bits);
      double const largest = std::ldexp(kd / 4, 2 * bits) + std::ldexp(kd, bits - 1) + kd / 4;
      EXPECT_GT(uniform.log2_product, 1 + std::log2(largest)) << "k " << k << " bits " << bits;
      if (uniform.moduli > 1) {
        EXPECT_LE(plan_for_moduli(uniform.moduli - 1, 1).log2_product, 1 + std::log2(largest)) << k << " " << bits;
      }
    }
  }
  EXPECT_EQ(plan_for_bits(51, 40000).moduli, 16);
  EXPECT_EQ(plan_for_bounds(51, 10000.0, 40000.0, 40000).moduli, 15);
  EXPECT_EQ(plan_for_bounds(0, 1.0, 1.0, 10).moduli, 0);
  EXPECT_EQ(plan_for_bounds(51, -1.0, 1.0, 10).moduli, 0);
}

/// 51 bits for spreads up to uniform data's and then one more per doubling: monotone, and past the
/// scheme's 62 bits for spreads no plan reaches FP64's accuracy at.
TEST(Ozaki2, Fp64AccuracyTakesMoreBitsAsTheSpreadGrows) {
  EXPECT_EQ(bits_for_fp64_accuracy(1.0), 51);
  EXPECT_EQ(bits_for_fp64_accuracy(2.0), 51);
  EXPECT_EQ(bits_for_fp64_accuracy(3.0), 51);
  EXPECT_EQ(bits_for_fp64_accuracy(6.0), 53);
  EXPECT_EQ(bits_for_fp64_accuracy(12.0), 54);
  int previous = 0;
  for (double spread = 1; spread < 1e6; spread *= 1.7) {
    int const bits = bits_for_fp64_accuracy(spread);
    EXPECT_GE(bits, previous) << spread;
    previous = bits;
  }
  EXPECT_GT(bits_for_fp64_accuracy(1e5), kMaxBits);
  // With 15 moduli, 51 bits reach k = 8192 (the GPU's common case at the sizes emulation pays).
  EXPECT_EQ(plan_for_bits(51, 8192).moduli, 15);
}

/// The papers' generator: (U(0,1) - 0.5) exp(phi N(0,1)); phi sets the exponent spread.
std::vector<double> spread_matrix(std::int64_t rows, std::int64_t cols, std::int64_t ld, double phi, std::mt19937_64& rng) {
  std::uniform_real_distribution<double> uniform(0.0, 1.0);
  std::normal_distribution<double> normal(0.0, 1.0);
  std::vector<double> x(std::size_t(ld * cols), std::numeric_limits<double>::quiet_NaN());  // padding poisoned
  for (std::int64_t j = 0; j < cols; ++j) {
    for (std::int64_t i = 0; i < rows; ++i) x[std::size_t(i + j * ld)] = (uniform(rng) - 0.5) * std::exp(phi * normal(rng));
  }
  return x;
}

struct Case {
  gk_op ta, tb;
  std::int64_t m, n, k;
  double phi, alpha, beta;
  int bits;
};

/// Runs one case and checks every element against the bound of ozaki2.hpp, the padding of C, and
/// that a second run gives the same bits.
void check(Case const& c, std::mt19937_64& rng) {
  GemmProblem p;
  p.trans_a = c.ta, p.trans_b = c.tb, p.m = c.m, p.n = c.n, p.k = c.k;
  p.lda = p.a_rows() + 3, p.ldb = p.b_rows() + 1, p.ldc = c.m + 2;
  std::vector<double> const A = spread_matrix(p.a_rows(), p.a_cols(), p.lda, c.phi, rng);
  std::vector<double> const B = spread_matrix(p.b_rows(), p.b_cols(), p.ldb, c.phi, rng);
  std::vector<double> C0 = spread_matrix(c.m, c.n, p.ldc, 0.0, rng);
  if (c.beta == 0) {
    for (std::int64_t j = 0; j < c.n; ++j) {
      for (std::int64_t i = 0; i < c.m; ++i) C0[std::size_t(i + j * p.ldc)] = std::numeric_limits<double>::quiet_NaN();
    }
  }
  std::vector<double> C = C0;
  Plan const plan = plan_for_bits(c.bits, c.k);
  ASSERT_GT(plan.moduli, 0);
  ASSERT_EQ(host_dgemm(p, plan, c.alpha, A.data(), B.data(), c.beta, C.data()), GK_SUCCESS);
  std::vector<long double> ref(std::size_t(c.m * c.n));
  reference_gemm<double>(p, c.alpha, A.data(), B.data(), c.beta, C0.data(), ref.data());
  auto const a = [&](std::int64_t i, std::int64_t h) {
    return std::fabs(is_transposed(c.ta) ? A[std::size_t(h + i * p.lda)] : A[std::size_t(i + h * p.lda)]);
  };
  auto const b = [&](std::int64_t h, std::int64_t j) {
    return std::fabs(is_transposed(c.tb) ? B[std::size_t(j + h * p.ldb)] : B[std::size_t(h + j * p.ldb)]);
  };
  double const u = std::ldexp(1.0, -53), scale = std::ldexp(1.0, -c.bits);
  int bad = 0;
  double worst_emulated = 0, worst_native = 0;
  std::vector<double> row_max(std::size_t(c.m), 0.0), row_sum(std::size_t(c.m), 0.0);
  for (std::int64_t i = 0; i < c.m; ++i) {
    for (std::int64_t h = 0; h < c.k; ++h) {
      row_max[std::size_t(i)] = std::max(row_max[std::size_t(i)], a(i, h)), row_sum[std::size_t(i)] += a(i, h);
    }
  }
  for (std::int64_t j = 0; j < c.n; ++j) {
    double b_max = 0, b_sum = 0;
    for (std::int64_t h = 0; h < c.k; ++h) b_max = std::max(b_max, b(h, j)), b_sum += b(h, j);
    for (std::int64_t i = 0; i < c.m; ++i) {
      double const a_max = row_max[std::size_t(i)], a_sum = row_sum[std::size_t(i)];
      // The scheme's bound on alpha*AB, the epilogue's roundings (alpha*x, + beta*c) on top.
      long double const r = ref[std::size_t(i + j * c.m)];
      double const got = C[std::size_t(i + j * p.ldc)];
      double const product_bound =
          scale * (b_max * a_sum + a_max * b_sum) + double(c.k) * scale * scale * a_max * b_max;
      double const c0 = c.beta == 0 ? 0.0 : std::fabs(C0[std::size_t(i + j * p.ldc)]);
      double abs_product = 0;  // (|op(A)| |op(B)|)(i, j)
      for (std::int64_t h = 0; h < c.k; ++h) abs_product += a(i, h) * b(h, j);
      // The reconstruction and the epilogue round a few times: 4u of what they add.
      double const bound = std::fabs(c.alpha) * product_bound * (1 + 4 * u) +
                           4 * u * (std::fabs(c.alpha) * abs_product + std::fabs(c.beta) * c0);
      // Against a plain double dot product, as native DGEMM rounds: the worst relative error.
      double native = 0;
      for (std::int64_t h = 0; h < c.k; ++h) {
        native += (is_transposed(c.ta) ? A[std::size_t(h + i * p.lda)] : A[std::size_t(i + h * p.lda)]) *
                  (is_transposed(c.tb) ? B[std::size_t(j + h * p.ldb)] : B[std::size_t(h + j * p.ldb)]);
      }
      native = c.alpha * native + (c.beta == 0 ? 0.0 : c.beta * C0[std::size_t(i + j * p.ldc)]);
      double const norm = std::fabs(c.alpha) * abs_product + std::fabs(c.beta) * c0;
      if (norm > 0) {
        worst_emulated = std::max(worst_emulated, std::fabs(double(got - r)) / norm);
        worst_native = std::max(worst_native, std::fabs(double(native - r)) / norm);
      }
      if (!(std::fabs(double(got - r)) <= bound) && ++bad <= 3) {
        ADD_FAILURE() << "C(" << i << "," << j << ") = " << got << ", reference " << double(r) << ", error "
                      << double(got - r) << " over the bound " << bound;
      }
    }
  }
  EXPECT_EQ(bad, 0) << "m " << c.m << " n " << c.n << " k " << c.k << " phi " << c.phi << " bits " << c.bits;
  // With 53 bits and a narrow exponent spread the scheme is as accurate as native DGEMM (a wide spread
  // costs the small entries of a row their low bits: the bound above still holds).
  if (c.bits == 53 && c.phi <= 0.5 && c.k >= 16) {
    EXPECT_LE(worst_emulated, 2 * worst_native + 2 * u)
        << "m " << c.m << " n " << c.n << " k " << c.k << " phi " << c.phi << ": emulated " << worst_emulated
        << ", native " << worst_native;
  }
  for (std::int64_t j = 0; j < c.n; ++j) {  // the padding rows of C: untouched (NaN stays NaN)
    for (std::int64_t i = c.m; i < p.ldc; ++i) EXPECT_TRUE(std::isnan(C[std::size_t(i + j * p.ldc)]));
  }
  std::vector<double> again = C0;
  ASSERT_EQ(host_dgemm(p, plan, c.alpha, A.data(), B.data(), c.beta, again.data()), GK_SUCCESS);
  EXPECT_EQ(std::memcmp(again.data(), C.data(), C.size() * sizeof(double)), 0) << "not deterministic";
}

TEST(Ozaki2, MeetsItsBoundOverExponentSpreadsTransposesAndShapes) {
  std::mt19937_64 rng(20261129);
  for (double phi : {0.0, 0.5, 1.0, 2.0}) {
    for (gk_op ta : {GK_OP_N, GK_OP_T}) {
      for (gk_op tb : {GK_OP_N, GK_OP_C}) {
        check({ta, tb, 1, 1, 1, phi, 1.0, 0.0, 53}, rng);
        check({ta, tb, 17, 13, 33, phi, -0.75, 1.25, 53}, rng);
        check({ta, tb, 40, 29, 257, phi, 2.0, 0.0, 53}, rng);
      }
    }
  }
}

TEST(Ozaki2, FewerBitsMeanAProportionallyWiderBoundThatStillHolds) {
  std::mt19937_64 rng(7);
  for (int bits : {12, 24, 36, 48, 53, 60}) check({GK_OP_N, GK_OP_N, 23, 19, 150, 1.0, 1.0, 0.5, bits}, rng);
}

TEST(Ozaki2, KBeyondTheInt32LimitIsReducedOnTheWay) {
  std::mt19937_64 rng(11);
  check({GK_OP_T, GK_OP_N, 2, 3, kExactK + 1000, 0.5, 1.0, 0.0, 53}, rng);
}

TEST(Ozaki2, SmallIntegersComeOutExact) {
  GemmProblem p;
  p.m = 9, p.n = 7, p.k = 31, p.lda = 9, p.ldb = 31, p.ldc = 9;
  std::mt19937_64 rng(3);
  std::uniform_int_distribution<int> digit(-1000, 1000);
  std::vector<double> A(9 * 31), B(31 * 7), C(9 * 7, 0.0);
  for (double& x : A) x = digit(rng);
  for (double& x : B) x = digit(rng);
  ASSERT_EQ(host_dgemm(p, plan_for_bits(53, 31), 1.0, A.data(), B.data(), 0.0, C.data()), GK_SUCCESS);
  for (int j = 0; j < 7; ++j) {
    for (int i = 0; i < 9; ++i) {
      std::int64_t exact = 0;
      for (int h = 0; h < 31; ++h) exact += std::int64_t(A[std::size_t(i + h * 9)]) * std::int64_t(B[std::size_t(h + j * 31)]);
      EXPECT_EQ(C[std::size_t(i + j * 9)], double(exact));
    }
  }
}

TEST(Ozaki2, NonFiniteOperandsLeaveTheSchemeAndCUntouched) {
  GemmProblem p;
  p.m = 3, p.n = 2, p.k = 4, p.lda = 3, p.ldb = 4, p.ldc = 3;
  for (double bad : {std::numeric_limits<double>::infinity(), std::numeric_limits<double>::quiet_NaN()}) {
    std::vector<double> A(12, 1.0), B(8, 1.0), C(6, 5.0);
    A[7] = bad;
    EXPECT_EQ(host_dgemm(p, plan_for_bits(53, 4), 1.0, A.data(), B.data(), 0.0, C.data()), GK_NOT_SUPPORTED);
    EXPECT_EQ(C, std::vector<double>(6, 5.0));
    A[7] = 1.0, B[3] = bad;
    EXPECT_EQ(host_dgemm(p, plan_for_bits(53, 4), 1.0, A.data(), B.data(), 0.0, C.data()), GK_NOT_SUPPORTED);
    EXPECT_EQ(C, std::vector<double>(6, 5.0));
  }
}

}  // namespace
}  // namespace gemmkit::ozaki2
