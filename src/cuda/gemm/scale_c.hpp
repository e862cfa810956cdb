/*! \file
    \brief C := beta*C on the device (BLAS k = 0 / alpha = 0), never reading C when beta = 0.
*/
#pragma once

#include "base/problem.hpp"

#include <cuda_runtime.h>

namespace gemmkit {

/// C is the matrix (strided batch), or for a pointer-array problem with arrays_on_device the
/// device array of the batch's C pointers.
cudaError_t launch_scale_c(GemmProblem const& problem, double beta, void* C, cudaStream_t stream);

}  // namespace gemmkit
