/*! \file
    \brief Instances of the small batched GPU kernel for the built candidates of one part
    (small_candidate_part equal to GEMMKIT_SMALL_PART, per precision); CMake compiles this file once
    per part, so the instances compile in parallel.
*/
#include "cuda/batched/flat_batched.hpp"
#include "cuda/batched/small_batched.cuh"
#include "cuda/batched/small_built.hpp"
#include "cuda/batched/small_cached.cuh"
#include "cuda/batched/small_tuning.hpp"

#include <type_traits>
#include <utility>

namespace gemmkit::small {

namespace {

/// Dynamic shared memory of one launch: the stages (unpadded for the exact instance), and the
/// pointer ring for pointer arrays.
template <typename Shape, typename T, SmallKernelKind kKind>
constexpr std::size_t launch_shared_bytes() {
  return Shape::template shared_bytes<T, kKind != SmallKernelKind::kStridedExact>() +
         (kKind == SmallKernelKind::kPointerArrays ? Shape::kPointerRingBytes : 0);
}

/// Blocks of `kernel` that fit an SM with `bytes` of dynamic shared memory a block; 0 on an error.
template <typename Kernel>
int blocks_per_sm(Kernel kernel, int threads, std::size_t bytes) {
  int count = 0;
  if (cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)) != cudaSuccess ||
      cudaOccupancyMaxActiveBlocksPerMultiprocessor(&count, kernel, threads, bytes) != cudaSuccess) {
    (void)cudaGetLastError();  // the launch reports it; later calls must not see it
    return 0;
  }
  return count;
}

/// Blocks of one instance that fit an SM (shared memory and threads), found once per instance.
template <typename Shape, typename T, SmallKernelKind kKind>
int resident_blocks_per_sm() {
  static int const blocks =
      blocks_per_sm(small_batched_kernel<Shape, T, kKind>, Shape::kThreads, launch_shared_bytes<Shape, T, kKind>());
  return blocks;
}

/// The cache-based kernel (a zero-stage shape): one resident wave, no shared memory.
template <typename Shape, typename T>
cudaError_t launch_cached(SmallBatchParams<T> const& p, int multiprocessors, cudaStream_t stream,
                          SmallLaunchOptions const& options) {
  static int const per_sm = blocks_per_sm(small_cached_kernel<Shape, T>, Shape::kThreads, 0);
  if (per_sm == 0) return cudaErrorInvalidConfiguration;
  std::int64_t const groups = (p.gemm.batch + Shape::kProblemsPerBlock - 1) / Shape::kProblemsPerBlock;
  WaveLaunch const launch(groups, per_sm, multiprocessors, Shape::kThreads, 0, stream, options);
  return cudaLaunchKernelEx(&launch.config, small_cached_kernel<Shape, T>, p);
}

/// One resident wave (or options.max_blocks): each block walks its groups, copying the next while
/// multiplying this one.
template <typename Shape, typename T, SmallKernelKind kKind>
cudaError_t launch_instance(SmallBatchParams<T> const& p, int multiprocessors, cudaStream_t stream,
                            SmallLaunchOptions const& options) {
  int const per_sm = resident_blocks_per_sm<Shape, T, kKind>();
  if (per_sm == 0) return cudaErrorInvalidConfiguration;
  std::int64_t const groups = (p.gemm.batch + Shape::kProblemsPerBlock - 1) / Shape::kProblemsPerBlock;
  WaveLaunch const launch(groups, per_sm, multiprocessors, Shape::kThreads, launch_shared_bytes<Shape, T, kKind>(),
                          stream, options);
  SmallBatchParams<T> launched = p;
  launched.c_advance = std::int64_t(launch.blocks()) * Shape::kProblemsPerBlock * p.gemm.stride_c;
  return cudaLaunchKernelEx(&launch.config, small_batched_kernel<Shape, T, kKind>, launched);
}

template <typename Shape, typename T>
cudaError_t launch_shape(SmallBatchParams<T> const& p, int multiprocessors, cudaStream_t stream,
                         SmallLaunchOptions const& options) {
  static_assert(launch_shared_bytes<Shape, T, SmallKernelKind::kPointerArrays>() <= 227 * 1024 &&
                    launch_shared_bytes<Shape, T, SmallKernelKind::kStridedExact>() <= 227 * 1024,
                "a block's stages must fit an SM's shared memory");
  bool const arrays = p.A_array != nullptr;
  if (arrays != (p.B_array != nullptr) || arrays != (p.C_array != nullptr)) return cudaErrorInvalidValue;
  CopyPath const path = copy_path<Shape>(p);
  // The bucket's kernel would copy the problem element by element (padded, unless it has the
  // bucket's sizes): the flat kernel may do better. At the bucket's sizes only in single precision
  // (pointer arrays at 3, 5, 7 on the H100, 2026-11-22: f32 flat 72, 75, 68 % of the bound against
  // 56, 63, 62; f64 79, 82, 80 against 89, 87, 88). The tuner's and the tests' candidates run the
  // bucket's.
  bool const bucket_sizes = p.gemm.m == Shape::kM && p.gemm.n == Shape::kN && p.gemm.k == Shape::kK;
  if (path == CopyPath::kElements && options.candidate < 0 && options.family == SmallKernelFamily::kAuto &&
      (!bucket_sizes || sizeof(T) == 4) &&
      small_flat_preferred(int(sizeof(T)), int(p.gemm.m), int(p.gemm.n), int(p.gemm.k),
                           SmallBucket{Shape::kM, Shape::kN, Shape::kK}, arrays)) {
    return launch_flat_batched<T>(p, multiprocessors, stream, options);
  }
  if constexpr (Shape::kStages == 0) {
    return launch_cached<Shape, T>(p, multiprocessors, stream, options);
  } else {
    if (arrays) return launch_instance<Shape, T, SmallKernelKind::kPointerArrays>(p, multiprocessors, stream, options);
    return path == CopyPath::kElements
               ? launch_instance<Shape, T, SmallKernelKind::kStridedAny>(p, multiprocessors, stream, options)
               : launch_instance<Shape, T, SmallKernelKind::kStridedExact>(p, multiprocessors, stream, options);
  }
}

}  // namespace

template <int kPart, typename T>
cudaError_t launch_small_part(int candidate, SmallBatchParams<T> const& p, int multiprocessors, cudaStream_t stream,
                              SmallLaunchOptions const& options) {
  cudaError_t result = cudaErrorNotSupported;  // a candidate this build did not compile (small_built.hpp)
  // Over the tuple's types and their indices together: tuple_element_t of each index would
  // instantiate O(n^2) templates under nvcc.
  [&]<class... Shape, std::size_t... I>(std::type_identity<std::tuple<Shape...>>, std::index_sequence<I...>) {
    (
        [&] {
          if constexpr (small_candidate_part<kSmallLaunchParts>(int(I), int(sizeof(T))) == kPart) {
            if (candidate == int(I)) result = launch_shape<Shape, T>(p, multiprocessors, stream, options);
          }
        }(),
        ...);
  }(std::type_identity<SmallCandidates>{}, std::make_index_sequence<kSmallCandidateCount>{});
  return result;
}

template cudaError_t launch_small_part<GEMMKIT_SMALL_PART, double>(int, SmallBatchParams<double> const&, int, cudaStream_t,
                                                                   SmallLaunchOptions const&);
template cudaError_t launch_small_part<GEMMKIT_SMALL_PART, float>(int, SmallBatchParams<float> const&, int, cudaStream_t,
                                                                  SmallLaunchOptions const&);

}  // namespace gemmkit::small
