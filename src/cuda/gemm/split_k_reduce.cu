/*! \file
    \brief The second pass of split-K: C = alpha * (sum of the slices' partial sums) + beta * C;
    the SM count split-K plans for; the epochs of the fixup forms' ready flags.
*/
#include "cuda/gemm/split_k.hpp"
#include "cuda/gemm/split_k_reduce.hpp"

#include <algorithm>
#include <atomic>

namespace gemmkit::gemm {

namespace {

template <typename T>
__global__ void split_k_reduce_kernel(std::int64_t m, std::int64_t n, std::int64_t slices, T const* workspace, T alpha,
                                      T beta, T* C, std::int64_t ldc) {
  std::int64_t const elements = m * n;
  for (std::int64_t e = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; e < elements;
       e += std::int64_t(gridDim.x) * blockDim.x) {
    T sum = T(0);
    for (std::int64_t s = 0; s < slices; ++s) sum += workspace[s * elements + e];
    T* c = C + (e % m) + (e / m) * ldc;
    *c = beta == T(0) ? alpha * sum : alpha * sum + beta * *c;
  }
}

}  // namespace

int current_sm_count() {
  static std::atomic<int> counts[64] = {};
  int device = 0;
  if (cudaGetDevice(&device) != cudaSuccess || device >= 64) return 132;
  int count = counts[device].load(std::memory_order_relaxed);
  if (count == 0) {
    if (cudaDeviceGetAttribute(&count, cudaDevAttrMultiProcessorCount, device) != cudaSuccess) count = 132;
    counts[device].store(count, std::memory_order_relaxed);
  }
  return count;
}

std::uint64_t next_partial_epoch() {
  constexpr std::uint64_t kPattern = 0x9E3779B97F4A7C15ull;  // 2^64 / golden ratio: an unremarkable word
  static std::atomic<std::uint64_t> serial{0};
  return kPattern + serial.fetch_add(1, std::memory_order_relaxed);
}

template <typename T>
cudaError_t launch_split_k_reduce(std::int64_t m, std::int64_t n, std::int64_t slices, T const* workspace, T alpha,
                                  T beta, T* C, std::int64_t ldc, cudaStream_t stream) {
  constexpr int kThreads = 256;
  std::int64_t const blocks = std::min<std::int64_t>((m * n + kThreads - 1) / kThreads, 65536);
  split_k_reduce_kernel<<<unsigned(blocks), kThreads, 0, stream>>>(m, n, slices, workspace, alpha, beta, C, ldc);
  return cudaGetLastError();
}

template cudaError_t launch_split_k_reduce<double>(std::int64_t, std::int64_t, std::int64_t, double const*, double,
                                                   double, double*, std::int64_t, cudaStream_t);
template cudaError_t launch_split_k_reduce<float>(std::int64_t, std::int64_t, std::int64_t, float const*, float, float,
                                                  float*, std::int64_t, cudaStream_t);

}  // namespace gemmkit::gemm
