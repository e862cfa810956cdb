/*! \file
    \brief What this CPU runs, asked at run time: the vector ISAs the CPU kernels are built for.
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

}  // namespace gemmkit::cpu
