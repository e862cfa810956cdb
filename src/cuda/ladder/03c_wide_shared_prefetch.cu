/*! \file
    \brief Ladder step 03c: step 03b + shared-memory prefetch (two fragment stages, as step 06), one shared
    buffer: seed 000's "unroll+128b+prefsmem", its fastest version on the GTX970.
*/
#include "cuda/ladder/ladder.hpp"
#include "cuda/ladder/register_blocked.cuh"
#include "cuda/ladder/wide_fragment.cuh"

namespace gemmkit::ladder {

template <>
struct RegisterBlockedStep<Step03cConfig> {
  using Cfg = Step03cConfig;
  static_assert(!Cfg::kDoubleBuffer && Cfg::kWideSharedLoads && Cfg::kSharedPrefetch);

  template <typename T>
  static __device__ void tile(KernelParams<T> const& p, std::int64_t tile_m, std::int64_t tile_n,
                              std::int64_t batch_index, T* smem) {
    int const thread = threadIdx.x;
    int const tx = thread % Cfg::kThreadsM;  // the thread's place in the grid of register blocks
    int const ty = thread / Cfg::kThreadsM;
    std::int64_t const m0 = tile_m * Cfg::kBM, n0 = tile_n * Cfg::kBN;
    OperandSlices<T> a, b;
    operand_walks<Cfg>(p, m0, n0, batch_index, thread, a, b);
    T* a_tile = smem;                        // (BK, BM): one slice of A
    T* b_tile = smem + Cfg::kBK * Cfg::kBM;  // (BK, BN)

    T acc[Cfg::kTM][Cfg::kTN] = {};
    T ra[Cfg::kLoadsA], rb[Cfg::kLoadsB];  // the next slice, fetched from global memory
    std::int64_t const slices = slice_count<Cfg>(p.k);
    auto const k_left = slice_k_left<Cfg>(p);
    fetch_slice(a, k_left(0), ra);
    fetch_slice(b, k_left(0), rb);

    for (std::int64_t s = 0; s < slices; ++s) {
      __syncthreads();  // everyone is done reading the one buffer
      store_slice<Cfg::kBM>(a.walk, ra, a_tile);
      store_slice<Cfg::kBN>(b.walk, rb, b_tile);
      __syncthreads();  // the slice is in
      // The next slice (after the last one: nothing, every load predicated off, no branch).
      fetch_slice(a, k_left(s + 1), ra);
      fetch_slice(b, k_left(s + 1), rb);

      // Two fragment stages: step kk + 1's fragments are loaded while kk is computed.
      T fa[2][Cfg::kTM], fb[2][Cfg::kTN];  // (PREFETCH STAGE, TM) and (PREFETCH STAGE, TN)
      load_fragment_wide<Cfg, Cfg::kTM, Cfg::kThreadsM>(a_tile, tx, fa[0]);
      load_fragment_wide<Cfg, Cfg::kTN, Cfg::kThreadsN>(b_tile, ty, fb[0]);
#pragma unroll
      for (int kk = 0; kk < Cfg::kBK; ++kk) {
        int const cur = kk % 2;
        if (kk + 1 < Cfg::kBK) {
          load_fragment_wide<Cfg, Cfg::kTM, Cfg::kThreadsM>(a_tile + (kk + 1) * Cfg::kBM, tx, fa[(kk + 1) % 2]);
          load_fragment_wide<Cfg, Cfg::kTN, Cfg::kThreadsN>(b_tile + (kk + 1) * Cfg::kBN, ty, fb[(kk + 1) % 2]);
        }
        multiply_accumulate(acc, fa[cur], fb[cur]);
      }
    }
    store_block<Cfg>(p, batch_index, m0, n0, tx, ty, acc);
  }
};

template cudaError_t launch_register_blocked<Step03cConfig, double>(KernelParams<double> const&, cudaStream_t);
template cudaError_t launch_register_blocked<Step03cConfig, float>(KernelParams<float> const&, cudaStream_t);
template cudaError_t register_blocked_attributes<Step03cConfig, double>(cudaFuncAttributes*);
template cudaError_t register_blocked_attributes<Step03cConfig, float>(cudaFuncAttributes*);

}  // namespace gemmkit::ladder
