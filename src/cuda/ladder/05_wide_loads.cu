/*! \file
    \brief Ladder step 05: Step 04 + 128-bit shared-memory loads: fragments read two elements at a time (seed 000 §2.3).
*/
#include "cuda/ladder/ladder.hpp"
#include "cuda/ladder/register_blocked.cuh"

namespace gemmkit::ladder {

template cudaError_t launch_register_blocked<Step05Config, double>(KernelParams<double> const&, cudaStream_t);
template cudaError_t launch_register_blocked<Step05Config, float>(KernelParams<float> const&, cudaStream_t);
template cudaError_t register_blocked_attributes<Step05Config, double>(cudaFuncAttributes*);
template cudaError_t register_blocked_attributes<Step05Config, float>(cudaFuncAttributes*);

}  // namespace gemmkit::ladder
