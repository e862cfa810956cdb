/*! \file
    \brief The FMA peak's loop on zmm registers; this file is compiled with the AVX-512 flags.
*/
// GCC 12 warns inside its own _mm512_reduce_add_pd (an undefined pass-through operand of
// _mm512_extractf64x4_pd that it creates itself); nothing of ours is uninitialized.
#pragma GCC diagnostic ignored "-Wuninitialized"
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#include "cpu/fma_chains.inl"

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

}  // namespace

double fma_chains_avx512_f64(std::int64_t iterations) { return fma_detail::chains<Zmm64, kFmaChainsAvx512>(iterations); }
double fma_chains_avx512_f32(std::int64_t iterations) { return fma_detail::chains<Zmm32, kFmaChainsAvx512>(iterations); }

}  // namespace gemmkit::cpu
