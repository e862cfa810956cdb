/*! \file
    \brief The 128-bit shared-memory fragment load that ladder step 05 introduces (seed 000 §2.3,
    seed 001 version 1): each 16-byte group of a fragment in one load (double2, float4) instead of
    one load per element. Steps 05 and 06 and seed 000's single-buffered 03b and 03c use it.
*/
#pragma once

#include "cuda/ladder/ladder_config.hpp"

#include <cuda_runtime.h>

namespace gemmkit::ladder {

/// Loads the thread's kCount elements of row kk of a slice (its A or B fragment) like
/// load_fragment (register_blocked.cuh), but each 16-byte group it owns (owned_index) in one load:
/// two doubles or four floats. The groups are 16-byte aligned: the tile rows are, and a group
/// starts at a multiple of kGroup elements.
template <typename Cfg, int kCount, int kThreadsAlong, typename T>
__device__ __forceinline__ void load_fragment_wide(T const* row, int thread_along, T (&out)[kCount]) {
  constexpr int kGroup = Cfg::template group<T>();
  static_assert(kGroup * sizeof(T) == 16 && (sizeof(T) == 8 || sizeof(T) == 4));
#pragma unroll
  for (int i = 0; i < kCount; i += kGroup) {
    int const index = owned_index<kThreadsAlong, kGroup>(thread_along, i);
    if constexpr (sizeof(T) == 8) {
      double2 const pair = *reinterpret_cast<double2 const*>(row + index);
      out[i] = pair.x, out[i + 1] = pair.y;
    } else {
      float4 const quad = *reinterpret_cast<float4 const*>(row + index);
      out[i] = quad.x, out[i + 1] = quad.y, out[i + 2] = quad.z, out[i + 3] = quad.w;
    }
  }
}

}  // namespace gemmkit::ladder
