/*! \file
    \brief C := beta*C on the host, the BLAS k = 0 / alpha = 0 case.
*/
#pragma once

#include "base/problem.hpp"

namespace gemmkit {

/// Scales the m x n window of each C in the batch; beta = 0 stores zeros without reading C.
void scale_c_host(GemmProblem const& problem, double beta, void* C);

}  // namespace gemmkit
