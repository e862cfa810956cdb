/*! \file
    \brief The AVX-512 (F, VL, DQ) small-GEMM by_m kernels (n and k at run time) in single precision: their own
    translation unit, so they compile beside the rest of kernels_avx512_f32.cpp.
*/
#include "cpu/small/kernels_avx512.inl"

namespace gemmkit::cpu {

void fill_small_by_m_avx512(SmallKernelTable<float>& table) {
  small_detail::fill_by_m<SelectF32>(table, std::make_integer_sequence<int, kSmallMax>{});
}

}  // namespace gemmkit::cpu
