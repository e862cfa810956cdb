/*! \file
    \brief gemmkit-bench: subcommands tour (default), gemm, batched, overhead, ooc, model, micro, ladder
    and list.
*/
#include "batched_cpu.hpp"
#include "cli.hpp"
#include "batched_gpu.hpp"
#include "batched_tune.hpp"
#include "ooc_bench.hpp"
#include "batched_impls.hpp"
#include "emulation_bench.hpp"
#include "gemm_suite.hpp"
#include "ladder.hpp"
#include "machine_info.hpp"
#include "micro.hpp"
#include "options.hpp"
#include "overhead.hpp"
#include "table_printer.hpp"
#include "variant_list.hpp"

#include <gemmkit/introspect.h>

#include <algorithm>
#include <cstdio>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <tuple>
#include <vector>

namespace gemmkit::bench {

namespace {

char const* kind_name(gk_variant_kind kind) {
  switch (kind) {
    case GK_VARIANT_LADDER: return "ladder";
    case GK_VARIANT_GEMM: return "production";
    case GK_VARIANT_PEER: return "peer";
    case GK_VARIANT_REFERENCE: return "reference";
  }
  return "?";
}

std::string gib_text(std::size_t bytes) { return format("%.1f GiB", double(bytes) / double(1ull << 30)); }

void print_banner(std::string const& command, std::string const& suite, MachineInfo const& m) {
  std::printf("gemmkit-bench %s%s  commit %s (%s)  %s\n", command.c_str(),
              suite.empty() ? "" : ("  suite " + suite).c_str(), m.commit.c_str(), m.commit_source.c_str(),
              iso_utc_now().c_str());
  if (m.gpu) {
    GpuInfo const& g = *m.gpu;
    std::printf("GPU %d: %s, sm_%d, %d SMs, %s, max clocks SM %d / memory %d MHz, driver %s, runtime %s\n", g.index,
                g.name.c_str(), g.compute_capability, g.sm_count, gib_text(g.memory_bytes).c_str(),
                g.sm_clock_max_mhz, g.mem_clock_max_mhz, m.driver.c_str(), m.runtime.c_str());
  } else {
    std::printf("GPU: none (%s)\n", m.no_gpu_reason.c_str());
  }
  std::printf("CPU: %s, %d threads", m.cpu_model.c_str(), m.cpu_threads);
  if (m.cpu_mhz > 0) std::printf(", %.0f MHz", m.cpu_mhz);
  std::printf("\n");
}

void print_method(RunSettings const& s, bool gpu) {
  std::printf("timing: per-call time of back-to-back calls (%s around a batch of about %.0f ms), median of %d "
              "rep%s after %d warm-up call%s; gemmkit and peer alternate rep by rep\n",
              gpu ? "CUDA events" : "steady clock", s.target_ms, s.reps, s.reps == 1 ? "" : "s", s.warmup,
              s.warmup == 1 ? "" : "s");
  if (s.beta == 0) std::printf("        beta = 0 with C filled with NaN before the checked call\n");
  else std::printf("        beta = %g, C reset before every rep\n", s.beta);
  if (s.verify) {
    std::printf("verified: ||C-Cref||_F / (sqrt(k+2) |alpha| ||A||_F ||B||_F + 2 |beta| ||C0||_F) < 8 eps against the "
                "host reference in higher precision; * = on a random sample of columns\n");
  }
}

RunSettings make_settings(Options const& o, Platform backend, bool tour) {
  bool const gpu = backend == Platform::kCuda;
  RunSettings s;
  s.warmup = o.warmup >= 0 ? o.warmup : (gpu ? (tour ? 2 : 3) : 1);
  s.reps = o.reps > 0 ? o.reps : (gpu ? (tour ? 5 : 10) : (tour ? 3 : 5));
  s.target_ms = o.target_ms > 0 ? o.target_ms : (tour ? 10 : 20);
  s.verify = o.verify.value_or(true);
  s.alpha = o.alpha;
  s.beta = o.beta.value_or(0.0);
  s.peer = o.peer;
  s.graph = o.graph;
  s.device = o.device;
  s.verbosity = o.verbosity;
  return s;
}

std::vector<GemmCase> make_cases(std::vector<Dtype> const& dtypes, std::vector<ShapeSpec> const& shapes,
                                 std::vector<TransPair> const& trans, Platform backend,
                                 std::vector<std::string> const& variants_for_f64,
                                 std::vector<std::string> const& variants_for_f32) {
  std::vector<GemmCase> cases;
  for (Dtype dtype : dtypes) {
    for (std::string const& variant : dtype == Dtype::kF64 ? variants_for_f64 : variants_for_f32) {
      for (ShapeSpec const& s : shapes) {
        std::vector<TransPair> const ts = s.trans ? std::vector<TransPair>{*s.trans} : trans;
        for (TransPair const& t : ts) {
          cases.push_back(GemmCase{dtype, backend, t.first, t.second, s.m, s.n, s.k, variant, s.leading});
        }
      }
    }
  }
  return cases;
}

std::string open_json(Options const& o, JsonLinesFile* json) {
  if (o.json_file.empty()) return {};
  return json->open(o.json_file);
}

int run_list() {
  bool const gpu = gk_gpu_available() != 0;
  TablePrinter table({{"id", 28, true}, {"dtype", 5, true}, {"backend", 7, true}, {"kind", 10, true},
                      {"min sm", 6}, {"here", 4, true}, {"summary", 48, true}});
  table.print_header();
  int runnable = 0;
  auto const variants = registered_variants();
  for (gk_variant_info const& i : variants) {
    bool const here = backend_of(i) == Platform::kCpu || gpu;
    runnable += here ? 1 : 0;
    table.print_row({i.id, to_string(dtype_of(i)), to_string(backend_of(i)), kind_name(i.kind),
                     backend_of(i) == Platform::kCuda ? std::to_string(i.min_sm) : "-", here ? "yes" : "no", i.summary});
  }
  std::printf("\n%zu variants, %d runnable here%s\n", variants.size(), runnable,
              gpu ? "" : " (CUDA variants need a GPU: none found)");
  std::printf("selection table (first matching row wins):\n");
  auto bound = [](double value) { return value == 0 ? std::string("*") : format("%g", value); };
  gk_selection_rule_info r;
  for (int64_t i = 0; gk_selection_rule(i, &r) == GK_SUCCESS; ++i) {
    char const* aligned = r.alignment == GK_ALIGNMENT_ANY ? "*" : (r.alignment == GK_ALIGNMENT_ALIGNED ? "yes" : "no");
    std::printf("  %-4s %s  work <= %-7s m*n <= %-7s k >= %-5s aligned %-3s trans %-2s -> %s\n",
                to_string(r.backend == GK_BACKEND_GPU ? Platform::kCuda : Platform::kCpu),
                to_string(r.dtype == GK_DTYPE_F64 ? Dtype::kF64 : Dtype::kF32), bound(r.max_work).c_str(),
                bound(r.max_mn).c_str(), bound(r.min_k).c_str(), aligned, r.trans, r.variant_id);
  }
  return 0;
}


/// `model`: the performance model's bound for every FP64 tensor-core config at --m/--n/--k
/// (default 8192), best first, with the ceiling that sets it.
int run_model(Options const& o) {
  std::int64_t const m = o.m.empty() ? 8192 : o.m.front();
  std::int64_t const n = o.n.empty() ? m : o.n.front();
  std::int64_t const k = o.k.empty() ? m : o.k.front();
  gk_machine machine;
  gk_kernel_resources* resources = nullptr;
  gk_status const loaded = o.machine_file.empty() ? gk_machine_default(&machine)
                                                  : gk_machine_load(o.machine_file.c_str(), &machine);
  if (loaded != GK_SUCCESS ||
      (!o.kernels_file.empty() && gk_kernel_resources_load(o.kernels_file.c_str(), &resources) != GK_SUCCESS)) {
    std::fprintf(stderr, "gemmkit-bench model: %s\n", gk_introspect_error());
    return 2;
  }
  std::unique_ptr<gk_kernel_resources, void (*)(gk_kernel_resources*)> const owned(resources, gk_kernel_resources_free);
  std::printf("performance model: %s (%s), m=%lld n=%lld k=%lld\n"
              "ceilings: FP64 tensor %.1f TFLOP/s, L2 %.1f TB/s, shared %.1f TB/s; latencies (cycles): 64-bit shared "
              "load %.0f, DMMA %.0f, L2 load %.0f, barrier %.0f (0 = not in the description: no such term)\n\n",
              machine.name, machine.source, (long long)m, (long long)n, (long long)k,
              machine.fp64_tensor_flops / 1e12, machine.l2_bytes_per_s / 1e12, machine.smem_bytes_per_s / 1e12,
              machine.lds64_latency_cycles, machine.dmma_latency_cycles, machine.l2_load_latency_cycles,
              machine.barrier_latency_cycles);
  if (machine.dmma_energy_j_per_flop > 0) {
    std::printf("energy above the idle draw: DMMA %.2f pJ/flop, L2 %.2f pJ/B, shared %.2f pJ/B; power limit %.0f W, "
                "idle %.0f W (the power TF column: reported, not part of the bound)\n\n",
                machine.dmma_energy_j_per_flop * 1e12, machine.l2_energy_j_per_byte * 1e12,
                machine.smem_energy_j_per_byte * 1e12, machine.power_limit_w, machine.idle_power_w);
  }
#if GEMMKIT_WITH_CUDA
  auto const rank = [&](gk_dtype dtype) {
    std::int64_t count = 0;
    std::vector<gk_model_bound> bounds;
    if (gk_model_rank(dtype, &machine, resources, m, n, k, nullptr, 0, &count) == GK_SUCCESS) {
      bounds.resize(std::size_t(count));
      if (gk_model_rank(dtype, &machine, resources, m, n, k, bounds.data(), count, &count) != GK_SUCCESS) bounds.clear();
    }
    return bounds;
  };
  std::vector<gk_model_bound> const f64 = rank(GK_DTYPE_F64);
  if (!o.kernels_file.empty()) {
    auto const matched = std::count_if(f64.begin(), f64.end(), [](gk_model_bound const& b) { return b.compiled != 0; });
    std::printf("compiled kernels: %s (%d of %zu configs matched, NN instance with %s copies)\n\n",
                o.kernels_file.c_str(), int(matched), f64.size(),
                !f64.empty() && f64.front().copy_bytes == 16 ? "16-byte" : "8-byte");
  }
  TablePrinter table({{"config", 36, true}, {"warps/SM", 8}, {"regs", 4}, {"spill B/kt", 10}, {"L2 B/flop", 9},
                      {"L2 TF", 6}, {"smem TF", 7}, {"power TF", 8}, {"waves eff", 9}, {"lat eff", 7},
                      {"bound TF", 8}, {"limited by", 34, true}});
  table.print_header();
  for (gk_model_bound const& b : f64) {
    table.print_row({b.id, std::to_string(b.warps_per_sm), b.registers > 0 ? std::to_string(b.registers) : "-",
                     format("%.0f", b.spill_bytes_per_k_tile), format("%.4f", b.l2_bytes_per_flop),
                     format("%.1f", b.l2_flops / 1e12), format("%.1f", b.smem_flops / 1e12),
                     b.power_flops > 0 ? format("%.1f", b.power_flops / 1e12) : "-",
                     format("%.3f", b.wave_efficiency), format("%.3f", b.latency_efficiency),
                     format("%.1f", b.flops / 1e12), b.limiter});
  }
  // FP32: the tensor-core configs on float operands and the SIMT configs, one ranking.
  std::printf("\nFP32 configs (tensor-core on float operands: the FP64 model with 4-byte operands in L2 and converted "
              "double tiles in shared memory; SIMT: model::predict_simt, FMA fraction from the compiled loop where "
              "--kernels has it)\n");
  TablePrinter f32_table({{"config", 44, true}, {"regs", 4}, {"loop FMA/instr", 14}, {"bound TF", 8},
                          {"limited by", 36, true}});
  f32_table.print_header();
  for (gk_model_bound const& b : rank(GK_DTYPE_F32)) {
    std::string const regs = b.simt ? std::to_string(b.registers) + (b.registers_estimated ? "~" : "")
                                    : (b.registers > 0 ? std::to_string(b.registers) : "-");
    f32_table.print_row({b.id, regs, b.loop_instructions > 0 ? format("%d/%d", b.loop_fma, b.loop_instructions) : "-",
                         format("%.1f", b.flops / 1e12), b.limiter});
  }
  if (!o.measured_file.empty()) {
    if (int const rc = print_model_ranking_against(o); rc != 0) return rc;
  }
#else
  std::printf("this build has no CUDA: no tensor-core configs to model\n");
#endif
  print_ladder_model(o, m, n, k);
  return 0;
}


/// One line about the registry for the tour.
void print_registry_summary() {
  std::map<std::string, int> counts;
  auto const variants = registered_variants();
  for (gk_variant_info const& i : variants) ++counts[std::string(to_string(backend_of(i))) + " " + kind_name(i.kind)];
  std::string parts;
  for (auto const& [key, count] : counts) parts += (parts.empty() ? "" : ", ") + std::to_string(count) + " " + key;
  std::printf("registry: %zu variants (%s); selection table: %zu rules; `gemmkit-bench list` shows them\n",
              variants.size(), parts.c_str(), std::size_t(gk_selection_rule_count()));
}

int run_gemm(Options const& o) {
  if (o.emulate) return run_emulation(o);
  MachineInfo const machine = collect_machine_info(o.device, !o.force_cpu);
  Platform const backend = machine.gpu ? Platform::kCuda : Platform::kCpu;
  std::string const suite = o.suite.empty() ? "gemm" : o.suite;

  std::vector<Dtype> dtypes = o.dtypes;
  if (dtypes.empty()) dtypes = {suite == "sgemm" ? Dtype::kF32 : Dtype::kF64};
  std::vector<ShapeSpec> shapes;
  if (std::string e = shapes_from_options(o, &shapes); !e.empty()) {
    std::fprintf(stderr, "gemmkit-bench: %s\n", e.c_str());
    return 2;
  }
  if (shapes.empty()) {
    if (std::string e = default_gemm_shapes(backend, o.shapes_dir, &shapes); !e.empty()) {
      std::fprintf(stderr, "gemmkit-bench gemm: %s\n", e.c_str());
      return 2;
    }
  }
  std::vector<TransPair> const trans = o.trans.empty() ? std::vector<TransPair>{{GK_OP_N, GK_OP_N}} : o.trans;

  std::vector<std::string> variants_f64{""}, variants_f32{""};
  if (!o.variants.empty()) {
    variants_f64 = match_variants(o.variants, Dtype::kF64, backend);
    variants_f32 = match_variants(o.variants, Dtype::kF32, backend);
    for (Dtype d : dtypes) {
      if ((d == Dtype::kF64 ? variants_f64 : variants_f32).empty()) {
        std::fprintf(stderr, "gemmkit-bench: no %s %s variant matches '%s' (see `gemmkit-bench list`)\n",
                     to_string(backend), to_string(d), o.variants.c_str());
      }
    }
  }
  std::vector<GemmCase> const cases = make_cases(dtypes, shapes, trans, backend, variants_f64, variants_f32);
  if (cases.empty()) {
    std::fprintf(stderr, "gemmkit-bench: nothing to run\n");
    return 2;
  }

  RunSettings const settings = make_settings(o, backend, false);
  JsonLinesFile json;
  if (std::string e = open_json(o, &json); !e.empty()) {
    std::fprintf(stderr, "gemmkit-bench: %s\n", e.c_str());
    return 2;
  }
  GemmRunner runner(settings);
  if (std::string e = runner.init(backend == Platform::kCuda); !e.empty()) {
    std::fprintf(stderr, "gemmkit-bench: %s\n", e.c_str());
    return 1;
  }
  print_banner("gemm", suite, machine);
  print_method(settings, backend == Platform::kCuda);
  std::string peer_name, peer_why;
  if (!runner.peer_for(dtypes.front(), backend, &peer_name, &peer_why)) {
    std::printf("peer: none (%s)\n", peer_why.c_str());
  }

  GemmReporter reporter(suite, machine, o.peak_gflops, &json);
  std::string const title = std::string("gemm on the ") + (backend == Platform::kCuda ? "GPU" : "CPU") + ", " +
                            std::to_string(cases.size()) + " cases";
  reporter.run_section(title, "", cases, runner);
  reporter.print_summary();
  if (json.is_open()) std::printf("JSON lines appended to %s\n", o.json_file.c_str());
  return reporter.summary().failed() ? 1 : 0;
}

int run_batched_gpu_command(Options const& o) {
  BatchedSettings settings;
  if (std::string e = batched_settings_from_options(o, BatchedForm::kGpu, false, &settings); !e.empty()) {
    std::fprintf(stderr, "gemmkit-bench: %s\n", e.c_str());
    return 2;
  }
  MachineInfo const machine = collect_machine_info(o.device, true);
  if (!machine.gpu) {
    std::printf("gemmkit-bench batched: the GPU form needs a GPU (%s); `gemmkit-bench batched --cpu` runs the CPU "
                "form\n",
                machine.no_gpu_reason.c_str());
    return 0;
  }
  JsonLinesFile json;
  if (std::string e = open_json(o, &json); !e.empty()) {
    std::fprintf(stderr, "gemmkit-bench: %s\n", e.c_str());
    return 2;
  }
  std::string const suite = o.suite.empty() ? "batched-gpu" : o.suite;
  print_banner("batched", suite, machine);
  BatchedSummary const summary = run_batched_gpu(settings, machine, suite, "", &json);
  print_batched_summary(summary);
  if (json.is_open()) std::printf("JSON lines appended to %s\n", o.json_file.c_str());
  return summary.failed() ? 1 : 0;
}

int run_batched(Options const& o) {
  if (o.force_cpu && o.force_gpu) {
    std::fprintf(stderr, "gemmkit-bench: batched takes --cpu or --gpu, not both\n");
    return 2;
  }
  if (o.tune) return o.force_cpu ? run_batched_cpu_tune(o) : run_batched_tune(o);
  if (!o.force_cpu) return run_batched_gpu_command(o);
  MachineInfo const machine = collect_machine_info(o.device, false);
  BatchedSettings settings;
  if (std::string e = batched_settings_from_options(o, BatchedForm::kCpu, false, &settings); !e.empty()) {
    std::fprintf(stderr, "gemmkit-bench: %s\n", e.c_str());
    return 2;
  }
  JsonLinesFile json;
  if (std::string e = open_json(o, &json); !e.empty()) {
    std::fprintf(stderr, "gemmkit-bench: %s\n", e.c_str());
    return 2;
  }
  std::string const suite = o.suite.empty() ? "batched-cpu" : o.suite;
  print_banner("batched", suite, machine);
  std::printf("threads:");
  for (int t : settings.threads) std::printf(" %d", t);
  std::printf(" (OpenMP; 'all' = %d)\n", all_threads());
  BatchedSummary const summary = run_batched_cpu(settings, machine, suite, "", &json);
  print_batched_summary(summary);
  if (json.is_open()) std::printf("JSON lines appended to %s\n", o.json_file.c_str());
  return summary.failed() ? 1 : 0;
}

int run_overhead_command(Options const& o) {
  OverheadSettings settings;
  if (std::string e = overhead_settings_from_options(o, &settings); !e.empty()) {
    std::fprintf(stderr, "gemmkit-bench: %s\n", e.c_str());
    return 2;
  }
  MachineInfo const machine = collect_machine_info(o.device, true);
  if (!machine.gpu) {
    std::printf("gemmkit-bench overhead: needs a GPU (%s)\n", machine.no_gpu_reason.c_str());
    return 0;
  }
  JsonLinesFile json;
  if (std::string e = open_json(o, &json); !e.empty()) {
    std::fprintf(stderr, "gemmkit-bench: %s\n", e.c_str());
    return 2;
  }
  std::string const suite = o.suite.empty() ? "overhead" : o.suite;
  print_banner("overhead", suite, machine);
  int const status = run_overhead(settings, machine, suite, &json);
  if (json.is_open()) std::printf("JSON lines appended to %s\n", o.json_file.c_str());
  return status;
}

int run_ladder_command(Options const& o) {
  MachineInfo const machine = collect_machine_info(o.device, true);
  if (!machine.gpu) {
    std::printf("gemmkit-bench ladder: needs a GPU (%s)\n", machine.no_gpu_reason.c_str());
    return 0;
  }
  JsonLinesFile json;
  if (std::string e = open_json(o, &json); !e.empty()) {
    std::fprintf(stderr, "gemmkit-bench: %s\n", e.c_str());
    return 2;
  }
  RunSettings const settings = make_settings(o, Platform::kCuda, false);
  print_banner("ladder", o.suite.empty() ? "ladder" : o.suite, machine);
  print_method(settings, true);
  int const status = run_ladder(o, settings, machine, &json);
  if (json.is_open()) std::printf("JSON lines appended to %s\n", o.json_file.c_str());
  return status;
}

int run_tour(Options const& o) {
  MachineInfo const machine = collect_machine_info(o.device, !o.force_cpu);
  bool const gpu = machine.gpu.has_value();
  JsonLinesFile json;
  if (std::string e = open_json(o, &json); !e.empty()) {
    std::fprintf(stderr, "gemmkit-bench: %s\n", e.c_str());
    return 2;
  }
  std::printf("== gemmkit-bench tour ==\n");
  print_banner("tour", "", machine);
  print_registry_summary();

  std::vector<std::string> skipped;
  GemmReporter reporter("tour", machine, o.peak_gflops, &json);
  std::vector<Dtype> const both = {Dtype::kF64, Dtype::kF32};
  std::vector<TransPair> const nn = {{GK_OP_N, GK_OP_N}};
  auto squares = [](std::initializer_list<std::int64_t> sizes) {
    std::vector<ShapeSpec> s;
    for (std::int64_t n : sizes) s.push_back({n, n, n, std::nullopt});
    return s;
  };

  if (gpu) {
    RunSettings const settings = make_settings(o, Platform::kCuda, true);
    GemmRunner runner(settings);
    if (std::string e = runner.init(true); !e.empty()) {
      skipped.push_back("GPU sections: " + e);
    } else {
      std::printf("\n");
      print_method(settings, true);
      reporter.run_section("gemm on the GPU beside cuBLAS: f64 and f32 at 1024, 2048, 4096 and odd 4097", "gpu",
                           make_cases(both, squares({1024, 2048, 4096, 4097}), nn, Platform::kCuda, {""}, {""}),
                           runner);
      std::vector<std::string> ladder_f64, ladder_f32;
      for (gk_variant_info const& i : registered_variants()) {
        if (i.kind != GK_VARIANT_LADDER || backend_of(i) != Platform::kCuda) continue;
        (dtype_of(i) == Dtype::kF64 ? ladder_f64 : ladder_f32).push_back(i.id);
      }
      if (ladder_f64.empty() && ladder_f32.empty()) {
        skipped.push_back("ladder variants: none registered");
      } else {
        reporter.run_section("each ladder variant at 1024 beside cuBLAS", "ladder",
                             make_cases(both, squares({1024}), nn, Platform::kCuda, ladder_f64, ladder_f32), runner);
      }
    }
  } else {
    skipped.push_back("gemm on the GPU beside cuBLAS (f64 and f32 at 1024, 2048, 4096 and 4097): " +
                      machine.no_gpu_reason);
    skipped.push_back("each ladder variant at 1024 beside cuBLAS: " + machine.no_gpu_reason);
  }

  {
    RunSettings const settings = make_settings(o, Platform::kCpu, true);
    GemmRunner runner(settings);
    if (std::string e = runner.init(false); !e.empty()) {
      skipped.push_back("CPU section: " + e);
    } else {
      // On a GPU machine the CPU path is a side show: two sizes keep the tour short. 32 is where
      // gemmkit's own small kernels run; above, its selection may pick OpenBLAS itself.
      std::vector<ShapeSpec> const shapes = gpu ? squares({32, 512}) : squares({32, 256, 512, 1024});
      std::printf("\n");
      print_method(settings, false);
      reporter.run_section(std::string("gemm on the CPU (host pointers) beside OpenBLAS: f64 and f32 at ") +
                               (gpu ? "32 and 512" : "32, 256, 512 and 1024"),
                           "cpu", make_cases(both, shapes, nn, Platform::kCpu, {""}, {""}), runner);
    }
  }

  BatchedSummary batched_gpu;
  if (gpu) {
    BatchedSettings settings;
    if (std::string e = batched_settings_from_options(o, BatchedForm::kGpu, true, &settings); !e.empty()) {
      skipped.push_back("batched on the GPU: " + e);
    } else {
      std::printf("\nbatched small GEMM on the GPU beside cuBLAS: f64 at 4, 8, 16 and the grouped case, 256 MiB "
                  "per case\n");
      batched_gpu = run_batched_gpu(settings, machine, "tour", "batched-gpu", &json);
    }
  } else {
    skipped.push_back("batched small GEMM on the GPU beside cuBLAS (f64 at 4, 8, 16 and the grouped case): " +
                      machine.no_gpu_reason);
  }
  BatchedSummary batched;
  {
    BatchedSettings settings;
    if (std::string e = batched_settings_from_options(o, BatchedForm::kCpu, true, &settings); !e.empty()) {
      skipped.push_back("batched on the CPU: " + e);
    } else {
      std::printf("\nbatched small GEMM on the CPU beside the CPU libraries: f64 at 4, 8, 16, 64 MiB per case, 1 "
                  "thread and all (%d)\n",
                  all_threads());
      batched = run_batched_cpu(settings, machine, "tour", "batched-cpu", &json);
    }
  }

  std::printf("\nskipped:\n");
  for (std::string const& s : skipped) std::printf("  - %s\n", s.c_str());
  reporter.print_summary("gemm");
  if (gpu) print_batched_summary(batched_gpu, "batched on the GPU");
  print_batched_summary(batched, "batched on the CPU");
  if (json.is_open()) std::printf("JSON lines appended to %s\n", o.json_file.c_str());
  return reporter.summary().failed() || batched.failed() || batched_gpu.failed() ? 1 : 0;
}

}  // namespace

int main_entry(int argc, char** argv) {
  CommandLine line;
  if (int const status = parse_command_line(argc, argv, &line); status >= 0) return status;
  Options const& options = line.options;
  std::string const& command = line.command;
  if (command == "tour") return run_tour(options);
  if (command == "gemm") return run_gemm(options);
  if (command == "list") return run_list();
  if (command == "batched") return run_batched(options);
  if (command == "overhead") return run_overhead_command(options);
  if (command == "model") return run_model(options);
  if (command == "micro") return run_micro_command(options);
  if (command == "ladder") return run_ladder_command(options);
  if (command == "ooc") return run_ooc_command(line.ooc);
  std::fprintf(stderr, "gemmkit-bench: no command '%s'\n", command.c_str());
  return 2;
}

}  // namespace gemmkit::bench

int main(int argc, char** argv) { return gemmkit::bench::main_entry(argc, argv); }
