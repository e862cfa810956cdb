/*! \file
    \brief The driver's pointer query, reached through the runtime (no link dependency on libcuda):
    where a pointer's memory lives for about half the host cost of cudaPointerGetAttributes
    (`gemmkit-bench overhead`: 0.08 against 0.18 us on the H100's host).
*/
#pragma once

#include <cuda.h>

namespace gemmkit {

using PointerGetAttributes = CUresult (*)(unsigned int, CUpointer_attribute*, void**, CUdeviceptr);

/// cuPointerGetAttributes, looked up once; nullptr when this runtime or driver cannot give it.
PointerGetAttributes driver_pointer_get_attributes();

/// What the driver says of a pointer's memory.
struct DriverPointerKind {
  unsigned memory_type = 0;  ///< CUmemorytype; 0 for memory CUDA does not know (plain host memory)
  bool managed = false;
};

/// Asks the driver; false where the query is not available or fails (the caller asks the runtime).
bool driver_pointer_kind(void const* pointer, DriverPointerKind* kind);

}  // namespace gemmkit
