/*! \file
    \brief Ladder step 03: register blocking: 8x8 elements of C per thread in registers, the next slice of A
    and B fetched into registers while the current one is computed (seed 000 §2.0, seed 001 Algorithm 1).
    One shared buffer, so two barriers a slice; fragments read one element per load.
*/
#include "cuda/ladder/ladder.hpp"
#include "cuda/ladder/register_blocked.cuh"

namespace gemmkit::ladder {

template <>
struct RegisterBlockedStep<Step03Config> {
  using Cfg = Step03Config;
  static_assert(!Cfg::kDoubleBuffer && !Cfg::kWideSharedLoads && !Cfg::kSharedPrefetch);

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

      // Fragment registers with step 06's two stages, of which this step uses one: declared one
      // stage deep the compiler orders the accumulators differently, and the SASS would no longer
      // be the baseline's.
      T fa[2][Cfg::kTM], fb[2][Cfg::kTN];
#pragma unroll
      for (int kk = 0; kk < Cfg::kBK; ++kk) {
        load_fragment<Cfg, Cfg::kTM, Cfg::kThreadsM>(a_tile + kk * Cfg::kBM, tx, fa[0]);
        load_fragment<Cfg, Cfg::kTN, Cfg::kThreadsN>(b_tile + kk * Cfg::kBN, ty, fb[0]);
        multiply_accumulate(acc, fa[0], fb[0]);
      }
    }
    store_block<Cfg>(p, batch_index, m0, n0, tx, ty, acc);
  }
};

template cudaError_t launch_register_blocked<Step03Config, double>(KernelParams<double> const&, cudaStream_t);
template cudaError_t launch_register_blocked<Step03Config, float>(KernelParams<float> const&, cudaStream_t);
template cudaError_t register_blocked_attributes<Step03Config, double>(cudaFuncAttributes*);
template cudaError_t register_blocked_attributes<Step03Config, float>(cudaFuncAttributes*);

}  // namespace gemmkit::ladder
