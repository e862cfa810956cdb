/*! \file
    \brief Ladder step 02 (seed 002): tiles of A and B staged in shared memory and reused kTile times.
*/
#include "cuda/gemm/epilogue.cuh"
#include "cuda/ladder/ladder.hpp"

namespace gemmkit::ladder {

namespace {

/// Computes the kTile x kTile tile (tile_m, tile_n) of problem `batch_index`. Threads (tx, ty) own
/// C(tile_m*kTile + tx, tile_n*kTile + ty). Loads are arranged so consecutive tx read consecutive
/// addresses for every transpose case; out-of-range elements load as zero.
template <typename Cfg, typename T>
__device__ void tiled_tile(Params<T> const& p, std::int64_t tile_m, std::int64_t tile_n, std::int64_t batch_index,
                           T (*a_tile)[Cfg::kTile + 1], T (*b_tile)[Cfg::kTile + 1]) {
  constexpr int kTile = Cfg::kTile;
  int const tx = threadIdx.x;
  int const ty = threadIdx.y;
  T const* A = p.A + batch_index * p.stride_a;
  T const* B = p.B + batch_index * p.stride_b;
  std::int64_t const row0 = tile_m * kTile;
  std::int64_t const col0 = tile_n * kTile;

  T acc = T(0);
  for (std::int64_t l0 = 0; l0 < p.k; l0 += kTile) {
    // a_tile[l][i] = op(A)(row0 + i, l0 + l)
    if (!p.trans_a) {
      std::int64_t const i = row0 + tx, l = l0 + ty;
      a_tile[ty][tx] = (i < p.m && l < p.k) ? A[i + l * p.lda] : T(0);
    } else {
      std::int64_t const i = row0 + ty, l = l0 + tx;
      a_tile[tx][ty] = (i < p.m && l < p.k) ? A[l + i * p.lda] : T(0);
    }
    // b_tile[j][l] = op(B)(l0 + l, col0 + j)
    if (!p.trans_b) {
      std::int64_t const l = l0 + tx, j = col0 + ty;
      b_tile[ty][tx] = (l < p.k && j < p.n) ? B[l + j * p.ldb] : T(0);
    } else {
      std::int64_t const l = l0 + ty, j = col0 + tx;
      b_tile[tx][ty] = (l < p.k && j < p.n) ? B[j + l * p.ldb] : T(0);
    }
    __syncthreads();
#pragma unroll
    for (int l = 0; l < kTile; ++l) acc += a_tile[l][tx] * b_tile[ty][l];
    __syncthreads();
  }
  std::int64_t const i = row0 + tx, j = col0 + ty;
  if (i < p.m && j < p.n) store_c(p, p.C + batch_index * p.stride_c + i + j * p.ldc, acc);
}

template <typename Cfg, typename T>
__global__ void __launch_bounds__(Cfg::kThreads) tiled_kernel(Params<T> const p) {
  static_assert(Cfg::valid());
  __shared__ T a_tile[Cfg::kTile][Cfg::kTile + 1];  // (BK, BM+1)
  __shared__ T b_tile[Cfg::kTile][Cfg::kTile + 1];  // (BN, BK+1)
  std::int64_t const tiles_n = (p.n + Cfg::kTile - 1) / Cfg::kTile;
  for (std::int64_t b = blockIdx.z; b < p.batch; b += gridDim.z) {
    for (std::int64_t tn = blockIdx.y; tn < tiles_n; tn += gridDim.y) {
      tiled_tile<Cfg>(p, blockIdx.x, tn, b, a_tile, b_tile);
    }
  }
}

}  // namespace

template <typename T, typename Cfg>
cudaError_t launch_tiled(Params<T> const& p, cudaStream_t stream) {
  dim3 const block(Cfg::kTile, Cfg::kTile);
  dim3 const grid = tile_grid((p.m + Cfg::kTile - 1) / Cfg::kTile, (p.n + Cfg::kTile - 1) / Cfg::kTile, p.batch);
  tiled_kernel<Cfg, T><<<grid, block, 0, stream>>>(p);
  return cudaGetLastError();
}

template cudaError_t launch_tiled<double, TiledConfig<16>>(Params<double> const&, cudaStream_t);
template cudaError_t launch_tiled<float, TiledConfig<16>>(Params<float> const&, cudaStream_t);

}  // namespace gemmkit::ladder
