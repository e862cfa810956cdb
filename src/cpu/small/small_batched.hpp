/*! \file
    \brief Registration of the CPU small-GEMM variants (dgemm_cpu_small, sgemm_cpu_small).
*/
#pragma once

#include "registry/registry.hpp"

namespace gemmkit::cpu {

void register_small_variants(Registry& registry);

}  // namespace gemmkit::cpu
