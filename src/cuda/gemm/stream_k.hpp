/*! \file
    \brief Stream-K for the tiled GEMM kernels: the plan and the walk, host and device (a CPU test
    replays every block's walk).

    A grid of whole tiles leaves SMs idle in its last, partial wave (768^3 in 64x64 tiles: 144 tiles
    on 396 slots; 3072^3 in 128x64: 4.36 waves). Stream-K hands the tiles of the last one to two
    waves to one wave of blocks ("workers") as one run of k-tiles cut evenly, so every worker gets
    the same number of k-tiles to within one, whatever the tile count; the tiles before them run one
    per block as usual. A tile cut between workers is finished by the worker holding its last
    k-tiles: the others store partial tiles, and it adds them in worker order (deterministic).

    Each worker walks its run backwards, last tile first: it publishes the partial of its last tile
    at once and collects the partials of its first tile at its end. A collector therefore waits
    only for lower-numbered workers, which publish before they wait for anyone: no chain of waits,
    and no deadlock where blocks are dispatched in index order, as CUDA does.
*/
#pragma once

#include "base/problem.hpp"
#include "cuda/gemm/split_k.hpp"

#include <algorithm>
#include <cstddef>
#include <cstdint>

#if defined(__CUDACC__)
#define GEMMKIT_STREAM_K_HD __host__ __device__
#else
#define GEMMKIT_STREAM_K_HD
#endif

namespace gemmkit::gemm {

/// How a launch divides its tiles: blocks 0 .. workers-1 share tiles 0 .. sk_tiles-1 (TileOrder's
/// linear index) as one run of sk_tiles * k_tiles k-tiles; the blocks after them take the remaining
/// dp_tiles tiles one each. workers == 0: no stream-K (the plain launch).
struct StreamKPlan {
  std::int64_t workers = 0;
  std::int64_t sk_tiles = 0;
  std::int64_t dp_tiles = 0;
  std::int64_t k_tiles = 0;  ///< k-tiles of one tile: K / BK rounded up

  GEMMKIT_STREAM_K_HD std::int64_t blocks() const { return workers + dp_tiles; }
  GEMMKIT_STREAM_K_HD std::int64_t iterations() const { return sk_tiles * k_tiles; }
  /// The first k-tile of worker w's run (w == workers: the end); the first iterations() % workers
  /// workers take one more.
  GEMMKIT_STREAM_K_HD std::int64_t first_iteration(std::int64_t w) const {
    std::int64_t const share = iterations() / workers, extra = iterations() % workers;
    return w * share + (w < extra ? w : extra);
  }
  /// The worker whose run holds k-tile `iteration`.
  GEMMKIT_STREAM_K_HD std::int64_t worker_of(std::int64_t iteration) const {
    std::int64_t const share = iterations() / workers, extra = iterations() % workers;
    std::int64_t const long_runs = extra * (share + 1);
    return iteration < long_runs ? iteration / (share + 1) : extra + (iteration - long_runs) / share;
  }
};

/// A block's share of one tile: k-tiles [k_tile_begin, k_tile_end) of `tile`. 32-bit fields: the
/// plan keeps tiles and k-tiles under 2^31, and the walk's state stays live across the mainloop.
struct StreamKSegment {
  enum Role : int {
    kWhole,     ///< the whole tile: the epilogue stores it
    kPublishes, ///< not the tile's last k-tiles: a partial tile for the collector
    kCollects,  ///< the tile's last k-tiles: adds the partials of workers [first_contributor, block)
  };
  int tile;
  int k_tile_begin, k_tile_end;
  Role role;
  int first_contributor;
  GEMMKIT_STREAM_K_HD bool stores_c() const { return role != kPublishes; }
};

/// Calls segment(s) for each of block `block`'s segments, last tile first (see the file comment).
template <typename F>
GEMMKIT_STREAM_K_HD void walk_stream_k(StreamKPlan const& plan, int block, F&& segment) {
  int const k_tiles = int(plan.k_tiles);
  if (block >= plan.workers) {
    segment(StreamKSegment{int(plan.sk_tiles + (block - plan.workers)), 0, k_tiles, StreamKSegment::kWhole, block});
    return;
  }
  int const begin = int(plan.first_iteration(block));
  int end = int(plan.first_iteration(block + 1));
  while (end > begin) {
    int const tile = (end - 1) / k_tiles;
    int const tile_begin = tile * k_tiles, tile_end = tile_begin + k_tiles;
    int const from = begin > tile_begin ? begin : tile_begin;
    StreamKSegment s{tile, from - tile_begin, end - tile_begin, StreamKSegment::kWhole, block};
    if (end < tile_end) {
      s.role = StreamKSegment::kPublishes;
    } else if (from > tile_begin) {
      s.role = StreamKSegment::kCollects;
      s.first_contributor = int(plan.worker_of(tile_begin));
    }
    segment(s);
    end = from;
  }
}

/// The plan for a config: no stream-K for batches, or where whole waves of tiles fill every slot
/// (kBlocksPerSm per SM); otherwise the tiles past the last whole wave but one go to one wave of
/// workers, each with at least kMinKTilesPerWorker k-tiles. A function of the shape and the SM count
/// only, so the same call always splits the same way (deterministic results).
template <typename Cfg>
StreamKPlan plan_stream_k(GemmProblem const& shape, int sm_count) {
  constexpr std::int64_t kMinKTilesPerWorker = 4;
  std::int64_t const tiles = ((shape.m + Cfg::kBM - 1) / Cfg::kBM) * ((shape.n + Cfg::kBN - 1) / Cfg::kBN);
  std::int64_t const k_tiles = (shape.k + Cfg::kBK - 1) / Cfg::kBK;
  std::int64_t const slots = std::int64_t(Cfg::kBlocksPerSm) * sm_count;
  if (shape.batch > 1 || tiles == 0 || k_tiles == 0 || slots < 2 || tiles % slots == 0) return {};
  std::int64_t const whole_waves = tiles / slots;
  std::int64_t const sk_tiles = whole_waves == 0 ? tiles : tiles - (whole_waves - 1) * slots;
  std::int64_t const workers = std::min(slots, sk_tiles * k_tiles / kMinKTilesPerWorker);
  // Fewer workers than tiles gain nothing; nor, behind whole waves, fewer than a wave.
  if (workers < 2 || (whole_waves == 0 ? workers <= sk_tiles : workers < slots)) return {};
  StreamKPlan const plan{workers, sk_tiles, tiles - sk_tiles, k_tiles};
  return plan.blocks() <= 2147483647 && plan.iterations() <= 2147483647 ? plan : StreamKPlan{};
}

/// The stream-K launch's second kernel argument: the plan, and one partial tile with its ready
/// flag per worker (a worker publishes at most one: its last tile's).
template <typename T>
struct StreamKFixup {
  StreamKPlan plan;
  PartialFlags flags;
  T* partials = nullptr;
};

/// Where the stream-K form keeps its state in the workspace: the ready flags, then the partial
/// tiles from a 256-byte boundary.
struct StreamKLayout {
  std::size_t partials_offset = 0;  ///< bytes from the workspace start
  std::size_t bytes = 0;            ///< the whole workspace; 0 without stream-K
};

template <typename Cfg, typename T>
StreamKLayout stream_k_layout(StreamKPlan const& plan) {
  if (plan.workers == 0) return {};
  std::size_t const flags = partial_flags_bytes(plan.workers);
  return {flags, flags + std::size_t(plan.workers) * Cfg::kBM * Cfg::kBN * sizeof(T)};
}

}  // namespace gemmkit::gemm
