/*! \file
    \brief Host reference GEMM in higher precision (long double for f64, double for f32), for checks.
*/
#include "cpu/reference_gemm.hpp"

#include <algorithm>
#include <vector>

namespace gemmkit {

namespace {

/// Rows per task: a task's accumulators (rows x n) stay in cache while A streams past once.
constexpr std::int64_t kRowBlock = 256;
/// Below this much work (m*n*k per problem) one thread does it all: the tests' small problems
/// run many at once under ctest, and a thread team would only add overhead.
constexpr double kParallelWork = 1 << 26;

}  // namespace

template <typename T>
void reference_gemm(GemmProblem const& p, double alpha, T const* A, T const* B, double beta, T const* C0,
                    ReferenceAccumulator<T>* out) {
  using Acc = ReferenceAccumulator<T>;
  std::int64_t const row_blocks = (p.m + kRowBlock - 1) / kRowBlock;
  bool const parallel = double(p.m) * double(p.n) * double(p.k) >= kParallelWork;
  for (std::int64_t b = 0; b < p.batch; ++b) {
    T const* a = A + b * p.stride_a;
    T const* bm = B + b * p.stride_b;
    Acc* o = out + b * p.m * p.n;
    // Row blocks in parallel; within one, each element of A is read once for all n columns, and
    // every (i, j) still sums its k products in ascending l, so the result does not depend on the
    // blocking or the thread count.
#pragma omp parallel for schedule(dynamic) if (parallel)
    for (std::int64_t block = 0; block < row_blocks; ++block) {
      std::int64_t const i0 = block * kRowBlock, rows = std::min(kRowBlock, p.m - i0);
      std::vector<Acc> sums(static_cast<std::size_t>(rows * p.n), Acc(0));
      std::vector<Acc> a_column(static_cast<std::size_t>(rows));
      for (std::int64_t l = 0; l < p.k; ++l) {
        for (std::int64_t i = 0; i < rows; ++i) {
          a_column[i] = is_transposed(p.trans_a) ? a[l + (i0 + i) * p.lda] : a[(i0 + i) + l * p.lda];
        }
        for (std::int64_t j = 0; j < p.n; ++j) {
          Acc const b_lj = is_transposed(p.trans_b) ? bm[j + l * p.ldb] : bm[l + j * p.ldb];
          Acc* column = sums.data() + j * rows;
          for (std::int64_t i = 0; i < rows; ++i) column[i] += a_column[i] * b_lj;
        }
      }
      for (std::int64_t j = 0; j < p.n; ++j) {
        for (std::int64_t i = 0; i < rows; ++i) {
          Acc v = Acc(alpha) * sums[i + j * rows];
          if (beta != 0.0) v += Acc(beta) * Acc(C0[b * p.stride_c + (i0 + i) + j * p.ldc]);
          o[(i0 + i) + j * p.m] = v;
        }
      }
    }
  }
}

template void reference_gemm<double>(GemmProblem const&, double, double const*, double const*, double, double const*,
                                     long double*);
template void reference_gemm<float>(GemmProblem const&, double, float const*, float const*, double, float const*,
                                    double*);

}  // namespace gemmkit
