/*! \file
    \brief Out-of-place transpose or copy of a strided batch of column-major matrices on the GPU, and
    the operand packing built on it (packed_operand.hpp): the copies run before a tiled kernel.
*/
#pragma once

#include "cuda/gemm/packed_operand.hpp"
#include "cuda/kernel_params.hpp"

#include <cuda_runtime.h>

#include <cstddef>
#include <cstdint>

namespace gemmkit::gemm {

/// dst = src^T (cols x rows, leading dimension ld_dst) when `transpose`, else dst = src (rows x
/// cols), for src rows x cols (leading dimension ld_src), `batch` matrices at strides stride_src
/// and stride_dst. T: float or double.
template <typename T>
cudaError_t launch_repack(T const* src, std::int64_t rows, std::int64_t cols, std::int64_t ld_src,
                          std::int64_t stride_src, T* dst, std::int64_t ld_dst, std::int64_t stride_dst,
                          std::int64_t batch, bool transpose, cudaStream_t stream);

/// Copies the operands `plan` packs into `workspace` (plan.bytes() of it) and points `params` at
/// the copies; a transposed copy's transpose flag flips.
template <typename T>
cudaError_t launch_packed_operands(PackedOperands const& plan, T* workspace, KernelParams<T>& params,
                                   cudaStream_t stream);

/// The workspace a tiled kernel's packed form takes for `problem`.
template <typename T>
std::size_t packed_workspace_bytes(GemmProblem const& problem, PackedLayout layout) {
  return plan_packed_operands(problem, sizeof(T), layout).bytes();
}

/// A tiled kernel's packed form: the operands `layout` packs are copied into `workspace`, then
/// `launch` runs on the copies.
template <typename T>
cudaError_t launch_packed(KernelParams<T> const& p, T* workspace, PackedLayout layout, cudaStream_t stream,
                          cudaError_t (*launch)(KernelParams<T> const&, cudaStream_t)) {
  PackedOperands const plan = plan_packed_operands(problem_shape(p), sizeof(T), layout);
  KernelParams<T> packed = p;
  if (cudaError_t e = launch_packed_operands(plan, workspace, packed, stream); e != cudaSuccess) return e;
  return launch(packed, stream);
}

}  // namespace gemmkit::gemm
