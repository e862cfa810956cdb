/*! \file
    \brief Which square and by_m variants of the CPU small kernels this build compiles: those a row
    of small_blocking.csv names (for any CPU) and the defaults of a CPU without rows, or every one
    when CMake was configured with GEMMKIT_BUILD_ALL_CONFIGS (the tuner's sweep). The others stay
    nullptr in SmallKernelTable. Free of standard-library templates, like small_kernels.inl.
*/
#pragma once

#include "cpu/small/small_kernels.hpp"

namespace gemmkit::cpu {

/// The ISAs with kernel tables, as small_blocking.csv names them.
enum class SmallIsa : int { kAvx512, kAvx2 };

/// One row of small_blocking.csv as CMake lists it (the CPU key left out).
struct SmallKernelPick {
  SmallIsa isa = SmallIsa::kAvx512;
  int element_bytes = 0;  ///< 0: no row (the end of the list)
  int size = 0;
  SmallBlocking blocking = SmallBlocking::kBalanced;
  SmallPrefetch prefetch = SmallPrefetch::kNone;
  SmallVectors vectors = SmallVectors::kWide;
  SmallPrefetch by_m_prefetch = SmallPrefetch::kNone;
  SmallPacked packed = SmallPacked::kFlat;
};

namespace small_built_detail {

// The table's names for the enumerators (to_string in small_blocking.cpp).
inline constexpr SmallIsa avx512 = SmallIsa::kAvx512, avx2 = SmallIsa::kAvx2;
inline constexpr SmallBlocking balanced = SmallBlocking::kBalanced, widest = SmallBlocking::kWidest,
                               narrow = SmallBlocking::kNarrow;
inline constexpr SmallPrefetch none = SmallPrefetch::kNone, next = SmallPrefetch::kNextProblem,
                               ahead = SmallPrefetch::kAhead, spread = SmallPrefetch::kSpread, step = SmallPrefetch::kStep;
inline constexpr SmallVectors wide = SmallVectors::kWide, split = SmallVectors::kSplit;
inline constexpr SmallPacked flat = SmallPacked::kFlat, columns = SmallPacked::kColumns;

#define GEMMKIT_CPU_SMALL_BUILD_ALL(all) inline constexpr bool kAll = all;
#define GEMMKIT_CPU_SMALL_PICKED(...)
#include "cpu/small/small_kernels_picked.def"
#undef GEMMKIT_CPU_SMALL_BUILD_ALL
#undef GEMMKIT_CPU_SMALL_PICKED

inline constexpr SmallKernelPick kPicks[] = {
#define GEMMKIT_CPU_SMALL_BUILD_ALL(all)
#define GEMMKIT_CPU_SMALL_PICKED(isa, bytes, size, blocking, prefetch, vectors, by_m_prefetch, packed) \
  SmallKernelPick{isa, bytes, size, blocking, prefetch, vectors, by_m_prefetch, packed},
#include "cpu/small/small_kernels_picked.def"
#undef GEMMKIT_CPU_SMALL_BUILD_ALL
#undef GEMMKIT_CPU_SMALL_PICKED
    SmallKernelPick{}};

/// Where kSplit cuts a column as kWide does, the two are one kernel: either picks it.
constexpr bool same_vectors(SmallVectors a, SmallVectors b, bool split_differs) { return a == b || !split_differs; }

}  // namespace small_built_detail

/// Whether every variant is compiled (GEMMKIT_BUILD_ALL_CONFIGS).
inline constexpr bool kSmallAllKernelsBuilt = small_built_detail::kAll;

/// Whether the square kernel of size s with this blocking, prefetch and vectors is compiled.
constexpr bool small_square_built(SmallIsa isa, int element_bytes, int s, SmallBlocking blocking,
                                  SmallPrefetch prefetch, SmallVectors vectors, bool split_differs) {
  using small_built_detail::same_vectors;
  if (small_built_detail::kAll) return true;
  if (blocking == SmallBlocking::kBalanced && prefetch == default_square_prefetch(s) &&
      same_vectors(vectors, SmallVectors::kWide, split_differs)) {
    return true;
  }
  for (SmallKernelPick const& row : small_built_detail::kPicks) {
    if (row.isa == isa && row.element_bytes == element_bytes && row.size == s && row.blocking == blocking &&
        row.prefetch == prefetch && same_vectors(vectors, row.vectors, split_differs)) {
      return true;
    }
  }
  return false;
}

/// Whether the by_m kernel of m rows with this prefetch and vectors is compiled.
constexpr bool small_by_m_built(SmallIsa isa, int element_bytes, int m, SmallPrefetch prefetch, SmallVectors vectors,
                                bool split_differs) {
  using small_built_detail::same_vectors;
  if (small_built_detail::kAll) return true;
  if (prefetch == default_by_m_prefetch(m) && same_vectors(vectors, SmallVectors::kWide, split_differs)) return true;
  for (SmallKernelPick const& row : small_built_detail::kPicks) {
    if (row.isa == isa && row.element_bytes == element_bytes && row.size == m && row.by_m_prefetch == prefetch &&
        same_vectors(vectors, row.vectors, split_differs)) {
      return true;
    }
  }
  return false;
}

}  // namespace gemmkit::cpu
