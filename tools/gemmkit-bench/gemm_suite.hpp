/*! \file
    \brief The gemm suite: which cases to run, and the table, JSON lines and summary they produce.
*/
#pragma once

#include "gemm_runner.hpp"
#include "json_writer.hpp"
#include "machine_info.hpp"
#include "options.hpp"

#include <optional>
#include <string>
#include <vector>

namespace gemmkit::bench {

/// The bound a row's GFLOP/s is compared against, and where the number comes from.
struct Bound {
  double gflops = kNotMeasured;
  std::string source;
};

/// --peak-gflops when given; else the built-in description of the GPU (model::builtin_machine); else none.
/// Never a guess: a CPU has no default (OpenBLAS's own rate is not a peak).
Bound peak_for(MachineInfo const& machine, Platform backend, Dtype dtype, std::optional<double> peak_override);

/// The default shape set of `gemm` (suites dgemm/sgemm, or no sizes given) for a backend: the shapes
/// file bench/shapes/dgemm-suite.txt on the GPU, cpu-suite.txt on the CPU (read_builtin_shapes).
std::string default_gemm_shapes(Platform backend, std::string const& shapes_dir, std::vector<ShapeSpec>* out);

/// Registry ids matching any of a comma list of globs (fnmatch) for a dtype and backend. Reference
/// variants only match when named exactly: they exist for checks and take minutes at benchmark sizes.
std::vector<std::string> match_variants(std::string const& globs, Dtype dtype, Platform backend);

/// Counts over everything reported, for the closing line and the exit code.
struct SuiteSummary {
  int cases = 0, ok = 0, skipped = 0, errors = 0;
  int verify_passed = 0, verify_sampled = 0, verify_failed = 0, verify_skipped = 0;
  bool failed() const { return errors > 0 || verify_failed > 0; }
};

/// Prints rows as they come (table on stdout, progress on stderr) and appends JSON lines.
class GemmReporter {
 public:
  GemmReporter(std::string suite, MachineInfo const& machine, std::optional<double> peak_override,
               JsonLinesFile* json)
      : suite_(std::move(suite)), machine_(machine), peak_override_(peak_override), json_(json) {}

  /// Runs `cases` under a heading, one table for the section, and prints its geometric mean ratio.
  /// `section` tags the JSON rows ("" for none).
  void run_section(std::string const& title, std::string const& section, std::vector<GemmCase> const& cases,
                   GemmRunner& runner);

  SuiteSummary const& summary() const { return summary_; }
  /// The closing line: counts of cases and verdicts; `label` names what they are of (the tour's gemm
  /// sections beside its batched ones).
  void print_summary(std::string const& label = "") const;

  /// Counts `result` in the summary and appends its JSON row, with `extra` keys after the
  /// standard ones (a suite's own columns, e.g. the ladder's model bound).
  void record(CaseResult const& result, std::string const& section, RunSettings const& settings,
              JsonObject const& extra = {});

 private:
  JsonObject json_row(CaseResult const& result, std::string const& section, RunSettings const& settings) const;

  std::string suite_;
  MachineInfo const& machine_;
  std::optional<double> peak_override_;
  JsonLinesFile* json_;
  SuiteSummary summary_;
};

}  // namespace gemmkit::bench
