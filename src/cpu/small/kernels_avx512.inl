/*! \file
    \brief The AVX-512 (F, VL, DQ) vector types and kernel selections of the small-GEMM kernels; included
    by kernels_avx512_f64.cpp and kernels_avx512_f32.cpp, each compiled with those flags.
*/
// GCC 12 warns inside its own _mm512_permute_ps/_mm512_permutex_pd/_mm512_alignr_epi64 (an
// undefined pass-through operand it creates itself); nothing of ours is uninitialized.
#pragma GCC diagnostic ignored "-Wmaybe-uninitialized"
#pragma GCC diagnostic ignored "-Wuninitialized"
#include <immintrin.h>

#include "cpu/small/small_kernels.inl"

#include <type_traits>  // conditional_t: a type only, no code

namespace gemmkit::cpu {

namespace {

struct Avx512VlF64x4;
struct Avx512VlF64x2;
struct Avx512VlF32x8;
struct Avx512VlF32x4;

struct Avx512F64 {
  using T = double;
  using Reg = __m512d;
  using Half = Avx512VlF64x4;
  static __m256d low_half(Reg v) { return _mm512_castpd512_pd256(v); }
  static constexpr int kWidth = 8;
  static constexpr int kRegisters = 32;
  static constexpr int kMaxRowVectors = 4;
  static constexpr int kMaxBlockColumns = 8;
  static Reg zero() { return _mm512_setzero_pd(); }
  static __mmask8 tail_mask(int rows) { return __mmask8((1u << rows) - 1u); }
  static Reg load(double const* p) { return _mm512_loadu_pd(p); }
  static Reg load(double const* p, __mmask8 m) { return _mm512_maskz_loadu_pd(m, p); }
  /// `into` with the lanes of `lanes` loaded from p (lanes outside are not read).
  static Reg load_merge(Reg into, unsigned lanes, double const* p) { return _mm512_mask_loadu_pd(into, __mmask8(lanes), p); }
  static void store(double* p, Reg v) { _mm512_storeu_pd(p, v); }
  static void store(double* p, Reg v, __mmask8 m) { _mm512_mask_storeu_pd(p, m, v); }
  static Reg broadcast(double x) { return _mm512_set1_pd(x); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm512_fmadd_pd(a, b, c); }
  static Reg mul(Reg a, Reg b) { return _mm512_mul_pd(a, b); }
  static Reg add(Reg a, Reg b) { return _mm512_add_pd(a, b); }
  template <int kSelect>
  static Reg permute(Reg v) { return _mm512_permutex_pd(v, kSelect); }  // within each group of 4
  /// kGroup elements at p repeated in every group of kGroup lanes (column groups, small_kernels.inl).
  template <int kGroup>
  static Reg group_broadcast(double const* p) {
    if constexpr (kGroup == 2) return _mm512_broadcast_f64x2(_mm_loadu_pd(p));
    else return _mm512_broadcast_f64x4(_mm256_loadu_pd(p));
  }
  /// Every lane of each group of kGroup lanes from the group's lane kL.
  template <int kGroup, int kL>
  static Reg group_select(Reg v) {
    if constexpr (kGroup == 2) return _mm512_permute_pd(v, kL == 0 ? 0x00 : 0xFF);
    else return _mm512_permutex_pd(v, kL * 0x55);
  }
  using IndexElement = long long;
  using Index = __m512i;
  static Index load_index(IndexElement const* p) { return _mm512_loadu_si512(p); }
  static Reg permute_lanes(Index index, Reg v) { return _mm512_permutexvar_pd(index, v); }
  /// Lane t from lane index[t] of the 16 lanes of (low, high).
  static Reg permute_lanes(Reg low, Index index, Reg high) { return _mm512_permutex2var_pd(low, index, high); }
  /// `from`'s lanes where `lanes` is set, else `into`'s.
  static Reg blend(unsigned lanes, Reg into, Reg from) { return _mm512_mask_blend_pd(__mmask8(lanes), into, from); }
  /// Lanes [0, kLanes) moved to [W - kLanes, W) (the others: don't care).
  template <int kLanes>
  static Reg rotate_up(Reg v) {
    return _mm512_castsi512_pd(_mm512_alignr_epi64(_mm512_castpd_si512(v), _mm512_castpd_si512(v), kLanes));
  }
};

struct Avx512F32 {
  using T = float;
  using Reg = __m512;
  using Half = Avx512VlF32x8;
  static __m256 low_half(Reg v) { return _mm512_castps512_ps256(v); }
  static constexpr int kWidth = 16;
  static constexpr int kRegisters = 32;
  static constexpr int kMaxRowVectors = 4;
  static constexpr int kMaxBlockColumns = 8;
  static Reg zero() { return _mm512_setzero_ps(); }
  static __mmask16 tail_mask(int rows) { return __mmask16((1u << rows) - 1u); }
  static Reg load(float const* p) { return _mm512_loadu_ps(p); }
  static Reg load(float const* p, __mmask16 m) { return _mm512_maskz_loadu_ps(m, p); }
  static Reg load_merge(Reg into, unsigned lanes, float const* p) { return _mm512_mask_loadu_ps(into, __mmask16(lanes), p); }
  static void store(float* p, Reg v) { _mm512_storeu_ps(p, v); }
  static void store(float* p, Reg v, __mmask16 m) { _mm512_mask_storeu_ps(p, m, v); }
  static Reg broadcast(float x) { return _mm512_set1_ps(x); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm512_fmadd_ps(a, b, c); }
  static Reg mul(Reg a, Reg b) { return _mm512_mul_ps(a, b); }
  static Reg add(Reg a, Reg b) { return _mm512_add_ps(a, b); }
  template <int kSelect>
  static Reg permute(Reg v) { return _mm512_permute_ps(v, kSelect); }  // within each group of 4
  /// kGroup elements at p repeated in every group of kGroup lanes (column groups, small_kernels.inl).
  template <int kGroup>
  static Reg group_broadcast(float const* p) {
    if constexpr (kGroup == 2) {
      double pair;  // two floats as one 64-bit element
      __builtin_memcpy(&pair, p, sizeof pair);
      return _mm512_castpd_ps(_mm512_set1_pd(pair));
    } else if constexpr (kGroup == 4) {
      return _mm512_broadcast_f32x4(_mm_loadu_ps(p));
    } else {
      return _mm512_broadcast_f32x8(_mm256_loadu_ps(p));
    }
  }
  /// Every lane of each group of kGroup (2 or 4) lanes from the group's lane kL: an in-lane permute
  /// by an immediate (wider groups take a lane permute by index, small_kernels.inl).
  template <int kGroup, int kL>
  static Reg group_select(Reg v) {
    if constexpr (kGroup == 2) return _mm512_permute_ps(v, kL | kL << 2 | (kL + 2) << 4 | (kL + 2) << 6);
    else return _mm512_permute_ps(v, kL * 0x55);
  }
  using IndexElement = int;
  using Index = __m512i;
  static Index load_index(IndexElement const* p) { return _mm512_loadu_si512(p); }
  static Reg permute_lanes(Index index, Reg v) { return _mm512_permutexvar_ps(index, v); }
  /// Lane t from lane index[t] of the 32 lanes of (low, high).
  static Reg permute_lanes(Reg low, Index index, Reg high) { return _mm512_permutex2var_ps(low, index, high); }
  static Reg blend(unsigned lanes, Reg into, Reg from) { return _mm512_mask_blend_ps(__mmask16(lanes), into, from); }
  template <int kLanes>
  static Reg rotate_up(Reg v) {
    return _mm512_castsi512_ps(_mm512_alignr_epi32(_mm512_castps_si512(v), _mm512_castps_si512(v), kLanes));
  }
};

/// 256- and 128-bit vectors with AVX-512VL masks, for columns of at most 4 (f64) or 8 (f32)
/// elements: a column of 4 doubles is one whole ymm instead of half a masked zmm.
struct Avx512VlF64x4 {
  using T = double;
  using Reg = __m256d;
  using Half = Avx512VlF64x2;
  static __m128d low_half(Reg v) { return _mm256_castpd256_pd128(v); }
  static constexpr int kWidth = 4;
  static constexpr int kRegisters = 32;
  static constexpr int kMaxRowVectors = 4;
  static constexpr int kMaxBlockColumns = 8;
  static Reg zero() { return _mm256_setzero_pd(); }
  static __mmask8 tail_mask(int rows) { return __mmask8((1u << rows) - 1u); }
  static Reg load(double const* p) { return _mm256_loadu_pd(p); }
  static Reg load(double const* p, __mmask8 m) { return _mm256_maskz_loadu_pd(m, p); }
  static void store(double* p, Reg v) { _mm256_storeu_pd(p, v); }
  static void store(double* p, Reg v, __mmask8 m) { _mm256_mask_storeu_pd(p, m, v); }
  static Reg broadcast(double x) { return _mm256_set1_pd(x); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm256_fmadd_pd(a, b, c); }
  static Reg mul(Reg a, Reg b) { return _mm256_mul_pd(a, b); }
  static Reg add(Reg a, Reg b) { return _mm256_add_pd(a, b); }
  template <int kLanes>
  static Reg rotate_up(Reg v) {
    return _mm256_castsi256_pd(_mm256_alignr_epi64(_mm256_castpd_si256(v), _mm256_castpd_si256(v), kLanes));
  }
};

struct Avx512VlF64x2 {
  using T = double;
  using Reg = __m128d;
  static constexpr int kWidth = 2;
  static constexpr int kRegisters = 32;
  static constexpr int kMaxRowVectors = 4;
  static constexpr int kMaxBlockColumns = 8;
  static Reg zero() { return _mm_setzero_pd(); }
  static __mmask8 tail_mask(int rows) { return __mmask8((1u << rows) - 1u); }
  static Reg load(double const* p) { return _mm_loadu_pd(p); }
  static Reg load(double const* p, __mmask8 m) { return _mm_maskz_loadu_pd(m, p); }
  static void store(double* p, Reg v) { _mm_storeu_pd(p, v); }
  static void store(double* p, Reg v, __mmask8 m) { _mm_mask_storeu_pd(p, m, v); }
  static Reg broadcast(double x) { return _mm_set1_pd(x); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm_fmadd_pd(a, b, c); }
  static Reg mul(Reg a, Reg b) { return _mm_mul_pd(a, b); }
  static Reg add(Reg a, Reg b) { return _mm_add_pd(a, b); }
  template <int kLanes>
  static Reg rotate_up(Reg v) {
    return _mm_castsi128_pd(_mm_alignr_epi64(_mm_castpd_si128(v), _mm_castpd_si128(v), kLanes));
  }
};

struct Avx512VlF32x8 {
  using T = float;
  using Reg = __m256;
  using Half = Avx512VlF32x4;
  static __m128 low_half(Reg v) { return _mm256_castps256_ps128(v); }
  static constexpr int kWidth = 8;
  static constexpr int kRegisters = 32;
  static constexpr int kMaxRowVectors = 4;
  static constexpr int kMaxBlockColumns = 8;
  static Reg zero() { return _mm256_setzero_ps(); }
  static __mmask8 tail_mask(int rows) { return __mmask8((1u << rows) - 1u); }
  static Reg load(float const* p) { return _mm256_loadu_ps(p); }
  static Reg load(float const* p, __mmask8 m) { return _mm256_maskz_loadu_ps(m, p); }
  static void store(float* p, Reg v) { _mm256_storeu_ps(p, v); }
  static void store(float* p, Reg v, __mmask8 m) { _mm256_mask_storeu_ps(p, m, v); }
  static Reg broadcast(float x) { return _mm256_set1_ps(x); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm256_fmadd_ps(a, b, c); }
  static Reg mul(Reg a, Reg b) { return _mm256_mul_ps(a, b); }
  static Reg add(Reg a, Reg b) { return _mm256_add_ps(a, b); }
  template <int kLanes>
  static Reg rotate_up(Reg v) {
    return _mm256_castsi256_ps(_mm256_alignr_epi32(_mm256_castps_si256(v), _mm256_castps_si256(v), kLanes));
  }
};

struct Avx512VlF32x4 {
  using T = float;
  using Reg = __m128;
  static constexpr int kWidth = 4;
  static constexpr int kRegisters = 32;
  static constexpr int kMaxRowVectors = 4;
  static constexpr int kMaxBlockColumns = 8;
  static Reg zero() { return _mm_setzero_ps(); }
  static __mmask8 tail_mask(int rows) { return __mmask8((1u << rows) - 1u); }
  static Reg load(float const* p) { return _mm_loadu_ps(p); }
  static Reg load(float const* p, __mmask8 m) { return _mm_maskz_loadu_ps(m, p); }
  static void store(float* p, Reg v) { _mm_storeu_ps(p, v); }
  static void store(float* p, Reg v, __mmask8 m) { _mm_mask_storeu_ps(p, m, v); }
  static Reg broadcast(float x) { return _mm_set1_ps(x); }
  static Reg fma(Reg a, Reg b, Reg c) { return _mm_fmadd_ps(a, b, c); }
  static Reg mul(Reg a, Reg b) { return _mm_mul_ps(a, b); }
  static Reg add(Reg a, Reg b) { return _mm_add_ps(a, b); }
  template <int kLanes>
  static Reg rotate_up(Reg v) {
    return _mm_castsi128_ps(_mm_alignr_epi32(_mm_castps_si128(v), _mm_castps_si128(v), kLanes));
  }
};

/// Vector width by column length: the narrowest vector that holds the column, up to 512 bits.
/// Split: a 256-bit vector and a narrower one where a 512-bit vector would have lanes to spare.
struct SelectF64 {
  static constexpr SmallIsa kIsa = SmallIsa::kAvx512;
  template <int M>
  using For = std::conditional_t<(M <= 2), Avx512VlF64x2, std::conditional_t<(M <= 4), Avx512VlF64x4, Avx512F64>>;
  template <int M>
  using Split = std::conditional_t<(M > 4 && M <= 6), Avx512VlF64x4, For<M>>;
  using Packed = Avx512F64;
};

struct SelectF32 {
  static constexpr SmallIsa kIsa = SmallIsa::kAvx512;
  template <int M>
  using For = std::conditional_t<(M <= 4), Avx512VlF32x4, std::conditional_t<(M <= 8), Avx512VlF32x8, Avx512F32>>;
  template <int M>
  using Split = std::conditional_t<(M > 8 && M <= 12), Avx512VlF32x8, For<M>>;
  using Packed = Avx512F32;
};

}  // namespace

/// The by_m kernels of an AVX-512 table (small_detail::fill_by_m), defined in kernels_avx512_*_by_m.cpp.
void fill_small_by_m_avx512(SmallKernelTable<double>& table);
void fill_small_by_m_avx512(SmallKernelTable<float>& table);

namespace {

/// The ISA's table plus the flat packed kernels at n = 3 (flat or columns: the tuning table's
/// choice per CPU); its by_m kernels come from their own translation unit (kernels_avx512_*_by_m.cpp,
/// about half the compile time, so the two compile in parallel). The flat form was measured at 5, 6 and 7 too (AMD Zen 5, 1 thread, 2026-11-24,
/// tuner GB/s, flat against the columns): in cache f32 5 and 6 90 and 94 against 67 and 64, f64 5 and
/// 6 79 and 95 against 102 and 103; from 1 GiB f32 5 and 6 33 and 41 against 39 and 40, f64 6 46
/// against 47; at 7 the code of a run (49 vectors) ran at a third of the columns' rate even in cache.
template <class Select, int... N>
SmallKernelTable<typename Select::Packed::T> table_with_flat_packed(std::integer_sequence<int, N...>) {
  auto table = small_detail::make_table<Select, false>("avx512", std::make_integer_sequence<int, kSmallMax>{});
  fill_small_by_m_avx512(table);
  using Flat = typename Select::Packed;
  auto const fill = [&]<int kPrefetch>(std::integer_sequence<int, kPrefetch>) {
    ((table.packed_variant[kPrefetch][N] =
          &small_detail::packed_flat_entry<Flat, typename Select::template For<N>, N, kPrefetch>),
     ...);
  };
  [&]<int... kPrefetch>(std::integer_sequence<int, kPrefetch...>) {
    (fill(std::integer_sequence<int, kPrefetch>{}), ...);
  }(std::make_integer_sequence<int, int(SmallPrefetch::kSpread)>{});
  // A packed kernel prefetches a run at a time: spread and step are next there (SmallPrefetch).
  ((table.packed_variant[int(SmallPrefetch::kSpread)][N] = table.packed_variant[int(SmallPrefetch::kNextProblem)][N]),
   ...);
  ((table.packed_variant[int(SmallPrefetch::kStep)][N] = table.packed_variant[int(SmallPrefetch::kNextProblem)][N]),
   ...);
  ((table.packed[N] = table.packed_variant[int(SmallPrefetch::kNone)][N]), ...);
  // Column groups (two or more columns per vector): the by_m kernel for k = m, and from 4 rows the
  // square kernel as the packed kernel (flat or columns: the tuning table's choice; 2 and 3 keep
  // theirs). The row's prefetch is the square kernel's pick; the groups always prefetch (grouped_entry).
  using Wide = typename Select::Packed;
  auto const fill_grouped = [&]<int M>() {
    if constexpr (small_detail::ColumnGroups<Wide, M>::kColumns >= 2) {
      table.grouped[M] = &small_detail::grouped_entry<Wide, M, 0>;
      table.grouped_min_n[M] = small_detail::ColumnGroups<Wide, M>::kColumns;
      if constexpr (M >= 4) {
        for (auto& variant : table.packed_variant) variant[M] = &small_detail::grouped_entry<Wide, M, M>;
        table.packed[M] = table.packed_variant[int(SmallPrefetch::kNone)][M];
      }
    }
  };
  [&]<int... M>(std::integer_sequence<int, M...>) {
    (fill_grouped.template operator()<M + 2>(), ...);
  }(std::make_integer_sequence<int, 7>{});
  return table;
}

}  // namespace

}  // namespace gemmkit::cpu
