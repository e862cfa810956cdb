/*! \file
    \brief Code built with this machine's native flags (CMakeLists.txt): the kernel of the bound, a
           STREAM-like pass compiled -O3 -march=native, as STREAM is. (The Eigen and plain-loop peers
           are registered variants built the same way: src/variants/peer_native_batched.cpp.)
*/
#include "batched_impls.hpp"

#include <algorithm>

#ifndef GEMMKIT_BENCH_NATIVE_FLAGS
#define GEMMKIT_BENCH_NATIVE_FLAGS "the project's default flags"
#endif

namespace gemmkit::bench {

char const* native_peer_flags() { return GEMMKIT_BENCH_NATIVE_FLAGS; }

template <typename T>
double stream_range(T const* a, std::int64_t la, T const* b, std::int64_t lb, T* c, std::int64_t lc, bool read_c) {
  std::int64_t const common = std::min({la, lb, lc});
  if (read_c) {
#pragma omp simd
    for (std::int64_t i = 0; i < common; ++i) c[i] = c[i] + a[i] * b[i];
  } else {
#pragma omp simd
    for (std::int64_t i = 0; i < common; ++i) c[i] = a[i] * b[i];
  }
  T sum = 0;
#pragma omp simd reduction(+ : sum)
  for (std::int64_t i = common; i < la; ++i) sum += a[i];
#pragma omp simd reduction(+ : sum)
  for (std::int64_t i = common; i < lb; ++i) sum += b[i];
  T const add = a[0];
  if (read_c) {
#pragma omp simd
    for (std::int64_t i = common; i < lc; ++i) c[i] = c[i] + add;
  } else {
#pragma omp simd
    for (std::int64_t i = common; i < lc; ++i) c[i] = add;
  }
  return double(sum);
}

template double stream_range<double>(double const*, std::int64_t, double const*, std::int64_t, double*, std::int64_t,
                                     bool);
template double stream_range<float>(float const*, std::int64_t, float const*, std::int64_t, float*, std::int64_t, bool);

}  // namespace gemmkit::bench
