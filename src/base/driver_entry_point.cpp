/*! \file
    \brief A CUDA driver function reached through the runtime's entry-point lookup.
*/
#include "base/driver_entry_point.hpp"

#include <cuda_runtime.h>

namespace gemmkit {

void* driver_entry_point(char const* symbol) {
#if CUDART_VERSION >= 12050
  void* function = nullptr;
  cudaDriverEntryPointQueryResult found{};
  if (cudaGetDriverEntryPointByVersion(symbol, &function, 12000, cudaEnableDefault, &found) == cudaSuccess &&
      found == cudaDriverEntryPointSuccess) {
    return function;
  }
  cudaGetLastError();  // a failed lookup leaves no error behind for the caller's next check
#else
  (void)symbol;
#endif
  return nullptr;
}

}  // namespace gemmkit
