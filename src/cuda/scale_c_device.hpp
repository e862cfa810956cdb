/*! \file
    \brief C := beta*C on the device for the dispatcher, behind a header without CUDA types (a build
    without CUDA links the stub in without_cuda.cpp).
*/
#pragma once

#include "base/problem.hpp"

#include <string>

namespace gemmkit {

/// C := beta * C over the m x n window (batch of them at stride_c, or of a pointer-array problem
/// with device arrays: C is then the device array of C pointers), never reading C when beta = 0.
/// Queued on exec.stream. Returns "" or an error message.
std::string scale_c_device(GemmProblem const& problem, double beta, void* C, ExecutionContext const& exec);

}  // namespace gemmkit
