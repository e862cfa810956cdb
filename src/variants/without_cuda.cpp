/*! \file
    \brief The CUDA registration in a build without CUDA: no variants.
*/
#include "variants/variants.hpp"

namespace gemmkit {

void register_cuda_variants(Registry&) {}

}  // namespace gemmkit
