/*! \file
    \brief Which bucket holds a small batched problem and which candidate shape each bucket runs,
    read from small_tuning.csv (compiled in); plain C++, so the table can be checked without a
    device.
*/
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace gemmkit::small {

/// A bucket of the small batched kernel: problems with m <= m, n <= n, k <= k of it.
struct SmallBucket {
  int m = 0, n = 0, k = 0;
  bool valid() const { return m > 0; }
  friend bool operator==(SmallBucket const&, SmallBucket const&) = default;
};

/// One candidate of SmallCandidates, described at run time (for the tuner and the table).
struct SmallCandidateInfo {
  int index;  ///< position in SmallCandidates
  SmallBucket bucket;
  int rows_per_thread;
  int cols_per_thread;
  int problems_per_block;
  int register_budget;  ///< registers per thread the kernel is compiled for
  int stages;           ///< groups of problems in shared memory at once
  int threads;
};

/// Every candidate, in SmallCandidates order.
std::vector<SmallCandidateInfo> const& small_candidates();

/// Every bucket some candidate runs, each once, in candidate order.
std::vector<SmallBucket> const& small_buckets();

/// The bucket that runs an m x n x k problem: of those that hold it, the one whose padded tiles
/// (M*K + K*N + M*N elements) are smallest, then the fewest padded multiply-adds; invalid past 32.
SmallBucket small_bucket_for(int m, int n, int k);

/// m n k / (m k + k n + 2 m n): multiply-adds per element of A, B and C an m x n x k problem
/// moves. The flat kernel's shared-memory loads per problem against the cycles its bytes take at
/// the bandwidth bound grow with it (about 0.19 of it with a load per operand per multiply-add on
/// the H100: 132 SMs, 3.1 TB/s, 1.98 GHz).
double multiply_adds_per_element(int m, int n, int k);

/// Whether an m x n x k problem of elements of element_bytes that `bucket` would copy element by
/// element runs in the flat kernel instead (flat_batched.hpp), for strided batches or pointer arrays.
bool small_flat_preferred(int element_bytes, int m, int n, int k, SmallBucket const& bucket, bool pointer_arrays);

/// Whether the flat kernel computes 2 x 2 blocks of C a thread (half the shared-memory loads per
/// multiply-add, more work past odd m and n) rather than single elements.
bool flat_two_by_two(int element_bytes, int m, int n, int k);

/// One row of small_tuning.csv.
struct SmallTuningRow {
  std::string gpu;    ///< gpu_tuning_key of the GPU it was tuned on
  int element_bytes;  ///< 8 (f64) or 4 (f32)
  SmallBucket bucket;
  int rows_per_thread, cols_per_thread, problems_per_block, register_budget, stages;
};

/// Parses the table's text; throws std::invalid_argument naming the line on a malformed row or a
/// row that names no candidate.
std::vector<SmallTuningRow> parse_small_tuning(std::string_view csv);

/// The key of a GPU's rows: its model, lower case, from its name ("NVIDIA H100 80GB HBM3": h100).
std::string gpu_tuning_key(std::string_view device_name);

/// The candidate index a table picks for a GPU's key, precision and bucket: the GPU's row, else the
/// row of the table's first key (the default for GPUs without rows), else the bucket's first candidate;
/// -1 for no such bucket.
int small_tuned_candidate(std::vector<SmallTuningRow> const& table, std::string_view gpu, int element_bytes,
                          SmallBucket bucket);
/// The same from the compiled-in table (small_tuning.csv).
int small_tuned_candidate(std::string_view gpu, int element_bytes, SmallBucket bucket);
/// The compiled-in table's pick for the current CUDA device (its key cached per device).
int small_tuned_candidate_here(int element_bytes, SmallBucket bucket, int device);

}  // namespace gemmkit::small
