/*! \file
    \brief Ladder step 06: Step 05 + shared-memory prefetch: the fragments of the next k are loaded while this k is
    computed, the seeds' two-level prefetch (seed 000 §2.4, seed 001 Algorithm 3).
*/
#include "cuda/ladder/ladder.hpp"
#include "cuda/ladder/register_blocked.cuh"

namespace gemmkit::ladder {

template cudaError_t launch_register_blocked<Step06Config, double>(KernelParams<double> const&, cudaStream_t);
template cudaError_t launch_register_blocked<Step06Config, float>(KernelParams<float> const&, cudaStream_t);
template cudaError_t register_blocked_attributes<Step06Config, double>(cudaFuncAttributes*);
template cudaError_t register_blocked_attributes<Step06Config, float>(cudaFuncAttributes*);

}  // namespace gemmkit::ladder
