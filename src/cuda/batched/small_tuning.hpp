/*! \file
    \brief Which candidate shape each size bucket of the small batched GPU kernel runs, read from
    small_tuning.csv (compiled in); plain C++, so the table can be checked without a device.
*/
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gemmkit::small {

/// One candidate of SmallCandidates, described at run time (for the tuner and the table).
struct SmallCandidateInfo {
  int index;               ///< position in SmallCandidates
  int size;                ///< bucket: problems with max(m, n, k) <= size
  int rows_per_thread;
  int cols_per_thread;
  int problems_per_block;
  int threads;
};

/// Every candidate, in SmallCandidates order.
std::vector<SmallCandidateInfo> const& small_candidates();

/// The smallest bucket size holding max(m, n, k), or -1 past 32.
int small_bucket_size(int m, int n, int k);

/// One row of small_tuning.csv.
struct SmallTuningRow {
  int element_bytes;  ///< 8 (f64) or 4 (f32)
  int size, rows_per_thread, cols_per_thread, problems_per_block;
};

/// Parses the table's text; throws std::invalid_argument naming the line on a malformed row or a
/// row that names no candidate.
std::vector<SmallTuningRow> parse_small_tuning(std::string_view csv);

/// The candidate index the compiled-in table picks for this precision and bucket size (the
/// bucket's first candidate when the table has no row for it).
int small_tuned_candidate(int element_bytes, int size);

}  // namespace gemmkit::small
