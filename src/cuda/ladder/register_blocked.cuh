/*! \file
    \brief Ladder steps 03-06 (seed 000 §2.0-2.4, seed 001 Algorithms 1-3): one SIMT kernel template
    whose flags switch each optimisation on, so every step is the previous one plus one idea.

      03 register blocking: each thread computes kTM x kTN elements of C from registers, and the
         next k-slice of A and B is fetched from global memory into registers while the current
         one is computed (global prefetch, ILP);
      04 + double-buffered shared memory: two slices in shared memory, one barrier per slice;
      05 + 128-bit shared-memory loads: fragments read as double2 (two elements per load);
      06 + shared-memory prefetch: the fragments of step kk+1 are loaded while kk is computed
         (the seeds' two-level prefetch).

    Fragment ownership: thread (tx, ty) owns rows (i/2)*2*kThreadsM + 2*tx + i%2 and the columns
    likewise, so its elements come in adjacent pairs (for 128-bit loads) and a warp's scalar reads
    of one row of a slice hit distinct banks.
*/
#pragma once

#include "cuda/gemm/epilogue.cuh"
#include "cuda/kernel_params.hpp"

namespace gemmkit::ladder {

/// Tile configuration of the register-blocked steps; the step flags say which ideas are on.
template <bool DoubleBuffer_, bool WideSharedLoads_, bool SharedPrefetch_>
struct RegisterBlockedConfig {
  static constexpr int kBM = 64, kBN = 64, kBK = 8;  ///< block tile and slice depth
  static constexpr int kTM = 8, kTN = 8;             ///< register block per thread
  static constexpr int kThreadsM = kBM / kTM, kThreadsN = kBN / kTN;
  static constexpr int kThreads = kThreadsM * kThreadsN;
  static constexpr bool kDoubleBuffer = DoubleBuffer_;
  static constexpr bool kWideSharedLoads = WideSharedLoads_;
  static constexpr bool kSharedPrefetch = SharedPrefetch_;
  static constexpr int kBuffers = kDoubleBuffer ? 2 : 1;
  static constexpr int kLoadsA = kBM * kBK / kThreads;  ///< elements of A each thread fetches per slice
  static constexpr int kLoadsB = kBN * kBK / kThreads;
  static constexpr bool valid() {
    return kTM % 2 == 0 && kTN % 2 == 0 && (kBM * kBK) % kThreads == 0 && (kBN * kBK) % kThreads == 0 &&
           kThreads <= 1024;
  }
  template <typename T>
  static constexpr std::size_t smem_bytes() {
    return std::size_t(kBuffers) * kBK * (kBM + kBN) * sizeof(T);
  }
};

/// Row (or column) of the i-th element a thread owns: pairs 2*t, 2*t+1 spread kThreads*2 apart.
template <int kThreadsAlong>
__device__ __forceinline__ int owned_index(int thread_along, int i) {
  return (i / 2) * 2 * kThreadsAlong + 2 * thread_along + (i % 2);
}

/// Fetches slice `k0` of A (as (BK, BM)) and B (as (BK, BN)) into registers, zero outside the matrix.
/// Consecutive threads read consecutive addresses for either transpose.
template <typename Cfg, typename T>
__device__ __forceinline__ void fetch_slice(KernelParams<T> const& p, T const* A, T const* B, std::int64_t m0,
                                            std::int64_t n0, std::int64_t k0, int thread, T (&ra)[Cfg::kLoadsA],
                                            T (&rb)[Cfg::kLoadsB]) {
#pragma unroll
  for (int e = 0; e < Cfg::kLoadsA; ++e) {
    int const linear = thread + e * Cfg::kThreads;
    int const mm = p.trans_a ? linear / Cfg::kBK : linear % Cfg::kBM;  // contiguous direction first
    int const kk = p.trans_a ? linear % Cfg::kBK : linear / Cfg::kBM;
    std::int64_t const i = m0 + mm, l = k0 + kk;
    ra[e] = (i < p.m && l < p.k) ? (p.trans_a ? A[l + i * p.lda] : A[i + l * p.lda]) : T(0);
  }
#pragma unroll
  for (int e = 0; e < Cfg::kLoadsB; ++e) {
    int const linear = thread + e * Cfg::kThreads;
    int const nn = p.trans_b ? linear % Cfg::kBN : linear / Cfg::kBK;
    int const kk = p.trans_b ? linear / Cfg::kBN : linear % Cfg::kBK;
    std::int64_t const j = n0 + nn, l = k0 + kk;
    rb[e] = (j < p.n && l < p.k) ? (p.trans_b ? B[j + l * p.ldb] : B[l + j * p.ldb]) : T(0);
  }
}

/// Stores the fetched registers into one shared buffer: a_tile (BK, BM), b_tile (BK, BN).
template <typename Cfg, typename T>
__device__ __forceinline__ void store_slice(KernelParams<T> const& p, int thread, T const (&ra)[Cfg::kLoadsA],
                                            T const (&rb)[Cfg::kLoadsB], T* a_tile, T* b_tile) {
#pragma unroll
  for (int e = 0; e < Cfg::kLoadsA; ++e) {
    int const linear = thread + e * Cfg::kThreads;
    int const mm = p.trans_a ? linear / Cfg::kBK : linear % Cfg::kBM;
    int const kk = p.trans_a ? linear % Cfg::kBK : linear / Cfg::kBM;
    a_tile[kk * Cfg::kBM + mm] = ra[e];
  }
#pragma unroll
  for (int e = 0; e < Cfg::kLoadsB; ++e) {
    int const linear = thread + e * Cfg::kThreads;
    int const nn = p.trans_b ? linear % Cfg::kBN : linear / Cfg::kBK;
    int const kk = p.trans_b ? linear / Cfg::kBN : linear % Cfg::kBK;
    b_tile[kk * Cfg::kBN + nn] = rb[e];
  }
}

/// Loads the thread's kTM elements of row kk of a slice (its A or B fragment), two at a time
/// when the step uses 128-bit loads.
template <typename Cfg, int kCount, int kThreadsAlong, typename T>
__device__ __forceinline__ void load_fragment(T const* row, int thread_along, T (&out)[kCount]) {
#pragma unroll
  for (int i = 0; i < kCount; i += 2) {
    int const index = owned_index<kThreadsAlong>(thread_along, i);
    if constexpr (Cfg::kWideSharedLoads && sizeof(T) == 8) {
      double2 const pair = *reinterpret_cast<double2 const*>(row + index);
      out[i] = pair.x, out[i + 1] = pair.y;
    } else if constexpr (Cfg::kWideSharedLoads) {
      float2 const pair = *reinterpret_cast<float2 const*>(row + index);
      out[i] = pair.x, out[i + 1] = pair.y;
    } else {
      out[i] = row[index], out[i + 1] = row[index + 1];
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
  T const* A = p.A + batch_index * p.stride_a;
  T const* B = p.B + batch_index * p.stride_b;
  T* a_tiles = smem;                                       // (BUFFERS, BK, BM)
  T* b_tiles = smem + Cfg::kBuffers * Cfg::kBK * Cfg::kBM; // (BUFFERS, BK, BN)

  T acc[Cfg::kTM][Cfg::kTN] = {};
  T ra[Cfg::kLoadsA], rb[Cfg::kLoadsB];
  std::int64_t const slices = (p.k + Cfg::kBK - 1) / Cfg::kBK;
  fetch_slice<Cfg>(p, A, B, m0, n0, 0, thread, ra, rb);

  for (std::int64_t s = 0; s < slices; ++s) {
    int const buffer = Cfg::kDoubleBuffer ? int(s % 2) : 0;
    T* a_tile = a_tiles + buffer * Cfg::kBK * Cfg::kBM;
    T* b_tile = b_tiles + buffer * Cfg::kBK * Cfg::kBN;
    if constexpr (!Cfg::kDoubleBuffer) __syncthreads();  // everyone is done reading the one buffer
    store_slice<Cfg>(p, thread, ra, rb, a_tile, b_tile);
    __syncthreads();  // with two buffers this one barrier also guards the buffer written next time
    if (s + 1 < slices) fetch_slice<Cfg>(p, A, B, m0, n0, (s + 1) * Cfg::kBK, thread, ra, rb);

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
      std::int64_t const row = m0 + owned_index<Cfg::kThreadsM>(tx, i);
      std::int64_t const col = n0 + owned_index<Cfg::kThreadsN>(ty, j);
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
