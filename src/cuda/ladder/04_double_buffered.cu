/*! \file
    \brief Ladder step 04: Step 03 + double-buffered shared memory: one barrier per slice instead of two (seed 000 §2.2).
*/
#include "cuda/ladder/ladder.hpp"
#include "cuda/ladder/register_blocked.cuh"

namespace gemmkit::ladder {

template cudaError_t launch_register_blocked<Step04Config, double>(KernelParams<double> const&, cudaStream_t);
template cudaError_t launch_register_blocked<Step04Config, float>(KernelParams<float> const&, cudaStream_t);
template cudaError_t register_blocked_attributes<Step04Config, double>(cudaFuncAttributes*);
template cudaError_t register_blocked_attributes<Step04Config, float>(cudaFuncAttributes*);

}  // namespace gemmkit::ladder
