/*! \file
    \brief `gemmkit-bench ladder`: the ladder steps, the production pick and cuBLAS per size, with
    the model's bound for each step.
*/
#include "ladder.hpp"

#include "cuda/ladder/ladder_config.hpp"
#include "gemm_suite.hpp"
#include "model/gemm_model.hpp"
#include "model/kernel_resources.hpp"
#include "model/ladder_model.hpp"
#include "model/machine.hpp"
#include "table_printer.hpp"
#include "variant_list.hpp"
#if GEMMKIT_WITH_CUDA
#include "cuda/gemm/tensorop_model.hpp"
#include "cuda/ladder/ladder.hpp"
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>
#include <set>
#include <tuple>

namespace gemmkit::bench {

namespace {

/// A register-blocked step's shape for `dtype`, with the registers and spills of its compiled
/// kernel when a device can report them.
template <typename Cfg>
model::SimtKernelShape register_blocked_shape(Dtype dtype) {
  model::SimtKernelShape s = model::simt_shape_of<Cfg>("", dtype == Dtype::kF64 ? 8 : 4);
#if GEMMKIT_WITH_CUDA
  cudaFuncAttributes a{};
  cudaError_t const e = dtype == Dtype::kF64 ? ladder::register_blocked_attributes<Cfg, double>(&a)
                                             : ladder::register_blocked_attributes<Cfg, float>(&a);
  if (e == cudaSuccess) s.registers_per_thread = a.numRegs, s.spill_bytes = int(a.localSizeBytes);
#endif
  return s;
}

/// Step 02 (TiledConfig<16>): one element per thread, a 16x16x16 slice per barrier pair.
model::SimtKernelShape tiled_shape(Dtype dtype) {
  model::SimtKernelShape s;
  s.bm = s.bn = s.bk = 16, s.tm = s.tn = 1, s.threads = 256;
  s.element_bytes = s.shared_load_bytes = dtype == Dtype::kF64 ? 8 : 4;
  return s;
}

/// The ladder's rows in seed 000's order: registry id without its dgemm_/sgemm_ prefix, the
/// seed's version name, and the model's view (none for the naive step).
struct LadderStep {
  char const* suffix;
  char const* version;
  model::SimtKernelShape (*shape)(Dtype);
};
constexpr LadderStep kSteps[] = {
    {"ladder01_naive", "naive", nullptr},
    {"ladder02_tiled16", "tiled (seed 002)", tiled_shape},
    {"ladder03_regblock8x8", "unroll", register_blocked_shape<ladder::Step03Config>},
    {"ladder03b_wide128", "unroll+128b", register_blocked_shape<ladder::Step03bConfig>},
    {"ladder03c_wide128_smemprefetch", "unroll+128b+prefsmem", register_blocked_shape<ladder::Step03cConfig>},
    {"ladder04_doublebuffer", "unroll+db", register_blocked_shape<ladder::Step04Config>},
    {"ladder05_wide128", "unroll+db+128b", register_blocked_shape<ladder::Step05Config>},
    {"ladder06_smemprefetch", "unroll+db+128b+prefsmem", register_blocked_shape<ladder::Step06Config>},
};

std::string dtype_prefix(Dtype dtype) { return dtype == Dtype::kF64 ? "dgemm_" : "sgemm_"; }

/// The model's bound for the variant that ran, where the model covers it.
struct RowModel {
  double gflops = kNotMeasured;
  std::string limiter = "not modelled";
  double fma_fraction = kNotMeasured;
  int registers = 0, spill_bytes = -1, resident_blocks = 0;
};

RowModel model_row(model::MachineDescription const& machine, std::vector<model::KernelResources> const& resources,
                   std::string const& variant, GemmCase const& c) {
  RowModel out;
  std::string const prefix = dtype_prefix(c.dtype);
  for (LadderStep const& step : kSteps) {
    if (variant != prefix + step.suffix || step.shape == nullptr) continue;
    model::SimtKernelShape const shape = step.shape(c.dtype);
    model::SimtPrediction const p = model::predict_simt(machine, shape, c.m, c.n, c.k);
    out.gflops = p.flops / 1e9, out.limiter = p.limiter, out.fma_fraction = p.mix.fma_fraction();
    out.registers = p.registers_per_thread, out.resident_blocks = p.resident_blocks;
    out.spill_bytes = shape.registers_per_thread > 0 ? shape.spill_bytes : -1;
    return out;
  }
#if GEMMKIT_WITH_CUDA
  // The production pick: a registered config the model names (its plain form).
  if (std::optional<gemm::RegisteredBound> const p = gemm::predict_registered(machine, variant, resources, c.m, c.n, c.k)) {
    out.gflops = p->flops / 1e9, out.limiter = p->limiter, out.resident_blocks = p->resident_blocks;
    out.registers = p->registers;
  }
#else
  (void)resources;
#endif
  return out;
}

/// What one (row, size) measured.
struct Cell {
  std::string variant;
  double gflops = kNotMeasured, peer_gflops = kNotMeasured;
  RowModel model;
  bool ok = false;
};

double median_of(std::vector<double> values) {
  values.erase(std::remove_if(values.begin(), values.end(), [](double v) { return !std::isfinite(v); }), values.end());
  if (values.empty()) return kNotMeasured;
  std::sort(values.begin(), values.end());
  std::size_t const h = values.size() / 2;
  return values.size() % 2 ? values[h] : 0.5 * (values[h - 1] + values[h]);
}

std::string percent_text(double value, double of) {
  return std::isfinite(value) && std::isfinite(of) && of > 0 ? format("%.0f%%", 100 * value / of) : "-";
}

constexpr char const* kVariantBySize = "by size, listed below";

/// The variant column of a row: the variant that ran, where every size ran the same one (the
/// ladder steps; the selection's pick may differ by size).
std::string variant_label(std::string const& row, std::vector<std::int64_t> const& sizes,
                          std::map<std::pair<std::string, std::int64_t>, Cell> const& cells) {
  std::string label;
  for (std::int64_t n : sizes) {
    auto const it = cells.find({row, n});
    if (it == cells.end()) continue;
    if (label.empty()) label = it->second.variant;
    else if (label != it->second.variant) return kVariantBySize;
  }
  return label;
}

/// For rows whose variant differs by size: the variant each size ran (and, with `model`, the
/// model's view of it).
void print_variants_by_size(std::vector<std::int64_t> const& sizes, std::vector<std::string> const& rows,
                            std::map<std::string, std::string> const& versions,
                            std::map<std::pair<std::string, std::int64_t>, Cell> const& cells, bool model) {
  for (std::string const& row : rows) {
    if (variant_label(row, sizes, cells) != kVariantBySize) continue;
    for (std::int64_t n : sizes) {
      auto const it = cells.find({row, n});
      if (it == cells.end()) continue;
      Cell const& c = it->second;
      if (!model) {
        std::printf("  %s at %lld: %s\n", versions.at(row).c_str(), (long long)n, c.variant.c_str());
        continue;
      }
      RowModel const& m = c.model;
      std::printf("  %s at %lld: %s; regs %s, spill B %s, blk/SM %s, FMA frac %s, %s\n", versions.at(row).c_str(),
                  (long long)n, c.variant.c_str(), m.registers > 0 ? std::to_string(m.registers).c_str() : "-",
                  m.spill_bytes >= 0 ? std::to_string(m.spill_bytes).c_str() : "-",
                  m.resident_blocks > 0 ? std::to_string(m.resident_blocks).c_str() : "-",
                  std::isfinite(m.fma_fraction) ? format("%.3f", m.fma_fraction).c_str() : "-", m.limiter.c_str());
    }
  }
}

/// Seed 000's table (versions x sizes, GF/s and % of cuBLAS), then the model's view of each row.
void print_tables(Dtype dtype, std::vector<std::int64_t> const& sizes, std::vector<std::string> const& rows,
                  std::map<std::string, std::string> const& versions,
                  std::map<std::pair<std::string, std::int64_t>, Cell> const& cells) {
  std::printf("\n%s: GF/s and %% of cuBLAS (cuBLAS: median of its runs beside every row of that size)\n",
              dtype == Dtype::kF64 ? "DGEMM" : "SGEMM");
  std::vector<TableColumn> columns = {{"version", 24, true}, {"variant", 36, true}};
  for (std::int64_t n : sizes) columns.push_back({format("%lld GF/s", (long long)n), 10}), columns.push_back({"%cuBLAS", 7});
  TablePrinter table(columns);
  table.print_header();
  std::vector<std::string> cublas = {"cuBLAS", "cublas"};
  std::map<std::int64_t, double> cublas_gflops;
  for (std::int64_t n : sizes) {
    std::vector<double> peers;
    for (std::string const& row : rows) {
      if (auto it = cells.find({row, n}); it != cells.end()) peers.push_back(it->second.peer_gflops);
    }
    cublas_gflops[n] = median_of(peers);
    cublas.push_back(format_gflops(cublas_gflops[n]));
    cublas.push_back("100%");
  }
  table.print_row(cublas);
  for (std::string const& row : rows) {
    std::vector<std::string> line = {versions.at(row), variant_label(row, sizes, cells)};
    for (std::int64_t n : sizes) {
      auto const it = cells.find({row, n});
      if (it == cells.end()) {
        line.insert(line.end(), {"-", "-"});
        continue;
      }
      line.push_back(it->second.ok ? format_gflops(it->second.gflops) : "error");
      line.push_back(percent_text(it->second.gflops, cublas_gflops[n]));
    }
    table.print_row(line);
  }
  print_variants_by_size(sizes, rows, versions, cells, false);

  std::printf("\n%s: the model's bound (the steps: model::predict_simt, registers and spills of the compiled kernel "
              "on this device; the production pick: model::predict or predict_simt where it is a plain config) and "
              "measured / model\n",
              dtype == Dtype::kF64 ? "DGEMM" : "SGEMM");
  std::vector<TableColumn> model_columns = {{"version", 24, true}, {"regs", 4}, {"spill B", 7}, {"blk/SM", 6},
                                            {"FMA frac", 8}, {"limited by", 32, true}};
  for (std::int64_t n : sizes) {
    model_columns.push_back({format("%lld model", (long long)n), 10});
    model_columns.push_back({"meas/mod", 8});
  }
  TablePrinter model_table(model_columns);
  model_table.print_header();
  for (std::string const& row : rows) {
    Cell const* first = nullptr;
    for (std::int64_t n : sizes) {
      if (auto it = cells.find({row, n}); it != cells.end()) {
        first = &it->second;
        break;
      }
    }
    if (first == nullptr) continue;
    // Registers, blocks/SM, FMA fraction and limiter belong to one variant: shown only where every
    // size ran the same one (the list after the table gives them per size otherwise).
    bool const one_variant = variant_label(row, sizes, cells) != kVariantBySize;
    RowModel const& m = first->model;
    std::vector<std::string> line = {versions.at(row)};
    if (one_variant) {
      line.insert(line.end(), {m.registers > 0 ? std::to_string(m.registers) : "-",
                               m.spill_bytes >= 0 ? std::to_string(m.spill_bytes) : "-",
                               m.resident_blocks > 0 ? std::to_string(m.resident_blocks) : "-",
                               std::isfinite(m.fma_fraction) ? format("%.3f", m.fma_fraction) : "-", m.limiter});
    } else {
      line.insert(line.end(), {"-", "-", "-", "-", kVariantBySize});
    }
    for (std::int64_t n : sizes) {
      auto const it = cells.find({row, n});
      double const model_gf = it == cells.end() ? kNotMeasured : it->second.model.gflops;
      line.push_back(format_gflops(model_gf));
      line.push_back(it == cells.end() ? "-" : format_ratio(it->second.gflops / model_gf));
    }
    model_table.print_row(line);
  }
  print_variants_by_size(sizes, rows, versions, cells, true);
}

/// What `model` and `ladder` read: the description --machine names (else the H100 anchors,
/// model::h100_sxm) and the compiled kernels' resources --kernels names (else none). An error
/// message, or empty.
std::string load_model_inputs(Options const& o, model::MachineDescription* machine,
                              std::vector<model::KernelResources>* resources) {
  *machine = model::h100_sxm();
  resources->clear();
  if (!o.machine_file.empty()) {
    if (std::string e = model::load_machine_description(o.machine_file, machine); !e.empty()) return e;
  }
  if (!o.kernels_file.empty()) return model::load_kernel_resources(o.kernels_file, resources);
  return {};
}

#if GEMMKIT_WITH_CUDA
/// The model's bounds for the registered configs of `dtype` at m x n x k, best first, named by
/// their registry ids: for f64 the FP64 tensor-core configs (rank's order); for f32 the FP32
/// tensor-core and SIMT configs together. Each with its NN instance's compiled resources, where
/// `resources` has them.
std::vector<std::pair<std::string, double>> ranked_bounds(model::MachineDescription const& machine, Dtype dtype,
                                                          std::int64_t m, std::int64_t n, std::int64_t k,
                                                          std::vector<model::KernelResources> const& resources) {
  std::vector<std::pair<std::string, double>> out;
  if (dtype == Dtype::kF64) {
    std::vector<model::TileConfig> configs = gemm::dgemm_tensorop_model_configs();
    model::apply_kernel_resources(&configs, resources, model::dense_nn_form(m, k));
    for (auto const& [c, p] : model::rank(machine, configs, m, n, k)) out.emplace_back(c.name, p.flops);
    return out;
  }
  std::vector<model::TileConfig> tensorop = gemm::sgemm_tensorop_model_configs();
  model::apply_kernel_resources(&tensorop, resources, model::dense_nn_form(m, k, 4));
  for (auto const& [c, p] : model::rank(machine, tensorop, m, n, k)) out.emplace_back(c.name, p.flops);
  std::vector<model::SimtKernelShape> simt = gemm::sgemm_simt_model_shapes();
  model::apply_kernel_resources(&simt, resources, model::dense_nn_simt_form(m));
  for (model::SimtKernelShape const& s : simt) out.emplace_back(s.name, model::predict_simt(machine, s, m, n, k).flops);
  std::stable_sort(out.begin(), out.end(), [](auto const& a, auto const& b) { return a.second > b.second; });
  return out;
}

/// `model --measured FILE`: for every NN shape of a sweep (f64 and f32), the model's ranking of the
/// configs the sweep forced (plain forms: the ids the model names) against their measured rates.
int print_ranking_against_inputs(model::MachineDescription const& machine, std::string const& path,
                                 std::vector<model::KernelResources> const& resources) {
  std::set<std::string> known;
  for (model::TileConfig const& c : gemm::dgemm_tensorop_model_configs()) known.insert(c.name);
  for (model::TileConfig const& c : gemm::sgemm_tensorop_model_configs()) known.insert(c.name);
  for (model::SimtKernelShape const& s : gemm::sgemm_simt_model_shapes()) known.insert(s.name);
  using Shape = std::tuple<std::int64_t, std::int64_t, std::int64_t>;
  std::map<Dtype, std::map<Shape, std::map<std::string, double>>> measured;  // the last row of a config wins
  std::string const error = model::read_json_rows(path, [&](model::JsonRow& row) -> std::string {
    auto& text = row.text;
    auto& number = row.number;
    if (text["trans"] != "nn" || text["status"] != "ok" || !known.count(text["variant"])) return {};
    if (text["dtype"] != "f64" && text["dtype"] != "f32") return {};
    if (number["batch"] != 1 || !(number["gflops"] > 0)) return {};
    Dtype const dtype = text["dtype"] == "f64" ? Dtype::kF64 : Dtype::kF32;
    measured[dtype][Shape{std::int64_t(number["m"]), std::int64_t(number["n"]), std::int64_t(number["k"])}]
            [text["variant"]] = number["gflops"] * 1e9;
    return {};
  });
  if (!error.empty()) {
    std::fprintf(stderr, "gemmkit-bench model: %s\n", error.c_str());
    return 2;
  }
  for (auto const& [dtype, shapes_measured] : measured) {
    bool const f64 = dtype == Dtype::kF64;
    std::printf("\nranking against %s (NN %s, plain forms%s; model tier: predictions within 0.5%% of its best)\n",
                path.c_str(), f64 ? "f64" : "f32", f64 ? "" : ": FP32 tensor-core and SIMT configs together");
    TablePrinter table({{"m x n x k", 20, true}, {"cfgs", 4}, {"model's first", 38, true}, {"tier", 4},
                        {"measured first", 38, true}, {"in tier", 7, true}, {"pick/best", 9}, {"rank corr", 9}});
    table.print_header();
    int shapes = 0, in_tier = 0, same_first = 0;
    double worst = 1;
    std::string const prefix = f64 ? "dgemm_tensorop_" : "sgemm_";
    auto const short_name = [&](std::string const& name) { return name.substr(prefix.size()); };
    for (auto const& [shape, rates] : shapes_measured) {
      auto const [m, n, k] = shape;
      if (rates.size() < 3) continue;  // too few configs to say anything about a ranking
      model::RankingCheck const c = model::check_ranking(ranked_bounds(machine, dtype, m, n, k, resources), rates);
      ++shapes;
      in_tier += c.measured_top_in_tier ? 1 : 0;
      same_first += c.model_top == c.measured_top ? 1 : 0;
      worst = std::min(worst, c.model_top_fraction);
      table.print_row({format("%lldx%lldx%lld", (long long)m, (long long)n, (long long)k), std::to_string(c.configs),
                       short_name(c.model_top), std::to_string(c.model_top_tier), short_name(c.measured_top),
                       c.measured_top_in_tier ? "yes" : "no", format("%.3f", c.model_top_fraction),
                       format("%.2f", c.spearman)});
    }
    std::printf("%d shapes: the measured best is the model's first %d times and in its first tier %d times; "
                "taking the model's first costs at worst %.1f %% of the measured best\n",
                shapes, same_first, in_tier, 100 * (1 - worst));
  }
  return 0;
}
#endif

}  // namespace

#if GEMMKIT_WITH_CUDA
int print_model_ranking_against(Options const& o) {
  model::MachineDescription machine;
  std::vector<model::KernelResources> resources;
  if (std::string e = load_model_inputs(o, &machine, &resources); !e.empty()) {
    std::fprintf(stderr, "gemmkit-bench model: %s\n", e.c_str());
    return 2;
  }
  return print_ranking_against_inputs(machine, o.measured_file, resources);
}
#endif

void print_ladder_model(Options const& o, std::int64_t m, std::int64_t n, std::int64_t k) {
  model::MachineDescription machine;
  std::vector<model::KernelResources> resources;
  if (std::string e = load_model_inputs(o, &machine, &resources); !e.empty()) return;  // `model` reported it
  std::printf("\nSIMT ladder steps (model::predict_simt): issue = FMA peak x FMA cycles / all issue cycles; shared = "
              "128-byte wavefronts per clock per SM; L2 = the L2 bandwidth the block tile requires\n");
  TablePrinter table({{"step", 36, true}, {"version", 24, true}, {"regs", 4}, {"blk/SM", 6}, {"FMA frac", 8},
                      {"issue TF", 8}, {"smem TF", 7}, {"L2 TF", 6}, {"placed", 6}, {"bound TF", 8},
                      {"limited by", 32, true}});
  table.print_header();
  for (Dtype dtype : {Dtype::kF64, Dtype::kF32}) {
    for (LadderStep const& step : kSteps) {
      if (step.shape == nullptr) continue;
      model::SimtKernelShape const shape = step.shape(dtype);
      model::SimtPrediction const p = model::predict_simt(machine, shape, m, n, k);
      table.print_row({dtype_prefix(dtype) + step.suffix, step.version,
                       std::to_string(p.registers_per_thread) + (shape.registers_per_thread > 0 ? "" : "~"),
                       std::to_string(p.resident_blocks), format("%.3f", p.mix.fma_fraction()),
                       format("%.1f", p.issue_ceiling / 1e12), format("%.1f", p.smem_ceiling / 1e12),
                       format("%.1f", p.l2_ceiling / 1e12), format("%.3f", p.placement_efficiency),
                       format("%.1f", p.flops / 1e12), p.limiter});
    }
  }
  std::printf("~ = registers estimated from the config (no device to read the compiled kernel's count)\n");
}

int run_ladder(Options const& o, RunSettings const& settings, MachineInfo const& machine, JsonLinesFile* json) {
  std::vector<Dtype> const dtypes = o.dtypes.empty() ? std::vector<Dtype>{Dtype::kF64, Dtype::kF32} : o.dtypes;
  std::vector<std::int64_t> const sizes = o.n.empty() ? std::vector<std::int64_t>{1024, 2048, 4096} : o.n;
  std::string const suite = o.suite.empty() ? "ladder" : o.suite;
  model::MachineDescription model_machine;
  std::vector<model::KernelResources> resources;
  if (std::string e = load_model_inputs(o, &model_machine, &resources); !e.empty()) {
    std::fprintf(stderr, "gemmkit-bench ladder: %s\n", e.c_str());
    return 2;
  }
  bool const other_gpu = o.machine_file.empty() && machine.gpu && machine.gpu->name.find("H100") == std::string::npos;
  std::printf("model: %s (%s)%s%s\n", model_machine.name.c_str(), model_machine.source.c_str(),
              other_gpu ? "; NOT this GPU: bounds are the H100's (--machine FILE reads this GPU's)" : "",
              o.kernels_file.empty() ? "" : ("; compiled kernels: " + o.kernels_file).c_str());

  GemmRunner runner(settings);
  if (std::string e = runner.init(true); !e.empty()) {
    std::fprintf(stderr, "gemmkit-bench ladder: %s\n", e.c_str());
    return 1;
  }
  GemmReporter reporter(suite, machine, o.peak_gflops, json);
  for (Dtype dtype : dtypes) {
    // Rows: the known steps in seed 000's order, any other registered ladder variant, then the
    // selection's pick (the public API as is).
    std::vector<std::string> rows;
    std::map<std::string, std::string> versions;
    for (LadderStep const& step : kSteps) {
      std::string const id = dtype_prefix(dtype) + step.suffix;
      gk_variant_info info{};
      if (gk_variant_find(id.c_str(), &info) == GK_SUCCESS) rows.push_back(id), versions[id] = step.version;
    }
    for (gk_variant_info const& i : registered_variants()) {
      if (i.kind != GK_VARIANT_LADDER || backend_of(i) != Platform::kCuda || dtype_of(i) != dtype) continue;
      if (versions.count(i.id) == 0) rows.push_back(i.id), versions[i.id] = i.id;
    }
    rows.push_back("");
    versions[""] = "production (selection)";

    std::printf("\n%s ladder: %zu rows x %zu sizes, each beside cuBLAS\n", to_string(dtype), rows.size(), sizes.size());
    TablePrinter live({{"n", 5}, {"version", 24, true}, {"variant", 36, true}, {"GF/s", 8}, {"cuBLAS", 8},
                       {"model", 8}, {"meas/mod", 8}, {"verified", 8, true}});
    live.print_header();
    std::map<std::pair<std::string, std::int64_t>, Cell> cells;
    Progress progress;
    for (std::int64_t n : sizes) {
      for (std::string const& row : rows) {
        GemmCase const c{dtype, Platform::kCuda, GK_OP_N, GK_OP_N, n, n, n, row};
        progress.show(format("%s %lld %s...", to_string(dtype), (long long)n, row.empty() ? "production" : row.c_str()));
        CaseResult const r = runner.run(c);
        progress.clear();
        Cell cell;
        cell.ok = r.status == CaseStatus::kOk;
        cell.variant = cell.ok ? r.gemmkit.variant : row;
        cell.gflops = cell.ok ? c.flops() / (r.gemmkit.time.median * 1e6) : kNotMeasured;
        cell.peer_gflops = cell.ok && r.peer.measured() ? c.flops() / (r.peer.time.median * 1e6) : kNotMeasured;
        cell.model = model_row(model_machine, resources, cell.variant, c);
        double const ratio = cell.gflops / cell.model.gflops;
        live.print_row({std::to_string(n), versions[row], cell.ok ? cell.variant : cell.variant + ": " + r.message,
                        format_gflops(cell.gflops), format_gflops(cell.peer_gflops), format_gflops(cell.model.gflops),
                        format_ratio(ratio), cell.ok ? verify_cell(r.verify) : "-"});
        JsonObject extra;
        extra.add_string("version", versions[row])
            .add_string("row", row.empty() ? "production" : row)
            .add_number("model_gflops", cell.model.gflops)
            .add_string("model_limiter", cell.model.limiter)
            .add_number("model_ratio", ratio)
            .add_number("model_fma_fraction", cell.model.fma_fraction)
            .add_string("model_machine", model_machine.name);
        if (cell.model.registers > 0) extra.add_int("registers", cell.model.registers);
        if (cell.model.spill_bytes >= 0) extra.add_int("spill_bytes", cell.model.spill_bytes);
        if (cell.model.resident_blocks > 0) extra.add_int("resident_blocks", cell.model.resident_blocks);
        reporter.record(r, "", settings, extra);
        cells[{row, n}] = cell;
      }
    }
    print_tables(dtype, sizes, rows, versions, cells);
  }
  reporter.print_summary();
  return reporter.summary().failed() ? 1 : 0;
}

}  // namespace gemmkit::bench
