/*! \file
    \brief The AVX-512 (F, VL, DQ) small-GEMM kernels in single precision. One translation unit
    per precision, so the two compile in parallel and each needs about half the compiler's
    memory.
*/
#include "cpu/small/kernels_avx512.inl"

namespace gemmkit::cpu {

SmallKernelTable<float> const& small_kernels_avx512_f32() {
  static SmallKernelTable<float> const table = table_with_flat_packed<SelectF32>(std::integer_sequence<int, 3>{});
  return table;
}

}  // namespace gemmkit::cpu
