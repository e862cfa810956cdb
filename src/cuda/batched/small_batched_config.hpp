/*! \file
    \brief Shapes of the small batched GPU kernel (seed 003 §4.2) as data: for each size bucket,
    rows of C per thread and problems per thread block (the seed's thread-block aggregation, tba).

    A problem with max(m, n, k) <= kSize runs in the kernel of the smallest bucket that holds it,
    fully unrolled to kSize (shared memory zero-padded past m, n, k). Which candidate shape a
    bucket uses is data: small_tuning.csv, written by the device tuner.
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

/// Every shape a size bucket may run, grouped by size, smallest first: the tuner times them all
/// on the device and small_tuning.csv names the one each (precision, size) uses.
using SmallCandidates = std::tuple<
    SmallShape<2, 1, 64>, SmallShape<2, 1, 128>, SmallShape<2, 2, 64>,
    SmallShape<3, 1, 32>, SmallShape<3, 3, 64>, SmallShape<3, 1, 64>,
    SmallShape<4, 1, 16>, SmallShape<4, 2, 32>, SmallShape<4, 4, 64>,
    SmallShape<5, 5, 64>, SmallShape<5, 5, 32>, SmallShape<5, 1, 32>,
    SmallShape<6, 2, 16>, SmallShape<6, 3, 16>, SmallShape<6, 6, 32>,
    SmallShape<7, 7, 32>,
    SmallShape<8, 2, 8>, SmallShape<8, 4, 16>, SmallShape<8, 8, 32>, SmallShape<8, 1, 4>,
    SmallShape<10, 5, 16>, SmallShape<10, 2, 16>, SmallShape<10, 10, 16>,
    SmallShape<12, 4, 8>, SmallShape<12, 3, 8>, SmallShape<12, 6, 8>,
    SmallShape<16, 4, 4>, SmallShape<16, 2, 4>, SmallShape<16, 8, 8>, SmallShape<16, 16, 8>,
    SmallShape<20, 5, 4>, SmallShape<20, 10, 4>, SmallShape<20, 2, 4>,
    SmallShape<24, 4, 2>, SmallShape<24, 3, 2>, SmallShape<24, 6, 4>, SmallShape<24, 8, 4>,
    SmallShape<28, 7, 2>,
    SmallShape<32, 4, 1>, SmallShape<32, 2, 1>, SmallShape<32, 8, 2>, SmallShape<32, 8, 1>, SmallShape<32, 16, 2>>;
inline constexpr int kSmallCandidateCount = std::tuple_size_v<SmallCandidates>;

/// The bucket sizes: the sizes 2 .. 32 (a problem runs in the smallest that holds it).
inline constexpr int kSmallSizes[] = {2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 20, 24, 28, 32};

inline constexpr int kSmallMaxSize = 32;

}  // namespace gemmkit::small
