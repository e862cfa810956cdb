/*! \file
    \brief Host side of the small batched GPU kernel: its parameters and the launcher that picks
    the size bucket's shape.
*/
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace gemmkit::small {

/// A batch of problems with m, n, k <= 32 in column-major storage: strided (the arrays are null)
/// or pointer-array (device arrays of device pointers; the bases are ignored).
template <typename T>
struct SmallBatchParams {
  int m, n, k;
  T alpha, beta;
  T const* A;
  std::int64_t lda, stride_a;
  T const* B;
  std::int64_t ldb, stride_b;
  T* C;
  std::int64_t ldc, stride_c;
  T const* const* A_array;
  T const* const* B_array;
  T* const* C_array;
  std::int64_t batch;
  bool trans_a, trans_b;
};

/// Launches the kernel of the problem's size bucket on `stream`: the shape small_tuning.csv picks,
/// or SmallCandidates[candidate] when candidate >= 0 (the tuner's way in; it must be of the
/// problem's bucket).
template <typename T>
cudaError_t launch_small_batched(SmallBatchParams<T> const& params, cudaStream_t stream, int candidate = -1);

}  // namespace gemmkit::small
