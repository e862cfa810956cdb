/*! \file
    \brief Ladder step 01: the naive GEMM, one thread per element of C, no reuse of A or B.
*/
#include "cuda/gemm/epilogue.cuh"
#include "cuda/ladder/ladder.hpp"

namespace gemmkit::ladder {

namespace {

/// Element (i, j) of problem `batch_index`: the device routine every wrapper maps onto.
template <typename T>
__device__ void naive_element(Params<T> const& p, std::int64_t i, std::int64_t j, std::int64_t batch_index) {
  T const* A = p.A + batch_index * p.stride_a;
  T const* B = p.B + batch_index * p.stride_b;
  T acc = T(0);
  for (std::int64_t l = 0; l < p.k; ++l) {
    T const a = p.trans_a ? A[l + i * p.lda] : A[i + l * p.lda];
    T const b = p.trans_b ? B[j + l * p.ldb] : B[l + j * p.ldb];
    acc += a * b;
  }
  store_c(p, p.C + batch_index * p.stride_c + i + j * p.ldc, acc);
}

template <typename T>
__global__ void __launch_bounds__(NaiveConfig::kThreads) naive_kernel(Params<T> const p) {
  static_assert(NaiveConfig::valid());
  std::int64_t const tiles_n = (p.n + NaiveConfig::kBlockN - 1) / NaiveConfig::kBlockN;
  for (std::int64_t b = blockIdx.z; b < p.batch; b += gridDim.z) {
    for (std::int64_t tn = blockIdx.y; tn < tiles_n; tn += gridDim.y) {
      std::int64_t const i = std::int64_t(blockIdx.x) * NaiveConfig::kBlockM + threadIdx.x;
      std::int64_t const j = tn * NaiveConfig::kBlockN + threadIdx.y;
      if (i < p.m && j < p.n) naive_element(p, i, j, b);
    }
  }
}

}  // namespace

template <typename T>
cudaError_t launch_naive(Params<T> const& p, cudaStream_t stream) {
  dim3 const block(NaiveConfig::kBlockM, NaiveConfig::kBlockN);
  dim3 const grid = tile_grid((p.m + NaiveConfig::kBlockM - 1) / NaiveConfig::kBlockM,
                              (p.n + NaiveConfig::kBlockN - 1) / NaiveConfig::kBlockN, p.batch);
  naive_kernel<T><<<grid, block, 0, stream>>>(p);
  return cudaGetLastError();
}

template cudaError_t launch_naive<double>(Params<double> const&, cudaStream_t);
template cudaError_t launch_naive<float>(Params<float> const&, cudaStream_t);

}  // namespace gemmkit::ladder
