/*! \file
    \brief C := beta*C on the device (BLAS k = 0 / alpha = 0), never reading C when beta = 0.
*/
#include "cuda/gemm/scale_c.hpp"

#include <algorithm>

namespace gemmkit {

namespace {

/// Grid-stride over rows (x), columns (y) and batch (z) so any 64-bit shape fits the grid limits.
template <typename T>
__global__ void scale_c_kernel(std::int64_t m, std::int64_t n, std::int64_t batch, T beta, T* C, std::int64_t ldc,
                               std::int64_t stride_c) {
  for (std::int64_t b = blockIdx.z; b < batch; b += gridDim.z) {
    for (std::int64_t j = blockIdx.y; j < n; j += gridDim.y) {
      T* column = C + b * stride_c + j * ldc;
      for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < m;
           i += std::int64_t(gridDim.x) * blockDim.x) {
        column[i] = beta == T(0) ? T(0) : beta * column[i];
      }
    }
  }
}

template <typename T>
cudaError_t launch(GemmProblem const& p, T beta, T* C, cudaStream_t stream) {
  constexpr int kThreads = 256;
  dim3 const grid(unsigned(std::min<std::int64_t>((p.m + kThreads - 1) / kThreads, 1024)),
                  unsigned(std::min<std::int64_t>(p.n, 65535)), unsigned(std::min<std::int64_t>(p.batch, 65535)));
  scale_c_kernel<<<grid, kThreads, 0, stream>>>(p.m, p.n, p.batch, beta, C, p.ldc, p.stride_c);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_scale_c(GemmProblem const& problem, double beta, void* C, cudaStream_t stream) {
  if (problem.dtype == Dtype::kF64) return launch(problem, beta, static_cast<double*>(C), stream);
  return launch(problem, float(beta), static_cast<float*>(C), stream);
}

}  // namespace gemmkit
