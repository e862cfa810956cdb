/*! \file
    \brief Shapes of the small batched GPU kernel (seed 003 §4.2) as data: for each size bucket,
    rows of C per thread and problems per thread block (the seed's thread-block aggregation, tba).

    A problem with max(m, n, k) <= kSize runs in the kernel of the smallest bucket that holds it,
    fully unrolled to kSize (shared memory zero-padded past m, n, k). The table is the starting
    point the device tuner (`gemmkit-bench batched --tune`, to come) rewrites from measurements.
*/
#pragma once

#include <tuple>

namespace gemmkit::small {

/// One bucket: sizes up to kSize; each thread computes kRowsPerThread rows of one column of C
/// (rows kRowGroups apart, so neighbouring threads touch neighbouring rows); kProblemsPerBlock
/// problems share a block so tiny sizes still fill it.
template <int kSize_, int kRowsPerThread_, int kProblemsPerBlock_>
struct SmallShape {
  static constexpr int kSize = kSize_;
  static constexpr int kRowsPerThread = kRowsPerThread_;
  static constexpr int kProblemsPerBlock = kProblemsPerBlock_;
  static constexpr int kRowGroups = kSize / kRowsPerThread;
  static constexpr int kThreadsPerProblem = kRowGroups * kSize;
  static constexpr int kThreads = kThreadsPerProblem * kProblemsPerBlock;
  /// Shared-memory column pitch: odd, so transposed stores and row reads spread over the banks.
  static constexpr int kPitch = kSize + 1;
  static constexpr int kOperandElements = kProblemsPerBlock * kSize * kPitch;

  static constexpr bool valid() {
    return kSize % kRowsPerThread == 0 && kThreads <= 1024 && kThreads % 32 == 0 && kSize <= 32;
  }
};

/// The buckets, smallest first: the sizes 2 .. 32. About 256 threads per block.
using SmallShapes = std::tuple<SmallShape<2, 1, 64>, SmallShape<3, 1, 32>, SmallShape<4, 1, 16>,
                               SmallShape<5, 5, 64>, SmallShape<6, 2, 16>, SmallShape<7, 7, 32>,
                               SmallShape<8, 2, 8>, SmallShape<10, 5, 16>, SmallShape<12, 4, 8>,
                               SmallShape<16, 4, 4>, SmallShape<20, 5, 4>, SmallShape<24, 4, 2>,
                               SmallShape<28, 7, 2>, SmallShape<32, 4, 1>>;
inline constexpr int kSmallShapeCount = std::tuple_size_v<SmallShapes>;

inline constexpr int kSmallMaxSize = 32;

}  // namespace gemmkit::small
