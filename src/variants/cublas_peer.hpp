/*! \file
    \brief cuBLAS registered as the GPU peer.
*/
#pragma once

#include "registry/function_variant.hpp"
#include "registry/registry.hpp"

namespace gemmkit {

void register_cublas_variants(Registry& registry);

/// This thread's cuBLAS handle on `device` (a cublasHandle_t), created at its first use and kept for
/// the thread's life; nullptr when cuBLAS cannot create one.
void* cublas_handle(int device);

}  // namespace gemmkit
