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
