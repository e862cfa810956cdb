/*! \file
    \brief The FMA peak's loop on ymm registers; this file is compiled with the AVX2 and FMA flags.
*/
#include "cpu/fma_chains.inl"

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

}  // namespace

double fma_chains_avx2_f64(std::int64_t iterations) { return fma_detail::chains<Ymm64, kFmaChainsAvx2>(iterations); }
double fma_chains_avx2_f32(std::int64_t iterations) { return fma_detail::chains<Ymm32, kFmaChainsAvx2>(iterations); }

}  // namespace gemmkit::cpu
