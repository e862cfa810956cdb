/*! \file
    \brief `batched` on the GPU, its report: the table's rows, the JSON lines, the run's summary and
           the goal check at the end.
*/
#pragma once

#include "batched_gpu_cases.hpp"
#include "json_writer.hpp"
#include "machine_info.hpp"
#include "table_printer.hpp"

#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gemmkit::bench {

/// One reported case, kept for the goal check at the end.
struct RowDigest {
  Dtype dtype;
  std::int64_t m, n, k;
  double beta;
  double pct_bound;        ///< gemmkit's strided call
  double ratio_strided;    ///< gemmkit / cuBLAS strided
  double ptr_pct_bound;    ///< gemmkit_ptr
  double ratio_ptr;        ///< gemmkit_ptr / cuBLAS pointer-array
  bool square() const { return m == n && n == k; }
};

/// A reported grouped case, for the goal check.
struct GroupedDigest {
  Dtype dtype;
  double pct_bound;  ///< gemmkit's grouped call, of the bound from the problems' bytes
  double ratio;      ///< gemmkit / cuBLAS grouped
};

/// The bound's pass: launch shape and timings.
struct BoundResult {
  std::string kernel;      ///< the launch shape that was fastest in the warm-up
  Stats time;              ///< ms per pass
  std::string error;
};

class BatchedGpuReport {
 public:
  BatchedGpuReport(BatchedSettings const& settings, MachineInfo const& machine, std::string suite, std::string section,
                   JsonLinesFile* json)
      : set_(settings), machine_(machine), suite_(std::move(suite)), section_(std::move(section)), json_(json) {}

  /// Prints the table's header; the rows follow as cases are reported.
  void begin();
  /// One strided case: the bound's row, then each implementation's (gemmkit's strided call first).
  void report(BatchedOperands const& ops, std::vector<ImplResult> const& results, BoundResult const& bound);
  /// The grouped case `g`; B from the stream pass over stream_bytes.
  void report_grouped(GroupedCase const& g, double stream_bytes, std::vector<ImplResult> const& results,
                      BoundResult const& bound);
  void report_skipped(std::string const& case_label, std::int64_t m, std::int64_t n, std::int64_t k, Dtype dtype,
                      std::string const& why);
  void print_goal_check() const;
  BatchedSummary& summary() { return summary_; }

 private:
  /// A JSON row's keys after the case's own: every implementation's, the peers, status and message,
  /// device and run; then writes it.
  void write_row_tail(JsonObject& row, std::vector<ImplResult> const& results, BoundResult const& bound,
                      double bound_gf);
  /// The table's rows of one case: the bound, then each implementation. `head` holds the dtype, m,
  /// n and k cells; same_form gives gemmkit's GF/s in a row's API form (NaN: none).
  void print_case_rows(std::vector<std::string> const& head, std::int64_t batch, BoundResult const& bound,
                       double bandwidth, double bound_gf, std::vector<ImplResult> const& results,
                       std::function<double(ImplResult const&)> const& same_form);
  std::vector<TableColumn> columns() const;

  BatchedSettings const& set_;
  MachineInfo const& machine_;
  std::string suite_, section_;
  JsonLinesFile* json_;
  std::unique_ptr<TablePrinter> table_;
  std::vector<RowDigest> digests_;
  std::vector<GroupedDigest> grouped_digests_;
  BatchedSummary summary_;
};

}  // namespace gemmkit::bench
