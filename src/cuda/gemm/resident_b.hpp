/*! \file
    \brief The B-resident form of the tiled FP64 GEMM, host side (testable without a GPU): when a
    column panel of B, all of K, fits in shared memory beside the A ring, persistent blocks each
    keep one panel and stream their row tiles of A through the ring, which runs on from one tile to
    the next. Tall and skinny products (262144 x 64 x 64) are bound by reading A and writing C; the
    tile-per-block kernels reload B from L2 for every tile and leave the memory idle between one
    block's last k-tile and the next block's prologue.
*/
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace gemmkit::gemm {

/// Depth of the A ring in k-tiles. With two blocks an SM, what one SM has in flight is 2 x (ring - 1)
/// k-tiles; 8 deep was no faster than 4 (H100 sweeps over bench/shapes/resident-b.txt, 2026-11-24:
/// 262144x64x64 2351 against 2388 GB/s, 1048576x16x16 2448 / 2424,
/// 16384^2 x 64 29.2 / 29.4 TFLOP/s), so what holds the form back there is not bytes in flight.
inline constexpr int kResidentBRing = 4;

/// Shared memory of one block that keeps a kBN x K panel of B: the A ring, then the panel's k-tiles.
template <typename Cfg>
constexpr std::size_t resident_b_smem_bytes(std::int64_t k) {
  std::int64_t const k_tiles = (k + Cfg::kBK - 1) / Cfg::kBK;
  return (std::size_t(kResidentBRing) * Cfg::kStageElementsA + std::size_t(k_tiles) * Cfg::kStageElementsB) *
         sizeof(double);
}

/// Blocks meant to share an SM: two, so one's MMAs and stores run while the other waits on A, with
/// the registers of a block-per-SM budget of 255 (at the tiled configs' 3 blocks, 168, the kernel
/// spilled).
inline constexpr int kResidentBBlocksPerSm = 2;

/// A block's shared memory where two still share an SM on sm_90 (228 KB an SM, 1 KB kept per block).
inline constexpr std::size_t kResidentBMaxSmemBytes = 113 * 1024;

/// Whether B's panel for depth k fits (k > 0; K = 0 is the dispatcher's).
template <typename Cfg>
constexpr bool resident_b_fits(std::int64_t k) {
  return k > 0 && resident_b_smem_bytes<Cfg>(k) <= kResidentBMaxSmemBytes;
}

/// Persistent blocks per column panel of C: every resident slot of the launch busy (`slots` = blocks
/// per SM x SMs, shared by the column panels and the batch entries of one grid), each block with at
/// least one row tile. Block b takes column panel b % tiles_n and row tiles b / tiles_n, plus
/// multiples of the result.
inline std::int64_t resident_b_blocks_per_column(std::int64_t tiles_m, std::int64_t tiles_n, std::int64_t batch,
                                                 std::int64_t slots) {
  std::int64_t const columns = tiles_n * std::max<std::int64_t>(batch, 1);
  return std::clamp<std::int64_t>(slots / columns, 1, tiles_m);
}

}  // namespace gemmkit::gemm
