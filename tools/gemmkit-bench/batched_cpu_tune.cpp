/*! \file
    \brief `batched --cpu --tune`: the tuner of the CPU small kernels' blocking, prefetch and vector
           cut. For each precision and square size, a packed batch of fresh random operands (beta
           = 1) runs every variant of the square kernel and of the by_m kernel on one thread, the
           candidates taking turns pass by pass; the median of each one's time over the default's
           in the same round picks this CPU's rows of the table (cpu::this_cpu_tuning_key)
           (src/cpu/small/small_blocking.csv).
*/
#include "batched_tune.hpp"

#include "batched_common.hpp"
#include "cpu/small/small_blocking.hpp"
#include "cpu/small/small_kernels.hpp"
#include "machine_info.hpp"
#include "timing.hpp"
#include "verify.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <sstream>
#include <string>
#include <vector>

namespace gemmkit::bench {

namespace {

/// The default (balanced, the default prefetch) keeps its row unless another candidate is faster
/// by more than this fraction: passes of one kernel on the VMs differ by a few percent even when
/// the candidates take turns, and a flip on noise would only churn the table.
constexpr double kKeepDefaultWithin = 0.03;

/// Within kKeepDefaultWithin of the pick at the benchmark's size, a candidate faster by more than
/// that on a batch of this size (in L2 on the CPUs tuned so far) takes the row: the burst prefetches
/// cost there what they gain from memory (AMD Zen 5, f64 16x8x32 in L2: 84 GF/s with next, 113 with
/// step, within 1 % of each other from 1 GiB). Each pass runs the batch kCachePassRepeats times.
constexpr std::int64_t kCacheBytes = 512 * 1024;
constexpr int kCachePassRepeats = 128;

/// A candidate's passes over one batch size.
struct Timing {
  std::vector<double> seconds;
  double median = 0;
  std::int64_t problems = 0;  ///< problems a pass ran (time_candidates)
};

/// One kernel the tuner times at a size, on problems of m = the size and n, k as given.
template <typename T>
struct Candidate {
  cpu::SmallGemmFn<T> kernel = nullptr;
  int n = 0, k = 0;
  bool by_m = false;
  cpu::SmallBlocking blocking = cpu::SmallBlocking::kBalanced;
  cpu::SmallPrefetch prefetch = cpu::SmallPrefetch::kNone;
  cpu::SmallVectors vectors = cpu::SmallVectors::kWide;
  bool packed = false;  ///< a packed kernel (SmallKernelTable::packed_variant), not a square one
  Timing memory;        ///< over the benchmark's batch (--bytes)
  Timing cache;         ///< over kCacheBytes
};

/// The square kernel's blockings that split differently from balanced, each with every prefetch
/// and both vector cuts (where they differ), then the by_m kernel's prefetches and vector cuts on a
/// shape that is not square (squares run the square kernels, so by_m never runs one): s x s/2 x 2s
/// up to kPrefetchMaxRows rows (8x4x16, 16x8x32; on 16x16x16 no prefetch won where next wins at
/// 16x8x32), above that s x 16 x 8 (small enough that kNextProblem prefetches); then the packed
/// kernel's prefetches, where the size has a packed kernel.
template <typename T>
std::vector<Candidate<T>> candidates_at(cpu::SmallKernelTable<T> const& table, int s) {
  std::vector<Candidate<T>> out;
  int const cuts = table.split_differs[s] ? cpu::kSmallVectorChoices : 1;
  for (int v = 0; v < cuts; ++v) {
    for (int b = 0; b < cpu::kSmallBlockings; ++b) {
      if (b > 0 && table.square_block_columns[b][v][s] == table.square_block_columns[0][v][s]) continue;
      for (int p = 0; p < cpu::kSmallPrefetches; ++p) {
        // Variants no table row picks are built only with GEMMKIT_BUILD_ALL_CONFIGS.
        if (table.square_variant[b][p][v][s] == nullptr) continue;
        out.push_back({table.square_variant[b][p][v][s], s, s, false, cpu::SmallBlocking(b), cpu::SmallPrefetch(p),
                       cpu::SmallVectors(v), false, {}, {}});
      }
    }
  }
  bool const short_rows = s <= cpu::kPrefetchMaxRows;
  int const by_m_n = short_rows ? std::max(1, s / 2) : 16;
  int const by_m_k = short_rows ? std::min(2 * s, cpu::kSmallMax) : 8;
  for (int v = 0; v < cuts; ++v) {
    for (int p = 0; p < cpu::kSmallPrefetches; ++p) {
      if (table.by_m_variant[p][v][s] == nullptr) continue;
      out.push_back({table.by_m_variant[p][v][s], by_m_n, by_m_k, true, cpu::SmallBlocking::kBalanced,
                     cpu::SmallPrefetch(p), cpu::SmallVectors(v), false, {}, {}});
    }
  }
  for (int p = 0; p < cpu::kSmallPrefetches; ++p) {
    if (table.packed_variant[p][s] == nullptr) continue;
    bool const timed = std::any_of(out.begin(), out.end(), [&](Candidate<T> const& c) {
      return c.kernel == table.packed_variant[p][s];
    });
    if (timed) continue;  // one kernel under two prefetch names (the 2x2 kernel; spread is next)
    out.push_back({table.packed_variant[p][s], s, s, false, cpu::SmallBlocking::kBalanced, cpu::SmallPrefetch(p),
                   cpu::SmallVectors::kWide, true, {}, {}});
  }
  return out;
}

/// Times every candidate over `count` packed problems of size s (a candidate of another n, k runs
/// problems of its own shape, packed, as many as the buffers of s x s per problem hold): `reps`
/// rounds, each candidate one pass per round (a pass: the batch `repeats` times), after one warm-up
/// round; into each candidate's `timing`. False when the operands cannot be allocated.
template <typename T>
bool time_candidates(std::vector<Candidate<T>>& candidates, int s, std::int64_t count, int reps, int repeats,
                     Timing Candidate<T>::*timing) {
  std::int64_t const area = std::int64_t(s) * s;
  std::size_t const elements = std::size_t(count * area);
  Buffer const a_buffer = allocate_aligned(elements * sizeof(T));
  Buffer const b_buffer = allocate_aligned(elements * sizeof(T));
  Buffer const c_buffer = allocate_aligned(elements * sizeof(T));
  if (!a_buffer || !b_buffer || !c_buffer) return false;
  T* const a = static_cast<T*>(a_buffer.get());
  T* const b = static_cast<T*>(b_buffer.get());
  T* const c = static_cast<T*>(c_buffer.get());
  fill_random(a, elements, 11 + s);
  fill_random(b, elements, 23 + s);
  fill_random(c, elements, 37 + s);
  // beta = 1 with alpha = 1 grows C pass by pass; alpha = 0.5 and beta = 0.5 keep it bounded.
  T const alpha = T(0.5), beta = T(0.5);
  for (Candidate<T>& candidate : candidates) {
    std::int64_t const s64 = s, n = candidate.n, k = candidate.k;
    (candidate.*timing).problems = std::max<std::int64_t>(1, count * area / std::max({s64 * k, k * n, s64 * n}));
  }
  for (int rep = 0; rep <= reps; ++rep) {  // rep 0 warms up
    for (Candidate<T>& candidate : candidates) {
      Timing& t = candidate.*timing;
      int const n = candidate.n, k = candidate.k;
      auto const start = std::chrono::steady_clock::now();
      for (int r = 0; r < repeats; ++r) {
        candidate.kernel(t.problems, n, k, alpha, a, s, std::int64_t(s) * k, b, k, std::int64_t(k) * n, beta, c, s,
                         std::int64_t(s) * n);
      }
      double const elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (rep > 0) t.seconds.push_back(elapsed / repeats);
    }
  }
  for (Candidate<T>& candidate : candidates) (candidate.*timing).median = summarize((candidate.*timing).seconds).median;
  return true;
}

/// `challenger`'s time over `incumbent`'s, round by round, median over the rounds (1 without rounds).
template <typename T>
double median_ratio(Candidate<T> const& challenger, Candidate<T> const& incumbent,
                    Timing Candidate<T>::*timing = &Candidate<T>::memory) {
  std::vector<double> ratios;
  auto const& mine = (challenger.*timing).seconds;
  auto const& theirs = (incumbent.*timing).seconds;
  for (std::size_t r = 0; r < mine.size() && r < theirs.size(); ++r) ratios.push_back(mine[r] / theirs[r]);
  return ratios.empty() ? 1.0 : summarize(ratios).median;
}

/// Whether `challenger` beats `incumbent` by more than kKeepDefaultWithin.
template <typename T>
bool faster_than(Candidate<T> const& challenger, Candidate<T> const& incumbent,
                 Timing Candidate<T>::*timing = &Candidate<T>::memory) {
  return median_ratio(challenger, incumbent, timing) < 1 / (1 + kKeepDefaultWithin);
}

/// The index of the fastest candidate of one kernel kind (by_m: of the vector cut `vectors`), or
/// the default's (balanced, default_prefetch, wide; by_m: `vectors`) unless that one is faster by
/// more than kKeepDefaultWithin; then, of the candidates within kKeepDefaultWithin of that pick over
/// the benchmark's batch, the fastest in cache if it beats the pick there by more than that.
/// Compared round by round: each candidate's time over the default's in the same round, median
/// over the rounds. The rounds' conditions drift on a shared machine (whole passes 2x slower for a
/// while); the ratio of two passes timed back to back does not.
template <typename T>
std::size_t pick(std::vector<Candidate<T>> const& candidates, bool by_m, cpu::SmallPrefetch default_prefetch,
                 cpu::SmallVectors vectors = cpu::SmallVectors::kWide) {
  auto const eligible = [&](Candidate<T> const& c) {
    return !c.packed && c.by_m == by_m && (!by_m || c.vectors == vectors);
  };
  std::size_t fallback = candidates.size();
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    Candidate<T> const& c = candidates[i];
    if (eligible(c) && c.blocking == cpu::SmallBlocking::kBalanced && c.prefetch == default_prefetch &&
        c.vectors == vectors) {
      fallback = i;
    }
  }
  std::size_t best = fallback;
  double best_ratio = 1;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (!eligible(candidates[i]) || i == fallback) continue;
    double const ratio = median_ratio(candidates[i], candidates[fallback]);
    if (ratio < best_ratio) best = i, best_ratio = ratio;
  }
  std::size_t const chosen = best != fallback && faster_than(candidates[best], candidates[fallback]) ? best : fallback;
  std::size_t in_cache = chosen;
  double cache_ratio = 1;
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (!eligible(candidates[i]) || i == chosen) continue;
    if (median_ratio(candidates[i], candidates[chosen]) > 1 + kKeepDefaultWithin) continue;
    double const ratio = median_ratio(candidates[i], candidates[chosen], &Candidate<T>::cache);
    if (ratio < cache_ratio) in_cache = i, cache_ratio = ratio;
  }
  return in_cache != chosen && faster_than(candidates[in_cache], candidates[chosen], &Candidate<T>::cache) ? in_cache
                                                                                                           : chosen;
}

/// The packed candidate that runs the packed kernel of `prefetch` (the square pick's: a row has one
/// prefetch for both; one kernel may stand for several prefetches, candidates_at), or
/// candidates.size() where the size has none.
template <typename T>
std::size_t packed_with_prefetch(std::vector<Candidate<T>> const& candidates, cpu::SmallKernelTable<T> const& table,
                                 int s, cpu::SmallPrefetch prefetch) {
  for (std::size_t i = 0; i < candidates.size(); ++i) {
    if (candidates[i].packed && candidates[i].kernel == table.packed_variant[int(prefetch)][s]) return i;
  }
  return candidates.size();
}

template <typename T>
void tune_precision(char const* dtype, std::vector<std::int64_t> const& sizes, std::int64_t bytes, int reps,
                    std::vector<cpu::SmallBlockingRow>* rows) {
  cpu::SmallKernelTable<T> const* table = cpu::small_kernels_for_this_cpu<T>();
  if (table == nullptr) return;
  for (std::int64_t size : sizes) {
    int const s = int(size);
    std::int64_t const per_problem = 3 * std::int64_t(s) * s * std::int64_t(sizeof(T));
    std::int64_t const count = std::max<std::int64_t>(1, bytes / per_problem);
    std::vector<Candidate<T>> candidates = candidates_at(*table, s);
    std::int64_t const cache_count = std::max<std::int64_t>(1, kCacheBytes / per_problem);
    if (!time_candidates(candidates, s, count, reps, 1, &Candidate<T>::memory) ||
        !time_candidates(candidates, s, cache_count, reps, kCachePassRepeats, &Candidate<T>::cache)) {
      std::printf("%-5s %4d  allocation failed\n", dtype, s);
      continue;
    }
    std::size_t const square = pick(candidates, false, cpu::default_square_prefetch(s));
    std::size_t const by_m = pick(candidates, true, cpu::default_by_m_prefetch(s), candidates[square].vectors);
    std::size_t const packed = packed_with_prefetch(candidates, *table, s, candidates[square].prefetch);
    cpu::SmallPacked const packed_choice = packed < candidates.size() && faster_than(candidates[square], candidates[packed])
                                               ? cpu::SmallPacked::kColumns
                                               : cpu::SmallPacked::kFlat;
    for (std::size_t i = 0; i < candidates.size(); ++i) {
      Candidate<T> const& c = candidates[i];
      double const per_problem_bytes = double(s * c.k + c.k * c.n + 2 * s * c.n) * double(sizeof(T));  // C twice
      std::printf("%-5s %4d %-6s %-9s %3d %-8s %-6s %10.3f %8.2f %8.2f %s\n", dtype, s,
                  c.packed ? "packed" : (c.by_m ? "by_m" : "square"), c.by_m || c.packed ? "-" : cpu::to_string(c.blocking),
                  c.by_m || c.packed ? 0 : table->square_block_columns[int(c.blocking)][int(c.vectors)][s],
                  cpu::to_string(c.prefetch), cpu::to_string(c.vectors), c.memory.median * 1e3,
                  double(c.memory.problems) * per_problem_bytes / c.memory.median * 1e-9,
                  double(c.cache.problems) * per_problem_bytes / c.cache.median * 1e-9,
                  i == square || i == by_m || (i == packed && packed_choice == cpu::SmallPacked::kFlat) ? "<" : "");
    }
    rows->push_back({cpu::this_cpu_tuning_key(), table->isa, int(sizeof(T)), s, candidates[square].blocking,
                     candidates[square].prefetch, candidates[square].vectors, candidates[by_m].prefetch,
                     packed_choice});
  }
}

/// Rows are grouped by CPU in kTuningKeys' order.
int key_rank(std::string const& cpu) {
  return int(std::find(std::begin(cpu::kTuningKeys), std::end(cpu::kTuningKeys), cpu) - std::begin(cpu::kTuningKeys));
}

/// The committed table with `tuned` in place of its rows for the same cpu, isa, dtype and size.
/// `note` replaces the comment blocks of `cpu` ("# cpu: ..." and its "#   " lines) when every size
/// of both precisions was tuned (`whole`), and follows them otherwise.
std::string merged_table(std::vector<cpu::SmallBlockingRow> const& tuned, std::string const& cpu,
                         std::string const& note, bool whole) {
  std::istringstream in{std::string(cpu::small_blocking_csv())};
  std::string line, comments;
  bool in_cpu_block = false;
  while (std::getline(in, line) && line.rfind('#', 0) == 0) {
    if (line.rfind("#   ", 0) != 0) in_cpu_block = line.rfind("# " + cpu + ":", 0) == 0;
    if (!in_cpu_block || !whole) comments += line + '\n';
  }
  std::vector<cpu::SmallBlockingRow> rows;
  for (cpu::SmallBlockingRow const& row : cpu::small_blocking_table()) {
    bool const replaced = std::any_of(tuned.begin(), tuned.end(), [&](cpu::SmallBlockingRow const& t) {
      return t.cpu == row.cpu && t.isa == row.isa && t.element_bytes == row.element_bytes && t.size == row.size;
    });
    if (!replaced) rows.push_back(row);
  }
  rows.insert(rows.end(), tuned.begin(), tuned.end());
  std::stable_sort(rows.begin(), rows.end(), [](cpu::SmallBlockingRow const& x, cpu::SmallBlockingRow const& y) {
    if (x.cpu != y.cpu) return key_rank(x.cpu) < key_rank(y.cpu);
    if (x.isa != y.isa) return x.isa > y.isa;
    if (x.element_bytes != y.element_bytes) return x.element_bytes > y.element_bytes;
    return x.size < y.size;
  });
  std::string out = comments + note + std::string(cpu::kSmallBlockingHeader) + '\n';
  for (cpu::SmallBlockingRow const& row : rows) out += cpu::format_small_blocking_row(row) + '\n';
  return out;
}

}  // namespace

int run_batched_cpu_tune(Options const& o) {
  MachineInfo const machine = collect_machine_info(o.device, false);
  if (cpu::small_kernels_for_this_cpu<double>() == nullptr) {
    std::printf("gemmkit-bench batched --cpu --tune: this CPU has neither AVX-512 nor AVX2+FMA\n");
    return 0;
  }
  std::string const cpu = cpu::this_cpu_tuning_key();
  if (!o.tune_out.empty() && !cpu::is_tuning_key(cpu)) {
    std::fprintf(stderr, "gemmkit-bench: the table keys rows by vendor and family; this CPU is none of its keys\n");
    return 2;
  }
  std::vector<std::int64_t> sizes = o.n;
  if (sizes.empty()) {
    for (int s = 1; s <= cpu::kSmallMax; ++s) sizes.push_back(s);
  }
  for (std::int64_t s : sizes) {
    if (s < 1 || s > cpu::kSmallMax) {
      std::fprintf(stderr, "gemmkit-bench: --cpu --tune sizes are 1..%d\n", cpu::kSmallMax);
      return 2;
    }
  }
  std::int64_t const bytes = o.bytes > 0 ? o.bytes : (std::int64_t(1) << 30);  // the benchmark's size: 256 MiB picked differently
  int const reps = o.reps > 0 ? o.reps : 11;
  std::vector<cpu::SmallBlockingRow> rows;
  std::printf("%-5s %4s %-6s %-9s %3s %-8s %-6s %10s %8s %8s   (by_m: m x m/2 x 2m, above %d rows m x 16 x 8; cache: %lld KiB)\n",
              "dtype", "n", "kernel", "blocking", "nb", "prefetch", "vectors", "ms median", "GB/s", "GB/s $",
              cpu::kPrefetchMaxRows, static_cast<long long>(kCacheBytes >> 10));
  bool const f64 = o.dtypes.empty() || std::find(o.dtypes.begin(), o.dtypes.end(), Dtype::kF64) != o.dtypes.end();
  bool const f32 = o.dtypes.empty() || std::find(o.dtypes.begin(), o.dtypes.end(), Dtype::kF32) != o.dtypes.end();
  if (f64) tune_precision<double>("f64", sizes, bytes, reps, &rows);
  if (f32) tune_precision<float>("f32", sizes, bytes, reps, &rows);
  char date[16] = "";
  std::time_t const now = std::time(nullptr);
  std::strftime(date, sizeof date, "%Y-%m-%d", std::gmtime(&now));
  bool const whole = o.n.empty() && o.dtypes.empty();
  std::string sizes_tuned;
  for (std::int64_t size : sizes) {
    if (!sizes_tuned.empty()) sizes_tuned += ' ';
    sizes_tuned += std::to_string(size);
  }
  std::string const what = whole ? "tuned " : "sizes " + sizes_tuned + " retuned ";
  std::string const note = "# " + cpu + ": " + what + "on " + machine.cpu_model + ", " + date +
                           " (median of " + std::to_string(reps) + " passes over " + std::to_string(bytes >> 20) +
                           " MiB,\n#   one thread, candidates taking turns; the default kept unless another's median time over it, round\n#   by round, is over " +
                           std::to_string(int(kKeepDefaultWithin * 100)) + " % faster; within that of the pick, the fastest over " +
                           std::to_string(kCacheBytes >> 10) + " KiB\n#   if it is over " +
                           std::to_string(int(kKeepDefaultWithin * 100)) + " % faster there).\n";
  std::string const table = merged_table(rows, cpu, note, whole);
  return print_and_write_table(table, o.tune_out, table);
}

}  // namespace gemmkit::bench
