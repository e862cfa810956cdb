/*! \file
    \brief What the CPU and GPU forms of `batched` share. See batched_common.hpp.
*/
#include "batched_common.hpp"

#include "gemm_suite.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <random>
#include <set>

namespace gemmkit::bench {

Buffer allocate_aligned(std::size_t bytes) {
  std::size_t const rounded = (std::max<std::size_t>(bytes, 1) + 63) / 64 * 64;
  return Buffer(std::aligned_alloc(64, rounded));
}

std::vector<std::string> const& batched_gpu_peer_names() {
  static std::vector<std::string> const names = {"gemmkit_ptr", "gemmkit_ptr_host", "cublas_strided", "cublas_ptr",
                                                 "cublas_grouped"};
  return names;
}

int all_threads() {
  static int const threads = omp_get_max_threads();
  return threads;
}

namespace {

/// --peers: a comma list of `known` names, "all" or "none"; the chosen ones in `known`'s order.
std::string parse_peers(std::string const& text, std::vector<std::string> const& known, std::vector<std::string>* out) {
  out->clear();
  std::string const peers = text.empty() ? "all" : text;
  if (peers == "none") return {};
  std::set<std::string> wanted;
  for (std::string const& item : split_list(peers)) {
    if (item != "all" && std::find(known.begin(), known.end(), item) == known.end()) {
      std::string list;
      for (std::string const& k : known) list += k + ", ";
      return "--peers: unknown peer '" + item + "' (" + list + "all, none)";
    }
    wanted.insert(item);
  }
  for (std::string const& k : known) {
    if (wanted.count("all") != 0 || wanted.count(k) != 0) out->push_back(k);
  }
  return {};
}

}  // namespace

std::string batched_settings_from_options(Options const& o, BatchedForm form, bool tour, BatchedSettings* out) {
  bool const gpu = form == BatchedForm::kGpu;
  BatchedSettings s;
  s.form = form;
  all_threads();  // read OpenMP's default before anything sets a count
  if (tour) {
    for (std::int64_t n : {4, 8, 16}) s.shapes.push_back({n, n, n, std::nullopt});
    s.dtypes = {Dtype::kF64};
    // The GPU's passes are short: 256 MiB is still five times an H100's L2.
    s.bytes = std::int64_t(gpu ? 256 : 64) << 20;
    s.max_pass_ms = 100;
    s.grouped = gpu;
  } else {
    if (!o.k.empty() || !o.m.empty()) return "batched takes --n (square sizes) and --shapes m,n,k;... , not --m/--k";
    bool const sizes_given = !o.n.empty() || !o.shapes_file.empty();
    std::vector<ShapeSpec> extra;
    if (!o.shapes_file.empty()) {
      if (std::string e = read_shapes_argument(o.shapes_file, &extra); !e.empty()) return "--shapes: " + e;
    }
    // The default run has the shapes and the grouped case; --grouped alone the grouped case only.
    s.grouped = gpu && (o.grouped || !sizes_given);
    if (!sizes_given) {
      if (!o.grouped) {
        if (std::string e = read_builtin_shapes("batched-suite.txt", o.shapes_dir, &s.shapes); !e.empty()) return e;
      }
    } else {
      for (std::int64_t n : o.n) s.shapes.push_back({n, n, n, std::nullopt});
      s.shapes.insert(s.shapes.end(), extra.begin(), extra.end());
    }
    for (ShapeSpec const& shape : extra) {
      if (shape.trans && (shape.trans->first != GK_OP_N || shape.trans->second != GK_OP_N)) {
        return "batched runs nn only (shape " + case_name(shape.m, shape.n, shape.k) + " asks for a transpose)";
      }
    }
    s.dtypes = o.dtypes.empty() ? std::vector<Dtype>{Dtype::kF64, Dtype::kF32} : o.dtypes;
    if (o.bytes > 0) s.bytes = o.bytes;
    if (o.max_pass_ms > 0) s.max_pass_ms = o.max_pass_ms;
  }
  s.variants = o.variants;
  s.group_mix = o.group_mix;
  if (!o.group_mix.empty() && !s.grouped) return "--group-mix picks groups of the grouped case (--grouped)";
  for (Dtype d : s.dtypes) {
    if (!s.variants.empty() && forced_variant(s, d).empty()) {
      return "--variants " + s.variants + ": no " + std::string(to_string(d)) + " variant of this backend matches";
    }
  }
  if (gpu) {
    if (!o.threads.empty()) return "--threads is for `batched --cpu`; the GPU form runs on one device (--device N)";
    s.alpha = o.alpha;
    s.reps = tour ? 5 : 10;
    s.warmup = 1;
    // A GPU pass over 1 GiB lasts about a millisecond; only a per-problem path needs windows.
    if (!tour && o.max_pass_ms <= 0) s.max_pass_ms = 200;
    s.device = o.device;
  } else {
    if (o.grouped) return "--grouped is for the GPU form of batched";
    std::vector<int> const threads = o.threads.empty() ? std::vector<int>{1, 0} : o.threads;
    for (int t : threads) {
      int const resolved = t == 0 ? all_threads() : t;
      if (std::find(s.threads.begin(), s.threads.end(), resolved) == s.threads.end()) s.threads.push_back(resolved);
    }
    if (o.alpha != 1.0) return "batched runs alpha = 1 (LIBXSMM's kernels take no other)";
  }
  s.beta = o.beta.value_or(1.0);
  if (o.reps > 0) s.reps = o.reps;
  if (o.warmup >= 0) s.warmup = o.warmup;
  s.verify = o.verify.value_or(true);
  s.verbosity = o.verbosity;

  std::vector<std::string> known;
  if (gpu) {
    known = batched_gpu_peer_names();
  } else {
    for (PeerFactory const& f : batched_peer_factories()) known.push_back(f.name);
  }
  if (std::string e = parse_peers(o.peers, known, &s.peers); !e.empty()) return e;
  for (ShapeSpec const& shape : s.shapes) {
    if (shape.m <= 0 || shape.n <= 0 || shape.k <= 0) return "sizes must be positive";
  }
  *out = s;
  return {};
}

void print_batched_summary(BatchedSummary const& s, std::string const& label) {
  std::string const of = label.empty() ? "" : ", " + label;
  std::printf("\nresult%s: %d row%s: %d skipped, %d error%s; gemmkit verification: %d passed, %d FAILED, %d not "
              "checked; peers that failed their check: %d\n",
              of.c_str(), s.rows, s.rows == 1 ? "" : "s", s.skipped, s.errors, s.errors == 1 ? "" : "s", s.verify_passed,
              s.verify_failed, s.verify_skipped, s.peer_verify_failed);
}

// --- pieces of a run -------------------------------------------------------------------------------

std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

std::string case_name(std::int64_t m, std::int64_t n, std::int64_t k) {
  return std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k);
}

std::int64_t batch_for_bytes(std::int64_t m, std::int64_t n, std::int64_t k, std::size_t element_size,
                             std::int64_t bytes) {
  double const problem_bytes = double(element_size) * double(m * k + k * n + m * n);
  return std::max<std::int64_t>(1, std::int64_t(std::ceil(double(bytes) / problem_bytes)));
}

BatchedOperands batched_case(ShapeSpec const& shape, Dtype dtype, BatchedSettings const& settings) {
  BatchedOperands ops;
  ops.dtype = dtype;
  ops.m = shape.m;
  ops.n = shape.n;
  ops.k = shape.k;
  ops.alpha = settings.alpha;
  ops.beta = settings.beta;
  ops.batch = batch_for_bytes(ops.m, ops.n, ops.k, size_of(dtype), settings.bytes);
  ops.variant = forced_variant(settings, dtype);
  return ops;
}

std::string forced_variant(BatchedSettings const& settings, Dtype dtype) {
  if (settings.variants.empty()) return {};
  Platform const backend = settings.form == BatchedForm::kGpu ? Platform::kCuda : Platform::kCpu;
  std::vector<std::string> const ids = match_variants(settings.variants, dtype, backend);
  return ids.empty() ? std::string() : ids.front();
}

double pass_bytes(BatchedOperands const& ops) {
  double const c_passes = ops.beta != 0.0 ? 2.0 : 1.0;
  return double(size_of(ops.dtype)) * double(ops.batch) *
         (double(ops.stride_a()) + double(ops.stride_b()) + c_passes * double(ops.stride_c()));
}

double problem_flops(BatchedOperands const& ops) { return 2.0 * double(ops.m) * double(ops.n) * double(ops.k); }

std::int64_t window_first(std::int64_t batch, std::int64_t count, int w) {
  if (count >= batch) return 0;
  return (std::int64_t(w) * count) % (batch - count + 1);
}

std::vector<std::int64_t> pick_samples(std::int64_t first, std::int64_t count, int samples, std::uint64_t seed) {
  std::int64_t const s = std::min<std::int64_t>(std::max(samples - 2, 1), count);
  std::mt19937_64 rng(seed);
  std::set<std::int64_t> picked{first, first + count - 1};
  for (std::int64_t i = 0; i < s; ++i) {
    std::int64_t const lo = first + i * count / s, hi = first + (i + 1) * count / s;
    if (hi > lo) picked.insert(lo + std::int64_t(rng() % std::uint64_t(hi - lo)));
  }
  return {picked.begin(), picked.end()};
}

void start_sampled_check(Verification* total, std::size_t samples) {
  total->verdict = Verdict::kPassed;
  total->error = 0;
  total->columns = std::int64_t(samples);  // here: problems checked
}

void merge_sampled_check(Verification* total, Verification const& v, std::int64_t problem) {
  total->threshold = v.threshold;
  if (v.verdict == Verdict::kFailed && total->verdict != Verdict::kFailed) {
    total->verdict = Verdict::kFailed;
    total->note = "problem " + std::to_string(problem) + ": " + v.note;
  }
  if (!(v.error <= total->error)) total->error = v.error;  // NaN sticks
}

std::int64_t problems_per_pass(std::int64_t batch, double max_pass_ms, TimedWindow const& timed, std::string* error) {
  auto estimate_full_ms = [&](std::int64_t probe) {
    double ms = 0;
    *error = timed(batch - probe, probe, &ms);
    return ms * double(batch) / double(probe);
  };
  std::int64_t const probe = std::max<std::int64_t>(1, batch / 128);
  double estimate = estimate_full_ms(probe);
  if (error->empty() && estimate > max_pass_ms) {
    std::int64_t const longer =
        std::clamp<std::int64_t>(std::int64_t(0.25 * double(batch) * max_pass_ms / estimate), probe, batch);
    if (longer > probe) estimate = estimate_full_ms(longer);
  }
  if (error->empty() && estimate > max_pass_ms) {
    return std::clamp<std::int64_t>(std::int64_t(double(batch) * max_pass_ms / estimate), 1, batch);
  }
  return batch;
}

JsonObject batched_row_head(std::string const& suite, std::string const& section, BatchedOperands const& ops) {
  JsonObject row;
  row.add_string("suite", suite);
  if (!section.empty()) row.add_string("section", section);
  row.add_string("case", case_name(ops.m, ops.n, ops.k))
      .add_string("dtype", to_string(ops.dtype))
      .add_int("m", ops.m)
      .add_int("n", ops.n)
      .add_int("k", ops.k)
      .add_int("batch", ops.batch)
      .add_string("trans", "nn");
  return row;
}

void add_gemmkit_keys(JsonObject& row, ImplResult const& gk, BatchedSettings const& set, char const* backend,
                      int threads, double alpha, double beta, std::int64_t data_bytes, double pass_bytes,
                      ImplResult const* best_peer) {
  row.add_string("variant", gk.variant).add_bool("variant_forced", !set.variants.empty()).add_string("backend", backend);
  if (threads > 0) row.add_int("threads", threads);
  row.add_number("gflops", gk.gflops)
      .add_number("time_ms", gk.time.median)
      .add_number("time_min_ms", gk.time.min)
      .add_number("time_max_ms", gk.time.max)
      .add_int("reps", set.reps)
      .add_int("warmup", set.warmup)
      .add_number("alpha", alpha)
      .add_number("beta", beta)
      .add_int("data_bytes", data_bytes)
      .add_int("pass_bytes", std::int64_t(pass_bytes));
  if (best_peer != nullptr) row.add_string("peer", best_peer->name);
  else row.add_null("peer");
}

void add_gemmkit_keys(JsonObject& row, ImplResult const& gk, BatchedOperands const& ops, BatchedSettings const& set,
                      char const* backend, int threads, double pass_bytes, ImplResult const* best_peer) {
  add_gemmkit_keys(row, gk, set, backend, threads, ops.alpha, ops.beta,
                   ops.batch * std::int64_t(size_of(ops.dtype)) * (ops.stride_a() + ops.stride_b() + ops.stride_c()),
                   pass_bytes, best_peer);
}

void add_implementation_keys(JsonObject& row, std::vector<ImplResult> const& results, double bound_gflops) {
  auto add_check = [&row](std::string const& prefix, ImplResult const& r) {
    Verdict const v = r.status == RunStatus::kOk ? r.check.verdict : Verdict::kSkipped;
    if (v == Verdict::kSkipped) row.add_string(prefix + "verified", "skipped");
    else row.add_bool(prefix + "verified", v == Verdict::kPassed);
  };
  ImplResult const& gk = results.front();
  add_check("", gk);
  row.add_number("verify_error", gk.check.error)
      .add_number("verify_threshold", gk.check.threshold)
      .add_int("verify_samples", gk.check.columns);
  if (!gk.check.note.empty()) row.add_string("verify_note", gk.check.note);
  for (std::size_t i = 1; i < results.size(); ++i) {
    ImplResult const& r = results[i];
    std::string const p = r.name + "_";
    row.add_number(p + "gflops", r.gflops)
        .add_number(p + "pct_bound", 100 * r.gflops / bound_gflops)
        .add_number(p + "time_ms", r.time.median)
        .add_int(p + "batch", r.count);
    add_check(p, r);
    row.add_number(p + "verify_error", r.check.error).add_string(p + "variant", r.variant);
    std::string const note = r.status != RunStatus::kOk ? r.note : r.check.note;
    if (!note.empty()) row.add_string(p + "note", note);
  }
}

void setup_contender(Contender& c, ImplResult& r, BatchedOperands const& ops, double max_pass_ms, int warmup,
                     ContenderSetup const& steps) {
  r.name = c.name;
  if (!c.unavailable.empty() || c.impl == nullptr) {
    r.status = RunStatus::kSkipped;
    r.note = c.unavailable;
    return;
  }
  if (std::string e = c.impl->prepare(ops); !e.empty()) {
    r.status = RunStatus::kSkipped;
    r.note = e;
    return;
  }
  std::string error;
  // How many problems a pass gets: all of them, unless a full pass would outlast max_pass_ms (the
  // slow peers at small n; see problems_per_pass).
  r.count = c.whole_batch ? ops.batch : problems_per_pass(ops.batch, max_pass_ms, steps.timed, &error);
  if (error.empty()) r.check = steps.checked_pass(window_first(ops.batch, r.count, 0), r.count, &error);
  for (int w = 1; w <= warmup && error.empty(); ++w) error = steps.warm_pass(window_first(ops.batch, r.count, w), r.count);
  if (!error.empty()) {
    r.status = RunStatus::kError;
    r.note = error;
    if (steps.after_error) steps.after_error();
  }
  r.variant = c.impl->variant();
}

void count_outcome(BatchedSummary* summary, std::vector<ImplResult> const& results, bool error) {
  ImplResult const& gk = results.front();
  ++summary->rows;
  if (gk.status == RunStatus::kError || error) ++summary->errors;
  if (gk.status == RunStatus::kSkipped) ++summary->skipped;
  if (gk.status == RunStatus::kOk) {
    switch (gk.check.verdict) {
      case Verdict::kPassed: ++summary->verify_passed; break;
      case Verdict::kFailed: ++summary->verify_failed; break;
      case Verdict::kSkipped: ++summary->verify_skipped; break;
    }
  }
  for (std::size_t i = 1; i < results.size(); ++i) {
    if (results[i].status == RunStatus::kOk && results[i].check.verdict == Verdict::kFailed) {
      ++summary->peer_verify_failed;
    }
  }
}

}  // namespace gemmkit::bench
