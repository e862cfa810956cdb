/*! \file
    \brief The registered variants as the CLI sees them: through the public introspection header.
*/
#pragma once

#include "options.hpp"

#include <gemmkit/introspect.h>

#include <vector>

namespace gemmkit::bench {

/// Every registered variant, in registration order.
inline std::vector<gk_variant_info> registered_variants() {
  std::vector<gk_variant_info> out(static_cast<std::size_t>(gk_variant_count()));
  for (std::size_t i = 0; i < out.size(); ++i) {
    if (gk_variant_at(int64_t(i), &out[i]) != GK_SUCCESS) out[i] = gk_variant_info{};
  }
  std::erase_if(out, [](gk_variant_info const& v) { return v.id == nullptr; });
  return out;
}

inline Dtype dtype_of(gk_variant_info const& v) { return v.dtype == GK_DTYPE_F64 ? Dtype::kF64 : Dtype::kF32; }
inline Platform backend_of(gk_variant_info const& v) {
  return v.backend == GK_BACKEND_GPU ? Platform::kCuda : Platform::kCpu;
}

}  // namespace gemmkit::bench
