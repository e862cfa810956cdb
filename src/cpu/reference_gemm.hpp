/*! \file
    \brief Host reference GEMM in higher precision (long double for f64, double for f32), for checks.
*/
#pragma once

#include "base/problem.hpp"

namespace gemmkit {

/// The accumulation type the reference uses for T.
template <typename T>
using ReferenceAccumulator = std::conditional_t<sizeof(T) == 8, long double, double>;

/// out(i, j) = alpha * sum_l op(A)(i, l) op(B)(l, j) + beta * C0(i, j) for every problem of the
/// batch, in ReferenceAccumulator<T>. out is m x n column-major with leading dimension m, the batch
/// packed at m*n. C0 is not read when beta = 0 (it may be NULL or hold NaN).
template <typename T>
void reference_gemm(GemmProblem const& problem, double alpha, T const* A, T const* B, double beta, T const* C0,
                    ReferenceAccumulator<T>* out);

extern template void reference_gemm<double>(GemmProblem const&, double, double const*, double const*, double,
                                            double const*, long double*);
extern template void reference_gemm<float>(GemmProblem const&, double, float const*, float const*, double,
                                           float const*, double*);

}  // namespace gemmkit
