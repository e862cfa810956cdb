/*! \file
    \brief The machine description file: written and read back unchanged, and a missing, garbled
    or incomplete file refused with a message that says what is wrong.
*/
#include <gtest/gtest.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include "model/machine.hpp"

namespace gemmkit::model {
namespace {

std::string temp_path(std::string const& name) {
  return (std::filesystem::temp_directory_path() / ("gemmkit_test_machine_" + name)).string();
}

void write_file(std::string const& path, std::string const& text) { std::ofstream(path, std::ios::binary) << text; }

TEST(MachineDescription, RoundTripThroughAFileKeepsEveryField) {
  MachineDescription m = h100_sxm();
  m.name = "test \"GPU\"\twith\\escapes";
  m.source = "unit test";
  m.sm_clock_hz = 1.755e9 + 0.123456789;  // digits a short format would lose
  m.dmma_latency_cycles = 33.25;
  m.barrier_latency_cycles = 21.5;
  m.launch_latency_s = 4.5e-6;
  m.schedulers_per_sm = 4;
  m.power_limit_w = 700, m.idle_power_w = 124.8129;
  m.dmma_energy_j_per_flop = 8.029148e-12, m.l2_energy_j_per_byte = 1.831092e-11, m.smem_energy_j_per_byte = 3.9665e-12;
  std::string const path = temp_path("round_trip.json");
  write_file(path, machine_description_json(m));

  MachineDescription read;
  ASSERT_EQ(load_machine_description(path, &read), "");
  EXPECT_EQ(read.name, m.name);
  EXPECT_EQ(read.source, m.source);
  EXPECT_EQ(read.sm_count, m.sm_count);
  EXPECT_EQ(read.sm_clock_hz, m.sm_clock_hz);
  EXPECT_EQ(read.fp64_tensor_flops, m.fp64_tensor_flops);
  EXPECT_EQ(read.fp64_tensor_m8n8k4_flops, m.fp64_tensor_m8n8k4_flops);
  EXPECT_EQ(read.l2_bytes_per_s, m.l2_bytes_per_s);
  EXPECT_EQ(read.smem_bytes_per_clock_per_sm, m.smem_bytes_per_clock_per_sm);
  EXPECT_EQ(read.bidirectional_pinned_bytes_per_s, m.bidirectional_pinned_bytes_per_s);
  EXPECT_EQ(read.dmma_latency_cycles, m.dmma_latency_cycles);
  EXPECT_EQ(read.barrier_latency_cycles, m.barrier_latency_cycles);
  EXPECT_EQ(read.launch_latency_s, m.launch_latency_s);
  EXPECT_EQ(read.shared_bytes_per_sm, m.shared_bytes_per_sm);
  EXPECT_EQ(read.schedulers_per_sm, m.schedulers_per_sm);
  EXPECT_EQ(read.power_limit_w, m.power_limit_w);
  EXPECT_EQ(read.idle_power_w, m.idle_power_w);
  EXPECT_EQ(read.dmma_energy_j_per_flop, m.dmma_energy_j_per_flop);
  EXPECT_EQ(read.l2_energy_j_per_byte, m.l2_energy_j_per_byte);
  EXPECT_EQ(read.smem_energy_j_per_byte, m.smem_energy_j_per_byte);
  // Written again, it is the same text: nothing was lost or added.
  EXPECT_EQ(machine_description_json(read), machine_description_json(m));
  std::remove(path.c_str());
}

TEST(MachineDescription, UnknownKeysAreIgnoredOptionalOnesDefaultToZero) {
  MachineDescription const h100 = h100_sxm();
  std::string text = machine_description_json(h100);
  // Drop an optional field and add one a later version might write.
  std::string const optional_line = "\"dfma_latency_cycles\": 0,\n  ";
  ASSERT_NE(text.find(optional_line), std::string::npos);
  text.erase(text.find(optional_line), optional_line.size());
  text.insert(1, "\"measured_by\": \"micro\", \"verified\": true, \"extra\": null,");
  MachineDescription read;
  ASSERT_EQ(parse_machine_description(text, "text", &read), "");
  EXPECT_EQ(read.dfma_latency_cycles, 0.0);
  EXPECT_EQ(read.fp64_tensor_flops, h100.fp64_tensor_flops);
}

TEST(MachineDescription, MissingFileIsAClearError) {
  MachineDescription read;
  std::string const e = load_machine_description(temp_path("does_not_exist.json"), &read);
  EXPECT_NE(e.find("cannot open"), std::string::npos) << e;
  EXPECT_NE(e.find("does_not_exist.json"), std::string::npos) << e;
}

TEST(MachineDescription, GarbledTextIsRefusedWithWhereItBroke) {
  MachineDescription read = h100_sxm();
  for (std::string const text : {"", "not json", "{\"name\": \"x\"", "{\"name\" \"x\"}", "[1, 2]",
                                 "{\"name\": {\"nested\": 1}}", "{\"name\": \"x\"} trailing", "{\"sm_count\": abc}"}) {
    std::string const e = parse_machine_description(text, "garbled.json", &read);
    EXPECT_NE(e.find("garbled.json: not a machine description"), std::string::npos) << text << " -> " << e;
  }
  EXPECT_EQ(read.name, h100_sxm().name) << "a refused file leaves the output untouched";
}

TEST(MachineDescription, MissingRequiredFieldOrWrongTypeIsNamed) {
  std::string const full = machine_description_json(h100_sxm());
  MachineDescription read;

  std::string text = full;
  std::string const l2 = "\"l2_bytes_per_s\": ";
  text.replace(text.find(l2), l2.size(), "\"l2_renamed\": ");
  EXPECT_EQ(parse_machine_description(text, "f.json", &read), "f.json: machine description lacks \"l2_bytes_per_s\"");

  text = full;
  std::string const count = "\"sm_count\": 132";
  text.replace(text.find(count), count.size(), "\"sm_count\": \"132\"");
  EXPECT_EQ(parse_machine_description(text, "f.json", &read), "f.json: \"sm_count\" must be a number");

  text = full;
  text.replace(text.find(count), count.size(), "\"sm_count\": 132.5");
  EXPECT_EQ(parse_machine_description(text, "f.json", &read), "f.json: \"sm_count\" must be an integer");
}

}  // namespace
}  // namespace gemmkit::model

namespace gemmkit::model {
namespace {

TEST(BuiltinMachine, KnowsTheMeasuredGpusByNameAndMultiprocessors) {
  auto const h100 = builtin_machine("NVIDIA H100 80GB HBM3", 132);
  ASSERT_TRUE(h100.has_value());
  EXPECT_EQ(h100->fp64_tensor_flops, h100_sxm().fp64_tensor_flops);
  auto const h200 = builtin_machine("NVIDIA H200", 132);
  ASSERT_TRUE(h200.has_value());
  EXPECT_GT(h200->dram_bytes_per_s, h100->dram_bytes_per_s);  // HBM3e
  EXPECT_FALSE(builtin_machine("NVIDIA H100 PCIe", 114).has_value());
  EXPECT_FALSE(builtin_machine("NVIDIA A100-SXM4-80GB", 108).has_value());
}

TEST(BuiltinMachine, EveryBuiltInDescriptionPlansAndRoundTrips) {
  for (MachineDescription const& m : {h100_sxm(), h200_sxm()}) {
    EXPECT_GT(m.fp64_gemm_flops, 0) << m.name;
    EXPECT_LE(m.fp64_gemm_flops, m.fp64_tensor_flops) << m.name;  // a sustained rate, not above the peak
    EXPECT_GT(m.staged_copy_bytes_per_s, 0) << m.name;
    EXPECT_GT(m.host_h2d_bytes_per_s, m.h2d_pinned_bytes_per_s) << m.name;
    MachineDescription back;
    std::string const error = parse_machine_description(machine_description_json(m), m.name, &back);
    ASSERT_EQ(error, "") << m.name;
    EXPECT_EQ(back.fp64_gemm_flops, m.fp64_gemm_flops) << m.name;
    EXPECT_EQ(back.staged_copy_bytes_per_s, m.staged_copy_bytes_per_s) << m.name;
  }
}

}  // namespace
}  // namespace gemmkit::model
