/*! \file
    \brief The launcher of the small batched GPU kernels: picks the problem's bucket and the
    candidate the tuning table names for it, and calls the part that holds its instance (which
    hands problems of other than the bucket's exact sizes to the flat kernel where preferred).
*/
#include "cuda/batched/small_batched.hpp"

#include "cuda/batched/flat_batched.hpp"
#include "cuda/batched/small_batched_config.hpp"
#include "cuda/batched/small_built.hpp"
#include "cuda/batched/small_tuning.hpp"

#include <array>
#include <utility>

namespace gemmkit::small {

template <typename T>
cudaError_t launch_small_batched(SmallBatchParams<T> const& p, cudaStream_t stream, SmallLaunchOptions const& options) {
  int candidate = -1;
  int device = -1;
  if (options.family != SmallKernelFamily::kFlat) {
    candidate = options.candidate;
    SmallBucket const bucket = small_bucket_for(int(p.gemm.m), int(p.gemm.n), int(p.gemm.k));
    if (!bucket.valid()) return cudaErrorInvalidValue;
    if (candidate < 0) {  // the device's rows of the table
      if (cudaError_t const status = cudaGetDevice(&device); status != cudaSuccess) return status;
      candidate = small_tuned_candidate_here(int(sizeof(T)), bucket, device);
    }
    if (candidate < 0 || candidate >= kSmallCandidateCount) return cudaErrorInvalidValue;
    SmallBucket const& holds = small_candidates()[candidate].bucket;
    if (holds.m < p.gemm.m || holds.n < p.gemm.n || holds.k < p.gemm.k) return cudaErrorInvalidValue;
    // Checked before the device: only the tuner's and the tests' candidates can be unbuilt.
    if (!small_candidate_built(candidate, int(sizeof(T)))) return cudaErrorNotSupported;
  }
  int multiprocessors = 0;
  cudaError_t status = device < 0 ? cudaGetDevice(&device) : cudaSuccess;
  if (status == cudaSuccess) status = cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, device);
  if (status != cudaSuccess) return status;
  if (options.family == SmallKernelFamily::kFlat) return launch_flat_batched<T>(p, multiprocessors, stream, options);
  using PartLauncher = cudaError_t (*)(int, SmallBatchParams<T> const&, int, cudaStream_t, SmallLaunchOptions const&);
  static constexpr auto parts = []<int... kPart>(std::integer_sequence<int, kPart...>) {
    return std::array<PartLauncher, sizeof...(kPart)>{launch_small_part<kPart, T>...};
  }(std::make_integer_sequence<int, kSmallLaunchParts>{});
  return parts[std::size_t(small_candidate_part<kSmallLaunchParts>(candidate, int(sizeof(T))))](
      candidate, p, multiprocessors, stream, options);
}

template cudaError_t launch_small_batched<double>(SmallBatchParams<double> const&, cudaStream_t,
                                                  SmallLaunchOptions const&);
template cudaError_t launch_small_batched<float>(SmallBatchParams<float> const&, cudaStream_t, SmallLaunchOptions const&);

}  // namespace gemmkit::small
