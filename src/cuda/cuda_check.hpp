/*! \file
    \brief Turning CUDA runtime errors into gemmkit statuses and messages.
*/
#pragma once

#include <gemmkit/gemmkit.h>

#include <cuda_runtime.h>

#include <string>

namespace gemmkit {

/// "" for cudaSuccess, else "what: cudaErrorName (description)".
inline std::string cuda_error_text(cudaError_t error, char const* what) {
  if (error == cudaSuccess) return {};
  return std::string(what) + ": " + cudaGetErrorName(error) + " (" + cudaGetErrorString(error) + ")";
}

/// Status after a kernel launch: picks up launch-configuration errors without synchronizing.
inline gk_status launch_status() { return cudaGetLastError() == cudaSuccess ? GK_SUCCESS : GK_CUDA_ERROR; }

}  // namespace gemmkit
