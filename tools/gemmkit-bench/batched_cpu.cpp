/*! \file
    \brief `batched --cpu`: strided batches of small GEMMs on the CPU against five peers and the
           bandwidth bound measured in the same run. See batched_cpu.hpp for the method.
*/
#include "batched_cpu.hpp"

#include "batched_impls.hpp"
#include "table_printer.hpp"
#include "timing.hpp"
#include "verify.hpp"

#include <gemmkit/introspect.h>

#include <omp.h>
#include <unistd.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <memory>

namespace gemmkit::bench {

namespace {

// --- data ----------------------------------------------------------------------------------------

enum Operand { kOperandA = 0, kOperandB = 1, kOperandC = 2 };

/// Each problem's operands have their own seed, so any problem's C0 can be made again for a check.
std::uint64_t problem_seed(std::uint64_t case_seed, Operand operand, std::int64_t i) {
  return mix64(case_seed + 0x9E3779B97F4A7C15ull * (3 * std::uint64_t(i) + std::uint64_t(operand) + 1));
}

/// Places the batch the way gemmkit's kernels split it (gk_first_touch_batch: OpenMP static
/// partition, current thread count), then fills fresh random A, B and C in [-1, 1) with the same
/// schedule(static) split over the batch that the peers' loops make.
template <typename T>
std::string first_touch(BatchedOperands const& ops, std::uint64_t seed) {
  std::int64_t const size = std::int64_t(sizeof(T));
  for (auto [data, stride] : {std::pair{const_cast<void*>(ops.A), ops.stride_a()},
                              std::pair{const_cast<void*>(ops.B), ops.stride_b()}, std::pair{ops.C, ops.stride_c()}}) {
    if (gk_status const s = gk_first_touch_batch(data, stride * size, stride * size, ops.batch); s != GK_SUCCESS) {
      return std::string("gk_first_touch_batch: ") + gk_status_string(s);
    }
  }
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < ops.batch; ++i) {
    fill_random(const_cast<T*>(ops.a<T>(i)), std::size_t(ops.stride_a()), problem_seed(seed, kOperandA, i));
    fill_random(const_cast<T*>(ops.b<T>(i)), std::size_t(ops.stride_b()), problem_seed(seed, kOperandB, i));
    fill_random(ops.c<T>(i), std::size_t(ops.stride_c()), problem_seed(seed, kOperandC, i));
  }
  return {};
}

// --- the bound: a STREAM-like pass with the kernel's access mix -----------------------------------

/// {first, count} of the calling thread's share of a batch: OpenMP's static schedule over the
/// current thread count, the partition gemmkit's batched CPU kernels use (gemmkit.h,
/// gk_first_touch_batch), so the bound's pass reads what each thread's kernel reads.
std::pair<std::int64_t, std::int64_t> share_of_batch(std::int64_t batch) {
  std::int64_t const threads = omp_get_num_threads(), thread = omp_get_thread_num();
  std::int64_t const base = batch / threads, extra = batch % threads;
  std::int64_t const first = thread * base + (thread < extra ? thread : extra);
  return {first, base + (thread < extra ? 1 : 0)};
}

/// The vectors the FMA peak runs on ("" where it is not measured).
std::string fma_vectors() {
  gk_cpu_info cpu{};
  return gk_cpu_info_get(&cpu) == GK_SUCCESS ? cpu.fma_vectors : "";
}

volatile double g_stream_sink = 0;

/// One pass over the whole batch, each thread over the problems schedule(static) gives it.
template <typename T>
void stream_pass(BatchedOperands const& ops) {
  bool const read_c = ops.beta != 0.0;
  double total = 0;
#pragma omp parallel reduction(+ : total)
  {
    auto const [b0, count] = share_of_batch(ops.batch);
    if (count > 0) {
      total += stream_range(ops.a<T>(b0), count * ops.stride_a(), ops.b<T>(b0), count * ops.stride_b(),
                            ops.c<T>(b0), count * ops.stride_c(), read_c);
    }
  }
  g_stream_sink = total;
}

// --- one implementation over one case and thread count -------------------------------------------

/// Runs impl over a window and times it; "" or the error.
std::string timed_run(BatchedImpl& impl, std::int64_t first, std::int64_t count, double* ms) {
  std::string error;
  Call const call = [&] {
    error = impl.run(first, count);
    return error.empty() ? GK_SUCCESS : GK_INTERNAL_ERROR;
  };
  time_host_batch(call, 1, ms);
  return error;
}

/// The checked pass: sampled problems get a known C0 (NaN when beta = 0, which must not be read),
/// the implementation runs the window, and each sample is compared against the reference.
template <typename T>
Verification checked_pass(BatchedImpl& impl, BatchedOperands const& ops, std::uint64_t seed, std::int64_t first,
                          std::int64_t count, BatchedSettings const& set, std::string* error) {
  std::vector<std::int64_t> const picked =
      set.verify ? pick_samples(first, count, set.samples, seed ^ 0x5A5A5A5Aull) : std::vector<std::int64_t>{};
  std::size_t const c_size = std::size_t(ops.stride_c());
  std::vector<T> c0(c_size);
  bool const beta0 = ops.beta == 0.0;
  for (std::int64_t i : picked) {
    if (beta0) std::fill_n(ops.c<T>(i), c_size, std::numeric_limits<T>::quiet_NaN());
    else fill_random(ops.c<T>(i), c_size, problem_seed(seed, kOperandC, i));
  }
  Verification total;
  *error = impl.run(first, count);
  if (!error->empty()) return total;
  if (!set.verify) {
    total.note = "--no-verify";
    return total;
  }
  GemmProblem const p = ops.problem();
  std::vector<std::int64_t> cols(std::size_t(ops.n));
  for (std::int64_t j = 0; j < ops.n; ++j) cols[std::size_t(j)] = j;
  start_sampled_check(&total, picked.size());
  for (std::int64_t i : picked) {
    if (!beta0) fill_random(c0.data(), c_size, problem_seed(seed, kOperandC, i));
    merge_sampled_check(&total,
                        verify_columns<T>(p, ops.alpha, ops.beta, ops.a<T>(i), ops.b<T>(i), cols,
                                          beta0 ? nullptr : c0.data(), ops.c<T>(i)),
                        i);
  }
  return total;
}

// --- the suite -----------------------------------------------------------------------------------

std::string case_name(ShapeSpec const& s) { return bench::case_name(s.m, s.n, s.k); }

/// One reported row, kept for the goal check at the end.
struct RowDigest {
  Dtype dtype;
  int threads;
  std::string name;
  double pct_bound;
  double ratio;
  double peer_pct_bound;
  double bound;     ///< GF/s
  double fma_peak;  ///< GF/s, NaN when not measured
};

class BatchedCpuRun {
 public:
  BatchedCpuRun(BatchedSettings const& settings, MachineInfo const& machine, std::string suite, std::string section,
                JsonLinesFile* json)
      : set_(settings), machine_(machine), suite_(std::move(suite)), section_(std::move(section)), json_(json) {}

  BatchedSummary run();

 private:
  template <typename T>
  void run_case(ShapeSpec const& shape);
  void measure(BatchedOperands const& ops, std::uint64_t seed, int threads);
  void setup_contender(Contender& c, ImplResult& r, BatchedOperands const& ops, std::uint64_t seed);
  void report(BatchedOperands const& ops, int threads, std::vector<ImplResult> const& results, Stats const& stream,
              double pct_bound_paired);
  void report_skipped_case(ShapeSpec const& shape, Dtype dtype, std::string const& why);
  std::vector<TableColumn> columns() const;
  void print_goal_check() const;
  void measure_fma_peaks();
  double fma_peak(Dtype dtype, int threads) const;

  BatchedSettings const& set_;
  MachineInfo const& machine_;
  std::string suite_, section_;
  JsonLinesFile* json_;
  std::vector<Contender> contenders_;
  std::unique_ptr<TablePrinter> table_;
  std::vector<RowDigest> digests_;
  BatchedSummary summary_;
  Progress progress_;
  std::string libraries_;
  std::map<std::pair<Dtype, int>, double> fma_peaks_;  ///< GF/s by (dtype, threads); NaN: no probe here
};

std::vector<TableColumn> BatchedCpuRun::columns() const {
  std::vector<TableColumn> cols = {{"dtype", 5, true}, {"thr", 3},  {"m", 3},     {"n", 3},     {"k", 3},
                                   {"batch", 9},       {"variant", 18, true},     {"GF/s", 6},  {"%bnd", 5},
                                   {"bound", 6},       {"peak", 6},               {"GB/s", 5}};
  for (std::size_t i = 1; i < contenders_.size(); ++i) cols.push_back({contenders_[i].name, 8});
  cols.insert(cols.end(), {{"best", 8, true}, {"ratio", 5}, {"verified", 8, true}});
  return cols;
}

/// Where a bandwidth bound exceeds what the cores compute at all (n*B/16 grows with n, the FMA
/// peak does not), no implementation reaches it; the peak measured here, with the run's own thread
/// counts, says where that is.
void BatchedCpuRun::measure_fma_peaks() {
  std::string const vectors = fma_vectors();
  std::string line;
  for (Dtype dtype : set_.dtypes) {
    std::string counts;
    for (int threads : set_.threads) {
      progress_.show(format("FMA peak: %s, %d thread%s", to_string(dtype), threads, threads == 1 ? "" : "s"));
      double flops = 0;
      gk_cpu_fma_peak(dtype == Dtype::kF64 ? GK_DTYPE_F64 : GK_DTYPE_F32, threads, &flops);
      double const gflops = flops / 1e9;
      fma_peaks_[{dtype, threads}] = gflops > 0 ? gflops : kNotMeasured;
      counts += format("%s%d thread%s %.1f GF/s", counts.empty() ? "" : ", ", threads, threads == 1 ? "" : "s", gflops);
    }
    line += format("%s%s %s", line.empty() ? "" : "; ", to_string(dtype), counts.c_str());
  }
  progress_.clear();
  if (vectors.empty()) {
    std::printf("        FMA peak: not measured (this CPU has neither AVX-512 nor AVX2 with FMA)\n");
  } else {
    std::printf("        FMA peak (same run; independent FMA chains on %s registers per thread, best of 3 passes of "
                "~50 ms; no kernel exceeds it): %s\n",
                vectors.c_str(), line.c_str());
  }
}

std::string fma_peak_source() {
  std::string const vectors = fma_vectors();
  if (vectors.empty()) return "not measured: this CPU has neither AVX-512 nor AVX2 with FMA";
  return "independent FMA chains on " + vectors +
         " registers per thread, best of 3 passes of ~50 ms, same thread count, start of the same run";
}

double BatchedCpuRun::fma_peak(Dtype dtype, int threads) const {
  auto const it = fma_peaks_.find({dtype, threads});
  return it != fma_peaks_.end() ? it->second : kNotMeasured;
}

BatchedSummary BatchedCpuRun::run() {
  measure_fma_peaks();
  PeerThreading const peer_threading;  // OpenBLAS single-threaded inside our parallel loops
  {
    Contender g;
    g.name = "gemmkit";
    g.whole_batch = true;
    g.impl = make_gemmkit_batched(set_.verbosity, &g.unavailable);
    contenders_.push_back(std::move(g));
  }
  for (std::string const& name : set_.peers) {
    for (PeerFactory const& f : batched_peer_factories()) {
      if (name != f.name) continue;
      Contender c;
      c.name = f.name;
      c.impl = f.make(&c.unavailable);
      contenders_.push_back(std::move(c));
    }
  }
  libraries_ = peer_library_notes();
  std::printf("peers: ");
  for (std::size_t i = 1; i < contenders_.size(); ++i) {
    Contender const& c = contenders_[i];
    std::string const why = c.unavailable.empty() ? "" : " (skipped: " + c.unavailable + ")";
    std::printf("%s%s%s", i > 1 ? ", " : "", c.name.c_str(), why.c_str());
  }
  std::printf("%s\nlibraries: %s\n", contenders_.size() == 1 ? "none" : "", libraries_.c_str());
  std::printf("cells: GF/s; ~ = timed on windows of the batch (pass longer than %.0f ms); ! = failed its check; "
              "%%bnd = %% of the bound flops/(bytes/B), B from the fastest stream-like pass of the row\n",
              set_.max_pass_ms);
  table_ = std::make_unique<TablePrinter>(columns());
  table_->print_header();
  for (ShapeSpec const& shape : set_.shapes) {
    for (Dtype dtype : set_.dtypes) {
      if (dtype == Dtype::kF64) run_case<double>(shape);
      else run_case<float>(shape);
    }
  }
  omp_set_num_threads(all_threads());
  print_goal_check();
  return summary_;
}

void BatchedCpuRun::report_skipped_case(ShapeSpec const& shape, Dtype dtype, std::string const& why) {
  ++summary_.rows;
  ++summary_.skipped;
  table_->print_row({to_string(dtype), "-", std::to_string(shape.m), std::to_string(shape.n), std::to_string(shape.k),
                     "-", "skipped: " + why});
  if (json_ == nullptr || !json_->is_open()) return;
  JsonObject row;
  row.add_string("suite", suite_);
  if (!section_.empty()) row.add_string("section", section_);
  row.add_string("case", case_name(shape)).add_string("dtype", to_string(dtype)).add_int("m", shape.m);
  row.add_int("n", shape.n).add_int("k", shape.k).add_string("status", "skipped").add_string("message", why);
  add_cpu_device_keys(row, machine_);
  add_run_keys(row, machine_);
  json_->write(row);
}

template <typename T>
void BatchedCpuRun::run_case(ShapeSpec const& shape) {
  BatchedOperands ops = batched_case(shape, sizeof(T) == 8 ? Dtype::kF64 : Dtype::kF32, set_);
  double const total = double(sizeof(T)) * double(ops.stride_a() + ops.stride_b() + ops.stride_c()) * double(ops.batch);
  double const available = double(sysconf(_SC_AVPHYS_PAGES)) * double(sysconf(_SC_PAGESIZE));
  if (available > 0 && total > 0.8 * available) {
    report_skipped_case(shape, ops.dtype,
                        format("needs %.0f MiB, %.0f MiB of memory available", total / kMiB, available / kMiB));
    return;
  }
  Buffer const a = allocate_aligned(std::size_t(ops.batch * ops.stride_a()) * sizeof(T));
  Buffer const b = allocate_aligned(std::size_t(ops.batch * ops.stride_b()) * sizeof(T));
  Buffer const c = allocate_aligned(std::size_t(ops.batch * ops.stride_c()) * sizeof(T));
  if (a == nullptr || b == nullptr || c == nullptr) {
    report_skipped_case(shape, ops.dtype, "host allocation failed");
    return;
  }
  ops.A = a.get();
  ops.B = b.get();
  ops.C = c.get();
  std::uint64_t const seed = mix64(std::uint64_t(ops.m) << 40 ^ std::uint64_t(ops.n) << 20 ^ std::uint64_t(ops.k) ^
                                   (sizeof(T) == 8 ? 0xD0u : 0xF0u));
  progress_.show(format("%s %s: first touch of %.0f MiB", case_name(shape).c_str(), to_string(ops.dtype),
                        total / kMiB));
  // Placed by the most threads this case runs with (one thread reads from everywhere anyway).
  omp_set_num_threads(*std::max_element(set_.threads.begin(), set_.threads.end()));
  std::string const touched = first_touch<T>(ops, seed);
  progress_.clear();
  if (!touched.empty()) {
    report_skipped_case(shape, ops.dtype, touched);
    return;
  }
  for (int threads : set_.threads) measure(ops, seed, threads);
}

void BatchedCpuRun::setup_contender(Contender& c, ImplResult& r, BatchedOperands const& ops, std::uint64_t seed) {
  ContenderSetup steps;
  steps.timed = [&](std::int64_t first, std::int64_t count, double* ms) { return timed_run(*c.impl, first, count, ms); };
  steps.checked_pass = [&](std::int64_t first, std::int64_t count, std::string* error) {
    progress_.show(format("%s %s, %d thread%s: %s checked pass", case_name({ops.m, ops.n, ops.k, {}}).c_str(),
                          to_string(ops.dtype), omp_get_max_threads(), omp_get_max_threads() == 1 ? "" : "s",
                          c.name.c_str()));
    return ops.dtype == Dtype::kF64 ? checked_pass<double>(*c.impl, ops, seed, first, count, set_, error)
                                    : checked_pass<float>(*c.impl, ops, seed, first, count, set_, error);
  };
  steps.warm_pass = [&](std::int64_t first, std::int64_t count) { return c.impl->run(first, count); };
  gemmkit::bench::setup_contender(c, r, ops, set_.max_pass_ms, set_.warmup, steps);
}

void BatchedCpuRun::measure(BatchedOperands const& ops, std::uint64_t seed, int threads) {
  omp_set_num_threads(threads);
  std::vector<ImplResult> results(contenders_.size());
  for (std::size_t i = 0; i < contenders_.size(); ++i) setup_contender(contenders_[i], results[i], ops, seed);

  progress_.show(format("%s %s, %d thread%s: %d timed reps", case_name({ops.m, ops.n, ops.k, {}}).c_str(),
                        to_string(ops.dtype), threads, threads == 1 ? "" : "s", set_.reps));
  auto stream = [&] {
    if (ops.dtype == Dtype::kF64) stream_pass<double>(ops);
    else stream_pass<float>(ops);
    return GK_SUCCESS;
  };
  double ms = 0;
  time_host_batch(stream, 1, &ms);  // warm-up
  std::vector<double> stream_ms;
  std::vector<std::vector<double>> impl_ms(contenders_.size());
  // The bound and every implementation alternate rep by rep, so all see the same conditions.
  for (int rep = 0; rep < set_.reps; ++rep) {
    time_host_batch(stream, 1, &ms);
    stream_ms.push_back(ms);
    for (std::size_t i = 0; i < contenders_.size(); ++i) {
      ImplResult& r = results[i];
      if (r.status != RunStatus::kOk) continue;
      std::int64_t const first = window_first(ops.batch, r.count, 1 + set_.warmup + rep);
      if (std::string e = timed_run(*contenders_[i].impl, first, r.count, &ms); !e.empty()) {
        r.status = RunStatus::kError;
        r.note = e;
        continue;
      }
      impl_ms[i].push_back(ms);
    }
  }
  progress_.clear();
  for (std::size_t i = 0; i < contenders_.size(); ++i) {
    ImplResult& r = results[i];
    if (r.status != RunStatus::kOk) continue;
    r.time = summarize(impl_ms[i]);
    r.gflops = problem_flops(ops) * double(r.count) / (r.time.median * 1e6);
  }
  // A transient (the VM's host granting more bandwidth for a moment) lifts the fastest stream pass,
  // and so the bound, while the implementations' medians miss it: the same rep's stream pass over
  // gemmkit's, median over the reps, shows which rows it moved.
  double pct_bound_paired = kNotMeasured;
  if (results.front().status == RunStatus::kOk && impl_ms.front().size() == stream_ms.size()) {
    std::vector<double> shares;
    for (std::size_t rep = 0; rep < stream_ms.size(); ++rep) shares.push_back(stream_ms[rep] / impl_ms.front()[rep]);
    pct_bound_paired = 100 * summarize(shares).median * double(results.front().count) / double(ops.batch);
  }
  report(ops, threads, results, summarize(stream_ms), pct_bound_paired);
}

std::string peer_cell(ImplResult const& r, std::int64_t batch) {
  if (r.status == RunStatus::kSkipped) return "-";
  if (r.status == RunStatus::kError) return "ERR";
  return format_gflops(r.gflops) + (r.count < batch ? "~" : "") + (r.check.verdict == Verdict::kFailed ? "!" : "");
}

void BatchedCpuRun::report(BatchedOperands const& ops, int threads, std::vector<ImplResult> const& results,
                           Stats const& stream, double pct_bound_paired) {
  ImplResult const& gk = results.front();
  double const bytes = pass_bytes(ops);
  // B from the fastest stream pass (STREAM's convention): the bound is what the data allows at best.
  double const stream_gbs = bytes / (stream.min * 1e6);
  double const bound = problem_flops(ops) * double(ops.batch) / (stream.min * 1e6);  // = flops * B / bytes
  ImplResult const* best = nullptr;
  for (std::size_t i = 1; i < results.size(); ++i) {
    if (results[i].usable_as_peer() && (best == nullptr || results[i].gflops > best->gflops)) best = &results[i];
  }
  double const peer_gf = best != nullptr ? best->gflops : kNotMeasured;
  double const ratio = gk.gflops / peer_gf;
  double const pct = 100 * gk.gflops / bound;
  double const peak = fma_peak(ops.dtype, threads);

  count_outcome(&summary_, results);
  digests_.push_back({ops.dtype, threads, case_name({ops.m, ops.n, ops.k, {}}), pct, ratio,
                      100 * peer_gf / bound, bound, peak});

  std::vector<std::string> cells = {to_string(ops.dtype), std::to_string(threads), std::to_string(ops.m),
                                    std::to_string(ops.n), std::to_string(ops.k), std::to_string(ops.batch)};
  if (gk.status != RunStatus::kOk) {
    cells.push_back((gk.status == RunStatus::kSkipped ? "skipped: " : "ERROR: ") + gk.note);
    cells.insert(cells.end(), {"-", "-"});
  } else {
    cells.insert(cells.end(), {gk.variant, format_gflops(gk.gflops), format("%.0f", pct)});
  }
  cells.insert(cells.end(), {format_gflops(bound), format_gflops(peak), format("%.1f", stream_gbs)});
  for (std::size_t i = 1; i < results.size(); ++i) cells.push_back(peer_cell(results[i], ops.batch));
  cells.insert(cells.end(), {best != nullptr ? best->name : "-", format("%.2f", ratio), verify_cell(gk.check)});
  table_->print_row(cells);
  for (ImplResult const& r : results) {
    if (r.status == RunStatus::kError || r.check.verdict == Verdict::kFailed) {
      std::string const& why = r.status == RunStatus::kError ? r.note : r.check.note;
      std::printf("    %s: %s\n", r.name.c_str(), why.c_str());
    }
  }

  if (json_ == nullptr || !json_->is_open()) return;
  JsonObject row = batched_row_head(suite_, section_, ops);
  add_gemmkit_keys(row, gk, ops, set_, "cpu", threads, bytes, best);
  row.add_number("peer_gflops", peer_gf)
      .add_number("ratio", ratio)
      .add_number("bound_gflops", bound)
      .add_number("pct_bound", pct)
      .add_string("bound_source",
                  "fastest stream-like pass over the same A, B, C with the same thread count, same run")
      .add_number("pct_bound_paired", pct_bound_paired)
      .add_string("pct_bound_paired_source",
                  "median over the timed reps of the rep's stream-like pass time over gemmkit's (run back to back)")
      .add_number("fma_peak_gflops", peak)
      .add_number("pct_fma_peak", 100 * gk.gflops / peak)
      .add_number("bound_over_peak", bound / peak)
      .add_string("fma_peak_source", fma_peak_source())
      .add_number("stream_gbs", stream_gbs)
      .add_number("stream_median_gbs", bytes / (stream.median * 1e6))
      .add_number("stream_time_ms", stream.median)
      .add_number("stream_time_min_ms", stream.min)
      .add_number("stream_time_max_ms", stream.max);
  add_implementation_keys(row, results, bound);
  row.add_string("peer_libraries", libraries_);
  char const* const status[] = {"ok", "skipped", "error"};
  row.add_string("status", status[int(gk.status)]);
  if (!gk.note.empty()) row.add_string("message", gk.note);
  add_cpu_device_keys(row, machine_);
  row.add_string("cpu_isa", machine_.cpu_isa).add_int("cpu_cores", machine_.cpu_cores);
  add_run_keys(row, machine_);
  json_->write(row);
}

void BatchedCpuRun::print_goal_check() const {
  // The targets: gemmkit / bound >= 90% with all threads, >= 85% with one; gemmkit / best peer >= 1,
  // and >= 1.2 wherever that peer is below 75% of the bound.
  std::vector<std::pair<Dtype, int>> groups;
  for (RowDigest const& d : digests_) {
    if (std::find(groups.begin(), groups.end(), std::make_pair(d.dtype, d.threads)) == groups.end()) {
      groups.emplace_back(d.dtype, d.threads);
    }
  }
  if (groups.empty()) return;
  std::printf("\ngemmkit against the bound and the best peer (targets: gemmkit / bound >= 90%% with all threads, >= 85%% "
              "with one; gemmkit / best peer >= 1, and >= 1.2 where that peer is below 75%% of the bound)\n");
  for (auto const& [dtype, threads] : groups) {
    double const goal = threads == 1 ? 85 : 90;
    int cases = 0, at_bound = 0, at_peer = 0, weak_peer = 0, beat_weak = 0;
    std::string below, behind, weak_missed;
    for (RowDigest const& d : digests_) {
      if (d.dtype != dtype || d.threads != threads) continue;
      ++cases;
      if (d.pct_bound >= goal) ++at_bound;
      else below += format(" %s:%.1f%%", d.name.c_str(), d.pct_bound);
      if (d.ratio >= 1.0 || !std::isfinite(d.ratio)) ++at_peer;
      else behind += format(" %s:%.2f", d.name.c_str(), d.ratio);
      if (d.peer_pct_bound < 75) {
        ++weak_peer;
        if (d.ratio >= 1.2) ++beat_weak;
        else weak_missed += format(" %s:%.2f", d.name.c_str(), d.ratio);
      }
    }
    std::printf("  %s, %d thread%s: gemmkit / bound >= %.0f%% in %d of %d%s; gemmkit / best peer >= 1 in %d of %d%s; "
                ">= 1.2 in %d of %d where the peer is below 75%%%s\n",
                to_string(dtype), threads, threads == 1 ? "" : "s", goal, at_bound, cases,
                below.empty() ? "" : (" (below:" + below + ")").c_str(), at_peer, cases,
                behind.empty() ? "" : (" (behind:" + behind + ")").c_str(), beat_weak, weak_peer,
                weak_missed.empty() ? "" : (" (missed:" + weak_missed + ")").c_str());
    // Cases whose target asks for more flops than the cores compute: no implementation gets there.
    std::string unreachable;
    for (RowDigest const& d : digests_) {
      if (d.dtype != dtype || d.threads != threads || !(goal / 100 * d.bound > d.fma_peak)) continue;
      unreachable += format("%s %s (needs %.1f, peak %.1f)", unreachable.empty() ? "" : ",", d.name.c_str(),
                            goal / 100 * d.bound, d.fma_peak);
    }
    if (!unreachable.empty()) {
      std::printf("    out of reach here (target x bound above the FMA peak):%s\n", unreachable.c_str());
    }
  }
}

}  // namespace

BatchedSummary run_batched_cpu(BatchedSettings const& settings, MachineInfo const& machine, std::string const& suite,
                               std::string const& section, JsonLinesFile* json) {
  std::printf("method: per case one strided batch (column-major, packed, nn) of >= %.0f MiB of A+B+C, fresh random "
              "data first-touched by gk_first_touch_batch (the kernels' static split); alpha = %g, beta = %g\n",
              double(settings.bytes) / kMiB, settings.alpha, settings.beta);
  std::printf("        per thread count: the fastest stream-like pass (read A, B%s, write C) gives B and the bound; "
              "checked pass on %d sampled problems per implementation, %d more warm-up pass%s, then median of %d "
              "timed passes, bound and implementations alternating\n",
              settings.beta != 0 ? ", read C" : "", settings.samples, settings.warmup,
              settings.warmup == 1 ? "" : "es", settings.reps);
  BatchedCpuRun run(settings, machine, suite, section, json);
  return run.run();
}

}  // namespace gemmkit::bench
