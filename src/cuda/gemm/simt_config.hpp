/*! \file
    \brief Tile configurations of the FP32 SIMT GEMM (exact single precision, FFMA), as data: the
    kernel, the registry, the tests and the model read the same struct.
*/
#pragma once

#include <cstddef>
#include <string>

namespace gemmkit::gemm {

/// A thread block computes a kBM x kBN tile of C, walking K in kBK slices through a kStages-deep
/// cp.async ring. Each warp owns a kWarpM x kWarpN sub-tile; each lane a kThreadM x kThreadN
/// register block made of 4 x 4 sub-blocks spread across the warp tile, so every fragment of a k
/// step is a 128-bit shared load and a warp's loads of one k row touch distinct 16-byte words.
template <int BM_, int BN_, int BK_, int WarpM_, int WarpN_, int ThreadM_, int ThreadN_, int Stages_,
          int BlocksPerSm_ = 1>
struct SimtConfig {
  static constexpr int kBM = BM_;              ///< rows of C per block
  static constexpr int kBN = BN_;              ///< columns of C per block
  static constexpr int kBK = BK_;              ///< depth of one pipeline stage
  static constexpr int kWarpM = WarpM_;        ///< rows of C per warp
  static constexpr int kWarpN = WarpN_;        ///< columns of C per warp
  static constexpr int kThreadM = ThreadM_;    ///< rows of C per lane (multiple of 4)
  static constexpr int kThreadN = ThreadN_;    ///< columns of C per lane (multiple of 4)
  static constexpr int kStages = Stages_;      ///< cp.async ring depth
  /// Blocks meant to share an SM: registers per thread are capped so they fit (launch bounds).
  static constexpr int kBlocksPerSm = BlocksPerSm_;

  static constexpr int kWarpsM = kBM / kWarpM;
  static constexpr int kWarpsN = kBN / kWarpN;
  static constexpr int kWarps = kWarpsM * kWarpsN;
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kLanesM = kWarpM / kThreadM;  ///< lanes along M in a warp
  static constexpr int kLanesN = kWarpN / kThreadN;
  static constexpr int kSubM = kThreadM / 4;         ///< 4 x 4 sub-blocks per lane along M
  static constexpr int kSubN = kThreadN / 4;
  static constexpr int kSubStrideM = 4 * kLanesM;    ///< rows between a lane's sub-blocks
  static constexpr int kSubStrideN = 4 * kLanesN;

  /// Shared tiles are k-major (a k row holds kBM or kBN elements) with 4 floats of padding per
  /// row: rows stay 16-byte aligned for the fragment loads, and the element-wise copies of
  /// K-contiguous operands land in 32 distinct banks at kBK = 8 (8 k by 4 rows per warp), 2-way
  /// at 16 and 4-way at 32 (tests/cuda/gemm/test_simt_layout.cpp replays them).
  static constexpr int kPitchA = kBM + 4;
  static constexpr int kPitchB = kBN + 4;
  static constexpr int kStageElementsA = kBK * kPitchA;
  static constexpr int kStageElementsB = kBK * kPitchB;

  static constexpr std::size_t smem_bytes() {
    return std::size_t(kStages) * (kStageElementsA + kStageElementsB) * sizeof(float);
  }
  /// Bytes of A and B moved from global memory per flop at full reuse: the model's RB input.
  static constexpr double bytes_per_flop() { return 4.0 * (kBM + kBN) / (2.0 * kBM * kBN); }

  static constexpr bool valid() {
    return kBM % kWarpM == 0 && kBN % kWarpN == 0 && kWarpM % kThreadM == 0 && kWarpN % kThreadN == 0 &&
           kThreadM % 4 == 0 && kThreadN % 4 == 0 && kBK % 2 == 0 && kLanesM * kLanesN == 32 && kStages >= 2 &&
           kThreads <= 1024 && kBlocksPerSm * smem_bytes() <= 227 * 1024 && (kBM * kBK) % kThreads == 0 &&
           (kBN * kBK) % kThreads == 0 && kThreads % kBK == 0;
  }

  static std::string name() {
    return std::to_string(kBM) + "x" + std::to_string(kBN) + "x" + std::to_string(kBK) + "_w" +
           std::to_string(kWarpM) + "x" + std::to_string(kWarpN) + "_t" + std::to_string(kThreadM) + "x" +
           std::to_string(kThreadN) + "_s" + std::to_string(kStages) +
           (kBlocksPerSm > 1 ? "_b" + std::to_string(kBlocksPerSm) : std::string());
  }
};

}  // namespace gemmkit::gemm
