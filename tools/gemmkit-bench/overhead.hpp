/*! \file
    \brief `overhead`: what one call costs the host on the GPU path, for gemmkit and cuBLAS at small
           sizes, next to the CUDA calls a gemmkit call is made of (pointer queries, a launch,
           stream-ordered allocation).

    Every row times back-to-back calls on one stream: a rep issues `calls` calls on the host steady
    clock (host time: what issuing a call costs the caller), then synchronizes the stream (wall time:
    host time plus what the device still had to do, so wall > host where the device is the
    bottleneck). A rep stays below the launch-queue depth, so the host is never throttled by the
    device; the stream is idle when a rep starts. Median over reps, after untimed warm-up calls.
*/
#pragma once

#include "json_writer.hpp"
#include "machine_info.hpp"
#include "options.hpp"

#include <cstdint>
#include <string>
#include <vector>

namespace gemmkit::bench {

struct OverheadSettings {
  std::vector<std::int64_t> sizes{8, 64, 256, 512};  ///< m = n = k of the GEMM rows
  int calls = 200;   ///< calls per rep: fewer than the launch queue holds at two launches a call
  int reps = 30;
  int warmup = 20;   ///< untimed calls per row (handles, modules, gemmkit's kept workspace)
  int device = 0;
  int verbosity = 0;
};

/// Turns the command line into settings; "" or a usage error.
std::string overhead_settings_from_options(Options const& options, OverheadSettings* out);

/// Times every row on the GPU `machine` describes (it must have one), prints a table and the goal
/// check, appends JSON lines tagged `suite`. Returns the exit status: 1 when a row failed.
int run_overhead(OverheadSettings const& settings, MachineInfo const& machine, std::string const& suite,
                 JsonLinesFile* json);

}  // namespace gemmkit::bench
