/*! \file
    \brief FP64 tensor-core MMA: D(16x8) += A(16xK) * B(Kx8), K = 16 or 8, one warp.

    Fragment layout per lane (g = lane / 4, t = lane % 4), the PTX ISA's for m16n8k16 .f64:
      a[i]: A(g + 8*(i%2), t + 4*(i/2)), i < 8
      b[i]: B(t + 4*i, g),               i < 4
      c[i]: C(g + 8*(i/2), 2*t + i%2),   i < 4
    On sm_90 this is one `mma.sync.m16n8k16`. On sm_80 the same fragments feed eight
    `mma.sync.m8n8k4` (rows block r, k block q use a[2q+r], b[q], c[2r..2r+1]), so one kernel
    source serves both.
*/
#pragma once

namespace gemmkit::arch {

/// The sm_80 form of a 16x8xK FP64 MMA: rows block r and k block q of four run one m8n8k4 with
/// a[2q + r], b[q] and c[2r..2r+1] (fragments as the m16n8kK layout below holds them).
template <int kKBlocks>
__device__ __forceinline__ void mma_f64_m8n8k4_blocks(double (&c)[4], double const (&a)[2 * kKBlocks],
                                                      double const (&b)[kKBlocks]) {
#pragma unroll
  for (int q = 0; q < kKBlocks; ++q) {
#pragma unroll
    for (int r = 0; r < 2; ++r) {
      asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                   : "+d"(c[2 * r]), "+d"(c[2 * r + 1])
                   : "d"(a[2 * q + r]), "d"(b[q]));
    }
  }
}

__device__ __forceinline__ void mma_f64_m16n8k16(double (&c)[4], double const (&a)[8], double const (&b)[4]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "mma.sync.aligned.m16n8k16.row.col.f64.f64.f64.f64 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7, %8, %9, %10, %11}, {%12, %13, %14, %15}, {%0, %1, %2, %3};\n"
      : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(a[4]), "d"(a[5]), "d"(a[6]), "d"(a[7]), "d"(b[0]),
        "d"(b[1]), "d"(b[2]), "d"(b[3]));
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  mma_f64_m8n8k4_blocks<4>(c, a, b);
#else
  // Below sm_80 there is no FP64 MMA; kernels using this are never launched there (min_sm = 80).
  __trap();
#endif
}

/// D(16x8) += A(16x8) * B(8x8): a[i] = A(g + 8*(i%2), t + 4*(i/2)), i < 4; b[i] = B(t + 4*i, g),
/// i < 2; c as above. One `mma.sync.m16n8k8` on sm_90, four m8n8k4 on sm_80.
__device__ __forceinline__ void mma_f64_m16n8k8(double (&c)[4], double const (&a)[4], double const (&b)[2]) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 "
      "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
      : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
      : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
#elif defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  mma_f64_m8n8k4_blocks<2>(c, a, b);
#else
  __trap();
#endif
}

}  // namespace gemmkit::arch
