/*! \file
    \brief Where a worker's buffers live in its one device allocation (the arena): panel and C-block
    slots with leading dimensions padded for aligned copies, the kernel workspace; the planning
    budget that leaves room for that padding; and the column sub-blocks level 4 cuts a C block
    into. Plain C++, tested without a GPU.
*/
#pragma once

#include "base/problem.hpp"
#include "ooc/planner.hpp"

#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace gemmkit::ooc {

/// Leading dimensions of device buffers are multiples of this many elements, so the kernels' 16-byte
/// copies apply to every tile and columns start on 64-byte boundaries (f64).
inline constexpr std::int64_t kDeviceLdAlign = 8;
/// Each buffer starts on this many bytes.
inline constexpr std::size_t kBufferAlign = 256;

struct DeviceLayout {
  /// Stored (before op) leading dimensions of the A panel, B panel and C block buffers.
  std::int64_t lda = 0, ldb = 0, ldc = 0;
  std::size_t a_offset[2] = {}, b_offset[2] = {}, c_offset[2] = {};
  std::size_t workspace_offset = 0;
  std::size_t total_bytes = 0;
};

/// The arena of one worker for `plan` and the problem's transposes: two slots of each panel kind
/// and two C blocks (what the planner counts), then `kernel_workspace` bytes.
DeviceLayout device_layout(Plan const& plan, GemmProblem const& problem, std::size_t kernel_workspace);

/// The budget handed to the planner so the padded arena and a kernel workspace still fit `budget`.
std::size_t planning_budget(std::size_t budget);

/// Level 4: [begin, end) column ranges of a C block `cols` wide, at most `parts` of them, inner
/// boundaries on multiples of 64 columns; they cover [0, cols) in order.
std::vector<std::pair<std::int64_t, std::int64_t>> sub_blocks(std::int64_t cols, int parts);

}  // namespace gemmkit::ooc
