/*! \file
    \brief What every register-blocked ladder step (03-06; seed 000 §2.0-2.4, seed 001 Algorithms 1-3)
    shares. Each step's own tile routine, its slice loop, is in the step's file, so reading the
    files in order shows one technique at a time:

      03_register_blocked.cu        register blocking: each thread computes kTM x kTN elements of C
                                    from registers, and the next k-slice of A and B is fetched from
                                    global memory into registers while the current one is computed
                                    (global prefetch, ILP); one shared buffer, two barriers a slice;
      04_double_buffered.cu         + double-buffered shared memory: two buffers, one barrier a slice;
      05_wide_loads.cu              + 128-bit shared-memory fragment loads (wide_fragment.cuh);
      06_shared_prefetch.cu         + shared-memory prefetch: the fragments of step kk+1 are loaded
                                    while kk is computed, two fragment stages (the seeds' two-level
                                    prefetch);
      03b_wide_loads.cu,            seed 000's single-buffered branches: 03 + 128-bit loads, and
      03c_wide_shared_prefetch.cu   + shared prefetch.

    Shared here: both operands' slice walks (OperandSlices, operand_walks), the global fetch of
    the next slice into registers and its store into shared memory (fetch_slice, store_slice,
    slice_count, slice_k_left), the scalar fragment load (load_fragment), the register block's
    update and C store (multiply_accumulate, store_block), and the kernel and grid-splitting
    launcher that run a step's tile routine (RegisterBlockedStep, register_blocked_kernel,
    launch_register_blocked, register_blocked_attributes). A step file specialises
    RegisterBlockedStep for its config (ladder_config.hpp, whose flags the model reads) and
    instantiates the launcher for double and float.

    The steps are regression baselines measured against the seeds: their SASS must stay the same.
    Some shapes here are kept for that (noted where they are): the compiler's order of
    instructions and registers follows them.

    Fragment ownership (owned_index): thread (tx, ty) owns groups of 16 bytes of rows and columns,
    so the wide steps read a group in one load and a warp's scalar reads hit distinct banks.
*/
#pragma once

#include "cuda/gemm/epilogue.cuh"
#include "cuda/kernel_params.hpp"
#include "cuda/ladder/ladder_config.hpp"

namespace gemmkit::ladder {

/// One operand's side of the slice loop: the thread's first element of the next slice, the
/// strides between its elements and between slices, and where its elements land in the tile.
/// Pointers advance by one slice each time, so the loop keeps one address per operand rather than
/// recomputing 64-bit indices per element (which cost the double-buffered steps their registers).
template <typename T>
struct OperandSlices {
  T const* next;
  std::int64_t element_stride;  ///< between the thread's elements of one slice
  std::int64_t slice_stride;    ///< between slices (kBK steps of k)
  SliceWalk walk;
  int extent_left;              ///< rows of op(A) (or columns of op(B)) of this tile inside the matrix
};

/// `tile_origin`: the operand's element (first row or column of the tile, k = 0); `stride_along`
/// and `stride_k` step one row (column) and one k in memory.
template <typename Cfg, int kExtent, typename T>
__device__ __forceinline__ OperandSlices<T> operand_slices(T const* tile_origin, bool contiguous_along,
                                                           std::int64_t stride_along, std::int64_t stride_k,
                                                           std::int64_t extent_left, int thread) {
  SliceWalk const w = slice_walk(thread, kExtent, Cfg::kBK, Cfg::kThreads, contiguous_along);
  return {tile_origin + w.along0 * stride_along + w.kk0 * stride_k,
          w.along_step * stride_along + w.kk_step * stride_k, Cfg::kBK * stride_k, w,
          int(extent_left < kExtent ? extent_left : kExtent)};
}

/// Fetches the thread's elements of the next slice into registers (zero outside the matrix;
/// `k_left` = k still to go from this slice) and moves to the slice after.
template <int kLoads, typename T>
__device__ __forceinline__ void fetch_slice(OperandSlices<T>& o, int k_left, T (&r)[kLoads]) {
#pragma unroll
  for (int e = 0; e < kLoads; ++e) {
    int const along = o.walk.along0 + e * o.walk.along_step, kk = o.walk.kk0 + e * o.walk.kk_step;
    r[e] = (along < o.extent_left && kk < k_left) ? o.next[e * o.element_stride] : T(0);
  }
  o.next += o.slice_stride;
}

/// Stores the fetched registers into one shared buffer laid out (BK, kExtent).
template <int kExtent, int kLoads, typename T>
__device__ __forceinline__ void store_slice(SliceWalk const& w, T const (&r)[kLoads], T* tile) {
#pragma unroll
  for (int e = 0; e < kLoads; ++e) tile[(w.kk0 + e * w.kk_step) * kExtent + w.along0 + e * w.along_step] = r[e];
}

/// Both operands' slice walks in the block tile whose first row and column of C are (m0, n0).
/// Out-parameters, not a returned pair: that keeps the baseline's instruction order.
template <typename Cfg, typename T>
__device__ __forceinline__ void operand_walks(KernelParams<T> const& p, std::int64_t m0, std::int64_t n0,
                                              std::int64_t batch_index, int thread, OperandSlices<T>& a,
                                              OperandSlices<T>& b) {
  // op(A)(i, l) and op(B)(l, j) in memory: steps along i (or j) and along l.
  std::int64_t const a_along = p.trans_a ? p.lda : 1, a_k = p.trans_a ? 1 : p.lda;
  std::int64_t const b_along = p.trans_b ? 1 : p.ldb, b_k = p.trans_b ? p.ldb : 1;
  a = operand_slices<Cfg, Cfg::kBM>(p.A + batch_index * p.stride_a + m0 * a_along, !p.trans_a, a_along, a_k,
                                    p.m - m0, thread);
  b = operand_slices<Cfg, Cfg::kBN>(p.B + batch_index * p.stride_b + n0 * b_along, p.trans_b, b_along, b_k,
                                    p.n - n0, thread);
}

/// Slices of kBK steps of k in the problem.
template <typename Cfg>
__device__ __forceinline__ std::int64_t slice_count(std::int64_t k) {
  return (k + Cfg::kBK - 1) / Cfg::kBK;
}

/// k still to go from a slice, capped at one slice (<= 0: none; fetch_slice then loads nothing):
/// `auto const k_left = slice_k_left<Cfg>(p);` then `k_left(s)`. A lambda reading p.k, as the
/// baseline had: a function taking k by value moves the loads of k and changes the code.
template <typename Cfg, typename T>
__device__ __forceinline__ auto slice_k_left(KernelParams<T> const& p) {
  return [&p](std::int64_t slice) {
    std::int64_t const left = p.k - slice * Cfg::kBK;
    return int(left < Cfg::kBK ? left : Cfg::kBK);
  };
}

/// Loads the thread's kCount elements of row kk of a slice (its A or B fragment), one element per
/// load: the 16-byte groups it owns (owned_index), element by element. Steps 03 and 04; the wide
/// steps read each group in one 128-bit load (load_fragment_wide, wide_fragment.cuh).
template <typename Cfg, int kCount, int kThreadsAlong, typename T>
__device__ __forceinline__ void load_fragment(T const* row, int thread_along, T (&out)[kCount]) {
  constexpr int kGroup = Cfg::template group<T>();
#pragma unroll
  for (int i = 0; i < kCount; i += kGroup) {
    int const index = owned_index<kThreadsAlong, kGroup>(thread_along, i);
#pragma unroll
    for (int g = 0; g < kGroup; ++g) out[i + g] = row[index + g];
  }
}

/// One step k of the register block: acc += (A fragment) x (B fragment), an outer product.
template <int kTM, int kTN, typename T>
__device__ __forceinline__ void multiply_accumulate(T (&acc)[kTM][kTN], T const (&fa)[kTM], T const (&fb)[kTN]) {
#pragma unroll
  for (int i = 0; i < kTM; ++i)
#pragma unroll
    for (int j = 0; j < kTN; ++j) acc[i][j] += fa[i] * fb[j];
}

/// Stores the thread's register block into C (inside the matrix only), through the epilogue.
template <typename Cfg, typename T>
__device__ __forceinline__ void store_block(KernelParams<T> const& p, std::int64_t batch_index, std::int64_t m0,
                                            std::int64_t n0, int tx, int ty, T const (&acc)[Cfg::kTM][Cfg::kTN]) {
  T* C = p.C + batch_index * p.stride_c;
#pragma unroll
  for (int i = 0; i < Cfg::kTM; ++i) {
#pragma unroll
    for (int j = 0; j < Cfg::kTN; ++j) {
      std::int64_t const row = m0 + owned_index<Cfg::kThreadsM, Cfg::template group<T>()>(tx, i);
      std::int64_t const col = n0 + owned_index<Cfg::kThreadsN, Cfg::template group<T>()>(ty, j);
      if (row < p.m && col < p.n) store_c(p, C + row + col * p.ldc, acc[i][j]);
    }
  }
}

/// A step's tile routine. Each step file specialises this for its config with
///
///     template <typename T>
///     static __device__ void tile(KernelParams<T> const& p, std::int64_t tile_m, std::int64_t tile_n,
///                                 std::int64_t batch_index, T* smem);
///
/// computing block tile (tile_m, tile_n) of problem `batch_index`, with `smem` the config's
/// smem_bytes<T>() of shared memory (its kBuffers slices of A, then of B).
template <typename Cfg>
struct RegisterBlockedStep;

/// One tile per block, no loop around it: a loop over tiles or batch entries lets the compiler
/// hoist per-tile address math out of it and spill. The launcher splits grids past the limits.
template <typename Cfg, typename T>
__global__ void __launch_bounds__(Cfg::kThreads) register_blocked_kernel(KernelParams<T> const p) {
  static_assert(Cfg::valid());
  __shared__ __align__(16) T smem[Cfg::template smem_bytes<T>() / sizeof(T)];
  RegisterBlockedStep<Cfg>::tile(p, blockIdx.x, blockIdx.y, blockIdx.z, smem);
}

template <typename Cfg, typename T>
cudaError_t register_blocked_attributes(cudaFuncAttributes* attributes) {
  return cudaFuncGetAttributes(attributes, register_blocked_kernel<Cfg, T>);
}

template <typename Cfg, typename T>
cudaError_t launch_register_blocked(KernelParams<T> const& p, cudaStream_t stream) {
  constexpr std::int64_t kMaxGridYZ = 65535;
  std::int64_t const tiles_m = (p.m + Cfg::kBM - 1) / Cfg::kBM;
  std::int64_t const max_n = kMaxGridYZ * Cfg::kBN;  // columns one launch covers
  for (std::int64_t first = 0; first < p.batch; first += kMaxGridYZ) {
    for (std::int64_t n0 = 0; n0 < p.n; n0 += max_n) {
      KernelParams<T> part = p;
      part.batch = p.batch - first < kMaxGridYZ ? p.batch - first : kMaxGridYZ;
      part.n = p.n - n0 < max_n ? p.n - n0 : max_n;
      part.A += first * p.stride_a;
      part.B += first * p.stride_b + n0 * (p.trans_b ? 1 : p.ldb);
      part.C += first * p.stride_c + n0 * p.ldc;
      dim3 const grid(unsigned(tiles_m), unsigned((part.n + Cfg::kBN - 1) / Cfg::kBN), unsigned(part.batch));
      register_blocked_kernel<Cfg, T><<<grid, Cfg::kThreads, 0, stream>>>(part);
      if (cudaError_t e = cudaGetLastError(); e != cudaSuccess) return e;
    }
  }
  return cudaSuccess;
}

}  // namespace gemmkit::ladder
