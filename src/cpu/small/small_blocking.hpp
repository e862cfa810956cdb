/*! \file
    \brief The CPU small kernels' tuning table: which blocking (SmallBlocking) each square size runs
    per ISA and precision, parsed from small_blocking.csv (written by `gemmkit-bench batched --cpu
    --tune`) and applied to the kernel table small_kernels_for_this_cpu returns.
*/
#pragma once

#include "cpu/small/small_kernels.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace gemmkit::cpu {

/// One row: on `isa` ("avx512", "avx2"), for element_bytes 8 or 4, size n x n x n runs `blocking`.
struct SmallBlockingRow {
  std::string isa;
  int element_bytes = 0;
  int size = 0;
  SmallBlocking blocking = SmallBlocking::kBalanced;
};

/// "balanced", "widest", "narrow".
char const* to_string(SmallBlocking blocking);

/// The rows of a table (header "isa,dtype,n,blocking"; '#' lines are comments); throws
/// std::invalid_argument naming the line of a malformed row, an unknown blocking or a size past
/// kSmallMax.
std::vector<SmallBlockingRow> parse_small_blocking(std::string_view csv);

/// The committed table, parsed once.
std::vector<SmallBlockingRow> const& small_blocking_table();

/// `table` with square[s] set to the blocking the rows name for its ISA and precision (sizes
/// without a row keep the balanced one).
template <typename T>
SmallKernelTable<T> with_tuned_blocking(SmallKernelTable<T> table, std::vector<SmallBlockingRow> const& rows);

}  // namespace gemmkit::cpu
