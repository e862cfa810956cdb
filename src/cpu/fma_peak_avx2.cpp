/*! \file
    \brief The FMA peak's loop on ymm registers; this file is compiled with the AVX2 and FMA flags.
*/
#include "cpu/fma_peak.hpp"

#include <immintrin.h>

namespace gemmkit::cpu {

namespace {

struct Ymm64 {
  using Reg = __m256d;
  static Reg set(double x) { return _mm256_set1_pd(x); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm256_fmadd_pd(a, b, c); }
  static Reg add(Reg a, Reg b) { return _mm256_add_pd(a, b); }
  static double sum(Reg v) {
    alignas(32) double lanes[4];
    _mm256_store_pd(lanes, v);
    return lanes[0] + lanes[1] + lanes[2] + lanes[3];
  }
};

struct Ymm32 {
  using Reg = __m256;
  static Reg set(double x) { return _mm256_set1_ps(float(x)); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm256_fmadd_ps(a, b, c); }
  static Reg add(Reg a, Reg b) { return _mm256_add_ps(a, b); }
  static double sum(Reg v) {
    alignas(32) float lanes[8];
    _mm256_store_ps(lanes, v);
    double total = 0;
    for (float x : lanes) total += double(x);
    return total;
  }
};

// Each chain is acc = acc * a + b with a just below 1: it settles at b / (1 - a), so no value
// overflows or turns subnormal (which would slow the FMAs) however long the loop runs.
volatile double g_scale = 0.999;
volatile double g_offset = 0.001;

template <class V>
double chains(std::int64_t iterations) {
  typename V::Reg const a = V::set(g_scale), b = V::set(g_offset);
  typename V::Reg acc[kFmaChainsAvx2];
#pragma GCC unroll 14
  for (int c = 0; c < kFmaChainsAvx2; ++c) acc[c] = V::set(double(c));
  for (std::int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 14
    for (int c = 0; c < kFmaChainsAvx2; ++c) acc[c] = V::fma(acc[c], a, b);
  }
#pragma GCC unroll 14
  for (int c = 1; c < kFmaChainsAvx2; ++c) acc[0] = V::add(acc[0], acc[c]);
  return V::sum(acc[0]);
}

}  // namespace

double fma_chains_avx2_f64(std::int64_t iterations) { return chains<Ymm64>(iterations); }
double fma_chains_avx2_f32(std::int64_t iterations) { return chains<Ymm32>(iterations); }

}  // namespace gemmkit::cpu
