/*! \file
    \brief C := beta*C on the device (BLAS k = 0 / alpha = 0), never reading C when beta = 0.
*/
#include "cuda/gemm/scale_c.hpp"

#include "base/cuda_check.hpp"
#include "cuda/scale_c_device.hpp"

#include <algorithm>

namespace gemmkit {

namespace {

/// Grid-stride over rows (x), columns (y) and batch (z) so any 64-bit shape fits the grid limits.
/// Batch entry b starts at C_array[b] when a device array of pointers is given, else at C + b*stride_c.
template <typename T>
__global__ void scale_c_kernel(std::int64_t m, std::int64_t n, std::int64_t batch, T beta, T* C, std::int64_t ldc,
                               std::int64_t stride_c, T* const* C_array) {
  for (std::int64_t b = blockIdx.z; b < batch; b += gridDim.z) {
    T* const entry = C_array != nullptr ? C_array[b] : C + b * stride_c;
    for (std::int64_t j = blockIdx.y; j < n; j += gridDim.y) {
      T* column = entry + j * ldc;
      for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < m;
           i += std::int64_t(gridDim.x) * blockDim.x) {
        column[i] = beta == T(0) ? T(0) : beta * column[i];
      }
    }
  }
}

template <typename T>
cudaError_t launch(GemmProblem const& p, T beta, void* C, cudaStream_t stream) {
  // A host array of pointers cannot be read by the kernel; the dispatcher scales those one by one.
  if (p.pointer_array && !p.arrays_on_device) return cudaErrorInvalidValue;
  constexpr int kThreads = 256;
  dim3 const grid(unsigned(std::min<std::int64_t>((p.m + kThreads - 1) / kThreads, 1024)),
                  unsigned(std::min<std::int64_t>(p.n, 65535)), unsigned(std::min<std::int64_t>(p.batch, 65535)));
  T* const strided = p.pointer_array ? nullptr : static_cast<T*>(C);
  T* const* const array = p.pointer_array ? static_cast<T* const*>(C) : nullptr;
  scale_c_kernel<<<grid, kThreads, 0, stream>>>(p.m, p.n, p.batch, beta, strided, p.ldc, p.stride_c, array);
  return cudaGetLastError();
}

}  // namespace

cudaError_t launch_scale_c(GemmProblem const& problem, double beta, void* C, cudaStream_t stream) {
  if (problem.dtype == Dtype::kF64) return launch(problem, beta, C, stream);
  return launch(problem, float(beta), C, stream);
}

std::string scale_c_device(GemmProblem const& problem, double beta, void* C, ExecutionContext const& exec) {
  return cuda_error_text(launch_scale_c(problem, beta, C, static_cast<cudaStream_t>(exec.stream)), "scale_c kernel");
}

}  // namespace gemmkit
