/*! \file
    \brief cp.async wrappers (sm_80+): global -> shared copies that zero-fill past src_bytes; an L2
    prefetch.
*/
#pragma once

#include <cstdint>

namespace gemmkit::arch {

__device__ __forceinline__ std::uint32_t shared_address(void const* pointer) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(pointer));
}

/// Copies kBytes (4, 8 or 16) from global to shared; bytes past src_bytes (0..kBytes) are
/// zero-filled, so edge tiles need no separate clearing pass. 16-byte copies bypass L1 (.cg).
template <int kBytes>
__device__ __forceinline__ void cp_async(void* shared, void const* global, int src_bytes) {
  static_assert(kBytes == 4 || kBytes == 8 || kBytes == 16);
  if constexpr (kBytes == 16) {
    asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;\n" ::"r"(shared_address(shared)), "l"(global),
                 "r"(src_bytes));
  } else if constexpr (kBytes == 8) {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 8, %2;\n" ::"r"(shared_address(shared)), "l"(global),
                 "r"(src_bytes));
  } else {
    asm volatile("cp.async.ca.shared.global [%0], [%1], 4, %2;\n" ::"r"(shared_address(shared)), "l"(global),
                 "r"(src_bytes));
  }
}

/// Asks L2 to fetch the 128-byte line holding `global` (no register written, nothing waits on it).
__device__ __forceinline__ void prefetch_l2(void const* global) {
  asm volatile("prefetch.global.L2 [%0];\n" ::"l"(global));
}

__device__ __forceinline__ void cp_async_commit() { asm volatile("cp.async.commit_group;\n" ::); }

/// Waits until at most kPending committed groups are still in flight.
template <int kPending>
__device__ __forceinline__ void cp_async_wait() {
  asm volatile("cp.async.wait_group %0;\n" ::"n"(kPending));
}

}  // namespace gemmkit::arch
