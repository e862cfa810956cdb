/*! \file
    \brief The small batched kernel's buckets and tuning table: candidate descriptions, the bucket
    lookup and the parsed CSV.
*/
#include "cuda/batched/small_tuning.hpp"

#include "base/csv_rows.hpp"
#include "base/device.hpp"
#include "cuda/batched/small_batched_config.hpp"
#include "cuda/batched/small_tuning_data.hpp"

#include <algorithm>
#include <sstream>
#include <stdexcept>
#include <utility>

namespace gemmkit::small {

std::vector<SmallCandidateInfo> const& small_candidates() {
  static std::vector<SmallCandidateInfo> const all = [] {
    std::vector<SmallCandidateInfo> out;
    [&]<std::size_t... I>(std::index_sequence<I...>) {
      ((out.push_back({int(I),
                       SmallBucket{std::tuple_element_t<I, SmallCandidates>::kM, std::tuple_element_t<I, SmallCandidates>::kN,
                                   std::tuple_element_t<I, SmallCandidates>::kK},
                       std::tuple_element_t<I, SmallCandidates>::kRowsPerThread,
                       std::tuple_element_t<I, SmallCandidates>::kColsPerThread,
                       std::tuple_element_t<I, SmallCandidates>::kProblemsPerBlock,
                       std::tuple_element_t<I, SmallCandidates>::kRegisterBudget,
                       std::tuple_element_t<I, SmallCandidates>::kStages,
                       std::tuple_element_t<I, SmallCandidates>::kThreads})),
       ...);
    }(std::make_index_sequence<kSmallCandidateCount>{});
    return out;
  }();
  return all;
}

std::vector<SmallBucket> const& small_buckets() {
  static std::vector<SmallBucket> const all = [] {
    std::vector<SmallBucket> out;
    for (SmallCandidateInfo const& c : small_candidates()) {
      if (std::find(out.begin(), out.end(), c.bucket) == out.end()) out.push_back(c.bucket);
    }
    return out;
  }();
  return all;
}

SmallBucket small_bucket_for(int m, int n, int k) {
  SmallBucket best;
  auto padded_elements = [](SmallBucket const& b) { return b.m * b.k + b.k * b.n + b.m * b.n; };
  auto padded_volume = [](SmallBucket const& b) { return b.m * b.n * b.k; };
  for (SmallBucket const& b : small_buckets()) {
    if (b.m < m || b.n < n || b.k < k) continue;
    if (!best.valid() || padded_elements(b) < padded_elements(best) ||
        (padded_elements(b) == padded_elements(best) && padded_volume(b) < padded_volume(best))) {
      best = b;
    }
  }
  return best;
}

double multiply_adds_per_element(int m, int n, int k) {
  return double(m) * n * k / (double(m) * k + double(k) * n + 2.0 * m * n);
}

// Measured on the H100, 2026-11-22 (several runs that day), strided batches, % of the bandwidth
// bound (flat 1 x 1 / flat 2 x 2 / padded bucket; f64, then f32), multiply-adds per element in
// brackets:
//   5x7x3 (1.0)    86.6 / - / 77.0,  80.1 / - / 59.2
//   20x12x6 (2.1)  91.7 / 82.6 / 79.4,  86.7 / 81.4 / 60.3
//   12x24x6 (2.2)  91.6 / 78.8 / 82.5,  84.5 / 80.6 / 68.0
//   9x9x9 (2.25)   90.3 / 78.2 / 84.1,  83.9 / 78.9 / 45.4
//   24x24x8 (3.0)  87.4 / 81.9 / 83.9,  70.2 / 80.9 / 70.9
//   20x12x28 (4.9) 33.0 / 77.2 / 60.1,  36.6 / 71.2 / 42.2
// Pointer arrays (flat / bucket, f64 then f32; the flat kernel's copies there are element by
// element unless a problem is whole 16-byte copies): flat ahead at 5x7x3 84 / 78, 73 / 63;
// 9x3x1 84 / 64, 77 / 50; 20x12x6 91 / 64, 80 / 61; 12x24x6 90 / 69, 79 / 61; and 20x12x28,
// padded to 32x16x32, 71 / 54, 71 / 42; behind at 24x24x8 (3.0) 71 / 84, 50 / 72 and at 11, 13,
// 15, 17 and 19 cubed in float (46-57 against 56-68).
// Strided double, flat / bucket: ahead at 9, 11 cubed (87 / 85, 80 / 77) and 24x24x8 (3.0)
// 89 / 84; behind at 13, 15, 17, 19 cubed (80 / 85, 84 / 88, 61 / 66, 68 / 75). Strided float:
// ahead everywhere measured up to 5. Current results: docs/perf-batched-gpu.md.
bool small_flat_preferred(int element_bytes, int m, int n, int k, SmallBucket const& bucket, bool pointer_arrays) {
  double const ratio = multiply_adds_per_element(m, n, k);
  if (ratio > 5.0) return false;
  if (!pointer_arrays && element_bytes == 4) return true;
  double const padding = double(bucket.m) * bucket.n * bucket.k / (double(m) * n * k);
  return ratio <= (pointer_arrays ? 2.2 : 3.0) || padding >= 2.0;
}

bool flat_two_by_two(int element_bytes, int m, int n, int k) {
  return multiply_adds_per_element(m, n, k) > (element_bytes == 8 ? 3.0 : 2.5);
}

namespace {

int find_candidate(SmallTuningRow const& row) {
  for (SmallCandidateInfo const& c : small_candidates()) {
    if (c.bucket == row.bucket && c.rows_per_thread == row.rows_per_thread && c.cols_per_thread == row.cols_per_thread &&
        c.problems_per_block == row.problems_per_block && c.register_budget == row.register_budget &&
        c.stages == row.stages) {
      return c.index;
    }
  }
  return -1;
}

}  // namespace

std::vector<SmallTuningRow> parse_small_tuning(std::string_view csv) {
  std::vector<SmallTuningRow> rows;
  for_each_csv_row(csv, "gpu,dtype,m,n,k,rows_per_thread,cols_per_thread,problems_per_block,registers,stages",
                   "small tuning table", [&](std::string const& line, int number) {
    std::istringstream fields(line);
    std::string dtype;
    char comma = 0;
    SmallTuningRow row{};
    std::getline(fields, row.gpu, ',');
    std::getline(fields, dtype, ',');
    if (!(fields >> row.bucket.m >> comma >> row.bucket.n >> comma >> row.bucket.k >> comma >> row.rows_per_thread >> comma >> row.cols_per_thread >> comma >> row.problems_per_block >> comma >>
          row.register_budget >> comma >> row.stages) ||
        (dtype != "f64" && dtype != "f32") || row.gpu.empty() || gpu_tuning_key(row.gpu) != row.gpu) {
      throw std::invalid_argument("small tuning table line " + std::to_string(number) + ": malformed '" + line + "'");
    }
    row.element_bytes = dtype == "f64" ? 8 : 4;
    if (find_candidate(row) < 0) {
      throw std::invalid_argument("small tuning table line " + std::to_string(number) + ": no candidate shape " +
                                  line.substr(row.gpu.size() + dtype.size() + 2));
    }
    rows.push_back(row);
  });
  return rows;
}

std::string gpu_tuning_key(std::string_view device_name) {
  std::string_view name = device_name;
  if (name.rfind("NVIDIA ", 0) == 0) name.remove_prefix(7);
  std::string key;
  for (char c : name) {
    bool const digit = c >= '0' && c <= '9', upper = c >= 'A' && c <= 'Z', lower = c >= 'a' && c <= 'z';
    if (!digit && !upper && !lower && c != '-') break;
    key += upper ? char(c - 'A' + 'a') : c;
  }
  return key;
}

int small_tuned_candidate(std::vector<SmallTuningRow> const& table, std::string_view gpu, int element_bytes,
                          SmallBucket bucket) {
  auto const row_for = [&](std::string_view key) {
    for (SmallTuningRow const& row : table) {
      if (row.gpu == key && row.element_bytes == element_bytes && row.bucket == bucket) return find_candidate(row);
    }
    return -1;
  };
  if (int const c = row_for(gpu); c >= 0) return c;
  if (!table.empty()) {
    if (int const c = row_for(table.front().gpu); c >= 0) return c;
  }
  for (SmallCandidateInfo const& c : small_candidates()) {
    if (c.bucket == bucket) return c.index;
  }
  return -1;
}

int small_tuned_candidate(std::string_view gpu, int element_bytes, SmallBucket bucket) {
  static std::vector<SmallTuningRow> const table = parse_small_tuning(kSmallTuningCsv);
  return small_tuned_candidate(table, gpu, element_bytes, bucket);
}

int small_tuned_candidate_here(int element_bytes, SmallBucket bucket, int device) {
  static std::vector<std::string> const keys = [] {
    std::vector<std::string> out;
    for (int d = 0; d < device_count(); ++d) out.push_back(gpu_tuning_key(device_name(d)));
    return out;
  }();
  std::string_view const key = device >= 0 && device < int(keys.size()) ? std::string_view(keys[std::size_t(device)])
                                                                          : std::string_view();
  return small_tuned_candidate(key, element_bytes, bucket);
}

}  // namespace gemmkit::small
