/*! \file
    \brief The process-wide registry: every CPU and CUDA variant this build has, and the selection
    table that picks among them.
*/
#pragma once

#include "registry/registry.hpp"

namespace gemmkit {

/// Filled on first use; lives as long as the process.
Registry const& variant_registry();

/// What each kernel family adds (cpu_variants.cpp, cuda_variants.cpp; the CUDA one adds nothing in a
/// build without CUDA; host_resident.cpp: the pipeline over the registry it is added to).
void register_cpu_variants(Registry& registry);
void register_cuda_variants(Registry& registry);
/// FP64 emulated on the INT8 tensor cores (emulation_variants.cpp; CUDA builds, called by register_cuda_variants).
void register_emulation_variants(Registry& registry);
void register_host_resident_variants(Registry& registry);

}  // namespace gemmkit
