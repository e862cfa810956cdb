/*! \file
    \brief `micro`: runs microbench/'s families, prints a table with the anchors, writes JSON lines
    and the machine description.
*/
#include "micro.hpp"

#include <cmath>
#include <cstdio>
#include <fstream>
#include <optional>
#include <string>
#include <vector>

#include "json_writer.hpp"
#include "machine_info.hpp"
#include "table_printer.hpp"

#if GEMMKIT_WITH_CUDA
#include <algorithm>
#include <functional>

#include "microbench/microbench.hpp"
#endif

namespace gemmkit::bench {

#if GEMMKIT_WITH_CUDA

namespace {

/// The micro-benchmarks agree with the independently measured anchors within this fraction.
constexpr double kAnchorTolerance = 0.05;

/// The H100 SXM anchor (model::h100_sxm) for `name` in the row's unit, when the device is the one it was measured on
/// (an H100 SXM; its anchors are h100_sxm()'s measured fields).
std::optional<double> design_anchor(std::string const& name, std::string const& device) {
  if (device.find("H100") == std::string::npos) return std::nullopt;
  model::MachineDescription const h100 = model::h100_sxm();
  for (microbench::ModelField const& f : microbench::model_fields()) {
    if (f.design_anchor && name == f.case_name) return h100.*f.field / f.to_field_unit;
  }
  return std::nullopt;
}

std::string number_text(double x) {
  if (!std::isfinite(x)) return "-";
  double const a = std::fabs(x);
  return format(a >= 100 ? "%.0f" : a >= 10 ? "%.1f" : a >= 1 ? "%.2f" : "%.3f", x);
}

struct Family {
  char const* title;
  std::function<std::vector<microbench::Measurement>(microbench::Settings const&)> run;
};

JsonObject json_row(microbench::Measurement const& r, double value, std::optional<double> anchor,
                    microbench::Settings const& s) {
  JsonObject o;
  o.add_string("suite", "micro").add_string("case", r.name).add_number("value", value).add_string("unit", r.unit);
  if (!r.samples.empty()) {
    o.add_number("value_min", *std::min_element(r.samples.begin(), r.samples.end()))
        .add_number("value_max", *std::max_element(r.samples.begin(), r.samples.end()));
  }
  o.add_int("reps", std::int64_t(r.samples.size()));
  if (anchor)
    o.add_number("anchor", *anchor).add_number("ratio_to_anchor", value / *anchor);
  else
    o.add_null("anchor").add_null("ratio_to_anchor");
  for (auto const& [key, number] : r.parameters) o.add_number(key, number);
  o.add_string("what", r.what).add_string("status", r.error.empty() ? "ok" : "error");
  if (!r.error.empty()) o.add_string("message", r.error);
  o.add_int("device_bytes", std::int64_t(s.device_bytes)).add_int("host_bytes", std::int64_t(s.host_bytes));
  return o;
}

}  // namespace

int run_micro_command(Options const& o) {
  microbench::Settings s;
  s.device = o.device;
  if (o.reps > 0) s.reps = o.reps;
  if (o.target_ms > 0) s.target_ms = o.target_ms;
  if (o.energy_seconds >= 0) s.energy_seconds = o.energy_seconds;
  if (o.bytes > 0) s.device_bytes = s.host_bytes = std::size_t(o.bytes);
  MachineInfo const machine = collect_machine_info(o.device, true);
  if (!machine.gpu) {
    std::printf("gemmkit-bench micro: needs a GPU (%s)\n", machine.no_gpu_reason.c_str());
    return 0;
  }
  JsonLinesFile json;
  if (!o.json_file.empty()) {
    if (std::string e = json.open(o.json_file); !e.empty()) {
      std::fprintf(stderr, "gemmkit-bench: %s\n", e.c_str());
      return 2;
    }
  }
  GpuInfo const& gpu = *machine.gpu;
  std::printf(
      "gemmkit-bench micro  commit %s  %s\nGPU %d: %s, sm_%d, %d SMs, max clocks SM %d / memory %d MHz, driver %s\n",
      machine.commit.c_str(), iso_utc_now().c_str(), gpu.index, gpu.name.c_str(), gpu.compute_capability, gpu.sm_count,
      gpu.sm_clock_max_mhz, gpu.mem_clock_max_mhz, machine.driver.c_str());
  std::printf(
      "method: rates over one wave of blocks, CUDA events (host clock for host copies and the launch round "
      "trip); latencies from one warp's dependent chain, clock64; median of %d reps after one untimed run; "
      "copy buffers %zu MiB (device), %zu MiB (host)\n",
      s.reps, s.device_bytes >> 20, s.host_bytes >> 20);
  bool const anchored = gpu.name.find("H100") != std::string::npos;
  std::printf("anchors: %s\n", anchored ? "the measured H100 SXM figures (docs/perf-micro.md); agreement means a ratio within 5%"
                                        : "none (they are the H100 SXM's; this device differs)");

  Family const families[] = {
      {"peak rates", microbench::measure_peak_rates},
      {"kernel launch", microbench::measure_launch_latency},
      {"global memory: copy bandwidth by width and offset, memcpy, L2, load latency",
       microbench::measure_global_memory},
      {"host <-> device copies", microbench::measure_host_copy},
      {"shared memory: load latency by width, bank conflicts, bandwidth",
       microbench::measure_shared_memory},
      {"instruction latency, read after write", microbench::measure_instruction_latency},
  };
  TablePrinter table({{"case", 24, true},
                      {"value", 9},
                      {"unit", 8, true},
                      {"min", 8},
                      {"max", 8},
                      {"anchor", 8},
                      {"ratio", 6},
                      {"what", 40, true}});
  std::vector<microbench::Measurement> all;
  std::vector<std::string> off_anchor;
  int failures = 0, compared = 0;
  for (Family const& family : families) {
    std::printf("\n%s\n", family.title);
    table.print_header();
    std::vector<microbench::Measurement> const rows = family.run(s);
    std::optional<int> const sm_mhz = sm_clock_mhz(gpu.pci_bus_id);
    for (microbench::Measurement const& r : rows) {
      double const value = microbench::median(r.samples);
      std::optional<double> const anchor = design_anchor(r.name, gpu.name);
      if (!r.error.empty()) {
        ++failures;
        table.print_row({r.name, "error", r.unit, "", "", "", "", r.error});
      } else {
        double const lo = *std::min_element(r.samples.begin(), r.samples.end());
        double const hi = *std::max_element(r.samples.begin(), r.samples.end());
        table.print_row({r.name, number_text(value), r.unit, number_text(lo), number_text(hi),
                         anchor ? number_text(*anchor) : "-", anchor ? format("%.3f", value / *anchor) : "-", r.what});
        if (anchor) {
          ++compared;
          if (std::fabs(value / *anchor - 1) > kAnchorTolerance) off_anchor.push_back(r.name);
        }
      }
      if (json.is_open()) {
        JsonObject row = json_row(r, value, anchor, s);
        add_gpu_device_keys(row, machine, sm_mhz);
        add_run_keys(row, machine);
        json.write(row);
      }
      all.push_back(r);
    }
  }

  if (anchored) {
    std::printf("\nanchors: %d of %d within 5%%", compared - int(off_anchor.size()), compared);
    for (std::size_t i = 0; i < off_anchor.size(); ++i)
      std::printf("%s%s", i == 0 ? "; outside: " : ", ", off_anchor[i].c_str());
    std::printf("\n");
  }
  if (json.is_open()) std::printf("JSON lines appended to %s\n", o.json_file.c_str());
  if (!o.machine_out.empty()) {
    model::MachineDescription description;
    std::string const source = "gemmkit-bench micro, commit " + machine.commit + ", " + iso_utc_now();
    std::string e = microbench::describe_machine(o.device, all, source, &description);
    if (e.empty()) {
      std::ofstream file(o.machine_out, std::ios::binary | std::ios::trunc);
      file << model::machine_description_json(description);
      if (!file) e = o.machine_out + ": cannot write";
    }
    if (!e.empty()) {
      std::fprintf(stderr, "gemmkit-bench micro: machine description: %s\n", e.c_str());
      return 1;
    }
    std::printf("machine description written to %s (`gemmkit-bench model --machine %s` reads it)\n",
                o.machine_out.c_str(), o.machine_out.c_str());
  }
  return failures > 0 ? 1 : 0;
}

#else  // GEMMKIT_WITH_CUDA

int run_micro_command(Options const& o) {
  (void)o;
  std::printf("gemmkit-bench micro: needs a GPU (gemmkit built without CUDA)\n");
  return 0;
}

#endif  // GEMMKIT_WITH_CUDA

}  // namespace gemmkit::bench
