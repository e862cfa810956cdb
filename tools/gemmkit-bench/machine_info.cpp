/*! \file
    \brief What a result row records about where it ran: device, clocks, driver, commit, date.
*/
#include "machine_info.hpp"

#include <gemmkit/gemmkit.h>
#include <gemmkit/introspect.h>

#include <array>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <fstream>
#include <set>
#include <sstream>
#include <thread>
#include <vector>

#if GEMMKIT_WITH_CUDA
#include <cuda_runtime.h>
#endif

#ifndef GEMMKIT_BENCH_SOURCE_DIR
#define GEMMKIT_BENCH_SOURCE_DIR ""
#endif
#ifndef GEMMKIT_BENCH_CONFIGURE_COMMIT
#define GEMMKIT_BENCH_CONFIGURE_COMMIT ""
#endif

namespace gemmkit::bench {

namespace {

std::string trim(std::string s) {
  auto const first = s.find_first_not_of(" \t\r\n");
  auto const last = s.find_last_not_of(" \t\r\n");
  return first == std::string::npos ? std::string() : s.substr(first, last - first + 1);
}

/// The value of the first "key : value" line of /proc/cpuinfo with this key, or "".
std::string cpuinfo_field(std::string const& key) {
  std::ifstream in("/proc/cpuinfo");
  std::string line;
  while (std::getline(in, line)) {
    auto const colon = line.find(':');
    if (colon == std::string::npos) continue;
    if (trim(line.substr(0, colon)) == key) return trim(line.substr(colon + 1));
  }
  return {};
}

/// The widest vector ISA named in /proc/cpuinfo's flags (x86) or Features (Arm).
std::string cpu_isa_of_flags() {
  std::string flags = " ";
  for (char const* key : {"flags", "Features"}) flags += cpuinfo_field(key) + " ";
  auto has = [&](std::string const& f) { return flags.find(" " + f + " ") != std::string::npos; };
  if (has("avx512f")) return "avx512";
  if (has("avx2")) return "avx2";
  if (has("avx")) return "avx";
  if (has("sve")) return "sve";
  if (has("asimd")) return "neon";
  if (has("sse2")) return "sse";
  return "scalar";
}

/// Distinct (physical id, core id) pairs of /proc/cpuinfo; 0 when the file does not say.
int physical_core_count() {
  std::ifstream in("/proc/cpuinfo");
  std::string line, physical = "0";
  std::set<std::string> cores;
  while (std::getline(in, line)) {
    auto const colon = line.find(':');
    if (colon == std::string::npos) continue;
    std::string const key = trim(line.substr(0, colon));
    if (key == "physical id") physical = trim(line.substr(colon + 1));
    else if (key == "core id") cores.insert(physical + "/" + trim(line.substr(colon + 1)));
  }
  return int(cores.size());
}

/// First line printed by a shell command, or "" when it fails.
std::string first_line_of(std::string const& command) {
  std::FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) return {};
  std::array<char, 256> buffer{};
  std::string out;
  if (std::fgets(buffer.data(), int(buffer.size()), pipe) != nullptr) out = trim(buffer.data());
  int const status = pclose(pipe);
  return status == 0 ? out : std::string();
}

/// The commit being measured: GEMMKIT_COMMIT when set (a copied tree's .git may be stale), then git
/// at run time, then the value frozen when CMake configured.
void find_commit(MachineInfo& info) {
  if (char const* env = std::getenv("GEMMKIT_COMMIT"); env != nullptr && *env != '\0') {
    info.commit = env;
    info.commit_source = "env GEMMKIT_COMMIT";
    return;
  }
  std::string const source_dir = GEMMKIT_BENCH_SOURCE_DIR;
  if (!source_dir.empty() && source_dir.find('\'') == std::string::npos) {
    std::string const hash = first_line_of("git -C '" + source_dir + "' rev-parse --short HEAD 2>/dev/null");
    if (!hash.empty()) {
      info.commit = hash;
      info.commit_source = "git";
      return;
    }
  }
  if (std::string const configured = GEMMKIT_BENCH_CONFIGURE_COMMIT; !configured.empty()) {
    info.commit = configured;
    info.commit_source = "configure";
    return;
  }
  info.commit = "unknown";
  info.commit_source = "none";
}

#if GEMMKIT_WITH_CUDA
std::string version_text(int version) {
  return std::to_string(version / 1000) + "." + std::to_string((version % 1000) / 10);
}
#endif

}  // namespace

MachineInfo collect_machine_info(int device, bool use_gpu) {
  MachineInfo info;
  info.cpu_model = cpuinfo_field("model name");
  if (info.cpu_model.empty()) info.cpu_model = "unknown CPU";
  std::string const mhz = cpuinfo_field("cpu MHz");
  info.cpu_mhz = mhz.empty() ? 0.0 : std::atof(mhz.c_str());
  info.cpu_threads = int(std::thread::hardware_concurrency());
  info.cpu_cores = physical_core_count();
  if (info.cpu_cores <= 0 || info.cpu_cores > info.cpu_threads) info.cpu_cores = info.cpu_threads;
  info.cpu_isa = cpu_isa_of_flags();
  gk_cpu_info cpu{};
  bool const known = gk_cpu_info_get(&cpu) == GK_SUCCESS;
  info.cpu_tuning_key = known ? cpu.tuning_key : "";
  std::string const key = info.cpu_tuning_key;
  info.cpu_short = short_cpu_name(info.cpu_model, info.cpu_isa, info.cpu_cores,
                                  key.rfind("amd-", 0) == 0 ? key.substr(4) : std::string());
  info.cpu_blas = known ? cpu.blas : "";
  find_commit(info);

#if GEMMKIT_WITH_CUDA
  info.cuda_built = true;
  int runtime = 0;
  if (cudaRuntimeGetVersion(&runtime) == cudaSuccess) info.runtime = version_text(runtime);
  if (!use_gpu) {
    info.no_gpu_reason = "--cpu given";
    return info;
  }
  if (gk_gpu_available() == 0) {
    info.no_gpu_reason = "no CUDA device";
    return info;
  }
  int count = 0;
  cudaGetDeviceCount(&count);
  if (device < 0 || device >= count) {
    info.no_gpu_reason = "device " + std::to_string(device) + " does not exist (" + std::to_string(count) + " found)";
    return info;
  }
  int driver = 0;
  if (cudaDriverGetVersion(&driver) == cudaSuccess) info.driver = version_text(driver);
  GpuInfo gpu;
  gpu.index = device;
  cudaDeviceProp prop{};
  if (cudaGetDeviceProperties(&prop, device) == cudaSuccess) {
    gpu.name = prop.name;
    gpu.compute_capability = prop.major * 10 + prop.minor;
    gpu.sm_count = prop.multiProcessorCount;
    gpu.memory_bytes = prop.totalGlobalMem;
  }
  int khz = 0;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrClockRate, device) == cudaSuccess) gpu.sm_clock_max_mhz = khz / 1000;
  if (cudaDeviceGetAttribute(&khz, cudaDevAttrMemoryClockRate, device) == cudaSuccess) {
    gpu.mem_clock_max_mhz = khz / 1000;
  }
  char bus_id[32] = {};
  if (cudaDeviceGetPCIBusId(bus_id, int(sizeof(bus_id)), device) == cudaSuccess) gpu.pci_bus_id = bus_id;
  cudaGetLastError();
  info.gpu = gpu;
#else
  (void)device;
  info.no_gpu_reason = use_gpu ? "gemmkit built without CUDA" : "--cpu given";
#endif
  return info;
}

std::string short_device_name(std::string const& name) {
  for (char const* gpu : {"H100", "H200", "H20", "GH200", "B200", "A100", "L40S", "L4"}) {
    std::string const g = gpu;
    auto const at = name.find(g);
    // Match whole model names only ("H20" must not match inside "H200").
    if (at != std::string::npos && (at + g.size() == name.size() || !std::isalnum((unsigned char)name[at + g.size()]))) {
      std::string out;
      for (char c : g) out += char(std::tolower((unsigned char)c));
      return out;
    }
  }
  // A slug of the rest: lowercase words, trademarks, "CPU"/"Processor" and the "@ x GHz" tail dropped.
  std::string cleaned = name;
  if (auto const at = cleaned.find('@'); at != std::string::npos) cleaned.resize(at);
  for (std::string const noise : {"(R)", "(r)", "(TM)", "(tm)", "NVIDIA"}) {
    for (auto at = cleaned.find(noise); at != std::string::npos; at = cleaned.find(noise)) cleaned.erase(at, noise.size());
  }
  std::string slug, word;
  auto flush = [&] {
    if (!word.empty() && word != "cpu" && word != "processor") slug += (slug.empty() ? "" : "-") + word;
    word.clear();
  };
  for (char c : cleaned) {
    if (std::isalnum((unsigned char)c)) word += char(std::tolower((unsigned char)c));
    else flush();
  }
  flush();
  return slug.empty() ? "unknown" : slug;
}

std::string short_cpu_name(std::string const& model, std::string const& isa, int cores, std::string const& generation) {
  // Vendor names and core-count words ("64-Core") add nothing a folder name needs.
  std::vector<std::string> words;
  std::stringstream parts(short_device_name(model));
  for (std::string w; std::getline(parts, w, '-');) words.push_back(w);
  std::string slug;
  for (std::size_t i = 0; i < words.size(); ++i) {
    std::string const& w = words[i];
    bool const count_of_cores = i + 1 < words.size() && words[i + 1] == "core" &&
                                w.find_first_not_of("0123456789") == std::string::npos;
    if (w == "intel" || w == "amd" || w == "core" || w == "unknown" || count_of_cores) continue;
    slug += (slug.empty() ? "" : "-") + w;
  }
  if (slug.empty()) slug = "cpu";
  if (!generation.empty() && slug.find(generation) == std::string::npos) slug += "-" + generation;
  return slug + "-" + isa + "-" + std::to_string(cores) + "c";
}

void add_cpu_device_keys(JsonObject& row, MachineInfo const& machine) {
  JsonObject clocks;
  if (machine.cpu_mhz > 0) clocks.add_number("cpu_mhz", machine.cpu_mhz);
  else clocks.add_null("cpu_mhz");
  row.add_string("device", machine.cpu_model)
      .add_string("device_short", machine.cpu_short)
      .add_object("clocks", clocks)
      .add_string("driver", "none");
}

void add_gpu_device_keys(JsonObject& row, MachineInfo const& machine, std::optional<int> sm_mhz_after_run) {
  GpuInfo const& gpu = *machine.gpu;
  JsonObject clocks;
  clocks.add_int("sm_max_mhz", gpu.sm_clock_max_mhz).add_int("mem_max_mhz", gpu.mem_clock_max_mhz);
  if (sm_mhz_after_run) clocks.add_int("sm_mhz_after_run", *sm_mhz_after_run);
  else clocks.add_null("sm_mhz_after_run");
  row.add_string("device", gpu.name)
      .add_string("device_short", short_device_name(gpu.name))
      .add_object("clocks", clocks)
      .add_string("driver", machine.driver)
      .add_string("cuda_runtime", machine.runtime)
      .add_int("compute_capability", gpu.compute_capability)
      .add_int("sm_count", gpu.sm_count);
}

void add_run_keys(JsonObject& row, MachineInfo const& machine) {
  row.add_string("host_cpu", machine.cpu_model)
      .add_string("host_isa", machine.cpu_isa)
      .add_int("host_threads", machine.cpu_threads)
      .add_string("cpu_blas", machine.cpu_blas)
      .add_string("cpu_tuning_key", machine.cpu_tuning_key)
      .add_string("commit", machine.commit)
      .add_string("commit_source", machine.commit_source)
      .add_string("date", iso_utc_now());
}

std::string iso_utc_now() {
  std::time_t const now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char buffer[32];
  std::strftime(buffer, sizeof(buffer), "%Y-%m-%dT%H:%M:%SZ", &utc);
  return buffer;
}

std::optional<int> sm_clock_mhz(std::string const& pci_bus_id) {
  int mhz = 0;
  if (gk_gpu_sm_clock_mhz(pci_bus_id.c_str(), &mhz) != GK_SUCCESS) return std::nullopt;
  return mhz;
}

}  // namespace gemmkit::bench
