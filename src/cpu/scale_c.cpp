/*! \file
    \brief C := beta*C on the host, the BLAS k = 0 / alpha = 0 case.
*/
#include "cpu/scale_c.hpp"

namespace gemmkit {

namespace {

template <typename T>
void scale(GemmProblem const& p, T beta, T* C) {
  for (std::int64_t b = 0; b < p.batch; ++b) {
    T* c = C + b * p.stride_c;
    for (std::int64_t j = 0; j < p.n; ++j) {
      T* column = c + j * p.ldc;
      for (std::int64_t i = 0; i < p.m; ++i) column[i] = beta == T(0) ? T(0) : beta * column[i];
    }
  }
}

}  // namespace

void scale_c_host(GemmProblem const& problem, double beta, void* C) {
  if (problem.dtype == Dtype::kF64) scale(problem, beta, static_cast<double*>(C));
  else scale(problem, static_cast<float>(beta), static_cast<float*>(C));
}

}  // namespace gemmkit
