/*! \file
    \brief Host side of the small batched GPU kernels: their parameters, the launch options (which
    kernel family, which candidate), one wave of blocks as a launch, and the launcher that picks
    the bucket's shape.
*/
#pragma once

#include "cuda/kernel_params.hpp"

#include <cuda_runtime.h>

#include <cstddef>
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
  /// cudaErrorNotSupported where this build did not compile it (small_candidate_built).
  int candidate = -1;
  /// The launch may start while the stream's previous kernel drains, when that is a small batched
  /// kernel (programmatic dependent launch; the caller guarantees the two touch different memory).
  bool overlaps_previous_kernel = false;
  /// At most this many blocks (0: one resident wave), so that tests can make every block walk
  /// many groups of problems.
  int max_blocks = 0;
};

/// The launch of a small batched kernel whose blocks walk `groups` groups of problems: one resident
/// wave of blocks (per_sm on each of `multiprocessors` SMs), or options.max_blocks, no more than
/// the groups; started while the stream's previous kernel drains when options.overlaps_previous_kernel
/// (programmatic dependent launch). Not copyable: the configuration points at its own attribute.
struct WaveLaunch {
  cudaLaunchConfig_t config{};
  cudaLaunchAttribute overlap{};

  WaveLaunch(std::int64_t groups, int per_sm, int multiprocessors, int threads, std::size_t shared_bytes,
             cudaStream_t stream, SmallLaunchOptions const& options) {
    std::int64_t const wave = std::int64_t(per_sm) * multiprocessors;
    std::int64_t const cap = options.max_blocks > 0 && options.max_blocks < wave ? options.max_blocks : wave;
    config.gridDim = dim3(unsigned(groups < cap ? groups : cap));
    config.blockDim = dim3(unsigned(threads));
    config.dynamicSmemBytes = shared_bytes;
    config.stream = stream;
    overlap.id = cudaLaunchAttributeProgrammaticStreamSerialization;
    overlap.val.programmaticStreamSerializationAllowed = 1;
    config.attrs = &overlap;
    config.numAttrs = options.overlaps_previous_kernel ? 1 : 0;
  }
  WaveLaunch(WaveLaunch const&) = delete;
  WaveLaunch& operator=(WaveLaunch const&) = delete;
  unsigned blocks() const { return config.gridDim.x; }
};

/// Launches the kernel of the problem's bucket on `stream`.
template <typename T>
cudaError_t launch_small_batched(SmallBatchParams<T> const& params, cudaStream_t stream,
                                 SmallLaunchOptions const& options = {});

/// The instances are compiled in kSmallLaunchParts parts (small_built.hpp; small_batched_part.cu, one
/// translation unit each).
/// Launches candidate `candidate` (small_candidate_part<kSmallLaunchParts> equal to kPart for T) with
/// one resident wave of blocks on `multiprocessors` SMs; cudaErrorNotSupported where not built.
template <int kPart, typename T>
cudaError_t launch_small_part(int candidate, SmallBatchParams<T> const& params, int multiprocessors,
                              cudaStream_t stream, SmallLaunchOptions const& options);

}  // namespace gemmkit::small
