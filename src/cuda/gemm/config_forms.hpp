/*! \file
    \brief The forms a named tile config is built and registered in besides its plain kernel, and
    the macro that turns a config list file (*_configs.def) into named config types.
*/
#pragma once

#include <cstddef>
#include <tuple>
#include <utility>

namespace gemmkit::gemm {

/// Each form adds variants with an id suffix; the fused ones (split fixup, stream-K, B-resident)
/// also add kernel instances, so a config names only the forms the selection table or the tuner use.
enum Form : unsigned {
  kPlainOnly = 0,
  kSplitK = 1u << 0,         ///< _splitk: K slices' partial sums into a workspace, then a reduction
  kPacked = 1u << 1,         ///< _packed: transposed or odd-ld operands copied into an aligned layout first
  kSplitFixup = 1u << 2,     ///< _splitk_x2 .. _x4: K split in one launch, slices summed by the tile's last
  kStreamK = 1u << 3,        ///< _streamk: the last waves' tiles shared k-tile by k-tile
  kPackedStreamK = 1u << 4,  ///< _packed_streamk: the packed form's copies, then stream-K
  kResidentB = 1u << 5,      ///< _residentb: persistent blocks keeping a column panel of B in shared memory
};

template <typename Cfg>
inline constexpr bool has_form(Form form) {
  return (Cfg::kForms & form) != 0;
}

/// Calls `each.template operator()<Cfg>()` for every config of a config list (a std::tuple of
/// config types), in order.
template <typename Configs, typename Each>
void for_each_config(Each&& each) {
  [&]<std::size_t... I>(std::index_sequence<I...>) {
    (each.template operator()<std::tuple_element_t<I, Configs>>(), ...);
  }(std::make_index_sequence<std::tuple_size_v<Configs>>{});
}

}  // namespace gemmkit::gemm

/// Expands a parenthesised template argument list: GEMMKIT_CONFIG_ARGS (1, 2) -> 1, 2.
#define GEMMKIT_CONFIG_ARGS(...) __VA_ARGS__
