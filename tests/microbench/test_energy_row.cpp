/*! \file
    \brief The micro-benchmarks' energy rows: picojoules per unit of work above the idle draw, and
    the watts, clock and limit they carry (host arithmetic; no device needed).
*/
#include "microbench/device_timing.hpp"

#include <gtest/gtest.h>

namespace gemmkit::microbench {
namespace {

double parameter(Measurement const& m, std::string const& key) {
  for (auto const& [k, v] : m.parameters) {
    if (k == key) return v;
  }
  ADD_FAILURE() << "no parameter " << key;
  return 0;
}

TEST(EnergyRow, PicojoulesPerUnitAboveTheIdleDraw) {
  // 1000 J over 2 s (500 W) for 20 runs of 1e12 flops, with 100 W idle: (1000 - 200) / 2e13 flops.
  EnergyRun run;
  run.joules = 1000, run.seconds = 2, run.runs = 20, run.sm_mhz = 1650, run.power_limit_w = 700;
  Measurement const m = energy_row("energy_fp64_mma_m16n8k16", "pJ/flop", "test", 1e12, run, 100);
  ASSERT_TRUE(m.error.empty());
  ASSERT_EQ(m.samples.size(), 1u);
  EXPECT_DOUBLE_EQ(m.samples[0], 800.0 / 2e13 * 1e12);
  EXPECT_DOUBLE_EQ(parameter(m, "mean_watts"), 500);
  EXPECT_DOUBLE_EQ(parameter(m, "idle_watts"), 100);
  EXPECT_DOUBLE_EQ(parameter(m, "gross_pj_per_unit"), 1000.0 / 2e13 * 1e12);
  EXPECT_DOUBLE_EQ(parameter(m, "sm_mhz"), 1650);
  EXPECT_DOUBLE_EQ(parameter(m, "power_limit_watts"), 700);
}

TEST(EnergyRow, NoWorkIsAnError) {
  EnergyRun run;
  run.joules = 10, run.seconds = 1, run.runs = 0;
  EXPECT_FALSE(energy_row("energy_l2_read", "pJ/B", "test", 1e9, run, 50).error.empty());
}

}  // namespace
}  // namespace gemmkit::microbench
