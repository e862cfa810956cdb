/*! \file
    \brief The GEMM performance model: ceilings, occupancy, waves, ranking.
*/
#include "model/gemm_model.hpp"

#include "base/problem.hpp"

#include <algorithm>
#include <cmath>

namespace gemmkit::model {

int resident_blocks(MachineDescription const& machine, TileConfig const& config) {
  int const threads = config.threads();
  int const registers = config.registers_per_thread > 0
                            ? config.registers_per_thread
                            : std::min(machine.max_registers_per_thread,
                                       machine.registers_per_sm / (threads * std::max(1, config.blocks_per_sm)));
  int blocks = std::min({machine.max_threads_per_sm / threads, machine.registers_per_sm / (registers * threads),
                         machine.max_blocks_per_sm, config.blocks_per_sm});
  if (config.shared_bytes() > 0) blocks = std::min(blocks, machine.shared_bytes_per_sm / config.shared_bytes());
  return std::max(blocks, 0);
}

Prediction predict(MachineDescription const& machine, TileConfig const& c, std::int64_t m, std::int64_t n,
                   std::int64_t k) {
  Prediction p;
  double const word = c.element_bytes;
  p.tensor_ceiling = machine.fp64_tensor_flops;
  // Global -> shared: a bm x bn tile loads (bm + bn) words per k for 2 bm bn flops.
  p.l2_bytes_per_flop = word * (1.0 / c.bm + 1.0 / c.bn) / 2.0;
  p.l2_ceiling = machine.l2_bytes_per_s / p.l2_bytes_per_flop;
  // Shared -> registers: a warp_m x warp_n warp tile reads (warp_m + warp_n) doubles per k for
  // 2 warp_m warp_n flops (float operands too: the fragments come from the converted tiles); the
  // block tile's way in crosses shared memory as well (the cp.async writes, and for float operands
  // the conversion's read and write). Spilled registers reloaded in the loop take the same L1 /
  // shared datapath.
  p.smem_bytes_per_flop = TileConfig::kFragmentBytes * (1.0 / c.warp_m + 1.0 / c.warp_n) / 2.0 +
                          c.shared_tile_bytes_per_element() * (1.0 / c.bm + 1.0 / c.bn) / 2.0 +
                          c.threads() * c.spill_bytes_per_k_tile / (2.0 * c.bm * c.bn * c.bk);
  p.smem_ceiling = machine.smem_bytes_per_s() / p.smem_bytes_per_flop;
  p.resident_blocks = resident_blocks(machine, c);
  p.warps_per_sm = p.resident_blocks * c.threads() / 32;

  // Balance over SMs, not over resident slots: the SM with the most tiles sets the time, and an SM
  // holding fewer blocks than it could runs each faster (the ceilings are per device, so a bound
  // must not charge the empty slots; a block alone reaching its SM's peak is the optimistic side,
  // latency hiding is not modelled). Per slot, 256^3 in 32x32 tiles was bounded at 2.5 TFLOP/s
  // and measured at 5.0.
  std::int64_t const tiles = ((m + c.bm - 1) / c.bm) * ((n + c.bn - 1) / c.bn);
  p.wave_efficiency = wave_efficiency(tiles, std::int64_t(machine.sm_count));
  // Partial tiles at the edges compute padding: count only the useful fraction.
  double const useful = double(m) * double(n) /
                        (double((m + c.bm - 1) / c.bm * c.bm) * double((n + c.bn - 1) / c.bn * c.bn));
  p.wave_efficiency *= useful;

  p.flops = p.tensor_ceiling;
  p.limiter = "FP64 tensor peak";
  if (p.l2_ceiling < p.flops) p.flops = p.l2_ceiling, p.limiter = "L2 bandwidth (block tile)";
  if (p.smem_ceiling < p.flops) {
    p.flops = p.smem_ceiling;
    p.limiter = c.spill_bytes_per_k_tile > 0 ? "shared-memory bandwidth (warp tile, spills)"
                                             : "shared-memory bandwidth (warp tile)";
  }
  if (machine.power_limit_w > machine.idle_power_w && machine.dmma_energy_j_per_flop > 0) {
    // The bytes a flop moves cost energy too; at the board's limit that sets the rate. Reported,
    // not applied: energies measured at the top clock overstate them at the clock the limit holds,
    // and the ranking came out worse with it (docs/perf-micro.md, "Where the model misses").
    double const joules_per_flop = machine.dmma_energy_j_per_flop +
                                   machine.l2_energy_j_per_byte * p.l2_bytes_per_flop +
                                   machine.smem_energy_j_per_byte * p.smem_bytes_per_flop;
    p.power_ceiling = (machine.power_limit_w - machine.idle_power_w) / joules_per_flop;
  }
  if (p.resident_blocks == 0) {
    p.flops = 0, p.limiter = "does not fit on an SM";
    return p;
  }
  p.flops *= p.wave_efficiency;

  // Latency: per k-tile a warp keeps its SM sub-partition's tensor pipe busy for its MMAs, then
  // waits. A block alone exposes the wait; r resident blocks overlap theirs.
  double const pipe_flops_per_cycle =
      machine.fp64_tensor_flops / (double(machine.sm_count) * machine.sm_clock_hz * machine.schedulers_per_sm);
  int const warps = c.threads() / 32;
  int const warps_per_scheduler = (warps + machine.schedulers_per_sm - 1) / machine.schedulers_per_sm;
  double const mma_cycles = 2.0 * 16 * 8 * c.mma_k / pipe_flops_per_cycle;
  double const mmas_per_warp = double(c.warp_m / 16) * double(c.warp_n / 8) * double(c.bk) / c.mma_k;
  double const busy = warps_per_scheduler * mmas_per_warp * mma_cycles;  // per k-tile, per scheduler
  double exposed = machine.barrier_latency_cycles;  // one block barrier per k-tile
  if (!c.fragment_double_buffer) {
    exposed += machine.lds64_latency_cycles + double(c.warp_m / 16) * machine.dmma_latency_cycles;
  }
  std::int64_t const tiles_per_sm = (tiles + machine.sm_count - 1) / machine.sm_count;
  int const concurrent = int(std::min<std::int64_t>(p.resident_blocks, tiles_per_sm));
  // The stage for k-tile t + stages - 1 is asked for when k-tile t starts.
  double const k_tile_period = std::max(busy * concurrent, busy + exposed);
  exposed += std::max(0.0, machine.l2_load_latency_cycles - (c.stages - 1) * k_tile_period);
  p.exposed_cycles_per_k_tile = exposed;
  double const busy_fraction = busy / (busy + exposed);
  // The busiest SM runs its tiles in rounds of up to resident_blocks; scheduler cycles per round
  // for r blocks: r * busy / (1 - (1 - x)^r) per k-tile.
  double cycles = 0, busy_cycles = 0;
  for (std::int64_t left = tiles_per_sm; left > 0;) {
    int const r = int(std::min<std::int64_t>(p.resident_blocks, left));
    double const use = 1.0 - std::pow(1.0 - busy_fraction, r);
    cycles += r * busy / use;
    busy_cycles += r * busy;
    left -= r;
  }
  p.latency_efficiency = busy_cycles / cycles;
  double const latency_bound = machine.fp64_tensor_flops * p.wave_efficiency * p.latency_efficiency;
  if (latency_bound < p.flops) {
    // Named the limiter where it costs over 0.5 %: a block pair hides all but a sliver.
    if (latency_bound < 0.995 * p.flops) p.limiter = "latency (blocks per SM too few)";
    p.flops = latency_bound;
  }
  (void)k;
  return p;
}

std::vector<std::pair<TileConfig, Prediction>> rank(MachineDescription const& machine,
                                                    std::vector<TileConfig> const& configs, std::int64_t m,
                                                    std::int64_t n, std::int64_t k) {
  std::vector<std::pair<TileConfig, Prediction>> out;
  for (TileConfig const& c : configs) out.emplace_back(c, predict(machine, c, m, n, k));
  // Equal bounds: more resident blocks first (more slack for the latencies the model leaves out).
  std::stable_sort(out.begin(), out.end(), [](auto const& a, auto const& b) {
    double const scale = std::max(a.second.flops, b.second.flops);
    if (std::abs(a.second.flops - b.second.flops) > 1e-9 * scale) return a.second.flops > b.second.flops;
    return a.second.resident_blocks > b.second.resident_blocks;
  });
  return out;
}

namespace {

/// Ranks 1..n of `values`, largest first, ties sharing the mean of their places.
std::vector<double> average_ranks(std::vector<double> const& values) {
  std::vector<std::size_t> order(values.size());
  for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return values[a] > values[b]; });
  std::vector<double> ranks(values.size());
  for (std::size_t i = 0; i < order.size();) {
    std::size_t j = i;
    while (j + 1 < order.size() && values[order[j + 1]] == values[order[i]]) ++j;
    for (std::size_t t = i; t <= j; ++t) ranks[order[t]] = 0.5 * double(i + j) + 1.0;
    i = j + 1;
  }
  return ranks;
}

double pearson(std::vector<double> const& x, std::vector<double> const& y) {
  double const n = double(x.size());
  double mx = 0, my = 0;
  for (std::size_t i = 0; i < x.size(); ++i) mx += x[i] / n, my += y[i] / n;
  double sxy = 0, sxx = 0, syy = 0;
  for (std::size_t i = 0; i < x.size(); ++i) {
    sxy += (x[i] - mx) * (y[i] - my), sxx += (x[i] - mx) * (x[i] - mx), syy += (y[i] - my) * (y[i] - my);
  }
  return sxx > 0 && syy > 0 ? sxy / std::sqrt(sxx * syy) : 0.0;
}

}  // namespace

RankingCheck check_ranking(std::vector<std::pair<TileConfig, Prediction>> const& ranked,
                           std::map<std::string, double> const& measured, double tier) {
  std::vector<std::pair<std::string, double>> bounds;
  for (auto const& [config, prediction] : ranked) bounds.emplace_back(config.name, prediction.flops);
  return check_ranking(bounds, measured, tier);
}

RankingCheck check_ranking(std::vector<std::pair<std::string, double>> const& ranked,
                           std::map<std::string, double> const& measured, double tier) {
  RankingCheck check;
  std::vector<double> predicted_flops, measured_flops;
  std::vector<std::string> names;
  for (auto const& [name, bound] : ranked) {
    auto const found = measured.find(name);
    if (found == measured.end()) continue;
    names.push_back(name);
    predicted_flops.push_back(bound);
    measured_flops.push_back(found->second);
  }
  check.configs = int(names.size());
  if (names.empty()) return check;
  std::size_t const best = std::size_t(std::max_element(measured_flops.begin(), measured_flops.end()) - measured_flops.begin());
  check.model_top = names.front();  // rank's order: best predicted first
  check.measured_top = names[best];
  check.model_top_fraction = measured_flops.front() / measured_flops[best];
  for (double const p : predicted_flops) check.model_top_tier += p >= (1.0 - tier) * predicted_flops.front() ? 1 : 0;
  check.measured_top_in_tier = predicted_flops[best] >= (1.0 - tier) * predicted_flops.front();
  check.spearman = pearson(average_ranks(predicted_flops), average_ranks(measured_flops));
  return check;
}

}  // namespace gemmkit::model
