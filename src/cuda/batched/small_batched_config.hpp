/*! \file
    \brief Shapes of the small batched GPU kernel (seed 003 §4.2) as data: for each size bucket,
    the register block of C per thread and problems per thread block (the seed's thread-block
    aggregation, tba).

    A problem with max(m, n, k) <= kSize runs in the kernel of the smallest bucket that holds it,
    fully unrolled to kSize (shared memory zero-padded past m, n, k). Which candidate shape a
    bucket uses is data: small_tuning.csv, written by the device tuner.
*/
#pragma once

#include <cstddef>
#include <tuple>

namespace gemmkit::small {

/// One bucket: sizes up to kSize; each thread computes kRowsPerThread x kColsPerThread elements
/// of C (rows kRowGroups apart and columns kColGroups apart, so neighbouring threads touch
/// neighbouring rows); kProblemsPerBlock problems share a block so tiny sizes still fill it.
template <int kSize_, int kRowsPerThread_, int kColsPerThread_, int kProblemsPerBlock_>
struct SmallShape {
  static constexpr int kSize = kSize_;
  static constexpr int kRowsPerThread = kRowsPerThread_;
  static constexpr int kColsPerThread = kColsPerThread_;
  static constexpr int kProblemsPerBlock = kProblemsPerBlock_;
  static constexpr int kRowGroups = kSize / kRowsPerThread;
  static constexpr int kColGroups = kSize / kColsPerThread;
  static constexpr int kThreadsPerProblem = kRowGroups * kColGroups;
  static constexpr int kComputeThreads = kThreadsPerProblem * kProblemsPerBlock;
  /// Whole warps; the threads past kComputeThreads only copy.
  static constexpr int kThreads = (kComputeThreads + 31) / 32 * 32;
  /// Shared-memory pitch of the element-by-element tiles (k of op(A), columns of op(B)), in
  /// elements: a multiple of 4 (whole 16-byte vectors for both precisions) but not of 8, so the
  /// copy's transposed stores spread over 8 banks and not 1 or 2.
  static constexpr int kPitch = (kSize + 3) / 4 * 4 % 8 == 0 ? (kSize + 3) / 4 * 4 + 4 : (kSize + 3) / 4 * 4;
  static constexpr int kTileElements = kSize * kPitch;  ///< one operand of one problem
  /// A and B of the block's problems: one stage of the copy pipeline (C goes through registers).
  static constexpr int kStageElements = 2 * kProblemsPerBlock * kTileElements;
  /// Two stages: the next problems' operands arrive while these are multiplied.
  static constexpr int kStages = 2;
  template <typename T>
  static constexpr std::size_t shared_bytes() {
    return std::size_t(kStages) * kStageElements * sizeof(T);
  }

  /// Blocks per SM the registers are budgeted for: as many as shared memory holds (227 KiB per
  /// SM on sm_90, 1 KiB of it reserved per block), down to 80 registers a thread.
  template <typename T>
  static constexpr int min_blocks_per_sm() {
    int const by_shared = int((227 * 1024) / (shared_bytes<T>() + 1024));
    int const by_registers = 65536 / (80 * kThreads);
    int const blocks = by_shared < by_registers ? by_shared : by_registers;
    return blocks > 0 ? blocks : 1;
  }

  static constexpr bool valid() {
    return kSize % kRowsPerThread == 0 && kSize % kColsPerThread == 0 && kThreads <= 1024 && kSize <= 32;
  }
};

/// Every shape a size bucket may run, grouped by size, smallest first: the tuner times them all
/// on the device and small_tuning.csv names the one each (precision, size) uses. Per bucket: about
/// 128 to 512 threads, register blocks from 1x1 (tiny sizes: every thread copies and stores) to
/// 4x4 (large sizes: fewer shared-memory reads per multiply-add).
using SmallCandidates = std::tuple<
    SmallShape<2, 1, 1, 64>, SmallShape<2, 1, 1, 128>, SmallShape<2, 1, 1, 256>, SmallShape<2, 2, 1, 128>, SmallShape<2, 2, 2, 256>,
    SmallShape<3, 1, 1, 56>, SmallShape<3, 3, 1, 64>, SmallShape<3, 3, 1, 128>, SmallShape<3, 3, 3, 256>,
    SmallShape<4, 1, 1, 32>, SmallShape<4, 1, 1, 64>, SmallShape<4, 2, 2, 64>, SmallShape<4, 2, 2, 128>, SmallShape<4, 4, 1, 64>, SmallShape<4, 4, 4, 256>,
    SmallShape<5, 1, 1, 20>, SmallShape<5, 1, 1, 40>, SmallShape<5, 5, 1, 50>,
    SmallShape<6, 1, 1, 14>, SmallShape<6, 2, 2, 28>, SmallShape<6, 2, 2, 56>, SmallShape<6, 3, 3, 64>, SmallShape<6, 6, 1, 42>,
    SmallShape<7, 1, 1, 10>, SmallShape<7, 1, 1, 20>, SmallShape<7, 7, 1, 36>,
    SmallShape<8, 1, 1, 4>, SmallShape<8, 1, 1, 8>, SmallShape<8, 2, 2, 16>, SmallShape<8, 2, 2, 32>, SmallShape<8, 4, 2, 32>,
    SmallShape<8, 2, 4, 32>, SmallShape<8, 4, 4, 32>,
    SmallShape<10, 2, 2, 5>, SmallShape<10, 2, 2, 10>, SmallShape<10, 1, 1, 5>, SmallShape<10, 2, 1, 10>, SmallShape<10, 5, 2, 20>,
    SmallShape<12, 2, 2, 4>, SmallShape<12, 2, 2, 7>, SmallShape<12, 1, 1, 3>, SmallShape<12, 2, 1, 4>, SmallShape<12, 4, 2, 8>,
    SmallShape<16, 2, 2, 2>, SmallShape<16, 2, 2, 4>, SmallShape<16, 1, 2, 4>, SmallShape<16, 4, 4, 8>, SmallShape<16, 2, 4, 4>, SmallShape<16, 4, 2, 4>,
    SmallShape<20, 2, 2, 1>, SmallShape<20, 2, 2, 2>, SmallShape<20, 1, 2, 2>, SmallShape<20, 4, 4, 4>, SmallShape<20, 1, 1, 1>,
    SmallShape<24, 2, 2, 1>, SmallShape<24, 2, 2, 2>, SmallShape<24, 1, 2, 1>, SmallShape<24, 4, 4, 4>, SmallShape<24, 3, 3, 2>,
    SmallShape<28, 2, 2, 1>, SmallShape<28, 2, 2, 2>, SmallShape<28, 1, 2, 1>, SmallShape<28, 4, 4, 4>,
    SmallShape<32, 2, 2, 1>, SmallShape<32, 2, 2, 2>, SmallShape<32, 1, 2, 1>, SmallShape<32, 1, 1, 1>, SmallShape<32, 4, 4, 4>,
    SmallShape<32, 2, 4, 2>>;
inline constexpr int kSmallCandidateCount = std::tuple_size_v<SmallCandidates>;

/// The bucket sizes: the sizes 2 .. 32 (a problem runs in the smallest that holds it).
inline constexpr int kSmallSizes[] = {2, 3, 4, 5, 6, 7, 8, 10, 12, 16, 20, 24, 28, 32};

inline constexpr int kSmallMaxSize = 32;

}  // namespace gemmkit::small
