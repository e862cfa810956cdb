/*! \file
    \brief Host reference GEMM in higher precision (long double for f64, double for f32), for checks.
*/
#include "cpu/reference_gemm.hpp"

#include <vector>

namespace gemmkit {

template <typename T>
void reference_gemm(GemmProblem const& p, double alpha, T const* A, T const* B, double beta, T const* C0,
                    ReferenceAccumulator<T>* out) {
  using Acc = ReferenceAccumulator<T>;
  std::vector<Acc> column(static_cast<std::size_t>(p.m));
  for (std::int64_t b = 0; b < p.batch; ++b) {
    T const* a = A + b * p.stride_a;
    T const* bm = B + b * p.stride_b;
    Acc* o = out + b * p.m * p.n;
    for (std::int64_t j = 0; j < p.n; ++j) {
      std::fill(column.begin(), column.end(), Acc(0));
      for (std::int64_t l = 0; l < p.k; ++l) {
        Acc const b_lj = is_transposed(p.trans_b) ? bm[j + l * p.ldb] : bm[l + j * p.ldb];
        for (std::int64_t i = 0; i < p.m; ++i) {
          Acc const a_il = is_transposed(p.trans_a) ? a[l + i * p.lda] : a[i + l * p.lda];
          column[i] += a_il * b_lj;
        }
      }
      for (std::int64_t i = 0; i < p.m; ++i) {
        Acc v = Acc(alpha) * column[i];
        if (beta != 0.0) v += Acc(beta) * Acc(C0[b * p.stride_c + i + j * p.ldc]);
        o[i + j * p.m] = v;
      }
    }
  }
}

template void reference_gemm<double>(GemmProblem const&, double, double const*, double const*, double, double const*,
                                     long double*);
template void reference_gemm<float>(GemmProblem const&, double, float const*, float const*, double, float const*,
                                    double*);

}  // namespace gemmkit
