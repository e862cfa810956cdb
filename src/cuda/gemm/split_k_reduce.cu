/*! \file
    \brief The second pass of split-K: C = alpha * (sum of the slices' partial sums) + beta * C.
*/
#include "cuda/gemm/split_k_reduce.hpp"

#include <algorithm>

namespace gemmkit::gemm {

namespace {

__global__ void split_k_reduce_kernel(std::int64_t m, std::int64_t n, std::int64_t slices, double const* workspace,
                                      double alpha, double beta, double* C, std::int64_t ldc) {
  std::int64_t const elements = m * n;
  for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < elements;
       e += std::int64_t(gridDim.x) * blockDim.x) {
    double sum = 0.0;
    for (std::int64_t s = 0; s < slices; ++s) sum += workspace[s * elements + e];
    double* c = C + (e % m) + (e / m) * ldc;
    *c = beta == 0.0 ? alpha * sum : alpha * sum + beta * *c;
  }
}

}  // namespace

cudaError_t launch_split_k_reduce(std::int64_t m, std::int64_t n, std::int64_t slices, double const* workspace,
                                  double alpha, double beta, double* C, std::int64_t ldc, cudaStream_t stream) {
  constexpr int kThreads = 256;
  std::int64_t const blocks = std::min<std::int64_t>((m * n + kThreads - 1) / kThreads, 65536);
  split_k_reduce_kernel<<<unsigned(blocks), kThreads, 0, stream>>>(m, n, slices, workspace, alpha, beta, C, ldc);
  return cudaGetLastError();
}

}  // namespace gemmkit::gemm
