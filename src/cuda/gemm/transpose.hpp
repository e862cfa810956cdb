/*! \file
    \brief Out-of-place transpose of a strided batch of column-major matrices on the GPU, and the
    operand packing built on it (packed_operand.hpp): the copies run before a tiled kernel.
*/
#pragma once

#include "cuda/gemm/packed_operand.hpp"
#include "cuda/kernel_params.hpp"

#include <cuda_runtime.h>

#include <cstdint>

namespace gemmkit::gemm {

/// dst (cols x rows, leading dimension ld_dst) = src^T for src rows x cols (leading dimension
/// ld_src), `batch` matrices at strides stride_src and stride_dst. T: float or double.
template <typename T>
cudaError_t launch_transpose(T const* src, std::int64_t rows, std::int64_t cols, std::int64_t ld_src,
                             std::int64_t stride_src, T* dst, std::int64_t ld_dst, std::int64_t stride_dst,
                             std::int64_t batch, cudaStream_t stream);

/// Transposes the operands `plan` packs into `workspace` (plan.bytes() of it) and points `params`
/// at the copies, whose transposes are then the other way round.
template <typename T>
cudaError_t launch_packed_operands(PackedOperands const& plan, T* workspace, KernelParams<T>& params,
                                   cudaStream_t stream);

}  // namespace gemmkit::gemm
