/*! \file
    \brief The FMA peak's loop, instantiated once per ISA by a translation unit compiled for it
    (fma_peak_avx512.cpp, fma_peak_avx2.cpp) that supplies the vector traits V.
*/
#pragma once

#include "cpu/fma_peak.hpp"

namespace gemmkit::cpu::fma_detail {

// Each chain is acc = acc * a + b with a just below 1: it settles at b / (1 - a), so no value
// overflows or turns subnormal (which would slow the FMAs) however long the loop runs. Volatile,
// so the compiler cannot fold the chains into a closed form.
inline volatile double g_scale = 0.999;
inline volatile double g_offset = 0.001;

/// kChains independent chains of V::fma, `iterations` steps each; returns their sum.
template <class V, int kChains>
double chains(std::int64_t iterations) {
  typename V::Reg const a = V::set(g_scale), b = V::set(g_offset);
  typename V::Reg acc[kChains];
#pragma GCC unroll 16
  for (int c = 0; c < kChains; ++c) acc[c] = V::set(double(c));
  for (std::int64_t i = 0; i < iterations; ++i) {
#pragma GCC unroll 16
    for (int c = 0; c < kChains; ++c) acc[c] = V::fma(acc[c], a, b);
  }
#pragma GCC unroll 16
  for (int c = 1; c < kChains; ++c) acc[0] = V::add(acc[0], acc[c]);
  return V::sum(acc[0]);
}

}  // namespace gemmkit::cpu::fma_detail
