/*! \file
    \brief 64-bit shared-memory loads from a 32-bit shared address (register + immediate offset).
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

}  // namespace gemmkit::arch
