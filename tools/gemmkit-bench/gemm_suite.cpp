/*! \file
    \brief The gemm suite: which cases to run, and the table, JSON lines and summary they produce.
*/
#include "gemm_suite.hpp"

#include "table_printer.hpp"
#include "variant_list.hpp"

#include <fnmatch.h>

#include <algorithm>
#include <cmath>
#include <cstdio>

namespace gemmkit::bench {

namespace {

double gflops_of(double flops, double ms) { return ms > 0 ? flops / (ms * 1e6) : kNotMeasured; }

/// "cuBLAS", "OpenBLAS": a peer's name as its makers write it.
std::string peer_display_name(std::string const& peer) {
  if (peer == "cublas") return "cuBLAS";
  if (peer == "openblas") return "OpenBLAS";
  return peer;
}

}  // namespace

Bound peak_for(MachineInfo const& machine, Platform backend, Dtype dtype, std::optional<double> peak_override) {
  if (peak_override) return {*peak_override, "--peak-gflops"};
  if (backend != Platform::kCuda || !machine.gpu) return {};
  GpuInfo const& gpu = *machine.gpu;
  gk_machine described{};
  if (gk_machine_builtin(gpu.name.c_str(), gpu.sm_count, &described) != GK_SUCCESS) return {};
  std::string const name = described.name, source = described.source;
  if (dtype == Dtype::kF64) return {described.fp64_tensor_flops / 1e9, name + " FP64 tensor-core peak (" + source + ")"};
  return {described.fp32_fma_flops / 1e9, name + " FP32 FMA peak (" + source + ")"};
}

std::string default_gemm_shapes(Platform backend, std::string const& shapes_dir, std::vector<ShapeSpec>* out) {
  return read_builtin_shapes(backend == Platform::kCuda ? "dgemm-suite.txt" : "cpu-suite.txt", shapes_dir, out);
}

std::vector<std::string> match_variants(std::string const& globs, Dtype dtype, Platform backend) {
  std::vector<std::string> const patterns = split_list(globs);
  std::vector<std::string> ids;
  for (gk_variant_info const& info : registered_variants()) {
    if (dtype_of(info) != dtype || backend_of(info) != backend) continue;
    for (std::string const& glob : patterns) {
      if (info.kind == GK_VARIANT_REFERENCE && info.id != glob) continue;
      if (fnmatch(glob.c_str(), info.id, 0) == 0) {
        ids.push_back(info.id);
        break;
      }
    }
  }
  return ids;
}

void GemmReporter::run_section(std::string const& title, std::string const& section,
                               std::vector<GemmCase> const& cases, GemmRunner& runner) {
  bool const gpu_columns = !cases.empty() && cases.front().backend == Platform::kCuda;
  std::printf("\n%s\n", title.c_str());
  std::vector<TableColumn> columns = {
      {"dtype", 5, true}, {"m", 5}, {"n", 5}, {"k", 5}, {"tr", 2, true}, {"variant", 24, true},
      {"GF/s", 7}, {"ms med", 8}, {"ms min", 8}, {"ms max", 8}, {"peer", 8, true}, {"peer GF/s", 9},
      {"ratio", 6}, {"%peak", 5}};
  if (gpu_columns) columns.push_back({"graph x", 7});
  columns.push_back({"verified", 8, true});
  TablePrinter table(columns);
  table.print_header();

  Progress progress;
  // Per dtype and peer, in the order seen: the log ratios, and the cases where gemmkit's pick is the
  // peer itself (a ratio of a library against itself says nothing).
  struct Comparison {
    Dtype dtype;
    std::string peer;
    std::vector<double> log_ratios;
    std::vector<std::string> itself;  ///< m x n x k of the cases where gemmkit ran the peer's variant
    std::string itself_variant;
  };
  std::vector<Comparison> comparisons;
  int const total = int(cases.size());
  for (int i = 0; i < total; ++i) {
    GemmCase const& c = cases[std::size_t(i)];
    progress.show(format("[%*d/%d] %s %lldx%lldx%lld %s %s...", int(std::to_string(total).size()), i + 1, total,
                         c.dtype == Dtype::kF64 ? "dgemm" : "sgemm", (long long)c.m, (long long)c.n, (long long)c.k,
                         c.trans().c_str(), c.forced_variant.c_str()));
    CaseResult const r = runner.run(c);
    progress.clear();

    std::vector<std::string> cells = {to_string(c.dtype), std::to_string(c.m), std::to_string(c.n),
                                      std::to_string(c.k), c.trans()};
    if (r.status != CaseStatus::kOk) {
      cells.push_back((r.status == CaseStatus::kSkipped ? "skipped: " : "ERROR: ") +
                      (c.forced_variant.empty() ? std::string() : c.forced_variant + ": ") + r.message);
    } else {
      double const flops = c.flops();
      double const gf = gflops_of(flops, r.gemmkit.time.median);
      double const peer_gf = r.peer.measured() ? gflops_of(flops, r.peer.time.median) : kNotMeasured;
      double const ratio = gf / peer_gf;
      bool const itself = r.peer.measured() && r.peer.variant == r.gemmkit.variant;
      Bound const bound = peak_for(machine_, c.backend, c.dtype, peak_override_);
      double const graph_ratio = r.peer.graph_ms / r.gemmkit.graph_ms;  // NaN unless both were replayed
      std::string verified = verify_cell(r.verify);
      if (r.verify.verdict != Verdict::kSkipped && r.verify.columns < c.n) verified += "*";
      cells.insert(cells.end(),
                   {r.gemmkit.variant, format_gflops(gf), format_ms(r.gemmkit.time.median),
                    format_ms(r.gemmkit.time.min), format_ms(r.gemmkit.time.max),
                    r.peer_name.empty() ? "-" : (itself ? "itself" : r.peer_name),
                    itself ? "-" : format_gflops(peer_gf), itself ? "-" : format_ratio(ratio),
                    std::isfinite(bound.gflops) ? format("%.1f", 100 * gf / bound.gflops) : "-"});
      if (gpu_columns) cells.push_back(itself ? "-" : format_ratio(graph_ratio));
      cells.push_back(verified);
      if (itself || (std::isfinite(ratio) && ratio > 0)) {
        auto it = std::find_if(comparisons.begin(), comparisons.end(),
                               [&](Comparison const& e) { return e.dtype == c.dtype && e.peer == r.peer_name; });
        if (it == comparisons.end()) it = comparisons.insert(comparisons.end(), {c.dtype, r.peer_name, {}, {}, {}});
        if (itself) {
          it->itself.push_back(format("%lldx%lldx%lld", (long long)c.m, (long long)c.n, (long long)c.k));
          it->itself_variant = r.gemmkit.variant;
        } else {
          it->log_ratios.push_back(std::log(ratio));
        }
      }
    }
    table.print_row(cells);
    record(r, section, runner.settings());
  }
  if (std::any_of(comparisons.begin(), comparisons.end(), [](Comparison const& e) { return !e.itself.empty(); })) {
    std::printf("itself = gemmkit's pick is the peer's own variant: no ratio\n");
  }
  for (Comparison const& e : comparisons) {
    std::string const peer = peer_display_name(e.peer);
    std::string line = std::string(to_string(e.dtype)) + ", gemmkit / " + peer + ": ";
    if (!e.log_ratios.empty()) {
      double sum = 0;
      for (double l : e.log_ratios) sum += l;
      line += format("%.3f (geometric mean over %zu case%s)", std::exp(sum / double(e.log_ratios.size())),
                     e.log_ratios.size(), e.log_ratios.size() == 1 ? "" : "s");
    } else {
      line += "no ratio";
    }
    if (!e.itself.empty()) {
      std::string where;
      if (e.itself.size() <= 4) {
        where = "at ";
        for (std::size_t i = 0; i < e.itself.size(); ++i) {
          where += (i == 0 ? "" : (i + 1 == e.itself.size() ? " and " : ", ")) + e.itself[i];
        }
      } else {
        where = "in " + std::to_string(e.itself.size()) + " cases";
      }
      line += (e.log_ratios.empty() ? ": " : "; ") + where + " gemmkit runs " + peer + " itself (" +
              e.itself_variant + ")";
    }
    std::printf("%s\n", line.c_str());
  }
}

void GemmReporter::record(CaseResult const& r, std::string const& section, RunSettings const& settings,
                          JsonObject const& extra) {
  ++summary_.cases;
  switch (r.status) {
    case CaseStatus::kOk: ++summary_.ok; break;
    case CaseStatus::kSkipped: ++summary_.skipped; break;
    case CaseStatus::kError: ++summary_.errors; break;
  }
  if (r.status == CaseStatus::kOk) {
    switch (r.verify.verdict) {
      case Verdict::kPassed:
        ++summary_.verify_passed;
        if (r.verify.columns < r.spec.n) ++summary_.verify_sampled;
        break;
      case Verdict::kFailed: ++summary_.verify_failed; break;
      case Verdict::kSkipped: ++summary_.verify_skipped; break;
    }
  }
  if (json_ != nullptr && json_->is_open()) json_->write(json_row(r, section, settings).append(extra));
}

JsonObject GemmReporter::json_row(CaseResult const& r, std::string const& section,
                                  RunSettings const& settings) const {
  GemmCase const& c = r.spec;
  bool const ok = r.status == CaseStatus::kOk;
  double const flops = c.flops();
  double const gf = ok ? gflops_of(flops, r.gemmkit.time.median) : kNotMeasured;
  double const peer_gf = ok && r.peer.measured() ? gflops_of(flops, r.peer.time.median) : kNotMeasured;
  Bound const bound = peak_for(machine_, c.backend, c.dtype, peak_override_);
  bool const on_gpu = c.backend == Platform::kCuda && machine_.gpu.has_value();

  JsonObject row;
  row.add_string("suite", suite_);
  if (!section.empty()) row.add_string("section", section);
  row.add_string("case", c.name())
      .add_string("dtype", to_string(c.dtype))
      .add_int("m", c.m)
      .add_int("n", c.n)
      .add_int("k", c.k)
      .add_int("batch", 1)
      .add_string("trans", c.trans())
      .add_string("leading_dimensions", to_string(c.leading))
      .add_string("variant", ok ? r.gemmkit.variant : c.forced_variant)
      .add_bool("variant_forced", !c.forced_variant.empty())
      .add_string("backend", to_string(c.backend))
      .add_number("gflops", gf)
      .add_number("time_ms", r.gemmkit.time.median)
      .add_number("time_min_ms", r.gemmkit.time.min)
      .add_number("time_max_ms", r.gemmkit.time.max)
      .add_int("calls_per_rep", r.gemmkit.calls_per_rep)
      .add_int("reps", settings.reps)
      .add_int("warmup", settings.warmup);
  if (r.peer_name.empty()) row.add_null("peer").add_null("peer_variant");
  else row.add_string("peer", r.peer_name).add_string("peer_variant", r.peer.variant);
  row.add_number("peer_gflops", peer_gf)
      .add_number("peer_time_ms", r.peer.time.median)
      .add_number("peer_time_min_ms", r.peer.time.min)
      .add_number("peer_time_max_ms", r.peer.time.max)
      .add_int("peer_calls_per_rep", r.peer.calls_per_rep)
      .add_number("ratio", gf / peer_gf);
  if (ok && on_gpu && std::max({c.m, c.n, c.k}) <= kGraphMaxSize && settings.graph) {
    row.add_number("time_graph_ms", r.gemmkit.graph_ms)
        .add_number("peer_time_graph_ms", r.peer.graph_ms)
        .add_number("ratio_graph", r.peer.graph_ms / r.gemmkit.graph_ms);
    std::string note = r.gemmkit.graph_note;
    if (!r.peer.graph_note.empty()) note += (note.empty() ? "peer: " : "; peer: ") + r.peer.graph_note;
    if (!note.empty()) row.add_string("graph_note", note);
  }
  if (std::isfinite(bound.gflops)) {
    row.add_number("bound_gflops", bound.gflops).add_number("pct_bound", 100 * gf / bound.gflops);
    row.add_string("bound_source", bound.source);
  } else {
    row.add_null("bound_gflops").add_null("pct_bound");
  }
  Verification const& v = r.verify;
  if (ok && v.verdict == Verdict::kPassed) row.add_bool("verified", true);
  else if (ok && v.verdict == Verdict::kFailed) row.add_bool("verified", false);
  else row.add_string("verified", "skipped");
  row.add_number("verify_error", v.error)
      .add_number("verify_threshold", v.threshold)
      .add_int("verify_columns", v.columns);
  if (!v.note.empty()) row.add_string("verify_note", v.note);
  row.add_number("alpha", settings.alpha).add_number("beta", settings.beta);
  row.add_string("status", r.status == CaseStatus::kOk ? "ok" : (r.status == CaseStatus::kSkipped ? "skipped" : "error"));
  if (!r.message.empty()) row.add_string("message", r.message);

  if (on_gpu) {
    add_gpu_device_keys(row, machine_, r.gemmkit.sm_clock_mhz);
  } else {
    add_cpu_device_keys(row, machine_);
  }
  add_run_keys(row, machine_);
  return row;
}

void GemmReporter::print_summary(std::string const& label) const {
  SuiteSummary const& s = summary_;
  std::string const of = label.empty() ? "" : ", " + label;
  std::printf("\nresult%s: %d case%s: %d measured, %d skipped, %d error%s; verification: %d passed", of.c_str(),
              s.cases, s.cases == 1 ? "" : "s", s.ok, s.skipped, s.errors, s.errors == 1 ? "" : "s", s.verify_passed);
  if (s.verify_sampled > 0) std::printf(" (%d of them on a random sample of columns, marked *)", s.verify_sampled);
  std::printf(", %d FAILED, %d not checked\n", s.verify_failed, s.verify_skipped);
}

}  // namespace gemmkit::bench
