/*! \file
    \brief The CPU small-GEMM variants (dgemm_cpu_small, sgemm_cpu_small): batches of small
    matrices on this CPU's best kernel set, split over threads.
*/
#pragma once

#include "registry/gemm_variant.hpp"

#include <memory>

namespace gemmkit::cpu {

/// The variant for `dtype` (f64 or f32), on the kernels this CPU runs best (AVX-512, AVX2 or none).
std::unique_ptr<GemmVariant> make_small_batched_variant(Dtype dtype);

}  // namespace gemmkit::cpu
