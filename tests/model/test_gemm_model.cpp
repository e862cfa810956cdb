/*! \file
    \brief The GEMM performance model on the H100 description: seed 001's required bandwidth,
    occupancy limits, wave quantization, latency hiding, and the ranking it gives the tile configs.
*/
#include "model/gemm_model.hpp"

#include <gtest/gtest.h>

#include <map>
#include <string>

namespace gemmkit::model {
namespace {

TileConfig config(int bm, int bn, int bk, int wm, int wn, int stages, int blocks = 1, int registers = 0) {
  TileConfig c;
  c.name = std::to_string(bm) + "x" + std::to_string(bn);
  c.bm = bm, c.bn = bn, c.bk = bk, c.warp_m = wm, c.warp_n = wn, c.stages = stages, c.blocks_per_sm = blocks;
  c.registers_per_thread = registers;
  return c;
}

TEST(GemmModel, RequiredBandwidthIsSeed001s) {
  MachineDescription const h100 = h100_sxm();
  // RB = DF * WB * (1/bm + 1/bn) / 2: 64x64 double tiles need 0.125 byte per flop, 128x128 half.
  Prediction const small = predict(h100, config(64, 64, 16, 32, 32, 4, 3), 8192, 8192, 8192);
  Prediction const large = predict(h100, config(128, 128, 16, 32, 64, 4), 8192, 8192, 8192);
  EXPECT_DOUBLE_EQ(small.l2_bytes_per_flop, 0.125);
  EXPECT_DOUBLE_EQ(large.l2_bytes_per_flop, 0.0625);
  EXPECT_NEAR(small.l2_ceiling, h100.l2_bytes_per_s / 0.125, 1.0);
  // Shared memory carries the warp tile's fragment reads and the block tile's copies.
  EXPECT_DOUBLE_EQ(small.smem_bytes_per_flop, 8.0 * (1.0 / 32 + 1.0 / 32) / 2 + 0.125);
}

TEST(GemmModel, FloatOperandsCrossL2AsFloatsAndSharedMemoryAsDoubles) {
  MachineDescription const h100 = h100_sxm();
  TileConfig c = config(128, 64, 16, 64, 32, 4, 2);
  Prediction const on_doubles = predict(h100, c, 8192, 8192, 8192);
  c.element_bytes = 4;
  Prediction const on_floats = predict(h100, c, 8192, 8192, 8192);
  // Half the L2 bytes; the fragments are read from the converted double tiles, and each tile
  // element is written as a float, read back and written as a double (4 + 4 + 8 bytes, not 8).
  double const per_tile = (1.0 / 128 + 1.0 / 64) / 2;
  EXPECT_DOUBLE_EQ(on_floats.l2_bytes_per_flop, on_doubles.l2_bytes_per_flop / 2);
  EXPECT_DOUBLE_EQ(on_floats.smem_bytes_per_flop - on_doubles.smem_bytes_per_flop, 8.0 * per_tile);
  // Shared memory: two double tiles and a ring of float stages (tensorop_smem_bytes).
  EXPECT_EQ(c.shared_bytes(), 2 * 192 * 16 * 8 + 4 * 192 * 16 * 4);
}

TEST(GemmModel, SpillTrafficSharesTheSharedMemoryCeiling) {
  MachineDescription const h100 = h100_sxm();
  TileConfig c = config(64, 64, 16, 32, 32, 4, 3, 168);
  Prediction const clean = predict(h100, c, 8192, 8192, 8192);
  // 224 local bytes per thread per k-tile, 128 threads, over the 2 x 64 x 64 x 16 flops of a k-tile.
  c.spill_bytes_per_k_tile = 224;
  Prediction const spilled = predict(h100, c, 8192, 8192, 8192);
  EXPECT_DOUBLE_EQ(spilled.smem_bytes_per_flop - clean.smem_bytes_per_flop, 128.0 * 224 / (2.0 * 64 * 64 * 16));
  EXPECT_LT(spilled.smem_ceiling, clean.smem_ceiling);
  EXPECT_DOUBLE_EQ(spilled.l2_ceiling, clean.l2_ceiling);
  // Enough spill traffic and shared memory, not the tensor peak, bounds the config.
  c.spill_bytes_per_k_tile = 1024;
  Prediction const bound = predict(h100, c, 8192, 8192, 8192);
  EXPECT_EQ(bound.limiter, "shared-memory bandwidth (warp tile, spills)");
  EXPECT_NEAR(bound.flops, bound.smem_ceiling * bound.wave_efficiency, 1.0);
}

TEST(GemmModel, PowerCeilingIsReportedNotApplied) {
  MachineDescription m = h100_sxm();
  TileConfig const c = config(64, 64, 16, 32, 32, 4, 3, 168);
  EXPECT_EQ(predict(m, c, 8192, 8192, 8192).power_ceiling, 0.0);  // no energies: no ceiling
  Prediction const without = predict(m, c, 8192, 8192, 8192);
  // H200 energies (micro-b7ef4d4): 8.03 pJ per DMMA flop, 18.3 per L2 byte, 3.97 per shared byte.
  m.power_limit_w = 700, m.idle_power_w = 125;
  m.dmma_energy_j_per_flop = 8.03e-12, m.l2_energy_j_per_byte = 18.3e-12, m.smem_energy_j_per_byte = 3.97e-12;
  Prediction const p = predict(m, c, 8192, 8192, 8192);
  double const joules = 8.03e-12 + 18.3e-12 * p.l2_bytes_per_flop + 3.97e-12 * p.smem_bytes_per_flop;
  EXPECT_NEAR(p.power_ceiling, 575.0 / joules, 1e3);
  EXPECT_LT(p.power_ceiling, p.flops);  // below the bound, and still not part of it
  EXPECT_DOUBLE_EQ(p.flops, without.flops);
}

TEST(GemmModel, OccupancyFromRegistersSharedMemoryAndTarget) {
  MachineDescription const h100 = h100_sxm();
  EXPECT_EQ(resident_blocks(h100, config(64, 64, 16, 32, 32, 4, 3, 168)), 3);   // 168 x 128 x 3 <= 64K
  EXPECT_EQ(resident_blocks(h100, config(64, 64, 16, 32, 32, 4, 3, 200)), 2);   // registers bind
  EXPECT_EQ(resident_blocks(h100, config(128, 128, 16, 32, 64, 4, 1, 0)), 1);   // the launch-bounds cap
  EXPECT_EQ(resident_blocks(h100, config(128, 128, 32, 32, 64, 4, 2, 120)), 0); // 256 KB of stages: no fit
  EXPECT_EQ(predict(h100, config(128, 128, 32, 32, 64, 4, 2, 120), 4096, 4096, 4096).flops, 0.0);
}

TEST(GemmModel, WaveQuantization) {
  MachineDescription const h100 = h100_sxm();
  TileConfig const one_per_sm = config(64, 64, 16, 32, 32, 4, 1, 200);
  // 256 tiles on 132 slots: two waves, 256 / 264 busy.
  EXPECT_NEAR(predict(h100, one_per_sm, 1024, 1024, 1024).wave_efficiency, 256.0 / 264.0, 1e-12);
  // 133 tiles: the second wave holds one block.
  EXPECT_NEAR(predict(h100, one_per_sm, 64 * 133, 64, 64).wave_efficiency, 133.0 / 264.0, 1e-12);
  // A 65-row problem: two 64-row tiles in one wave of 132 slots, and half their rows padding.
  EXPECT_NEAR(predict(h100, one_per_sm, 65, 64, 64).wave_efficiency, (2.0 / 132.0) * 65.0 / 128.0, 1e-12);
  // Several blocks per SM: balance is counted over SMs, not slots. 64 tiles of a config that holds 8
  // per SM busy 64 of 132 SMs (64 / 132, not 64 / 1056), and 133 tiles leave one SM with two.
  TileConfig const eight_per_sm = config(32, 32, 16, 16, 16, 3, 8, 64);
  ASSERT_EQ(resident_blocks(h100, eight_per_sm), 8);
  EXPECT_NEAR(predict(h100, eight_per_sm, 256, 256, 256).wave_efficiency, 64.0 / 132.0, 1e-12);
  EXPECT_NEAR(predict(h100, eight_per_sm, 32 * 133, 32, 32).wave_efficiency, 133.0 / 264.0, 1e-12);
}

TEST(GemmModel, RankingCheckAgainstMeasuredRates) {
  MachineDescription const h100 = h100_sxm();
  TileConfig small = config(32, 32, 16, 16, 16, 3, 8, 64), mid = config(64, 64, 16, 32, 32, 4, 3, 168),
             big = config(128, 128, 16, 32, 64, 4, 1, 232);
  small.name = "small", mid.name = "mid", big.name = "big";
  auto const ranked = rank(h100, {small, mid, big}, 8192, 8192, 8192);
  // Measured in the model's order: its first is the measured first, the ranks agree.
  std::map<std::string, double> agree{{ranked[0].first.name, 3e13}, {ranked[1].first.name, 2e13}, {ranked[2].first.name, 1e13}};
  RankingCheck const a = check_ranking(ranked, agree, 0.0);
  EXPECT_EQ(a.configs, 3);
  EXPECT_EQ(a.model_top, a.measured_top);
  EXPECT_TRUE(a.measured_top_in_tier);
  EXPECT_DOUBLE_EQ(a.model_top_fraction, 1.0);
  EXPECT_NEAR(a.spearman, 1.0, 1e-12);
  // Reversed: the model's first reaches a third of the best; a config measured but not ranked is left out.
  std::map<std::string, double> reverse{{ranked[0].first.name, 1e13}, {ranked[1].first.name, 2e13},
                                        {ranked[2].first.name, 3e13}, {"unranked", 9e13}};
  RankingCheck const r = check_ranking(ranked, reverse, 0.0);
  EXPECT_EQ(r.configs, 3);
  EXPECT_EQ(r.measured_top, ranked[2].first.name);
  EXPECT_FALSE(r.measured_top_in_tier);
  EXPECT_NEAR(r.model_top_fraction, 1.0 / 3.0, 1e-12);
  EXPECT_NEAR(r.spearman, -1.0, 1e-12);
  EXPECT_EQ(check_ranking(ranked, {}).configs, 0);
  // By names: the same check for configs of any family.
  std::vector<std::pair<std::string, double>> const named{{"simt", 5e13}, {"tensorop", 4e13}};
  RankingCheck const n = check_ranking(named, {{"simt", 1e13}, {"tensorop", 2e13}}, 0.0);
  EXPECT_EQ(n.model_top, "simt");
  EXPECT_EQ(n.measured_top, "tensorop");
  EXPECT_NEAR(n.model_top_fraction, 0.5, 1e-12);
}

TEST(GemmModel, ReadsTheTopLevelOfABenchRow) {
  std::map<std::string, std::string> text;
  std::map<std::string, double> number;
  std::string const row =
      R"({"suite": "dgemm-sweep", "m": 256, "clocks": {"sm_max_mhz": 1980, "note": "a } in [text]"}, )"
      R"("list": [1, [2, {"x": 3}]], "variant": "dgemm_tensorop_32x32", "verified": true, "gflops": 5.5e3})";
  ASSERT_EQ(read_json_row(row, &text, &number), "");
  EXPECT_EQ(text["suite"], "dgemm-sweep");
  EXPECT_EQ(text["variant"], "dgemm_tensorop_32x32");
  EXPECT_EQ(text["verified"], "true");
  EXPECT_DOUBLE_EQ(number["m"], 256);
  EXPECT_DOUBLE_EQ(number["gflops"], 5500);
  EXPECT_EQ(number.count("clocks") + text.count("sm_max_mhz"), 0u);  // nested fields are skipped
  EXPECT_NE(read_json_row(R"({"clocks": {"a": 1})", &text, &number), "");  // unbalanced
}

/// The built-in H100 description with the latencies micro-benchmarks measure on it (cycles).
MachineDescription h100_with_latencies() {
  MachineDescription m = h100_sxm();
  m.lds64_latency_cycles = 26, m.dmma_latency_cycles = 82, m.l2_load_latency_cycles = 277;
  m.barrier_latency_cycles = 20;
  return m;
}

TEST(GemmModel, WithoutLatenciesTheBoundIsTheCeilingTimesTheWaves) {
  TileConfig c = config(128, 64, 16, 64, 32, 3, 1, 232);
  Prediction const p = predict(h100_sxm(), c, 4096, 4096, 4096);
  EXPECT_DOUBLE_EQ(p.latency_efficiency, 1.0);
  EXPECT_DOUBLE_EQ(p.exposed_cycles_per_k_tile, 0.0);
  EXPECT_DOUBLE_EQ(p.flops, p.tensor_ceiling * p.wave_efficiency);
}

TEST(GemmModel, ResidentBlocksHideWhatOneBlockExposes) {
  MachineDescription const machine = h100_with_latencies();
  double const mma_cycles = 4096 / (machine.fp64_tensor_flops / (132 * machine.sm_clock_hz * 4));  // m16n8k16
  // 128x64 tiles of 4 warps, m16n8k16 without fragment double-buffering: per k-tile each warp
  // keeps its scheduler's pipe busy for 16 MMAs and then waits for its barrier, a shared load and
  // four streamed reloads behind a DMMA. Two tiles per SM (264 tiles).
  std::int64_t const m = 128 * 132, n = 128, k = 4096;
  TileConfig alone = config(128, 64, 16, 64, 32, 3, 1, 232);
  TileConfig paired = config(128, 64, 16, 64, 32, 3, 2, 232);
  Prediction const one = predict(machine, alone, m, n, k);
  EXPECT_DOUBLE_EQ(one.exposed_cycles_per_k_tile, 20 + 26 + 4 * 82);
  double const x = 16 * mma_cycles / (16 * mma_cycles + 20 + 26 + 4 * 82);
  EXPECT_NEAR(one.latency_efficiency, x, 1e-12);
  EXPECT_EQ(one.limiter, "latency (blocks per SM too few)");
  // Both tiles at once: the pipe idles only while both blocks wait.
  Prediction const two = predict(machine, paired, m, n, k);
  EXPECT_NEAR(two.latency_efficiency, 1 - (1 - x) * (1 - x), 1e-12);
  EXPECT_GT(two.flops, one.flops);
  // Fragments double-buffered (m16n8k8): only the barrier is left.
  paired.mma_k = 8, paired.fragment_double_buffer = true;
  Prediction const k8 = predict(machine, paired, m, n, k);
  EXPECT_DOUBLE_EQ(k8.exposed_cycles_per_k_tile, 20);
  EXPECT_GT(k8.flops, two.flops);
  EXPECT_GT(k8.latency_efficiency, 0.999);
}

TEST(GemmModel, ShortRingWaitsForItsStage) {
  MachineDescription const machine = h100_with_latencies();
  double const mma_cycles = 2048 / (machine.fp64_tensor_flops / (132 * machine.sm_clock_hz * 4));  // m16n8k8
  // 32x32 tiles of 4 warps of 16x16: 4 MMAs of m16n8k8 a k-tile; two stages cannot cover an L2
  // round trip with one block per SM.
  TileConfig c = config(32, 32, 16, 16, 16, 2, 1, 64);
  c.mma_k = 8, c.fragment_double_buffer = true;
  Prediction const p = predict(machine, c, 32 * 132, 32, 4096);  // one tile per SM
  EXPECT_NEAR(p.exposed_cycles_per_k_tile, 20 + (277 - (4 * mma_cycles + 20)), 1e-9);
}

TEST(GemmModel, RankPutsL2BoundSmallTilesLast) {
  MachineDescription const h100 = h100_sxm();
  std::vector<TileConfig> const configs = {config(32, 32, 16, 16, 16, 3, 8, 64), config(64, 64, 16, 32, 32, 4, 3, 168),
                                           config(128, 128, 16, 32, 64, 4, 1, 232)};
  auto const ranked = rank(h100, configs, 8192, 8192, 8192);
  ASSERT_EQ(ranked.size(), 3u);
  EXPECT_EQ(ranked.back().first.bm, 32);
  EXPECT_EQ(ranked.back().second.limiter, "L2 bandwidth (block tile)");
  EXPECT_EQ(ranked.front().second.limiter, "FP64 tensor peak");
  EXPECT_GE(ranked.front().second.flops, ranked[1].second.flops);
}

}  // namespace
}  // namespace gemmkit::model
