/*! \file
    \brief The device kernels of `batched` on the GPU. See batched_gpu_kernels.hpp.
*/
#include "batched_gpu_kernels.hpp"

#include <algorithm>

namespace gemmkit::bench {

namespace {

constexpr std::int64_t kMaxBlocks = (std::int64_t(1) << 31) - 1;

/// 16 bytes of T: the width of every access of the bound's pass.
template <typename T>
struct Vector;
template <>
struct Vector<double> {
  using Type = double2;
  static constexpr int kWidth = 2;
  __device__ static Type zero() { return make_double2(0, 0); }
  __device__ static Type fma(Type a, Type b, Type c) { return make_double2(a.x * b.x + c.x, a.y * b.y + c.y); }
  __device__ static double sum(Type v) { return v.x + v.y; }
};
template <>
struct Vector<float> {
  using Type = float4;
  static constexpr int kWidth = 4;
  __device__ static Type zero() { return make_float4(0, 0, 0, 0); }
  __device__ static Type fma(Type a, Type b, Type c) {
    return make_float4(a.x * b.x + c.x, a.y * b.y + c.y, a.z * b.z + c.z, a.w * b.w + c.w);
  }
  __device__ static float sum(Type v) { return (v.x + v.y) + (v.z + v.w); }
};

/// The elements past the last whole vector of each array (fewer than one vector each).
template <typename T>
struct Tails {
  T const* a;
  T const* b;
  T* c;
  int la, lb, lc;
};

/// One thread per vector index i of the longest array, striding by the grid: c[i] = c[i] + a[i]*b[i]
/// where all three exist, a and b alone (summed into a register) past c's end, c alone past theirs.
template <typename T, bool kReadC>
__global__ void __launch_bounds__(kStreamThreads)
    stream_kernel(typename Vector<T>::Type const* __restrict__ a, std::int64_t va,
                  typename Vector<T>::Type const* __restrict__ b, std::int64_t vb, typename Vector<T>::Type* c,
                  std::int64_t vc, Tails<T> tails, T* sink) {
  using V = Vector<T>;
  std::int64_t const longest = va > vb ? (va > vc ? va : vc) : (vb > vc ? vb : vc);
  std::int64_t const step = std::int64_t(gridDim.x) * blockDim.x;
  T acc = 0;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < longest; i += step) {
    typename V::Type const x = i < va ? a[i] : V::zero();
    typename V::Type const y = i < vb ? b[i] : V::zero();
    if (i < vc) {
      c[i] = V::fma(x, y, kReadC ? c[i] : V::zero());
    } else {
      acc += V::sum(x) + V::sum(y);
    }
  }
  if (blockIdx.x == 0 && threadIdx.x == 0) {
    for (int e = 0; e < tails.la; ++e) acc += tails.a[e];
    for (int e = 0; e < tails.lb; ++e) acc += tails.b[e];
    for (int e = 0; e < tails.lc; ++e) tails.c[e] = (kReadC ? tails.c[e] : T(0)) + T(1);
  }
  if (acc == T(-4096)) *sink = acc;  // never in practice; keeps every load
}

__device__ std::uint64_t mix64_device(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

template <typename T>
__global__ void fill_random_kernel(T* data, std::int64_t count, std::uint64_t seed) {
  std::int64_t const step = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < count; i += step) {
    std::uint64_t const z = mix64_device(seed + 0x9E3779B97F4A7C15ull * std::uint64_t(i + 1));
    double const u = double(z >> 11) * 0x1.0p-53;  // 53 random bits in [0, 1)
    T const v = T(2.0 * u - 1.0);
    data[i] = v == T(0) ? T(0.5) : v;
  }
}

template <typename T>
__global__ void pointer_array_kernel(T** array, T* base, std::int64_t stride, std::int64_t batch) {
  std::int64_t const step = std::int64_t(gridDim.x) * blockDim.x;
  for (std::int64_t i = blockIdx.x * std::int64_t(blockDim.x) + threadIdx.x; i < batch; i += step) {
    array[i] = base + i * stride;
  }
}

/// Blocks of 256 threads for a grid-stride loop over `count` items: at most about a million.
unsigned grid_for(std::int64_t count) {
  return unsigned(std::clamp<std::int64_t>((count + 255) / 256, 1, std::int64_t(1) << 20));
}

}  // namespace

template <typename T>
cudaError_t fill_random_device(T* data, std::int64_t count, std::uint64_t seed, cudaStream_t stream) {
  if (count <= 0) return cudaSuccess;
  fill_random_kernel<T><<<grid_for(count), 256, 0, stream>>>(data, count, seed);
  return cudaGetLastError();
}

template <typename T>
cudaError_t fill_pointer_array(T** array, T* base, std::int64_t stride, std::int64_t batch, cudaStream_t stream) {
  if (batch <= 0) return cudaSuccess;
  pointer_array_kernel<T><<<grid_for(batch), 256, 0, stream>>>(array, base, stride, batch);
  return cudaGetLastError();
}

template <typename T>
cudaError_t stream_pass_device(T const* a, std::int64_t la, T const* b, std::int64_t lb, T* c, std::int64_t lc,
                               bool read_c, T* sink, int blocks, cudaStream_t stream) {
  using V = Vector<T>;
  for (void const* p : {static_cast<void const*>(a), static_cast<void const*>(b), static_cast<void const*>(c)}) {
    if (reinterpret_cast<std::uintptr_t>(p) % 16 != 0) return cudaErrorMisalignedAddress;
  }
  std::int64_t const va = la / V::kWidth, vb = lb / V::kWidth, vc = lc / V::kWidth;
  Tails<T> const tails{a + va * V::kWidth, b + vb * V::kWidth, c + vc * V::kWidth, int(la - va * V::kWidth),
                       int(lb - vb * V::kWidth), int(lc - vc * V::kWidth)};
  std::int64_t const longest = std::max({va, vb, vc, std::int64_t(1)});
  std::int64_t const grid =
      blocks > 0 ? blocks : std::min<std::int64_t>((longest + kStreamThreads - 1) / kStreamThreads, kMaxBlocks);
  auto const* av = reinterpret_cast<typename V::Type const*>(a);
  auto const* bv = reinterpret_cast<typename V::Type const*>(b);
  auto* cv = reinterpret_cast<typename V::Type*>(c);
  if (read_c) {
    stream_kernel<T, true><<<unsigned(grid), kStreamThreads, 0, stream>>>(av, va, bv, vb, cv, vc, tails, sink);
  } else {
    stream_kernel<T, false><<<unsigned(grid), kStreamThreads, 0, stream>>>(av, va, bv, vb, cv, vc, tails, sink);
  }
  return cudaGetLastError();
}

#define GEMMKIT_BENCH_INSTANTIATE(T)                                                                             \
  template cudaError_t fill_random_device<T>(T*, std::int64_t, std::uint64_t, cudaStream_t);                    \
  template cudaError_t fill_pointer_array<T>(T**, T*, std::int64_t, std::int64_t, cudaStream_t);                \
  template cudaError_t stream_pass_device<T>(T const*, std::int64_t, T const*, std::int64_t, T*, std::int64_t, \
                                             bool, T*, int, cudaStream_t);
GEMMKIT_BENCH_INSTANTIATE(double)
GEMMKIT_BENCH_INSTANTIATE(float)
#undef GEMMKIT_BENCH_INSTANTIATE

}  // namespace gemmkit::bench
