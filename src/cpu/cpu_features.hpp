/*! \file
    \brief What this CPU is, asked at run time: the vector ISAs the CPU kernels are built for, and
    the key the tuning tables give its rows.
*/
#pragma once

#include <cpuid.h>

namespace gemmkit::cpu {

/// AVX-512 with the F, VL and DQ parts the kernels use.
inline bool cpu_has_avx512() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx512f") && __builtin_cpu_supports("avx512vl") && __builtin_cpu_supports("avx512dq");
}

inline bool cpu_has_avx2_fma() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2") && __builtin_cpu_supports("fma");
}

/// The x86 family number (base family, plus the extended family where the base is 0xF).
inline unsigned cpu_family() {
  unsigned eax = 0, ebx = 0, ecx = 0, edx = 0;
  if (__get_cpuid(1, &eax, &ebx, &ecx, &edx) == 0) return 0;
  unsigned const base = (eax >> 8) & 0xFu;
  return base == 0xFu ? base + ((eax >> 20) & 0xFFu) : base;
}

/// The key of this CPU's rows in the tuning tables: "intel"; "amd-zen4" (family 19h: Zen 3 and
/// Zen 4, AVX-512 from Zen 4 on, run as two 256-bit halves), "amd-zen5" (family 1Ah: 512-bit
/// datapaths, and partly masked loads and stores that cross a cache line and miss the cache stream at
/// half rate); "amd" for other AMD families; "other". The best kernel per size differs between them.
inline char const* this_cpu_tuning_key() {
  __builtin_cpu_init();
  if (__builtin_cpu_is("intel")) return "intel";
  if (!__builtin_cpu_is("amd")) return "other";
  switch (cpu_family()) {
    case 0x19: return "amd-zen4";
    case 0x1A: return "amd-zen5";
    default: return "amd";
  }
}

}  // namespace gemmkit::cpu
