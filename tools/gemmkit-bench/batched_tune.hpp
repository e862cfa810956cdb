/*! \file
    \brief `batched --tune`: times every candidate shape of the small batched GPU kernel per
           precision and size bucket and writes the tuning table (src/cuda/batched/small_tuning.csv).
*/
#pragma once

#include "options.hpp"

#include <string>

namespace gemmkit::bench {

/// Runs the tuner; prints each candidate's time and the table, writes it to --tune-out when
/// given. Without a GPU it says so and returns 0.
int run_batched_tune(Options const& options);

/// Prints a tuner's table and, where `path` is not empty, writes `text` there (saying so). 0, or 2
/// with a message on stderr when the file cannot be written.
int print_and_write_table(std::string const& table, std::string const& path, std::string const& text);

/// `batched --cpu --tune`: times every blocking and prefetch of the CPU small kernels per precision
/// and size on one thread and prints the table (src/cpu/small/small_blocking.csv) with the rows of
/// this CPU's vendor for the tuned sizes replaced; --tune-out writes it.
int run_batched_cpu_tune(Options const& options);

}  // namespace gemmkit::bench
