/*! \file
    \brief Host side of the FP64 tensor-core GEMM: which configs exist and how they are launched.
*/
#pragma once

#include "core/problem.hpp"
#include "cuda/gemm/tensorop_config.hpp"
#include "cuda/kernel_params.hpp"

#include <cuda_runtime.h>

namespace gemmkit::gemm {

/// The registered configurations (id suffix = Cfg::name()).
using DgemmTile128x128 = TensorOpConfig<128, 128, 16, 32, 64, 3>;
using DgemmTile64x64 = TensorOpConfig<64, 64, 16, 32, 32, 4>;

/// Launches the kernel instance matching the problem's transposes and operand alignment.
template <typename Cfg>
cudaError_t launch_dgemm_tensorop(KernelParams<double> const& params, cudaStream_t stream);

/// True when the grid for this config fits (tiles of one problem index a 31-bit grid.x).
template <typename Cfg>
bool dgemm_tensorop_can_implement(GemmProblem const& problem) {
  std::int64_t const tiles = ((problem.m + Cfg::kBM - 1) / Cfg::kBM) * ((problem.n + Cfg::kBN - 1) / Cfg::kBN);
  return problem.dtype == Dtype::kF64 && tiles <= 2147483647;
}

}  // namespace gemmkit::gemm
