/*! \file
    \brief The AVX2 and FMA vector types and kernel selections of the small-GEMM kernels; included
    by kernels_avx2_f64.cpp and kernels_avx2_f32.cpp, each compiled with those flags.
*/
#include <immintrin.h>

#include "cpu/small/small_kernels.inl"

namespace gemmkit::cpu {

namespace {

/// Lane masks for maskload/maskstore: the first `rows` lanes set.
inline __m256i first_lanes_64(int rows) {
  return _mm256_cmpgt_epi64(_mm256_set1_epi64x(rows), _mm256_setr_epi64x(0, 1, 2, 3));
}
inline __m256i first_lanes_32(int rows) {
  return _mm256_cmpgt_epi32(_mm256_set1_epi32(rows), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
}

struct Avx2F64 {
  using T = double;
  using Reg = __m256d;
  static constexpr int kWidth = 4;
  static constexpr int kRegisters = 16;
  static constexpr int kMaxRowVectors = 2;
  static constexpr int kMaxBlockColumns = 6;
  static Reg zero() { return _mm256_setzero_pd(); }
  static __m256i tail_mask(int rows) { return first_lanes_64(rows); }
  static Reg load(double const* p) { return _mm256_loadu_pd(p); }
  static Reg load(double const* p, __m256i m) { return _mm256_maskload_pd(p, m); }
  static void store(double* p, Reg v) { _mm256_storeu_pd(p, v); }
  static void store(double* p, Reg v, __m256i m) { _mm256_maskstore_pd(p, m, v); }
  static Reg broadcast(double x) { return _mm256_set1_pd(x); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm256_fmadd_pd(a, b, c); }
  static Reg mul(Reg a, Reg b) { return _mm256_mul_pd(a, b); }
  static Reg add(Reg a, Reg b) { return _mm256_add_pd(a, b); }
  template <int kSelect>
  static Reg permute(Reg v) { return _mm256_permute4x64_pd(v, kSelect); }  // the 4 lanes
};

struct Avx2F32 {
  using T = float;
  using Reg = __m256;
  static constexpr int kWidth = 8;
  static constexpr int kRegisters = 16;
  static constexpr int kMaxRowVectors = 2;
  static constexpr int kMaxBlockColumns = 6;
  static Reg zero() { return _mm256_setzero_ps(); }
  static __m256i tail_mask(int rows) { return first_lanes_32(rows); }
  static Reg load(float const* p) { return _mm256_loadu_ps(p); }
  static Reg load(float const* p, __m256i m) { return _mm256_maskload_ps(p, m); }
  static void store(float* p, Reg v) { _mm256_storeu_ps(p, v); }
  static void store(float* p, Reg v, __m256i m) { _mm256_maskstore_ps(p, m, v); }
  static Reg broadcast(float x) { return _mm256_set1_ps(x); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm256_fmadd_ps(a, b, c); }
  static Reg mul(Reg a, Reg b) { return _mm256_mul_ps(a, b); }
  static Reg add(Reg a, Reg b) { return _mm256_add_ps(a, b); }
  template <int kSelect>
  static Reg permute(Reg v) { return _mm256_permute_ps(v, kSelect); }  // within each group of 4
};

/// AVX2 uses its one vector width for every m; kSplit is the same kernel.
template <class V>
struct SelectAll {
  static constexpr SmallIsa kIsa = SmallIsa::kAvx2;
  template <int M>
  using For = V;
  template <int M>
  using Split = V;
  using Packed = V;
};

}  // namespace

}  // namespace gemmkit::cpu
