/*! \file
    \brief Out-of-place transpose of a strided batch of column-major matrices on the GPU: the copy
    that operand packing (packed_operand.hpp) runs before the NN kernel.
*/
#pragma once

#include <cuda_runtime.h>

#include <cstdint>

namespace gemmkit::gemm {

/// dst (cols x rows, leading dimension ld_dst) = src^T for src rows x cols (leading dimension
/// ld_src), `batch` matrices at strides stride_src and stride_dst.
cudaError_t launch_transpose(double const* src, std::int64_t rows, std::int64_t cols, std::int64_t ld_src,
                             std::int64_t stride_src, double* dst, std::int64_t ld_dst, std::int64_t stride_dst,
                             std::int64_t batch, cudaStream_t stream);

}  // namespace gemmkit::gemm
