/*! \file
    \brief `batched` on the GPU, its report: rows, JSON lines, summary and goal check.
*/
#include "batched_gpu_report.hpp"

#include <cmath>
#include <cstdio>

namespace gemmkit::bench {

std::vector<TableColumn> BatchedGpuReport::columns() const {
  return {{"dtype", 5, true}, {"m", 3},        {"n", 3},   {"k", 3},    {"batch", 9},   {"impl", 16, true},
          {"variant", 36, true}, {"GF/s", 7}, {"ms", 7}, {"%bnd", 5}, {"gk/this", 7}, {"verified", 8, true}};
}

void BatchedGpuReport::begin() {
  table_ = std::make_unique<TablePrinter>(columns());
  table_->print_header();
}

void BatchedGpuReport::report_skipped(std::string const& case_label, std::int64_t m, std::int64_t n, std::int64_t k,
                                   Dtype dtype, std::string const& why) {
  ++summary_.rows;
  ++summary_.skipped;
  table_->print_row({to_string(dtype), std::to_string(m), std::to_string(n), std::to_string(k), "-",
                     "skipped: " + why});
  if (json_ == nullptr || !json_->is_open()) return;
  JsonObject row;
  row.add_string("suite", suite_);
  if (!section_.empty()) row.add_string("section", section_);
  row.add_string("case", case_label).add_string("dtype", to_string(dtype));
  row.add_int("m", m).add_int("n", n).add_int("k", k).add_string("backend", "cuda");
  row.add_string("status", "skipped").add_string("message", why);
  add_gpu_device_keys(row, machine_, std::nullopt);
  add_run_keys(row, machine_);
  json_->write(row);
}

namespace {

ImplResult const* find_result(std::vector<ImplResult> const& results, char const* name) {
  for (ImplResult const& r : results) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

double gflops_of(ImplResult const* r) { return r != nullptr && r->usable_as_peer() ? r->gflops : kNotMeasured; }

}  // namespace

void BatchedGpuReport::print_case_rows(std::vector<std::string> const& head, std::int64_t batch, BoundResult const& bound,
                                    double bandwidth, double bound_gf, std::vector<ImplResult> const& results,
                                    std::function<double(ImplResult const&)> const& same_form) {
  auto row_cells = [&](std::string const& count) {
    std::vector<std::string> cells = head;
    cells.push_back(count);
    return cells;
  };
  {
    std::vector<std::string> cells = row_cells(std::to_string(batch));
    if (!bound.error.empty()) {
      cells.insert(cells.end(), {"bound", "ERROR: " + bound.error});
    } else {
      cells.insert(cells.end(), {"bound", format("%.0f GB/s, %s", bandwidth, bound.kernel.c_str()),
                                 format_gflops(bound_gf), format_ms(bound.time.min), "100", "-", "-"});
    }
    table_->print_row(cells);
  }
  for (ImplResult const& r : results) {
    std::vector<std::string> cells = row_cells(std::to_string(r.count) + (r.count < batch ? "~" : ""));
    cells.push_back(r.name);
    if (r.status != RunStatus::kOk) {
      cells.push_back((r.status == RunStatus::kSkipped ? "skipped: " : "ERROR: ") + r.note);
      table_->print_row(cells);
      continue;
    }
    double const same_form_gk = same_form(r);
    cells.insert(cells.end(), {r.variant, format_gflops(r.gflops) + (r.check.verdict == Verdict::kFailed ? "!" : ""),
                               format_ms(r.time.median), format("%.0f", 100 * r.gflops / bound_gf),
                               std::isfinite(same_form_gk) ? format_ratio(same_form_gk / r.gflops) : "-",
                               verify_cell(r.check)});
    table_->print_row(cells);
    if (r.check.verdict == Verdict::kFailed) std::printf("    %s: %s\n", r.name.c_str(), r.check.note.c_str());
  }
}

void BatchedGpuReport::report(BatchedOperands const& ops, std::vector<ImplResult> const& results,
                           BoundResult const& bound) {
  ImplResult const& gk = results.front();
  double const bytes = pass_bytes(ops);
  // B from the fastest pass (STREAM's convention): the bound is what the data allows at best.
  double const bandwidth = bytes / (bound.time.min * 1e6);
  double const bound_gf = problem_flops(ops) * double(ops.batch) / (bound.time.min * 1e6);  // = flops * B / bytes
  ImplResult const* gk_ptr = find_result(results, "gemmkit_ptr");
  ImplResult const* cu_strided = find_result(results, "cublas_strided");
  ImplResult const* cu_ptr = find_result(results, "cublas_ptr");
  ImplResult const* best = nullptr;  // the faster cuBLAS form: the row's peer
  for (ImplResult const* r : {cu_strided, cu_ptr}) {
    if (r != nullptr && r->usable_as_peer() && (best == nullptr || r->gflops > best->gflops)) best = r;
  }
  double const peer_gf = best != nullptr ? best->gflops : kNotMeasured;
  double const ratio = gk.gflops / peer_gf;
  double const ratio_strided = gk.gflops / gflops_of(cu_strided);
  double const gk_ptr_gf = gk_ptr != nullptr && gk_ptr->measured() ? gk_ptr->gflops : kNotMeasured;
  double const ratio_ptr = gk_ptr_gf / gflops_of(cu_ptr);
  double const pct = 100 * gk.gflops / bound_gf;

  count_outcome(&summary_, results, !bound.error.empty());
  digests_.push_back({ops.dtype, ops.m, ops.n, ops.k, ops.beta, pct, ratio_strided, 100 * gk_ptr_gf / bound_gf,
                      ratio_ptr});

  print_case_rows({to_string(ops.dtype), std::to_string(ops.m), std::to_string(ops.n), std::to_string(ops.k)},
                  ops.batch, bound, bandwidth, bound_gf, results, [&](ImplResult const& r) {
                    if (r.name == "cublas_strided") return gk.gflops;
                    return r.name == "cublas_ptr" ? gk_ptr_gf : kNotMeasured;
                  });

  if (json_ == nullptr || !json_->is_open()) return;
  JsonObject row = batched_row_head(suite_, section_, ops);
  add_gemmkit_keys(row, gk, ops, set_, "cuda", 0, bytes, best);
  row.add_number("peer_gflops", peer_gf)
      .add_number("ratio", ratio)
      .add_number("ratio_cublas_strided", ratio_strided)
      .add_number("gemmkit_ptr_ratio_cublas_ptr", ratio_ptr)
      .add_number("bound_gflops", bound_gf)
      .add_number("pct_bound", pct)
      .add_string("bound_source", "fastest pass of a kernel with the GEMM's access mix over the same A, B, C, same run")
      .add_string("bound_kernel", bound.kernel)
      .add_number("bandwidth_gbs", bandwidth)
      .add_number("bandwidth_median_gbs", bytes / (bound.time.median * 1e6))
      .add_number("bound_time_ms", bound.time.median)
      .add_number("bound_time_min_ms", bound.time.min)
      .add_number("bound_time_max_ms", bound.time.max);
  if (gk_ptr != nullptr) row.add_string("gemmkit_ptr_arrays", "device");
  write_row_tail(row, results, bound, bound_gf);
}

void BatchedGpuReport::write_row_tail(JsonObject& row, std::vector<ImplResult> const& results, BoundResult const& bound,
                                   double bound_gf) {
  ImplResult const& gk = results.front();
  add_implementation_keys(row, results, bound_gf);
  std::string peers;
  for (std::size_t i = 1; i < results.size(); ++i) peers += (peers.empty() ? "" : ",") + results[i].name;
  row.add_string("peers", peers);
  char const* const status[] = {"ok", "skipped", "error"};
  std::string message = gk.note;
  if (!bound.error.empty()) message += (message.empty() ? "bound: " : "; bound: ") + bound.error;
  row.add_string("status", bound.error.empty() ? status[int(gk.status)] : "error");
  if (!message.empty()) row.add_string("message", message);
  std::optional<int> const sm_mhz = machine_.gpu ? sm_clock_mhz(machine_.gpu->pci_bus_id) : std::nullopt;
  add_gpu_device_keys(row, machine_, sm_mhz);
  add_run_keys(row, machine_);
  json_->write(row);
}

/// The grouped case's rows. B comes from the stream pass over the allocations (stream_bytes, a
/// little more than the problems' own bytes: the alignment gaps between groups); the bound is the
/// call's flops over the time its problems' bytes take at B.
void BatchedGpuReport::report_grouped(GroupedCase const& g, double stream_bytes, std::vector<ImplResult> const& results,
                                      BoundResult const& bound) {
  ImplResult const& gk = results.front();
  double const bandwidth = stream_bytes / (bound.time.min * 1e6);  // GB/s
  double const gemm_bytes = g.gemm_bytes();
  double const bound_gf = g.flops() * bandwidth / gemm_bytes;
  ImplResult const* peer = find_result(results, "cublas_grouped");
  double const peer_gf = gflops_of(peer);
  double const ratio = gk.gflops / peer_gf;
  double const pct = 100 * gk.gflops / bound_gf;
  count_outcome(&summary_, results, !bound.error.empty());
  grouped_digests_.push_back({g.dtype, pct, ratio});
  print_case_rows({to_string(g.dtype), "mix", "-", "-"}, g.problems, bound, bandwidth, bound_gf, results,
                  [&](ImplResult const& r) { return r.name == "cublas_grouped" ? gk.gflops : kNotMeasured; });

  if (json_ == nullptr || !json_->is_open()) return;
  JsonObject row;
  row.add_string("suite", suite_);
  if (!section_.empty()) row.add_string("section", section_);
  // m, n, k: the largest of the groups; `groups` spells each.
  GroupShape const largest = g.largest();
  row.add_string("case", kGroupedCaseName)
      .add_string("dtype", to_string(g.dtype))
      .add_int("m", largest.m)
      .add_int("n", largest.n)
      .add_int("k", largest.k)
      .add_int("batch", g.problems)
      .add_string("trans", g.all_nn() ? "nn" : "mixed")
      .add_string("groups", g.describe())
      .add_int("group_count", std::int64_t(g.groups.size()));
  add_gemmkit_keys(row, gk, set_, "cuda", 0, g.alpha, g.beta, std::int64_t(g.data_bytes()), gemm_bytes,
                   peer != nullptr && peer->usable_as_peer() ? peer : nullptr);
  row.add_int("pointer_array_bytes", 3 * g.problems * std::int64_t(sizeof(void*)))
      .add_number("peer_gflops", peer_gf)
      .add_number("ratio", ratio)
      .add_number("bound_gflops", bound_gf)
      .add_number("pct_bound", pct)
      .add_string("bound_source",
                  "flops over the problems' bytes (A, B read, C read unless beta = 0, C written; pointer arrays not "
                  "counted) at B, B from the fastest pass of a kernel with the GEMM's access mix over the same "
                  "allocations, same run")
      .add_string("bound_kernel", bound.kernel)
      .add_number("bandwidth_gbs", bandwidth)
      .add_number("bandwidth_median_gbs", stream_bytes / (bound.time.median * 1e6))
      .add_number("bound_time_ms", bound.time.median)
      .add_number("bound_time_min_ms", bound.time.min)
      .add_number("bound_time_max_ms", bound.time.max);
  write_row_tail(row, results, bound, bound_gf);
}

void BatchedGpuReport::print_goal_check() const {
  if (!grouped_digests_.empty()) {
    std::printf("\ngemmkit against the bound, grouped (target: gemmkit / bound >= 80%%, the bound from the problems' "
                "own bytes)\n");
    bool met = true;
    for (GroupedDigest const& d : grouped_digests_) {
      met = met && d.pct_bound >= 80;
      std::printf("  %s %s: %.1f%% of the bound, %.2fx cuBLAS grouped\n", to_string(d.dtype), kGroupedCaseName,
                  d.pct_bound, d.ratio);
    }
    std::printf("  grouped target %s\n", met ? "met" : "NOT met");
  }
  if (digests_.empty()) return;
  std::printf("\ngemmkit against the bound and cuBLAS (beta != 0, square n; targets: gemmkit / bound >= 90%% at every n, "
              "the bound n*B/16 in f64 and n*B/8 in f32; gemmkit / cuBLAS strided >= 10 in f64 for n <= 8)\n");
  bool any_goal_rows = false;
  bool met = true;
  for (Dtype dtype : {Dtype::kF64, Dtype::kF32}) {
    int cases = 0, at_bound = 0, small = 0, small_met = 0;
    std::string below, missed;
    for (RowDigest const& d : digests_) {
      if (d.dtype != dtype || d.beta == 0.0 || !d.square()) continue;
      ++cases;
      if (d.pct_bound >= 90) ++at_bound;
      else below += format(" %lld:%.1f%%", static_cast<long long>(d.n), d.pct_bound);
      if (dtype == Dtype::kF64 && d.n <= 8) {
        ++small;
        if (d.ratio_strided >= 10) ++small_met;
        else missed += format(" %lld:%.2fx", static_cast<long long>(d.n), d.ratio_strided);
      }
    }
    if (cases == 0) continue;
    any_goal_rows = true;
    met = met && at_bound == cases && small_met == small;
    std::printf("  %s: gemmkit / (%s) >= 90%% in %d of %d%s", to_string(dtype), dtype == Dtype::kF64 ? "n*B/16" : "n*B/8",
                at_bound, cases, below.empty() ? "" : (" (below:" + below + ")").c_str());
    if (dtype == Dtype::kF64) {
      std::printf("; gemmkit / cuBLAS strided >= 10 at n <= 8 in %d of %d%s", small_met, small,
                  missed.empty() ? "" : (" (missed:" + missed + ")").c_str());
    }
    std::printf("\n");
  }
  std::string others;
  for (RowDigest const& d : digests_) {
    if (d.beta != 0.0 && d.square()) continue;
    others += format(" %s %s%s:%.0f%%", to_string(d.dtype), case_name(d.m, d.n, d.k).c_str(),
                     d.beta == 0.0 ? " beta=0" : "", d.pct_bound);
  }
  if (!others.empty()) std::printf("  without a target (%% of the measured bound):%s\n", others.c_str());
  std::string ptr;
  for (RowDigest const& d : digests_) {
    if (!std::isfinite(d.ratio_ptr)) continue;
    ptr += format(" %s %s:%.2fx", to_string(d.dtype), case_name(d.m, d.n, d.k).c_str(), d.ratio_ptr);
  }
  if (!ptr.empty()) std::printf("  pointer-array forms, gemmkit_ptr / cublas_ptr:%s\n", ptr.c_str());
  if (any_goal_rows) std::printf("  targets %s\n", met ? "met" : "NOT met");
}

}  // namespace gemmkit::bench
