/*! \file
    \brief The AVX-512 (F, VL, DQ) small-GEMM kernels in double precision. One translation unit
    per precision, so the two compile in parallel and each needs about half the compiler's
    memory.
*/
#include "cpu/small/kernels_avx512.inl"

namespace gemmkit::cpu {

SmallKernelTable<double> const& small_kernels_avx512_f64() {
  static SmallKernelTable<double> const table = table_with_flat_packed<SelectF64>(std::integer_sequence<int, 3>{});
  return table;
}

}  // namespace gemmkit::cpu
