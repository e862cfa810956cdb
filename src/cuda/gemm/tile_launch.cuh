/*! \file
    \brief Host side every tiled GEMM kernel shares (include from .cu files): the per-device opt-in
    to large shared memory, one launch per 65535 batch entries (grid.z's limit), and the split-K
    forms and stream-K.
*/
#pragma once

#include "cuda/gemm/split_k.hpp"
#include "cuda/gemm/split_k_reduce.hpp"
#include "cuda/gemm/stream_k.hpp"
#include "cuda/kernel_params.hpp"

#include <cuda_runtime.h>

#include <atomic>
#include <cstdint>
#include <utility>

namespace gemmkit::gemm {

/// Lets kKernel use `smem_bytes` of dynamic shared memory on the current device. Opting in to more
/// than 48 KB is per device and per kernel; the devices done are remembered per instance, so the
/// first call's size holds (a kernel whose size varies asks for its largest first).
template <auto kKernel>
cudaError_t opt_in_shared_memory(std::size_t smem_bytes) {
  static std::atomic<std::uint64_t> configured_devices{0};
  int device = 0;
  if (cudaError_t e = cudaGetDevice(&device); e != cudaSuccess) return e;
  std::uint64_t const bit = std::uint64_t(1) << (device % 64);
  if ((configured_devices.load(std::memory_order_relaxed) & bit) == 0) {
    if (cudaError_t e = cudaFuncSetAttribute(kKernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(smem_bytes));
        e != cudaSuccess) {
      return e;
    }
    configured_devices.fetch_or(bit, std::memory_order_relaxed);
  }
  return cudaSuccess;
}

/// Launches kKernel over `tiles` blocks per problem (TileOrder maps blockIdx.x) and the batch in
/// grid.z, with `extra` as the kernel's arguments after the params.
template <auto kKernel, typename T, typename... Extra>
cudaError_t launch_tiles(KernelParams<T> const& p, std::int64_t tiles, int threads, std::size_t smem_bytes,
                         cudaStream_t stream, Extra const&... extra) {
  if (cudaError_t e = opt_in_shared_memory<kKernel>(smem_bytes); e != cudaSuccess) return e;
  constexpr std::int64_t kMaxGridZ = 65535;
  for (std::int64_t first = 0; first < p.batch; first += kMaxGridZ) {
    KernelParams<T> part = p;
    part.A += first * p.stride_a;
    part.B += first * p.stride_b;
    part.C += first * p.stride_c;
    part.batch = p.batch - first < kMaxGridZ ? p.batch - first : kMaxGridZ;
    kKernel<<<dim3(unsigned(tiles), 1, unsigned(part.batch)), threads, smem_bytes, stream>>>(part, extra...);
    if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
  }
  return cudaSuccess;
}

/// The split-K form of a tiled kernel (`launch` runs it plainly; the kernel reads
/// KernelParams::split_k_slice): per batch entry, slice z of K writes its alpha-free partial sums
/// to workspace + z*m*n, then launch_split_k_reduce applies alpha and beta in slice order.
template <typename Cfg, typename T>
cudaError_t launch_split_k(KernelParams<T> const& p, T* workspace, cudaStream_t stream,
                           cudaError_t (*launch)(KernelParams<T> const&, cudaStream_t)) {
  SplitK const split = plan_split_k<Cfg>(problem_shape(p), current_sm_count());
  if (split.slices <= 1) return launch(p, stream);
  // Batch entries run one after another on the stream, so they share the one workspace.
  for (std::int64_t b = 0; b < p.batch; ++b) {
    KernelParams<T> partial = p;
    partial.A += b * p.stride_a;
    partial.B += b * p.stride_b;
    partial.alpha = T(1);
    partial.beta = T(0);
    partial.C = workspace;
    partial.ldc = p.m;
    partial.stride_c = p.m * p.n;
    partial.batch = split.slices;
    partial.stride_a = partial.stride_b = 0;  // every slice reads the same A and B
    partial.split_k_slice = split.slice;
    if (cudaError_t e = launch(partial, stream); e != cudaSuccess) return e;
    if (cudaError_t e = launch_split_k_reduce(p.m, p.n, split.slices, workspace, p.alpha, p.beta, p.C + b * p.stride_c,
                                              p.ldc, stream);
        e != cudaSuccess) {
      return e;
    }
  }
  return cudaSuccess;
}

/// The ready flags at the start of a fixup or stream-K workspace, under a new epoch.
template <typename T>
PartialFlags partial_flags(T* workspace) {
  return {reinterpret_cast<std::uint64_t*>(workspace), next_partial_epoch()};
}

/// The fixup form of a tiled kernel (SplitKFixup, split_k_fixup.cuh): K in `slices` slices in one
/// launch of `launch_sliced` (a kernel built with the fixup), or `launch` plainly when K is too
/// short to split. `tiles_shape`: the problem whose m x n the launch tiles (the caller's, or its
/// transpose where the kernel runs C^T); its batch counts too.
template <typename Cfg, typename T>
cudaError_t launch_split_fixup(KernelParams<T> const& p, GemmProblem const& tiles_shape, int slices, T* workspace,
                               cudaStream_t stream, cudaError_t (*launch)(KernelParams<T> const&, cudaStream_t),
                               cudaError_t (*launch_sliced)(KernelParams<T> const&, SplitKFixup<T> const&,
                                                            cudaStream_t)) {
  SplitK const split = plan_split_k_fixup<Cfg>(tiles_shape, slices);
  std::int64_t const tiles =
      ((tiles_shape.m + Cfg::kBM - 1) / Cfg::kBM) * ((tiles_shape.n + Cfg::kBN - 1) / Cfg::kBN);
  if (split.slices <= 1 || tiles * split.slices > 2147483647) return launch(p, stream);
  SplitKFixupLayout const layout = split_k_fixup_layout<Cfg, T>(tiles_shape, split);
  KernelParams<T> sliced = p;
  sliced.split_k_slice = split.slice;
  SplitKFixup<T> const fixup{int(split.slices), partial_flags(workspace),
                             reinterpret_cast<T*>(reinterpret_cast<char*>(workspace) + layout.partials_offset)};
  return launch_sliced(sliced, fixup, stream);
}

/// The stream-K form of a tiled kernel (stream_k.hpp) in one launch of `launch_streamed`, or
/// `launch` plainly where the plan has no stream-K part. `tiles_shape` as for launch_split_fixup.
/// Partial tiles are of type `Partial` (the FP64 tensor cores keep double ones for float operands;
/// stream_k_workspace_bytes<Cfg, Partial> sizes the workspace).
template <typename Cfg, typename T, typename Partial>
cudaError_t launch_stream_k(KernelParams<T> const& p, GemmProblem const& tiles_shape, T* workspace, cudaStream_t stream,
                            cudaError_t (*launch)(KernelParams<T> const&, cudaStream_t),
                            cudaError_t (*launch_streamed)(KernelParams<T> const&, StreamKFixup<Partial> const&,
                                                           cudaStream_t)) {
  StreamKPlan const plan = plan_stream_k<Cfg>(tiles_shape, current_sm_count());
  if (plan.workers == 0) return launch(p, stream);
  StreamKLayout const layout = stream_k_layout<Cfg, Partial>(plan);
  StreamKFixup<Partial> const sk{plan, partial_flags(workspace),
                                 reinterpret_cast<Partial*>(reinterpret_cast<char*>(workspace) + layout.partials_offset)};
  return launch_streamed(p, sk, stream);
}

/// The problem whose m x n a launch tiles: A^T B^T launches as the NN product C^T = B A (the
/// tensor-core launchers' transposes), over n x m.
inline GemmProblem launched_shape(GemmProblem shape, bool both_transposed) {
  if (both_transposed) std::swap(shape.m, shape.n);
  return shape;
}

/// Workspace of the stream-K form for the problem whose m x n the launch tiles.
template <typename Cfg, typename T>
std::size_t stream_k_workspace_bytes(GemmProblem const& tiles_shape) {
  return stream_k_layout<Cfg, T>(plan_stream_k<Cfg>(tiles_shape, current_sm_count())).bytes;
}

/// Whether an operand allows 16-byte copies: every chunk start 16-byte aligned means an aligned
/// base, a leading dimension that is a multiple of the elements per 16 bytes and, across a batch,
/// a stride that is too.
template <typename T>
bool vector_aligned(T const* base, std::int64_t ld, std::int64_t stride, std::int64_t batch) {
  constexpr std::int64_t kPerVector = 16 / sizeof(T);
  return reinterpret_cast<std::uintptr_t>(base) % 16 == 0 && ld % kPerVector == 0 &&
         (batch == 1 || stride % kPerVector == 0);
}

}  // namespace gemmkit::gemm
