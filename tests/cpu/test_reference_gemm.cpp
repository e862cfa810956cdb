/*! \file
    \brief The host reference GEMM (the oracle every check compares against): its row-blocked,
           threaded loop gives, bit for bit, the plain triple loop's sums (k products in ascending
           order), for every transpose, beta, batch and leading dimension, below and above the size
           where it starts threads.
*/
#include "cpu/reference_gemm.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <random>
#include <vector>

namespace gemmkit {
namespace {

template <typename T>
std::vector<T> random_values(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_real_distribution<double> value(-1.0, 1.0);
  std::vector<T> v(count);
  for (T& x : v) x = T(value(rng));
  return v;
}

/// The plain loop: C(i, j) = alpha * sum over ascending l of op(A)(i, l) op(B)(l, j), + beta * C0.
template <typename T>
std::vector<ReferenceAccumulator<T>> triple_loop(GemmProblem const& p, double alpha, T const* A, T const* B, double beta,
                                                 T const* C0) {
  using Acc = ReferenceAccumulator<T>;
  std::vector<Acc> out(std::size_t(p.m * p.n * p.batch));
  for (std::int64_t b = 0; b < p.batch; ++b) {
    for (std::int64_t j = 0; j < p.n; ++j) {
      for (std::int64_t i = 0; i < p.m; ++i) {
        Acc sum = 0;
        for (std::int64_t l = 0; l < p.k; ++l) {
          Acc const a = is_transposed(p.trans_a) ? A[b * p.stride_a + l + i * p.lda] : A[b * p.stride_a + i + l * p.lda];
          Acc const x = is_transposed(p.trans_b) ? B[b * p.stride_b + j + l * p.ldb] : B[b * p.stride_b + l + j * p.ldb];
          sum += a * x;
        }
        Acc v = Acc(alpha) * sum;
        if (beta != 0.0) v += Acc(beta) * Acc(C0[b * p.stride_c + i + j * p.ldc]);
        out[std::size_t(b * p.m * p.n + i + j * p.m)] = v;
      }
    }
  }
  return out;
}

template <typename T>
void expect_same_as_triple_loop(std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t batch) {
  for (gk_op ta : {GK_OP_N, GK_OP_T}) {
    for (gk_op tb : {GK_OP_N, GK_OP_T}) {
      for (double beta : {0.0, -0.75}) {
        SCOPED_TRACE(testing::Message() << m << "x" << n << "x" << k << " batch " << batch << " trans " << int(ta)
                                        << int(tb) << " beta " << beta);
        GemmProblem p;
        p.dtype = sizeof(T) == 8 ? Dtype::kF64 : Dtype::kF32;
        p.m = m, p.n = n, p.k = k, p.batch = batch;
        p.trans_a = ta, p.trans_b = tb;
        p.lda = (is_transposed(ta) ? k : m) + 3;  // padded leading dimensions
        p.ldb = (is_transposed(tb) ? n : k) + 1;
        p.ldc = m + 2;
        p.stride_a = p.lda * (is_transposed(ta) ? m : k) + 5;
        p.stride_b = p.ldb * (is_transposed(tb) ? k : n) + 7;
        p.stride_c = p.ldc * n;
        std::vector<T> const A = random_values<T>(std::size_t(p.stride_a * batch), 1);
        std::vector<T> const B = random_values<T>(std::size_t(p.stride_b * batch), 2);
        std::vector<T> const C0 = random_values<T>(std::size_t(p.stride_c * batch), 3);
        std::vector<ReferenceAccumulator<T>> got(std::size_t(m * n * batch));
        reference_gemm<T>(p, 1.25, A.data(), B.data(), beta, C0.data(), got.data());
        std::vector<ReferenceAccumulator<T>> const want = triple_loop<T>(p, 1.25, A.data(), B.data(), beta, C0.data());
        std::size_t mismatches = 0;
        for (std::size_t e = 0; e < want.size(); ++e) mismatches += got[e] != want[e];
        EXPECT_EQ(mismatches, 0u);
      }
    }
  }
}

TEST(ReferenceGemm, SmallProblemsSumInAscendingKLikeTheTripleLoop) {
  expect_same_as_triple_loop<double>(1, 1, 1, 1);
  expect_same_as_triple_loop<double>(37, 5, 19, 3);
  expect_same_as_triple_loop<float>(300, 7, 11, 2);  // more than one row block
}

TEST(ReferenceGemm, ThreadedRowBlocksGiveTheTripleLoopsBits) {
  // m * n * k past the threading threshold (2^26), with a last row block of 61 rows.
  expect_same_as_triple_loop<double>(1341, 101, 500, 1);
  expect_same_as_triple_loop<float>(573, 260, 450, 1);
}

}  // namespace
}  // namespace gemmkit
