/*! \file
    \brief Instances of the small batched GPU kernel, one per candidate shape and precision, and
    the launcher that picks one.
*/
#include "cuda/batched/small_batched.cuh"
#include "cuda/batched/small_tuning.hpp"

#include <algorithm>
#include <utility>

namespace gemmkit::small {

namespace {

/// Blocks of one shape that fit an SM (shared memory and threads), found once per instance.
template <typename Shape, typename T>
int resident_blocks_per_sm() {
  static int const blocks = [] {
    auto const kernel = small_batched_kernel<Shape, T>;
    std::size_t const bytes = Shape::template shared_bytes<T>();
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)) != cudaSuccess) return 0;
    int count = 0;
    if (cudaOccupancyMaxActiveBlocksPerMultiprocessor(&count, kernel, Shape::kThreads, bytes) != cudaSuccess) return 0;
    return count;
  }();
  return blocks;
}

template <typename Shape, typename T>
cudaError_t launch_shape(SmallBatchParams<T> const& p, cudaStream_t stream) {
  // One resident wave: each block walks its groups, copying the next while multiplying this one.
  int const per_sm = resident_blocks_per_sm<Shape, T>();
  if (per_sm == 0) return cudaErrorInvalidConfiguration;
  int device = 0, sms = 0;
  cudaError_t status = cudaGetDevice(&device);
  if (status == cudaSuccess) status = cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, device);
  if (status != cudaSuccess) return status;
  std::int64_t const groups = (p.gemm.batch + Shape::kProblemsPerBlock - 1) / Shape::kProblemsPerBlock;
  unsigned const blocks = unsigned(std::min<std::int64_t>(groups, std::int64_t(per_sm) * sms));
  small_batched_kernel<Shape, T><<<blocks, Shape::kThreads, Shape::template shared_bytes<T>(), stream>>>(p);
  return cudaGetLastError();
}

}  // namespace

template <typename T>
cudaError_t launch_small_batched(SmallBatchParams<T> const& p, cudaStream_t stream, int candidate) {
  int const size = small_bucket_size(int(p.gemm.m), int(p.gemm.n), int(p.gemm.k));
  if (size < 0) return cudaErrorInvalidValue;
  if (candidate < 0) candidate = small_tuned_candidate(int(sizeof(T)), size);
  if (candidate < 0 || candidate >= kSmallCandidateCount || small_candidates()[candidate].size != size) {
    return cudaErrorInvalidValue;
  }
  cudaError_t result = cudaErrorInvalidValue;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((candidate == int(I) ? (result = launch_shape<std::tuple_element_t<I, SmallCandidates>>(p, stream), 0) : 0), ...);
  }(std::make_index_sequence<kSmallCandidateCount>{});
  return result;
}

template cudaError_t launch_small_batched<double>(SmallBatchParams<double> const&, cudaStream_t, int);
template cudaError_t launch_small_batched<float>(SmallBatchParams<float> const&, cudaStream_t, int);

}  // namespace gemmkit::small
