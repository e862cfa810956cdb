/*! \file
    \brief Ladder step 03: Register blocking: 8x8 elements of C per thread in registers, the next slice of A and B
    fetched into registers while the current one is computed (seed 000 §2.0, seed 001 Algorithm 1).
*/
#include "cuda/ladder/ladder.hpp"
#include "cuda/ladder/register_blocked.cuh"

namespace gemmkit::ladder {

template cudaError_t launch_register_blocked<Step03Config, double>(KernelParams<double> const&, cudaStream_t);
template cudaError_t launch_register_blocked<Step03Config, float>(KernelParams<float> const&, cudaStream_t);
template cudaError_t register_blocked_attributes<Step03Config, double>(cudaFuncAttributes*);
template cudaError_t register_blocked_attributes<Step03Config, float>(cudaFuncAttributes*);

}  // namespace gemmkit::ladder
