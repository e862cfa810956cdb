/*! \file
    \brief `micro`: the device micro-benchmarks (microbench/) run on the present GPU, printed beside
    the measured H100 SXM anchors (model::h100_sxm, docs/perf-micro.md) where the device is the one they were measured on, written as JSON
    lines (--json) and as the machine description the model reads (--machine-out).
*/
#pragma once

#include "options.hpp"

namespace gemmkit::bench {

/// Runs every micro-benchmark family; exit status 0 (also without a GPU, after saying so), 1 when
/// a measurement failed, 2 for a usage error.
int run_micro_command(Options const& options);

}  // namespace gemmkit::bench
