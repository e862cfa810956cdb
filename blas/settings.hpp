/*! \file
    \brief libgemmkit_blas's settings: environment variables, and an optional file of the same names.
*/
#pragma once

#include <gemmkit/gemmkit.h>

#include <cstddef>
#include <string>
#include <vector>

namespace gemmkit::blas {

/// What the environment (and GEMMKIT_BLAS_CONFIG's file, whose lines are NAME=value with the same
/// names; the environment wins) asks of the library. Read once, at the first call.
struct Settings {
  bool off = false;              ///< GEMMKIT_BLAS=off: every routine goes to the CPU BLAS unchanged
  std::string cpu_library;       ///< GEMMKIT_BLAS_CPU_LIB: the CPU BLAS routines are forwarded to
  double crossover = -1;         ///< GEMMKIT_BLAS_CROSSOVER: m*n*k from which host GEMMs go to the GPU (<0: the GPU's)
  std::vector<int> gpus;         ///< GEMMKIT_BLAS_GPUS: the devices the host-resident GEMM uses (empty: device 0)
  gk_host_memory host_memory = GK_HOST_MEMORY_AUTO;  ///< GEMMKIT_BLAS_HOST_MEMORY: auto, pinned or pageable
  bool cpu_share = false;        ///< GEMMKIT_BLAS_CPU_SHARE=1: the CPU computes a share of large GEMMs too
  std::size_t device_memory = 0; ///< GEMMKIT_BLAS_DEVICE_MEMORY: bytes of GPU memory gemmkit may hold (0: 90 % of free)
  std::string trace;             ///< GEMMKIT_BLAS_TRACE: a file (appended to) or "stderr"; empty: no trace
  int verbosity = 0;             ///< GEMMKIT_BLAS_VERBOSE: gemmkit's verbosity (0-2) on stderr
  std::vector<std::string> problems;  ///< what could not be understood, printed once to stderr
};

/// The settings of this process.
Settings const& settings();

/// Parses the settings from a lookup of NAME -> value ("" when unset): for the tests.
Settings parse_settings(std::string (*lookup)(char const* name));

}  // namespace gemmkit::blas
