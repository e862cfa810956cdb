/*! \file
    \brief The FMA peak's loop on zmm registers; this file is compiled with the AVX-512 flags.
*/
#include "cpu/fma_peak.hpp"

#include <immintrin.h>

namespace gemmkit::cpu {

namespace {

struct Zmm64 {
  using Reg = __m512d;
  static Reg set(double x) { return _mm512_set1_pd(x); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm512_fmadd_pd(a, b, c); }
  static Reg add(Reg a, Reg b) { return _mm512_add_pd(a, b); }
  static double sum(Reg v) { return _mm512_reduce_add_pd(v); }
};

struct Zmm32 {
  using Reg = __m512;
  static Reg set(double x) { return _mm512_set1_ps(float(x)); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm512_fmadd_ps(a, b, c); }
  static Reg add(Reg a, Reg b) { return _mm512_add_ps(a, b); }
  static double sum(Reg v) { return double(_mm512_reduce_add_ps(v)); }
};

// Each chain is acc = acc * a + b with a just below 1: it settles at b / (1 - a), so no value
// overflows or turns subnormal (which would slow the FMAs) however long the loop runs.
volatile double g_scale = 0.999;
volatile double g_offset = 0.001;

template <class V>
double chains(std::int64_t iterations) {
  typename V::Reg const a = V::set(g_scale), b = V::set(g_offset);
  typename V::Reg acc[kFmaChainsAvx512];
#pragma GCC unroll 16
  for (int c = 0; c < kFmaChainsAvx512; ++c) acc[c] = V::set(double(c));
  for (std::int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 16
    for (int c = 0; c < kFmaChainsAvx512; ++c) acc[c] = V::fma(acc[c], a, b);
  }
#pragma GCC unroll 16
  for (int c = 1; c < kFmaChainsAvx512; ++c) acc[0] = V::add(acc[0], acc[c]);
  return V::sum(acc[0]);
}

}  // namespace

double fma_chains_avx512_f64(std::int64_t iterations) { return chains<Zmm64>(iterations); }
double fma_chains_avx512_f32(std::int64_t iterations) { return chains<Zmm32>(iterations); }

}  // namespace gemmkit::cpu
