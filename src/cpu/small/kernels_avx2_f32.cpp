/*! \file
    \brief The AVX2 and FMA small-GEMM kernels in single precision. One translation unit per
    precision, so the two compile in parallel and each needs about half the compiler's memory.
*/
#include "cpu/small/kernels_avx2.inl"

namespace gemmkit::cpu {

SmallKernelTable<float> const& small_kernels_avx2_f32() {
  static SmallKernelTable<float> const table =
      small_detail::make_table<SelectAll<Avx2F32>>("avx2", std::make_integer_sequence<int, kSmallMax>{});
  return table;
}

}  // namespace gemmkit::cpu
