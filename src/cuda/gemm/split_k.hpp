/*! \file
    \brief Split-K for the tiled GEMM kernels, host side: how K is divided (testable without a GPU)
    and the SM count it is planned for.
*/
#pragma once

#include "base/problem.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>

namespace gemmkit::gemm {

/// How split-K divides K: `slices` slices of `slice` elements (a multiple of BK; the last may be
/// shorter). Chosen so tiles x slices fills one wave (kBlocksPerSm blocks on every SM: a second,
/// partial wave would cost as much as a full one) while every slice keeps at least
/// kMinKTilesPerSlice k-tiles; a function of the problem and the SM count only, so the same call
/// always splits the same way (deterministic results).
struct SplitK {
  std::int64_t slices = 1;
  std::int64_t slice = 0;
};

/// Cfg: any tile config with kBM, kBN, kBK and kBlocksPerSm.
template <typename Cfg>
SplitK plan_split_k(GemmProblem const& problem, int sm_count) {
  constexpr std::int64_t kMinKTilesPerSlice = 8;
  std::int64_t const tiles = ((problem.m + Cfg::kBM - 1) / Cfg::kBM) * ((problem.n + Cfg::kBN - 1) / Cfg::kBN);
  std::int64_t const k_tiles = (problem.k + Cfg::kBK - 1) / Cfg::kBK;
  std::int64_t slices = std::int64_t(Cfg::kBlocksPerSm) * sm_count / tiles;
  slices = std::min<std::int64_t>({slices, k_tiles / kMinKTilesPerSlice, 65535});
  if (slices < 1) slices = 1;
  std::int64_t const slice = ((k_tiles + slices - 1) / slices) * Cfg::kBK;
  return SplitK{(problem.k + slice - 1) / slice, slice};
}

/// Split K fixed up in the kernel (SplitKFixup, split_k_fixup.cuh): the slices of a tile run as
/// adjacent blocks and its last slice adds the others' partial tiles, so no second kernel runs and
/// the partials stay in L2. The slice count is the variant's (the config sweep measures each and
/// the selection table picks); K is cut into that many slices of whole k-tiles, fewer where a
/// slice would get under kMinKTilesPerSlice of them.
template <typename Cfg>
SplitK plan_split_k_fixup(GemmProblem const& problem, int slices) {
  constexpr std::int64_t kMinKTilesPerSlice = 4;
  std::int64_t const k_tiles = (problem.k + Cfg::kBK - 1) / Cfg::kBK;
  std::int64_t const most = std::max<std::int64_t>(std::min<std::int64_t>(slices, k_tiles / kMinKTilesPerSlice), 1);
  std::int64_t const slice = ((k_tiles + most - 1) / most) * Cfg::kBK;
  return SplitK{std::max<std::int64_t>((problem.k + slice - 1) / slice, 1), slice};
}

/// SM count of the current device, read once per device.
int current_sm_count();

/// The ready flags of a launch whose blocks hand partial tiles to one another (the fixup and
/// stream-K forms): one per partial tile, set to the launch's epoch by the block that stored the
/// partial and put back to zero by the block that adds it. Every launch has a new epoch, a fixed
/// 64-bit pattern plus a serial: no zero, small integer, fill byte or likely float or double. So
/// the flags need no zeroing before a launch (no memset, no second node in a graph): whatever an
/// earlier call or another user of the workspace left there reads as "not ready". The replays of a
/// captured graph repeat one epoch, and each leaves the flags zero.
struct PartialFlags {
  std::uint64_t* ready = nullptr;
  std::uint64_t epoch = 0;
};

/// A new epoch for a launch's PartialFlags (thread-safe).
std::uint64_t next_partial_epoch();

/// Bytes of `count` ready flags, rounded up so that what follows them starts on 256 bytes.
inline std::size_t partial_flags_bytes(std::int64_t count) {
  return (std::size_t(count) * sizeof(std::uint64_t) + 255) / 256 * 256;
}

/// Workspace of the split-K form: one packed m x n partial result per slice (none when the plan
/// does not split).
template <typename Cfg, typename T>
std::size_t split_k_workspace_bytes(GemmProblem const& problem) {
  SplitK const split = plan_split_k<Cfg>(problem, current_sm_count());
  return split.slices > 1 ? std::size_t(split.slices) * std::size_t(problem.m) * std::size_t(problem.n) * sizeof(T) : 0;
}

/// The fixup form's second kernel argument: blockIdx.x numbers (tile, slice) pairs, slice fastest;
/// every slice but the last stores its partial tile in `partials` and marks its flag ready; the
/// tile's last slice waits for them, adds them in slice order and stores C.
template <typename T>
struct SplitKFixup {
  int slices = 1;
  PartialFlags flags;
  T* partials = nullptr;
};

/// Where the fixup form keeps its state in the workspace: a ready flag per partial tile, then the
/// partial tiles, (slices - 1) per tile of every batch entry, from a 256-byte boundary.
struct SplitKFixupLayout {
  std::size_t partials_offset = 0;  ///< bytes from the workspace start
  std::size_t bytes = 0;            ///< the whole workspace; 0 when the plan does not split
};

template <typename Cfg, typename T>
SplitKFixupLayout split_k_fixup_layout(GemmProblem const& problem, SplitK const& split) {
  if (split.slices <= 1) return {};
  std::size_t const tiles = std::size_t((problem.m + Cfg::kBM - 1) / Cfg::kBM) *
                            std::size_t((problem.n + Cfg::kBN - 1) / Cfg::kBN) *
                            std::size_t(std::max<std::int64_t>(problem.batch, 1));
  std::size_t const partial_tiles = tiles * std::size_t(split.slices - 1);
  std::size_t const flags = partial_flags_bytes(std::int64_t(partial_tiles));
  return {flags, flags + partial_tiles * Cfg::kBM * Cfg::kBN * sizeof(T)};
}

/// Workspace of the fixup form in `slices` for the problem whose m x n the launch tiles.
template <typename Cfg, typename T>
std::size_t split_k_fixup_workspace_bytes(GemmProblem const& tiles_shape, int slices) {
  return split_k_fixup_layout<Cfg, T>(tiles_shape, plan_split_k_fixup<Cfg>(tiles_shape, slices)).bytes;
}

}  // namespace gemmkit::gemm
