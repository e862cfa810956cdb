/*! \file
    \brief C := beta*C on the device (BLAS k = 0 / alpha = 0), never reading C when beta = 0.
*/
#pragma once

#include "core/problem.hpp"

#include <cuda_runtime.h>

namespace gemmkit {

cudaError_t launch_scale_c(GemmProblem const& problem, double beta, void* C, cudaStream_t stream);

}  // namespace gemmkit
