/*! \file
    \brief A CUDA driver function reached through the runtime's entry-point lookup, so that nothing
    links libcuda.
*/
#pragma once

namespace gemmkit {

/// The driver's function `symbol` in its CUDA 12.0 form; nullptr when this runtime or driver cannot
/// give it. Callers look it up once and cast it to the driver's type for it.
void* driver_entry_point(char const* symbol);

}  // namespace gemmkit
