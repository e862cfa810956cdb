/*! \file
    \brief Host side of the small batched GPU kernel: its parameters and the launcher that picks
    the bucket's shape.
*/
#pragma once

#include "cuda/kernel_params.hpp"

#include <cuda_runtime.h>

#include <cstdint>

namespace gemmkit::small {

/// A batch of problems with m, n, k <= 32: the parameters every GEMM kernel receives (strided
/// column-major operands), plus device arrays of device pointers for pointer-array batches (when
/// set, the strided bases are ignored).
template <typename T>
struct SmallBatchParams {
  KernelParams<T> gemm;
  T const* const* A_array = nullptr;
  T const* const* B_array = nullptr;
  T* const* C_array = nullptr;
};

/// Launches the kernel of the problem's bucket on `stream`: the shape small_tuning.csv picks, or
/// SmallCandidates[candidate] when candidate >= 0 (the tuner's and the tests' way in; its bucket
/// must hold the problem).
template <typename T>
cudaError_t launch_small_batched(SmallBatchParams<T> const& params, cudaStream_t stream, int candidate = -1);

/// The instances are compiled in this many parts (small_batched_part.cu, one translation unit each).
inline constexpr int kSmallLaunchParts = 4;

/// Launches candidate `candidate` (index % kSmallLaunchParts == kPart) with one resident wave of
/// blocks on `multiprocessors` SMs.
template <int kPart, typename T>
cudaError_t launch_small_part(int candidate, SmallBatchParams<T> const& params, int multiprocessors,
                              cudaStream_t stream);

}  // namespace gemmkit::small
