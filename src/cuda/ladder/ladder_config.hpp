/*! \file
    \brief Configs of the register-blocked ladder steps (03-06) as plain C++ data, so the
    performance model and the tests read the same numbers the kernels are built from.
*/
#pragma once

#include <cstddef>

namespace gemmkit::ladder {

/// Tile configuration of the register-blocked steps; the step flags say which ideas are on (each
/// step file static_asserts the flags its tile routine implements).
template <bool DoubleBuffer_, bool WideSharedLoads_, bool SharedPrefetch_>
struct RegisterBlockedConfig {
  static constexpr int kBM = 64, kBN = 64, kBK = 8;  ///< block tile and slice depth
  static constexpr int kTM = 8, kTN = 8;             ///< register block per thread
  static constexpr int kThreadsM = kBM / kTM, kThreadsN = kBN / kTN;
  static constexpr int kThreads = kThreadsM * kThreadsN;
  static constexpr bool kDoubleBuffer = DoubleBuffer_;
  static constexpr bool kWideSharedLoads = WideSharedLoads_;
  static constexpr bool kSharedPrefetch = SharedPrefetch_;
  static constexpr int kBuffers = kDoubleBuffer ? 2 : 1;
  static constexpr int kLoadsA = kBM * kBK / kThreads;  ///< elements of A each thread fetches per slice
  static constexpr int kLoadsB = kBN * kBK / kThreads;
  /// Elements of a fragment a thread owns side by side: 16 bytes, one 128-bit load in the wide steps.
  template <typename T>
  static constexpr int group() { return int(16 / sizeof(T)); }
  static constexpr bool valid() {
    // Every thread's fetches walk the tile at fixed strides only when the block divides evenly
    // along each direction (slice_walk); the fragments split into whole 16-byte groups.
    return kTM % 4 == 0 && kTN % 4 == 0 && kThreads <= 1024 && kThreads % kBM == 0 && kThreads % kBN == 0 &&
           kThreads % kBK == 0 && (kBM * kBK) % kThreads == 0 && (kBN * kBK) % kThreads == 0;
  }
  template <typename T>
  static constexpr std::size_t smem_bytes() {
    return std::size_t(kBuffers) * kBK * (kBM + kBN) * sizeof(T);
  }
};

/// The seeds' versions as ladder steps. Seed 000's table names them: 03 "unroll", 03b
/// "unroll+128b", 03c "unroll+128b+prefsmem", 05 "unroll+db+128b", 06 "unroll+db+128b+prefsmem";
/// 04 (double buffering alone) is seed 001's version 2 without its 128-bit loads.
using Step03Config = RegisterBlockedConfig<false, false, false>;
using Step03bConfig = RegisterBlockedConfig<false, true, false>;
using Step03cConfig = RegisterBlockedConfig<false, true, true>;
using Step04Config = RegisterBlockedConfig<true, false, false>;
using Step05Config = RegisterBlockedConfig<true, true, false>;
using Step06Config = RegisterBlockedConfig<true, true, true>;

// The index maps below are constexpr host functions the kernels call too (nvcc's
// --expt-relaxed-constexpr, set for the whole build), so the tests check the very same code.

/// Where a thread's e-th fetched element of one operand's slice sits: `along` (rows of op(A) or
/// columns of op(B) in the tile) and `kk` (depth in the slice) are start + e * step. Threads go
/// along the operand's contiguous direction first, so a warp's loads coalesce for either transpose.
struct SliceWalk {
  int along0, kk0;
  int along_step, kk_step;
};

/// `extent` = kBM (A) or kBN (B); `contiguous_along`: the operand is stored with `along` contiguous
/// (A not transposed, B transposed). Needs threads % extent == 0 and threads % depth == 0.
constexpr SliceWalk slice_walk(int thread, int extent, int depth, int threads,
                               bool contiguous_along) {
  return contiguous_along ? SliceWalk{thread % extent, thread / extent, 0, threads / extent}
                          : SliceWalk{thread / depth, thread % depth, threads / depth, 0};
}

/// Row (or column) of the i-th element a thread owns in its register block: groups of `kGroup`
/// adjacent elements (16 bytes), successive groups kThreadsAlong * kGroup apart, so a warp's reads
/// of one row of a slice hit distinct banks and the wide steps read a group in one load.
template <int kThreadsAlong, int kGroup>
constexpr int owned_index(int thread_along, int i) {
  return (i / kGroup) * kGroup * kThreadsAlong + kGroup * thread_along + (i % kGroup);
}

}  // namespace gemmkit::ladder
