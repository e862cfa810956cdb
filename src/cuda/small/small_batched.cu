/*! \file
    \brief Instances of the small batched GPU kernel, one per size bucket and precision, and the
    bucket lookup.
*/
#include "cuda/small/small_batched.cuh"

#include <algorithm>
#include <utility>

namespace gemmkit::small {

int small_bucket(int m, int n, int k) {
  int const size = std::max({m, n, k});
  int bucket = -1;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    // First (smallest) bucket that holds the size.
    ((bucket < 0 && size <= std::tuple_element_t<I, SmallShapes>::kSize ? bucket = int(I) : 0), ...);
  }(std::make_index_sequence<kSmallShapeCount>{});
  return bucket;
}

namespace {

template <typename Shape, typename T>
cudaError_t launch_shape(SmallBatchParams<T> const& p, cudaStream_t stream) {
  // Enough blocks to fill the device several times over; larger batches loop inside the kernel.
  constexpr std::int64_t kMaxBlocks = std::int64_t(1) << 20;
  std::int64_t const groups = (p.batch + Shape::kProblemsPerBlock - 1) / Shape::kProblemsPerBlock;
  unsigned const blocks = unsigned(std::min(groups, kMaxBlocks));
  small_batched_kernel<Shape, T><<<blocks, Shape::kThreads, 0, stream>>>(p);
  return cudaGetLastError();
}

}  // namespace

template <typename T>
cudaError_t launch_small_batched(SmallBatchParams<T> const& p, cudaStream_t stream) {
  int const bucket = small_bucket(p.m, p.n, p.k);
  cudaError_t result = cudaErrorInvalidValue;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((bucket == int(I) ? (result = launch_shape<std::tuple_element_t<I, SmallShapes>>(p, stream), 0) : 0), ...);
  }(std::make_index_sequence<kSmallShapeCount>{});
  return result;
}

template cudaError_t launch_small_batched<double>(SmallBatchParams<double> const&, cudaStream_t);
template cudaError_t launch_small_batched<float>(SmallBatchParams<float> const&, cudaStream_t);

}  // namespace gemmkit::small
