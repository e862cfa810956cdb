/*! \file
    \brief The second pass of split-K: C = alpha * (sum of the slices' partial sums) + beta * C.
*/
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace gemmkit::gemm {

/// Sums `slices` partial m x n results (packed, slice s at workspace + s*m*n) in slice order, so
/// the result does not depend on scheduling, and applies the BLAS epilogue (beta = 0: C unread).
/// T = double or float.
template <typename T>
cudaError_t launch_split_k_reduce(std::int64_t m, std::int64_t n, std::int64_t slices, T const* workspace, T alpha,
                                  T beta, T* C, std::int64_t ldc, cudaStream_t stream);

}  // namespace gemmkit::gemm
