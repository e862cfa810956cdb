/*! \file
    \brief Device helpers every tiled GEMM kernel shares: compile-time loops and the order in which
    blocks walk the tiles of C.
*/
#pragma once

#include <cstdint>
#include <utility>

namespace gemmkit::gemm {

/// Calls f(std::integral_constant<int, I>{}) for I = 0 .. N-1, so indices are compile-time.
template <int N, typename F>
__device__ __forceinline__ void static_for(F&& f) {
  [&]<int... I>(std::integer_sequence<int, I...>) { (f(std::integral_constant<int, I>{}), ...); }(
      std::make_integer_sequence<int, N>{});
}

/// Maps a linear block index to (tile_m, tile_n) in groups of kGroupM tile rows, so blocks running
/// together share A panels and B panels in L2.
struct TileOrder {
  static constexpr int kGroupM = 8;
  __device__ static void map(std::int64_t linear, std::int64_t tiles_m, std::int64_t tiles_n, std::int64_t& tile_m,
                             std::int64_t& tile_n) {
    std::int64_t const per_group = std::int64_t(kGroupM) * tiles_n;
    std::int64_t const group = linear / per_group;
    std::int64_t const first_m = group * kGroupM;
    std::int64_t const rows = tiles_m - first_m < kGroupM ? tiles_m - first_m : kGroupM;
    std::int64_t const in_group = linear % per_group;
    tile_m = first_m + in_group % rows;
    tile_n = in_group / rows;
  }
};

}  // namespace gemmkit::gemm
