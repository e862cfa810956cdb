/*! \file
    \brief A worker's device arena layout, the planning margin and level 4's C sub-blocks.
*/
#include "ooc/device_layout.hpp"

#include <algorithm>

namespace gemmkit::ooc {

namespace {

std::int64_t round_up(std::int64_t value, std::int64_t multiple) { return (value + multiple - 1) / multiple * multiple; }

}  // namespace

DeviceLayout device_layout(Plan const& plan, GemmProblem const& p, std::size_t kernel_workspace) {
  DeviceLayout l;
  std::size_t const e = size_of(p.dtype);
  // Stored shapes: A panel is rows x depth (N) or depth x rows (T); B panel depth x cols (N) or
  // cols x depth (T); the C block rows x cols.
  bool const ta = is_transposed(p.trans_a), tb = is_transposed(p.trans_b);
  l.lda = round_up(ta ? plan.tile_depth : plan.tile_rows, kDeviceLdAlign);
  l.ldb = round_up(tb ? plan.tile_cols : plan.tile_depth, kDeviceLdAlign);
  l.ldc = round_up(plan.tile_rows, kDeviceLdAlign);
  auto bytes = [&](std::int64_t ld, std::int64_t columns) {
    return std::size_t(round_up(std::int64_t(std::size_t(ld) * std::size_t(columns) * e), std::int64_t(kBufferAlign)));
  };
  std::size_t const a = bytes(l.lda, ta ? plan.tile_rows : plan.tile_depth);
  std::size_t const b = bytes(l.ldb, tb ? plan.tile_depth : plan.tile_cols);
  std::size_t const c = bytes(l.ldc, plan.tile_cols);
  std::size_t at = 0;
  for (int s = 0; s < 2; ++s) l.a_offset[s] = at, at += a;
  for (int s = 0; s < 2; ++s) l.b_offset[s] = at, at += b;
  for (int s = 0; s < 2; ++s) l.c_offset[s] = at, at += c;
  l.workspace_offset = at;
  l.total_bytes = at + std::size_t(round_up(std::int64_t(kernel_workspace), std::int64_t(kBufferAlign)));
  return l;
}

std::size_t planning_budget(std::size_t budget) {
  // Padding adds at most 7 elements per column of each buffer (< 3% at the 256-wide granule) and
  // the 256-byte rounding 1.5 KiB; a kernel's workspace takes only what is left (Worker::set_up).
  return budget - budget / 32;
}

std::vector<std::pair<std::int64_t, std::int64_t>> sub_blocks(std::int64_t cols, int parts) {
  constexpr std::int64_t kStep = 64;
  std::int64_t const count = std::max<std::int64_t>(1, std::min<std::int64_t>(parts, (cols + kStep - 1) / kStep));
  std::vector<std::pair<std::int64_t, std::int64_t>> out;
  std::int64_t begin = 0;
  for (std::int64_t s = 1; s <= count && begin < cols; ++s) {
    std::int64_t const end = s == count ? cols : std::min(cols, round_up(cols * s / count, kStep));
    if (end > begin) out.emplace_back(begin, end);
    begin = end;
  }
  return out;
}

}  // namespace gemmkit::ooc
