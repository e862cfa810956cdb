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
    Before the cases, the FMA peak of each dtype and thread count (cpu/fma_peak.hpp) is measured: where
    the goal's share of the bound is above it, no implementation can reach the goal on these cores,
    and the goal check names those cases.
*/
#pragma once

#include "batched_common.hpp"
#include "json_writer.hpp"
#include "machine_info.hpp"

#include <string>

namespace gemmkit::bench {

/// Runs every case and thread count; prints a table (rows as they come) and a goal check, appends
/// JSON lines. `suite` and `section` tag the rows.
BatchedSummary run_batched_cpu(BatchedSettings const& settings, MachineInfo const& machine, std::string const& suite,
                               std::string const& section, JsonLinesFile* json);

}  // namespace gemmkit::bench
