/*! \file
    \brief `gemmkit-bench gemm --emulate`: FP64 GEMM emulated on the INT8 tensor cores beside native
    gemmkit, native cuBLAS and cuBLAS's own emulation, on the same device operands in one run, with
    each one's error against a long-double reference and the emulation's moduli and time split.
*/
#pragma once

#include "options.hpp"

namespace gemmkit::bench {

/// Runs the emulation comparison; the process exit code (1 when a side failed or gave NaN).
int run_emulation(Options const& options);

}  // namespace gemmkit::bench
