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

/// The same rounded up to 256 bytes: where the workspace of a form run after the copies (stream-K)
/// starts.
template <typename T>
std::size_t packed_prefix_bytes(GemmProblem const& problem, PackedLayout layout) {
  constexpr std::size_t kAlign = 256;
  return (packed_workspace_bytes<T>(problem, layout) + kAlign - 1) / kAlign * kAlign;
}

/// Copies the operands `layout` packs into `workspace` and returns in `packed` the parameters that
/// read the copies.
template <typename T>
cudaError_t pack_operands(KernelParams<T> const& p, T* workspace, PackedLayout layout, cudaStream_t stream,
                          KernelParams<T>& packed) {
  packed = p;
  return launch_packed_operands(plan_packed_operands(problem_shape(p), sizeof(T), layout), workspace, packed, stream);
}

/// A tiled kernel's packed form: the operands `layout` packs are copied into `workspace`, then
/// `launch` runs on the copies.
template <typename T>
cudaError_t launch_packed(KernelParams<T> const& p, T* workspace, PackedLayout layout, cudaStream_t stream,
                          cudaError_t (*launch)(KernelParams<T> const&, cudaStream_t)) {
  KernelParams<T> packed;
  if (cudaError_t e = pack_operands(p, workspace, layout, stream, packed); e != cudaSuccess) return e;
  return launch(packed, stream);
}

/// The packed form of a form with a workspace of its own (stream-K): the copies first, then `launch`
/// on them with the workspace past packed_prefix_bytes.
template <typename T>
cudaError_t launch_packed(KernelParams<T> const& p, T* workspace, PackedLayout layout, cudaStream_t stream,
                          cudaError_t (*launch)(KernelParams<T> const&, T*, cudaStream_t)) {
  KernelParams<T> packed;
  if (cudaError_t e = pack_operands(p, workspace, layout, stream, packed); e != cudaSuccess) return e;
  return launch(packed, workspace + packed_prefix_bytes<T>(problem_shape(p), layout) / sizeof(T), stream);
}

}  // namespace gemmkit::gemm
