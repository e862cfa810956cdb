/*! \file
    \brief Turning CUDA runtime errors into gemmkit error messages.
*/
#pragma once

#include <cuda_runtime.h>

#include <string>

namespace gemmkit {

/// "" for cudaSuccess, else "what: cudaErrorName (description)".
inline std::string cuda_error_text(cudaError_t error, char const* what) {
  if (error == cudaSuccess) return {};
  return std::string(what) + ": " + cudaGetErrorName(error) + " (" + cudaGetErrorString(error) + ")";
}

}  // namespace gemmkit
