/*! \file
    \brief The AVX-512 (F, VL, DQ) small-GEMM by_m kernels (n and k at run time) in double precision: their own
    translation unit, so they compile beside the rest of kernels_avx512_f64.cpp.
*/
#include "cpu/small/kernels_avx512.inl"

namespace gemmkit::cpu {

void fill_small_by_m_avx512(SmallKernelTable<double>& table) {
  small_detail::fill_by_m<SelectF64>(table, std::make_integer_sequence<int, kSmallMax>{});
}

}  // namespace gemmkit::cpu
