/*! \file
    \brief Split-K for the tiled GEMM kernels, host side: how K is divided (testable without a GPU)
    and the SM count it is planned for.
*/
#pragma once

#include "core/problem.hpp"

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

/// Slices of K the cluster form may use: the slices of one tile are one thread-block cluster, and
/// 8 blocks is the cluster size every sm_90 part guarantees.
inline constexpr std::int64_t kMaxClusterSlices = 8;

/// How the cluster form divides K: the slices of a tile run as one cluster and sum their partial
/// tiles through distributed shared memory in rank order, in the same kernel (no workspace, no
/// second pass). Unlike split-K above it may run several waves: it fills a partial last wave. The
/// count minimises an estimate of the busiest SM's time: its blocks run in waves of
/// kBlocksPerSm, each wave as long as (k-tiles per slice + a fixed cost) x its blocks, where fewer
/// blocks than half of kBlocksPerSm cost as much as that half (a lone block is latency-bound).
/// A slice keeps at least kMinKTilesPerSlice k-tiles, and the count divides `pair_count` (each
/// block of the cluster owns as many accumulator pairs). A function of the problem and the SM
/// count only (deterministic).
template <typename Cfg>
SplitK plan_cluster_split(GemmProblem const& problem, int sm_count, int pair_count) {
  constexpr std::int64_t kMinKTilesPerSlice = 4;
  constexpr double kFixedKTiles = 2.0;  // prologue, epilogue and the cluster's reduction
  constexpr std::int64_t kLatencyBlocks = (Cfg::kBlocksPerSm + 1) / 2;
  std::int64_t const tiles = ((problem.m + Cfg::kBM - 1) / Cfg::kBM) * ((problem.n + Cfg::kBN - 1) / Cfg::kBN);
  std::int64_t const k_tiles = (problem.k + Cfg::kBK - 1) / Cfg::kBK;
  std::int64_t const sms = sm_count > 0 ? sm_count : 1;
  auto estimate = [&](std::int64_t slices) {
    std::int64_t const per_slice = (k_tiles + slices - 1) / slices;
    std::int64_t const blocks = (tiles * slices + sms - 1) / sms;  // on the busiest SM
    std::int64_t const full_waves = blocks / Cfg::kBlocksPerSm, last = blocks % Cfg::kBlocksPerSm;
    double const wave_blocks = double(full_waves * Cfg::kBlocksPerSm) + (last > 0 ? double(std::max(last, kLatencyBlocks)) : 0.0);
    return (double(per_slice) + kFixedKTiles) * std::max(wave_blocks, double(kLatencyBlocks));
  };
  std::int64_t best = 1;
  for (std::int64_t slices = 2; slices <= kMaxClusterSlices && k_tiles / slices >= kMinKTilesPerSlice; ++slices) {
    if (pair_count % slices != 0) continue;
    if (estimate(slices) < 0.97 * estimate(best)) best = slices;  // a split must win clearly
  }
  std::int64_t const slice = ((k_tiles + best - 1) / best) * Cfg::kBK;
  return SplitK{(problem.k + slice - 1) / slice, slice};
}

/// SM count of the current device, read once per device.
int current_sm_count();

/// Workspace of the split-K form: one packed m x n partial result per slice (none when the plan
/// does not split).
template <typename Cfg, typename T>
std::size_t split_k_workspace_bytes(GemmProblem const& problem) {
  SplitK const split = plan_split_k<Cfg>(problem, current_sm_count());
  return split.slices > 1 ? std::size_t(split.slices) * std::size_t(problem.m) * std::size_t(problem.n) * sizeof(T) : 0;
}

}  // namespace gemmkit::gemm
