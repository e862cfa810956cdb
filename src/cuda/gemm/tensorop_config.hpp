/*! \file
    \brief Tile configurations of the FP64 tensor-core GEMM, as data: the kernels, the registry,
    the model and the tuner read the same struct.
*/
#pragma once

#include <cstddef>
#include <string>

namespace gemmkit::gemm {

/// One tile configuration. A thread block computes a kBM x kBN tile of C, walking K in kBK
/// slices through a kStages-deep cp.async ring; each warp owns a kWarpM x kWarpN sub-tile made of
/// 16x8x16 MMAs.
template <int BM_, int BN_, int BK_, int WarpM_, int WarpN_, int Stages_, int BlocksPerSm_ = 1,
          bool FragmentPrefetch_ = false, int MmaK_ = 16>
struct TensorOpConfig {
  static constexpr int kBM = BM_;          ///< rows of C per block
  static constexpr int kBN = BN_;          ///< columns of C per block
  static constexpr int kBK = BK_;          ///< depth of one pipeline stage
  static constexpr int kWarpM = WarpM_;    ///< rows of C per warp
  static constexpr int kWarpN = WarpN_;    ///< columns of C per warp
  static constexpr int kStages = Stages_;  ///< cp.async ring depth
  /// Blocks meant to share an SM: registers per thread are capped so they fit (launch bounds).
  static constexpr int kBlocksPerSm = BlocksPerSm_;
  /// Two-level prefetch: the next k step's fragments load while the current step's last MMAs run,
  /// across tile boundaries too (one more set of A fragments live).
  static constexpr bool kFragmentPrefetch = FragmentPrefetch_;

  /// The MMA's depth: 16 (m16n8k16) or 8 (m16n8k8, half the fragment registers per k step, so a
  /// whole step's fragments double-buffer: the next step's load while this step's MMAs run, with
  /// no register read by an MMA reloaded behind it; cuBLAS's 8192 kernel has this shape).
  static constexpr int kMmaM = 16, kMmaN = 8, kMmaK = MmaK_;
  static constexpr int kWarpsM = kBM / kWarpM;
  static constexpr int kWarpsN = kBN / kWarpN;
  static constexpr int kWarps = kWarpsM * kWarpsN;
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kFragsM = kWarpM / kMmaM;  ///< MMAs per warp along M
  static constexpr int kFragsN = kWarpN / kMmaN;  ///< MMAs per warp along N (in pairs: see tensorop_layout.hpp)

  /// Tiles are unpadded: tensorop_layout.hpp swizzles them so fragment loads are conflict-free.
  static constexpr int kStageElementsA = kBM * kBK;
  static constexpr int kStageElementsB = kBN * kBK;

  static constexpr std::size_t smem_bytes() {
    return std::size_t(kStages) * (kStageElementsA + kStageElementsB) * sizeof(double);
  }
  /// Registers a thread may use with kBlocksPerSm blocks resident (64K per SM, allocation granule 8).
  static constexpr int kRegisterBudget = (65536 / (kThreads * kBlocksPerSm)) / 8 * 8 > 255 ? 255
                                       : (65536 / (kThreads * kBlocksPerSm)) / 8 * 8;
  /// Which operand streams through registers one 16-wide group at a time while the other stays
  /// whole: A when it has more groups than B (a 64x32 warp tile holds B's 2 column pairs and
  /// streams A's 4 row blocks), else B.
  static constexpr bool kStreamA = kFragsM > kFragsN / 2;
  /// Whether the next streamed group's loads are issued before the current group's MMAs: it takes
  /// one more group of fragments in registers, which only the roomier budgets have.
  static constexpr bool kPrefetchStreamed = kRegisterBudget >= 160;
  /// Accumulator registers per thread (doubles), the dominant register cost.
  static constexpr int accumulators_per_thread() { return kFragsM * kFragsN * 4; }
  /// Bytes of A and B moved from global memory per flop at full reuse: the model's RB input.
  static constexpr double bytes_per_flop() { return 8.0 * (kBM + kBN) / (2.0 * kBM * kBN); }

  static constexpr bool valid() {
    return kBM % kWarpM == 0 && kBN % kWarpN == 0 && kWarpM % kMmaM == 0 && kWarpN % (2 * kMmaN) == 0 &&
           (kMmaK == 16 || (kMmaK == 8 && !kFragmentPrefetch && (kBK / kMmaK) % 2 == 0)) &&
           kBK % kMmaK == 0 && kStages >= 2 && kThreads <= 1024 && kBlocksPerSm * smem_bytes() <= 227 * 1024 &&
           accumulators_per_thread() <= 64 && (kBM * kBK / 2) % kThreads == 0 && (kBN * kBK / 2) % kThreads == 0 &&
           !(kFragmentPrefetch && kStreamA);  // the two-level prefetch streams B
  }

  static std::string name() {
    return std::to_string(kBM) + "x" + std::to_string(kBN) + "x" + std::to_string(kBK) + "_w" +
           std::to_string(kWarpM) + "x" + std::to_string(kWarpN) + "_s" + std::to_string(kStages) +
           (kBlocksPerSm > 1 ? "_b" + std::to_string(kBlocksPerSm) : std::string()) +
           (kFragmentPrefetch ? "_pf" : "") + (kMmaK == 8 ? "_k8" : "");
  }
};

}  // namespace gemmkit::gemm
