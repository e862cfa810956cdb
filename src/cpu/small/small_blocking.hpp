/*! \file
    \brief The CPU small kernels' tuning table: which blocking (SmallBlocking) and prefetch
    (SmallPrefetch) each size runs per CPU (vendor and family), ISA and precision, parsed from small_blocking.csv
    (written by `gemmkit-bench batched --cpu --tune`) and applied to the kernel table
    small_kernels_for_this_cpu returns.
*/
#pragma once

#include "cpu/cpu_features.hpp"  // this_cpu_tuning_key: the key of this CPU's rows ("other": none)
#include "cpu/small/small_kernels.hpp"

#include <string>
#include <string_view>
#include <vector>

namespace gemmkit::cpu {

/// One row: on a `cpu` (a this_cpu_tuning_key: "intel", "amd-zen4", "amd-zen5", "amd") with `isa` ("avx512", "avx2"), for element_bytes 8 or 4,
/// the square kernel of size n x n x n runs `blocking`, `prefetch` and `vectors`, the by_m kernel
/// of n rows runs `vectors` and `by_m_prefetch`; on packed batches of s x s x s problems `packed`
/// says whether the packed kernel (SmallKernelTable::packed_variant, with the row's prefetch) or the
/// square kernel runs, where the size has a packed kernel.
struct SmallBlockingRow {
  std::string cpu;
  std::string isa;
  int element_bytes = 0;
  int size = 0;
  SmallBlocking blocking = SmallBlocking::kBalanced;
  SmallPrefetch prefetch = SmallPrefetch::kNone;
  SmallVectors vectors = SmallVectors::kWide;
  SmallPrefetch by_m_prefetch = SmallPrefetch::kNone;
  SmallPacked packed = SmallPacked::kFlat;
};

inline constexpr std::string_view kSmallBlockingHeader =
    "cpu,isa,dtype,n,blocking,prefetch,vectors,by_m_prefetch,packed";

/// The keys this_cpu_tuning_key can return for rows ("other" is not one), in the order the table
/// groups its rows.
inline constexpr std::string_view kTuningKeys[] = {"intel", "amd-zen4", "amd-zen5", "amd"};

/// Whether `cpu` is one of kTuningKeys.
bool is_tuning_key(std::string_view cpu);

/// "balanced", "widest", "narrow".
char const* to_string(SmallBlocking blocking);
/// "none", "next", "ahead".
char const* to_string(SmallPrefetch prefetch);
/// "wide", "split".
char const* to_string(SmallVectors vectors);
/// "flat", "columns".
char const* to_string(SmallPacked packed);

/// The rows of a table (header kSmallBlockingHeader; '#' lines are comments); throws
/// std::invalid_argument naming the line of a malformed row, an unknown blocking, prefetch or
/// vectors, a size past kSmallMax, or a second row for the same cpu, isa, dtype and size.
std::vector<SmallBlockingRow> parse_small_blocking(std::string_view csv);

/// The committed table: its text, and its rows parsed once.
std::string_view small_blocking_csv();
std::vector<SmallBlockingRow> const& small_blocking_table();

/// One row as a line of the table (no newline).
std::string format_small_blocking_row(SmallBlockingRow const& row);

/// `table` with square[s] and by_m[s] set to the variants the rows of `cpu` name for its ISA and
/// precision (sizes without a row keep the defaults: balanced, default_*_prefetch, wide), and
/// packed[s] to the packed kernel with the row's prefetch where the row says flat (none where it
/// says columns).
template <typename T>
SmallKernelTable<T> with_tuned_blocking(SmallKernelTable<T> table, std::vector<SmallBlockingRow> const& rows,
                                        std::string_view cpu);

}  // namespace gemmkit::cpu
