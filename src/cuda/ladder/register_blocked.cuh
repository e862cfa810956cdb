/*! \file
    \brief Ladder steps 03-06 (seed 000 §2.0-2.4, seed 001 Algorithms 1-3): one SIMT kernel template
    whose flags switch each optimisation on, so every step is the previous one plus one idea.

      03 register blocking: each thread computes kTM x kTN elements of C from registers, and the
         next k-slice of A and B is fetched from global memory into registers while the current
         one is computed (global prefetch, ILP);
      04 + double-buffered shared memory: two slices in shared memory, one barrier per slice;
      05 + 128-bit shared-memory loads: fragments read 16 bytes at a time (double2, float4);
      06 + shared-memory prefetch: the fragments of step kk+1 are loaded while kk is computed
         (the seeds' two-level prefetch).
    03b and 03c are seed 000's single-buffered branches: 03 + 128-bit loads, and + shared prefetch.

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

/// Loads the thread's kCount elements of row kk of a slice (its A or B fragment): a 16-byte group
/// per load in the wide steps, one element per load otherwise.
template <typename Cfg, int kCount, int kThreadsAlong, typename T>
__device__ __forceinline__ void load_fragment(T const* row, int thread_along, T (&out)[kCount]) {
  constexpr int kGroup = Cfg::template group<T>();
#pragma unroll
  for (int i = 0; i < kCount; i += kGroup) {
    int const index = owned_index<kThreadsAlong, kGroup>(thread_along, i);
    if constexpr (Cfg::kWideSharedLoads && sizeof(T) == 8) {
      double2 const pair = *reinterpret_cast<double2 const*>(row + index);
      out[i] = pair.x, out[i + 1] = pair.y;
    } else if constexpr (Cfg::kWideSharedLoads) {
      float4 const quad = *reinterpret_cast<float4 const*>(row + index);
      out[i] = quad.x, out[i + 1] = quad.y, out[i + 2] = quad.z, out[i + 3] = quad.w;
    } else {
#pragma unroll
      for (int g = 0; g < kGroup; ++g) out[i + g] = row[index + g];
    }
  }
}

/// Block tile (tile_m, tile_n) of problem `batch_index`.
template <typename Cfg, typename T>
__device__ void register_blocked_tile(KernelParams<T> const& p, std::int64_t tile_m, std::int64_t tile_n,
                                      std::int64_t batch_index, T* smem) {
  int const thread = threadIdx.x;
  int const tx = thread % Cfg::kThreadsM;
  int const ty = thread / Cfg::kThreadsM;
  std::int64_t const m0 = tile_m * Cfg::kBM, n0 = tile_n * Cfg::kBN;
  T* a_tiles = smem;                                        // (BUFFERS, BK, BM)
  T* b_tiles = smem + Cfg::kBuffers * Cfg::kBK * Cfg::kBM;  // (BUFFERS, BK, BN)
  // op(A)(i, l) and op(B)(l, j) in memory: steps along i (or j) and along l.
  std::int64_t const a_along = p.trans_a ? p.lda : 1, a_k = p.trans_a ? 1 : p.lda;
  std::int64_t const b_along = p.trans_b ? 1 : p.ldb, b_k = p.trans_b ? p.ldb : 1;
  OperandSlices<T> a = operand_slices<Cfg, Cfg::kBM>(p.A + batch_index * p.stride_a + m0 * a_along, !p.trans_a,
                                                     a_along, a_k, p.m - m0, thread);
  OperandSlices<T> b = operand_slices<Cfg, Cfg::kBN>(p.B + batch_index * p.stride_b + n0 * b_along, p.trans_b,
                                                     b_along, b_k, p.n - n0, thread);

  T acc[Cfg::kTM][Cfg::kTN] = {};
  T ra[Cfg::kLoadsA], rb[Cfg::kLoadsB];
  std::int64_t const slices = (p.k + Cfg::kBK - 1) / Cfg::kBK;
  auto k_left = [&](std::int64_t slice) {  // k still to go from `slice`, capped at one slice (<= 0: none)
    std::int64_t const left = p.k - slice * Cfg::kBK;
    return int(left < Cfg::kBK ? left : Cfg::kBK);
  };
  fetch_slice(a, k_left(0), ra);
  fetch_slice(b, k_left(0), rb);

  for (std::int64_t s = 0; s < slices; ++s) {
    int const buffer = Cfg::kDoubleBuffer ? int(s & 1) : 0;
    T* a_tile = a_tiles + buffer * Cfg::kBK * Cfg::kBM;
    T* b_tile = b_tiles + buffer * Cfg::kBK * Cfg::kBN;
    if constexpr (!Cfg::kDoubleBuffer) __syncthreads();  // everyone is done reading the one buffer
    store_slice<Cfg::kBM>(a.walk, ra, a_tile);
    store_slice<Cfg::kBN>(b.walk, rb, b_tile);
    __syncthreads();  // with two buffers this one barrier also guards the buffer written next time
    // The next slice (after the last one: nothing, every load predicated off, no branch).
    fetch_slice(a, k_left(s + 1), ra);
    fetch_slice(b, k_left(s + 1), rb);

    T fa[2][Cfg::kTM], fb[2][Cfg::kTN];  // (PREFETCH STAGE, TM) and (PREFETCH STAGE, TN)
    if constexpr (Cfg::kSharedPrefetch) {
      load_fragment<Cfg, Cfg::kTM, Cfg::kThreadsM>(a_tile, tx, fa[0]);
      load_fragment<Cfg, Cfg::kTN, Cfg::kThreadsN>(b_tile, ty, fb[0]);
    }
#pragma unroll
    for (int kk = 0; kk < Cfg::kBK; ++kk) {
      int const cur = Cfg::kSharedPrefetch ? kk % 2 : 0;
      if constexpr (Cfg::kSharedPrefetch) {
        if (kk + 1 < Cfg::kBK) {
          load_fragment<Cfg, Cfg::kTM, Cfg::kThreadsM>(a_tile + (kk + 1) * Cfg::kBM, tx, fa[(kk + 1) % 2]);
          load_fragment<Cfg, Cfg::kTN, Cfg::kThreadsN>(b_tile + (kk + 1) * Cfg::kBN, ty, fb[(kk + 1) % 2]);
        }
      } else {
        load_fragment<Cfg, Cfg::kTM, Cfg::kThreadsM>(a_tile + kk * Cfg::kBM, tx, fa[0]);
        load_fragment<Cfg, Cfg::kTN, Cfg::kThreadsN>(b_tile + kk * Cfg::kBN, ty, fb[0]);
      }
#pragma unroll
      for (int i = 0; i < Cfg::kTM; ++i)
#pragma unroll
        for (int j = 0; j < Cfg::kTN; ++j) acc[i][j] += fa[cur][i] * fb[cur][j];
    }
  }

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

/// One tile per block, no loop around it: a loop over tiles or batch entries lets the compiler
/// hoist per-tile address math out of it and spill. The launcher splits grids past the limits.
template <typename Cfg, typename T>
__global__ void __launch_bounds__(Cfg::kThreads) register_blocked_kernel(KernelParams<T> const p) {
  static_assert(Cfg::valid());
  __shared__ __align__(16) T smem[Cfg::template smem_bytes<T>() / sizeof(T)];
  register_blocked_tile<Cfg>(p, blockIdx.x, blockIdx.y, blockIdx.z, smem);
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
