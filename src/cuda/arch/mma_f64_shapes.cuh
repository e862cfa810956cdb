/*! \file
    \brief Every FP64 `mma.sync` shape, one warp each, behind one template: m8n8k4 (sm_80+) and
    m16n8k4, m16n8k8, m16n8k16 (sm_90+). The micro-benchmarks time each shape's rate and latency.

    Per lane, A holds M*K/32 doubles, B N*K/32 and C M*N/32, in the PTX ISA's fragment layouts
    (mma_f64.cuh spells out m16n8k16's). Below a shape's architecture the call traps: host code
    checks MmaF64Shape::kMinSm before launching.
*/
#pragma once

#include "cuda/arch/mma_f64.cuh"

namespace gemmkit::arch {

template <int kM_, int kN_, int kK_>
struct MmaF64Shape {
  static constexpr int kM = kM_, kN = kN_, kK = kK_;
  static constexpr int kA = kM * kK / 32;  ///< doubles of A per lane
  static constexpr int kB = kN * kK / 32;  ///< doubles of B per lane
  static constexpr int kC = kM * kN / 32;  ///< doubles of C (and D) per lane
  static constexpr int kMinSm = kM == 8 ? 80 : 90;
  static constexpr double kFlops = 2.0 * kM * kN * kK;  ///< per warp-wide instruction
};

/// D = A * B + C in place on `c`, for the shape `Shape`.
template <class Shape>
__device__ __forceinline__ void mma_f64(double (&c)[Shape::kC], double const (&a)[Shape::kA],
                                        double const (&b)[Shape::kB]) {
  constexpr int kM = Shape::kM, kN = Shape::kN, kK = Shape::kK;
  static_assert((kM == 8 && kN == 8 && kK == 4) || (kM == 16 && kN == 8 && (kK == 4 || kK == 8 || kK == 16)),
                "mma.sync .f64 has the shapes m8n8k4, m16n8k4, m16n8k8 and m16n8k16");
  if constexpr (kM == 8) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0, %1}, {%2}, {%3}, {%0, %1};\n"
                 : "+d"(c[0]), "+d"(c[1])
                 : "d"(a[0]), "d"(b[0]));
#else
    __trap();
#endif
  } else if constexpr (kK == 16) {
    mma_f64_m16n8k16(c, a, b);
  } else {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    if constexpr (kK == 4) {
      asm volatile(
          "mma.sync.aligned.m16n8k4.row.col.f64.f64.f64.f64 {%0, %1, %2, %3}, {%4, %5}, {%6}, {%0, %1, %2, %3};\n"
          : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
          : "d"(a[0]), "d"(a[1]), "d"(b[0]));
    } else {
      asm volatile(
          "mma.sync.aligned.m16n8k8.row.col.f64.f64.f64.f64 "
          "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};\n"
          : "+d"(c[0]), "+d"(c[1]), "+d"(c[2]), "+d"(c[3])
          : "d"(a[0]), "d"(a[1]), "d"(a[2]), "d"(a[3]), "d"(b[0]), "d"(b[1]));
    }
#else
    __trap();
#endif
  }
}

}  // namespace gemmkit::arch
