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
  /// Set by the launcher (what callers set is ignored): elements of strided C between a block's
  /// problem in one group and in its next, blocks x problems per block x stride_c.
  std::int64_t c_advance = 0;
};

/// Which kernel runs a batch: the size-templated kernel of a bucket (small_batched.cuh), the flat
/// kernel of run-time sizes (flat_batched.cu), or the library's choice: a bucket's kernel where the
/// bucket holds the problem at its exact sizes, else whichever small_flat_preferred names.
enum class SmallKernelFamily { kAuto, kBuckets, kFlat };

/// How to launch: the defaults are the library's.
struct SmallLaunchOptions {
  SmallKernelFamily family = SmallKernelFamily::kAuto;
  /// SmallCandidates[candidate] instead of the shape small_tuning.csv picks (the tuner's and the
  /// tests' way in; its bucket must hold the problem; the bucket's kernel runs); -1: the table's.
  int candidate = -1;
  /// The launch may start while the stream's previous kernel drains, when that is a small batched
  /// kernel (programmatic dependent launch; the caller guarantees the two touch different memory).
  bool overlaps_previous_kernel = false;
  /// At most this many blocks (0: one resident wave), so that tests can make every block walk
  /// many groups of problems.
  int max_blocks = 0;
};

/// Launches the kernel of the problem's bucket on `stream`.
template <typename T>
cudaError_t launch_small_batched(SmallBatchParams<T> const& params, cudaStream_t stream,
                                 SmallLaunchOptions const& options = {});

/// The instances are compiled in this many parts (small_batched_part.cu, one translation unit each).
inline constexpr int kSmallLaunchParts = 6;

/// Launches candidate `candidate` (index % kSmallLaunchParts == kPart) with one resident wave of
/// blocks on `multiprocessors` SMs.
template <int kPart, typename T>
cudaError_t launch_small_part(int candidate, SmallBatchParams<T> const& params, int multiprocessors,
                              cudaStream_t stream, SmallLaunchOptions const& options);

}  // namespace gemmkit::small
