/*! \file
    \brief Ladder step 03b: Step 03 + 128-bit shared-memory loads, one shared buffer (seed 000's "unroll+128b",
    seed 001's version 1).
*/
#include "cuda/ladder/ladder.hpp"
#include "cuda/ladder/register_blocked.cuh"

namespace gemmkit::ladder {

template cudaError_t launch_register_blocked<Step03bConfig, double>(KernelParams<double> const&, cudaStream_t);
template cudaError_t launch_register_blocked<Step03bConfig, float>(KernelParams<float> const&, cudaStream_t);
template cudaError_t register_blocked_attributes<Step03bConfig, double>(cudaFuncAttributes*);
template cudaError_t register_blocked_attributes<Step03bConfig, float>(cudaFuncAttributes*);

}  // namespace gemmkit::ladder
