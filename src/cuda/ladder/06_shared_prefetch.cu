/*! \file
    \brief Ladder step 06: step 05 + shared-memory prefetch: two fragment stages, the fragments of step
    kk + 1 loaded while kk is computed, the seeds' two-level prefetch (seed 000 §2.4, seed 001 Algorithm 3).
*/
#include "cuda/ladder/ladder.hpp"
#include "cuda/ladder/register_blocked.cuh"
#include "cuda/ladder/wide_fragment.cuh"

namespace gemmkit::ladder {

template <>
struct RegisterBlockedStep<Step06Config> {
  using Cfg = Step06Config;
  static_assert(Cfg::kDoubleBuffer && Cfg::kWideSharedLoads && Cfg::kSharedPrefetch);

  template <typename T>
  static __device__ void tile(KernelParams<T> const& p, std::int64_t tile_m, std::int64_t tile_n,
                              std::int64_t batch_index, T* smem) {
    int const thread = threadIdx.x;
    int const tx = thread % Cfg::kThreadsM;  // the thread's place in the grid of register blocks
    int const ty = thread / Cfg::kThreadsM;
    std::int64_t const m0 = tile_m * Cfg::kBM, n0 = tile_n * Cfg::kBN;
    OperandSlices<T> a, b;
    operand_walks<Cfg>(p, m0, n0, batch_index, thread, a, b);
    T* a_tiles = smem;                            // (2, BK, BM): two slices of A
    T* b_tiles = smem + 2 * Cfg::kBK * Cfg::kBM;  // (2, BK, BN)

    T acc[Cfg::kTM][Cfg::kTN] = {};
    T ra[Cfg::kLoadsA], rb[Cfg::kLoadsB];  // the next slice, fetched from global memory
    std::int64_t const slices = slice_count<Cfg>(p.k);
    auto const k_left = slice_k_left<Cfg>(p);
    fetch_slice(a, k_left(0), ra);
    fetch_slice(b, k_left(0), rb);

    for (std::int64_t s = 0; s < slices; ++s) {
      int const buffer = int(s & 1);  // slice s goes to buffer s % 2
      T* a_tile = a_tiles + buffer * Cfg::kBK * Cfg::kBM;
      T* b_tile = b_tiles + buffer * Cfg::kBK * Cfg::kBN;
      // No barrier before the store: this buffer was last read for slice s - 2, and everyone
      // passed slice s - 1's barrier after that.
      store_slice<Cfg::kBM>(a.walk, ra, a_tile);
      store_slice<Cfg::kBN>(b.walk, rb, b_tile);
      __syncthreads();  // the slice is in; also orders this slice's reads before slice s + 1's store
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

template cudaError_t launch_register_blocked<Step06Config, double>(KernelParams<double> const&, cudaStream_t);
template cudaError_t launch_register_blocked<Step06Config, float>(KernelParams<float> const&, cudaStream_t);
template cudaError_t register_blocked_attributes<Step06Config, double>(cudaFuncAttributes*);
template cudaError_t register_blocked_attributes<Step06Config, float>(cudaFuncAttributes*);

}  // namespace gemmkit::ladder
