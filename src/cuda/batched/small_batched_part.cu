/*! \file
    \brief Instances of the small batched GPU kernel for the candidates of one part (index modulo
    kSmallLaunchParts equal to GEMMKIT_SMALL_PART), both precisions; CMake compiles this file once
    per part, so the instances compile in parallel.
*/
#include "cuda/batched/small_batched.cuh"

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
    int count = 0;
    if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)) != cudaSuccess ||
        cudaOccupancyMaxActiveBlocksPerMultiprocessor(&count, kernel, Shape::kThreads, bytes) != cudaSuccess) {
      (void)cudaGetLastError();  // the launch reports it; later calls must not see it
      return 0;
    }
    return count;
  }();
  return blocks;
}

template <typename Shape, typename T>
cudaError_t launch_shape(SmallBatchParams<T> const& p, int multiprocessors, cudaStream_t stream) {
  static_assert(Shape::template shared_bytes<T>() <= 227 * 1024, "a block's stages must fit an SM's shared memory");
  // One resident wave: each block walks its groups, copying the next while multiplying this one.
  int const per_sm = resident_blocks_per_sm<Shape, T>();
  if (per_sm == 0) return cudaErrorInvalidConfiguration;
  std::int64_t const groups = (p.gemm.batch + Shape::kProblemsPerBlock - 1) / Shape::kProblemsPerBlock;
  unsigned const blocks = unsigned(std::min<std::int64_t>(groups, std::int64_t(per_sm) * multiprocessors));
  small_batched_kernel<Shape, T><<<blocks, Shape::kThreads, Shape::template shared_bytes<T>(), stream>>>(p);
  return cudaGetLastError();
}

}  // namespace

template <int kPart, typename T>
cudaError_t launch_small_part(int candidate, SmallBatchParams<T> const& p, int multiprocessors, cudaStream_t stream) {
  cudaError_t result = cudaErrorInvalidValue;
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    ((candidate == int(I) ? (result = launch_shape<std::tuple_element_t<I, SmallCandidates>, T>(p, multiprocessors, stream), 0)
                          : 0),
     ...);
  }([]<std::size_t... All>(std::index_sequence<All...>) {
    // The candidates of this part: index % kSmallLaunchParts == kPart.
    return std::index_sequence<(All * kSmallLaunchParts + kPart)...>{};
  }(std::make_index_sequence<(kSmallCandidateCount - kPart + kSmallLaunchParts - 1) / kSmallLaunchParts>{}));
  return result;
}

template cudaError_t launch_small_part<GEMMKIT_SMALL_PART, double>(int, SmallBatchParams<double> const&, int, cudaStream_t);
template cudaError_t launch_small_part<GEMMKIT_SMALL_PART, float>(int, SmallBatchParams<float> const&, int, cudaStream_t);

}  // namespace gemmkit::small
