/*! \file
    \brief The command line of gemmkit-bench (CLI11): one subcommand per command, each with its own
    options and `--help`; `--version`. An option the command does not take is an error, and so is an
    option or a command that needs CUDA in a build without it.
*/
#pragma once

#include "ooc_bench.hpp"
#include "options.hpp"

#include <string>

namespace gemmkit::bench {

struct CommandLine {
  std::string command = "tour";  ///< the command named, "tour" when none was
  Options options;               ///< every command's options but ooc's
  OocOptions ooc;                ///< ooc's
};

/// Reads argv into `out`. Returns -1 when the command is to run; otherwise the exit status after it
/// printed the help or the version (0) or a usage error (2, on stderr).
int parse_command_line(int argc, char** argv, CommandLine* out);

}  // namespace gemmkit::bench
