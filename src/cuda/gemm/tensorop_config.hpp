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
template <int BM_, int BN_, int BK_, int WarpM_, int WarpN_, int Stages_>
struct TensorOpConfig {
  static constexpr int kBM = BM_;          ///< rows of C per block
  static constexpr int kBN = BN_;          ///< columns of C per block
  static constexpr int kBK = BK_;          ///< depth of one pipeline stage
  static constexpr int kWarpM = WarpM_;    ///< rows of C per warp
  static constexpr int kWarpN = WarpN_;    ///< columns of C per warp
  static constexpr int kStages = Stages_;  ///< cp.async ring depth

  static constexpr int kMmaM = 16, kMmaN = 8, kMmaK = 16;
  static constexpr int kWarpsM = kBM / kWarpM;
  static constexpr int kWarpsN = kBN / kWarpN;
  static constexpr int kWarps = kWarpsM * kWarpsN;
  static constexpr int kThreads = 32 * kWarps;
  static constexpr int kFragsM = kWarpM / kMmaM;  ///< MMAs per warp along M
  static constexpr int kFragsN = kWarpN / kMmaN;  ///< MMAs per warp along N

  /// Shared-memory rows are padded by 4 doubles: with a row pitch of 4 (mod 16) doubles the 16
  /// lanes of each half-warp hit 16 distinct 8-byte bank pairs when reading fragments, for both
  /// the MN-contiguous and the K-contiguous layout, and rows stay 16-byte aligned for cp.async.
  static constexpr int kPad = 4;
  static constexpr int tile_elements(int mn) {
    int const mn_contiguous = kBK * (mn + kPad);
    int const k_contiguous = mn * (kBK + kPad);
    return mn_contiguous > k_contiguous ? mn_contiguous : k_contiguous;
  }
  static constexpr int kStageElementsA = tile_elements(kBM);
  static constexpr int kStageElementsB = tile_elements(kBN);

  static constexpr std::size_t smem_bytes() {
    return std::size_t(kStages) * (kStageElementsA + kStageElementsB) * sizeof(double);
  }
  /// Accumulator registers per thread (doubles), the dominant register cost.
  static constexpr int accumulators_per_thread() { return kFragsM * kFragsN * 4; }
  /// Bytes of A and B moved from global memory per flop at full reuse: the model's RB input.
  static constexpr double bytes_per_flop() { return 8.0 * (kBM + kBN) / (2.0 * kBM * kBN); }

  static constexpr bool valid() {
    return kBM % kWarpM == 0 && kBN % kWarpN == 0 && kWarpM % kMmaM == 0 && kWarpN % kMmaN == 0 &&
           kBK % kMmaK == 0 && kStages >= 2 && kThreads <= 1024 && smem_bytes() <= 227 * 1024 &&
           accumulators_per_thread() <= 64 && (kBM * kBK / 2) % kThreads == 0 && (kBN * kBK / 2) % kThreads == 0;
  }

  static std::string name() {
    return std::to_string(kBM) + "x" + std::to_string(kBN) + "x" + std::to_string(kBK) + "_w" +
           std::to_string(kWarpM) + "x" + std::to_string(kWarpN) + "_s" + std::to_string(kStages);
  }
};

}  // namespace gemmkit::gemm
