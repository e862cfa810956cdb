/*! \file
    \brief 128-bit shared-memory loads from a 32-bit shared address (register + immediate offset).
*/
#pragma once

#include <cstdint>

namespace gemmkit::arch {

/// Loads the two adjacent doubles at shared address `base + kOffsetBytes` (16-byte aligned).
/// A 32-bit shared-window base with a compile-time offset lets ptxas fold every fragment load of a
/// stage into one base register instead of materializing a 64-bit generic pointer per load.
template <int kOffsetBytes>
__device__ __forceinline__ void load_shared_f64x2(std::uint32_t base, double& first, double& second) {
  static_assert(kOffsetBytes % 16 == 0);
  asm volatile("ld.shared.v2.f64 {%0, %1}, [%2 + %3];\n" : "=d"(first), "=d"(second) : "r"(base), "n"(kOffsetBytes));
}

}  // namespace gemmkit::arch
