/*! \file
    \brief Kernel parameters on the host: the transposed product (C^T = op(B)^T op(A)^T) computes
    the same C as the product it came from, for every transpose pair, strided batches included.
*/
#include "cpu/reference_gemm.hpp"
#include "cuda/kernel_params.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace gemmkit::test {
namespace {

/// The problem `p` describes, for the host reference.
GemmProblem problem_of(KernelParams<double> const& p) {
  GemmProblem q;
  q.trans_a = p.trans_a ? GK_OP_T : GK_OP_N;
  q.trans_b = p.trans_b ? GK_OP_T : GK_OP_N;
  q.m = p.m, q.n = p.n, q.k = p.k;
  q.lda = p.lda, q.ldb = p.ldb, q.ldc = p.m;
  q.batch = p.batch;
  q.stride_a = p.stride_a, q.stride_b = p.stride_b, q.stride_c = p.m * p.n;
  return q;
}

TEST(KernelParams, TransposedProductComputesTheSameC) {
  std::mt19937_64 rng(20261122);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::int64_t const m = 7, n = 5, k = 6, batch = 2;
  for (bool trans_a : {false, true}) {
    for (bool trans_b : {false, true}) {
      KernelParams<double> p{};
      p.m = m, p.n = n, p.k = k, p.batch = batch;
      p.trans_a = trans_a, p.trans_b = trans_b;
      p.lda = (trans_a ? k : m) + 1, p.ldb = (trans_b ? n : k) + 2;
      p.stride_a = p.lda * (trans_a ? m : k) + 3, p.stride_b = p.ldb * (trans_b ? k : n) + 1;
      std::vector<double> A(std::size_t(p.stride_a * batch)), B(std::size_t(p.stride_b * batch));
      for (double& x : A) x = value(rng);
      for (double& x : B) x = value(rng);
      p.A = A.data(), p.B = B.data();

      KernelParams<double> const t = transposed_product(p);
      EXPECT_EQ(t.m, n);
      EXPECT_EQ(t.n, m);
      EXPECT_EQ(t.trans_a, !trans_b);
      EXPECT_EQ(t.trans_b, !trans_a);
      std::vector<long double> C(std::size_t(m * n * batch)), Ct(std::size_t(m * n * batch));
      reference_gemm<double>(problem_of(p), 1.0, p.A, p.B, 0.0, nullptr, C.data());
      reference_gemm<double>(problem_of(t), 1.0, t.A, t.B, 0.0, nullptr, Ct.data());
      for (std::int64_t b = 0; b < batch; ++b) {
        for (std::int64_t j = 0; j < n; ++j) {
          for (std::int64_t i = 0; i < m; ++i) {
            // The same products summed in the same order: equal, not merely close.
            EXPECT_EQ(C[std::size_t(b * m * n + i + j * m)], Ct[std::size_t(b * m * n + j + i * n)])
                << "trans " << trans_a << trans_b << " batch " << b << " (" << i << ", " << j << ")";
          }
        }
      }
      KernelParams<double> const back = transposed_product(t);
      EXPECT_EQ(back.A, p.A);
      EXPECT_EQ(back.lda, p.lda);
      EXPECT_EQ(back.stride_b, p.stride_b);
      EXPECT_EQ(back.trans_a, p.trans_a);
      EXPECT_EQ(back.m, p.m);
    }
  }
}

}  // namespace
}  // namespace gemmkit::test
