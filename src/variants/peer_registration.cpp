/*! \file
    \brief The library's register_peer_variants: no peers. A program that links gemmkit_peers gets
    that library's definition instead (peer_variants.hpp).
*/
#include "variants/peer_variants.hpp"

namespace gemmkit {

__attribute__((weak)) void register_peer_variants(Registry&) {}

}  // namespace gemmkit
