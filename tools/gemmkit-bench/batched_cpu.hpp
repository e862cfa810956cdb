/*! \file
    \brief `batched --cpu`: strided batches of small GEMMs on the CPU, gemmkit against LIBXSMM,
           OpenBLAS, BLIS, Eigen and a plain loop, with the bandwidth bound measured in the same run.

    For each shape and dtype one batch of at least --bytes (A+B+C) is allocated (64-byte aligned),
    first-touched by gk_first_touch_batch (the kernels' own OpenMP static partition) and filled in
    parallel by the same split. For each thread count:
    a STREAM-like pass over the same arrays with the same access mix (read A and B, read and write C
    in place; beta = 0 writes C only), compiled -O3 -march=native like STREAM, gives the bandwidth
    B (its fastest pass, STREAM's convention) and the bound flops / (bytes / B)
    (= n*B/16 for square f64 with beta != 0). Then every implementation is checked once on sampled
    problems against the higher-precision reference and timed: the stream pass and all
    implementations alternate rep by rep, the median pass reported. Passes of peers that would last
    longer than --max-pass-ms run on rotating disjoint windows of the batch (cold data each pass);
    gemmkit and the stream pass always cover the whole batch.
*/
#pragma once

#include "json_writer.hpp"
#include "machine_info.hpp"
#include "options.hpp"

#include <string>
#include <vector>

namespace gemmkit::bench {

struct BatchedSettings {
  std::vector<ShapeSpec> shapes;       ///< m, n, k of each case
  std::vector<Dtype> dtypes;
  std::vector<int> threads;            ///< OpenMP thread counts, each > 0
  std::int64_t bytes = std::int64_t(1) << 30;  ///< A+B+C of one case, at least
  double alpha = 1.0;
  double beta = 1.0;
  int reps = 3;
  int warmup = 0;                      ///< untimed passes after the checked pass
  double max_pass_ms = 500;
  bool verify = true;
  int samples = 64;                    ///< problems checked per implementation
  std::vector<std::string> peers;      ///< peer names to run, in table order
  int verbosity = 0;
};

/// The default case list of `batched --cpu`: the squares and a few non-square shapes.
std::vector<ShapeSpec> default_batched_shapes();

/// Turns the command line into settings (tour = the short form); "" or a usage error.
std::string batched_settings_from_options(Options const& options, bool tour, BatchedSettings* out);

/// OpenMP's thread count before anything changed it: what "all" means.
int all_threads();

struct BatchedSummary {
  int rows = 0, skipped = 0, errors = 0;
  int verify_passed = 0, verify_failed = 0, verify_skipped = 0;
  int peer_verify_failed = 0;
  bool failed() const { return errors > 0 || verify_failed > 0; }
};

/// Runs every case and thread count; prints a table (rows as they come) and a goal check, appends
/// JSON lines. `suite` and `section` tag the rows.
BatchedSummary run_batched_cpu(BatchedSettings const& settings, MachineInfo const& machine, std::string const& suite,
                               std::string const& section, JsonLinesFile* json);

void print_batched_summary(BatchedSummary const& summary);

}  // namespace gemmkit::bench
