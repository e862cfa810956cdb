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

template <typename Shape, typename T>
cudaError_t launch_shape(SmallBatchParams<T> const& p, cudaStream_t stream) {
  // Enough blocks to fill the device several times over; larger batches loop inside the kernel.
  constexpr std::int64_t kMaxBlocks = std::int64_t(1) << 20;
  std::int64_t const groups = (p.gemm.batch + Shape::kProblemsPerBlock - 1) / Shape::kProblemsPerBlock;
  unsigned const blocks = unsigned(std::min(groups, kMaxBlocks));
  small_batched_kernel<Shape, T><<<blocks, Shape::kThreads, 0, stream>>>(p);
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
