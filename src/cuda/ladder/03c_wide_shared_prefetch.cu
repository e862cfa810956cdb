/*! \file
    \brief Ladder step 03c: Step 03b + shared-memory prefetch, one shared buffer (seed 000's
    "unroll+128b+prefsmem", its fastest version on the GTX970).
*/
#include "cuda/ladder/ladder.hpp"
#include "cuda/ladder/register_blocked.cuh"

namespace gemmkit::ladder {

template cudaError_t launch_register_blocked<Step03cConfig, double>(KernelParams<double> const&, cudaStream_t);
template cudaError_t launch_register_blocked<Step03cConfig, float>(KernelParams<float> const&, cudaStream_t);
template cudaError_t register_blocked_attributes<Step03cConfig, double>(cudaFuncAttributes*);
template cudaError_t register_blocked_attributes<Step03cConfig, float>(cudaFuncAttributes*);

}  // namespace gemmkit::ladder
