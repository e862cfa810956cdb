/*! \file
    \brief cuBLAS registered as the GPU peer.
*/
#pragma once

#include "registry/function_variant.hpp"
#include "registry/registry.hpp"

namespace gemmkit {

void register_cublas_variants(Registry& registry);

}  // namespace gemmkit
