/*! \file
    \brief 64- and 128-bit shared-memory loads from a 32-bit shared address (register + immediate offset).
*/
#pragma once

#include <cstdint>

namespace gemmkit::arch {

/// Loads the double at shared address `base + kOffsetBytes`. Passing the shared-window address
/// as 32 bits with a compile-time offset lets ptxas fold every fragment load of a stage into one
/// base register instead of materializing a 64-bit generic pointer per load.
template <int kOffsetBytes>
__device__ __forceinline__ double load_shared_f64(std::uint32_t base) {
  double value;
  asm volatile("ld.shared.f64 %0, [%1 + %2];\n" : "=d"(value) : "r"(base), "n"(kOffsetBytes));
  return value;
}

/// Loads the two adjacent doubles at shared address `base + kOffsetBytes` (16-byte aligned).
template <int kOffsetBytes>
__device__ __forceinline__ void load_shared_f64x2(std::uint32_t base, double& first, double& second) {
  static_assert(kOffsetBytes % 16 == 0);
  asm volatile("ld.shared.v2.f64 {%0, %1}, [%2 + %3];\n" : "=d"(first), "=d"(second) : "r"(base), "n"(kOffsetBytes));
}

}  // namespace gemmkit::arch
