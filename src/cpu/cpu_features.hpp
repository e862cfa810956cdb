/*! \file
    \brief What this CPU is, asked at run time: the vector ISAs the CPU kernels are built for, and
    the vendor the tuning tables key their rows by.
*/
#pragma once

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

/// "intel", "amd", or "other".
inline char const* this_cpu_vendor() {
  __builtin_cpu_init();
  if (__builtin_cpu_is("intel")) return "intel";
  if (__builtin_cpu_is("amd")) return "amd";
  return "other";
}

}  // namespace gemmkit::cpu
