/*! \file
    \brief `batched --cpu --tune`: the tuner of the CPU small kernels' blocking. For each precision
           and square size, a packed batch of fresh random operands (beta = 1) runs every blocking's
           kernel on one thread; the median of the passes picks the table's row
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
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace gemmkit::bench {

namespace {

/// A balanced blocking within this fraction of the fastest keeps the row: the VM's passes of one
/// kernel differ by up to 2 % (three blockings that compile alike at 2 x 2 x 2 f64: 1.8 % apart),
/// and a flip on noise would only churn the table.
constexpr double kKeepBalancedWithin = 0.03;

/// Median seconds of `reps` passes of each blocking of size s over `count` packed problems.
template <typename T>
std::vector<Stats> time_blockings(cpu::SmallKernelTable<T> const& table, int s, std::int64_t count, int reps) {
  std::int64_t const area = std::int64_t(s) * s;
  std::size_t const elements = std::size_t(count * area);
  Buffer const a_buffer = allocate_aligned(elements * sizeof(T));
  Buffer const b_buffer = allocate_aligned(elements * sizeof(T));
  Buffer const c_buffer = allocate_aligned(elements * sizeof(T));
  std::vector<Stats> out;
  if (!a_buffer || !b_buffer || !c_buffer) return out;
  T* const a = static_cast<T*>(a_buffer.get());
  T* const b = static_cast<T*>(b_buffer.get());
  T* const c = static_cast<T*>(c_buffer.get());
  fill_random(a, elements, 11 + s);
  fill_random(b, elements, 23 + s);
  fill_random(c, elements, 37 + s);
  // beta = 1 with alpha = 1 grows C pass by pass; alpha = 0.5 and beta = 0.5 keep it bounded.
  T const alpha = T(0.5), beta = T(0.5);
  for (int blocking = 0; blocking < cpu::kSmallBlockings; ++blocking) {
    cpu::SmallGemmFn<T> const kernel = table.square_blocking[blocking][s];
    if (blocking > 0 && table.square_block_columns[blocking][s] == table.square_block_columns[0][s]) {
      out.push_back(Stats{});  // splits as balanced does: nothing to choose
      continue;
    }
    std::vector<double> seconds;
    for (int rep = 0; rep <= reps; ++rep) {  // rep 0 warms up
      auto const start = std::chrono::steady_clock::now();
      kernel(count, s, s, alpha, a, s, area, b, s, area, beta, c, s, area);
      double const elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
      if (rep > 0) seconds.push_back(elapsed);
    }
    out.push_back(summarize(seconds));
  }
  return out;
}

template <typename T>
void tune_precision(char const* dtype, std::vector<std::int64_t> const& sizes, std::int64_t bytes, int reps,
                    std::ostringstream* table_rows) {
  cpu::SmallKernelTable<T> const* table = cpu::small_kernels_for_this_cpu<T>();
  if (table == nullptr) return;
  for (std::int64_t size : sizes) {
    int const s = int(size);
    std::int64_t const per_problem = 3 * std::int64_t(s) * s * std::int64_t(sizeof(T));
    std::int64_t const count = std::max<std::int64_t>(1, bytes / per_problem);
    std::vector<Stats> const times = time_blockings<T>(*table, s, count, reps);
    if (times.size() != std::size_t(cpu::kSmallBlockings)) {
      std::printf("%-5s %4d  allocation failed\n", dtype, s);
      continue;
    }
    double const moved = double(count) * 4.0 * double(s) * s * double(sizeof(T));  // A, B read; C read, written
    auto const measured = [&](int blocking) { return blocking == 0 || !std::isnan(times[blocking].median); };
    int best = 0;
    for (int blocking = 1; blocking < cpu::kSmallBlockings; ++blocking) {
      if (measured(blocking) && times[blocking].median < times[best].median) best = blocking;
    }
    int const balanced = int(cpu::SmallBlocking::kBalanced);
    if (times[balanced].median <= times[best].median * (1.0 + kKeepBalancedWithin)) best = balanced;
    for (int blocking = 0; blocking < cpu::kSmallBlockings; ++blocking) {
      if (!measured(blocking)) continue;
      std::printf("%-5s %4d %-9s %3d %10.3f %8.2f %s\n", dtype, s, cpu::to_string(cpu::SmallBlocking(blocking)),
                  table->square_block_columns[blocking][s], times[blocking].median * 1e3,
                  moved / times[blocking].median * 1e-9, blocking == best ? "<" : "");
    }
    *table_rows << table->isa << ',' << dtype << ',' << s << ',' << cpu::to_string(cpu::SmallBlocking(best)) << '\n';
  }
}

}  // namespace

int run_batched_cpu_tune(Options const& o) {
  MachineInfo const machine = collect_machine_info(o.device, false);
  if (cpu::small_kernels_for_this_cpu<double>() == nullptr) {
    std::printf("gemmkit-bench batched --cpu --tune: this CPU has neither AVX-512 nor AVX2+FMA\n");
    return 0;
  }
  bool const whole = o.n.empty() && o.dtypes.empty();
  if (!o.tune_out.empty() && !whole) {
    std::fprintf(stderr, "gemmkit-bench: --tune-out writes a whole table: run --cpu --tune without --n and --dtype\n");
    return 2;
  }
  std::vector<std::int64_t> sizes = o.n;
  if (sizes.empty()) {
    for (int s = 1; s <= cpu::kSmallMax; ++s) sizes.push_back(s);
  }
  for (std::int64_t s : sizes) {
    if (s > cpu::kSmallMax) {
      std::fprintf(stderr, "gemmkit-bench: --cpu --tune sizes are 1..%d\n", cpu::kSmallMax);
      return 2;
    }
  }
  std::int64_t const bytes = o.bytes > 0 ? o.bytes : (std::int64_t(256) << 20);
  int const reps = o.reps > 0 ? o.reps : 5;
  std::ostringstream rows;
  std::printf("%-5s %4s %-9s %3s %10s %8s\n", "dtype", "n", "blocking", "nb", "ms median", "GB/s");
  bool const f64 = o.dtypes.empty() || std::find(o.dtypes.begin(), o.dtypes.end(), Dtype::kF64) != o.dtypes.end();
  bool const f32 = o.dtypes.empty() || std::find(o.dtypes.begin(), o.dtypes.end(), Dtype::kF32) != o.dtypes.end();
  if (f64) tune_precision<double>("f64", sizes, bytes, reps, &rows);
  if (f32) tune_precision<float>("f32", sizes, bytes, reps, &rows);
  std::ostringstream table;
  table << "# Which blocking (SmallBlocking in small_kernels.hpp) each square size of the CPU small kernels runs,\n"
        << "# per ISA and precision; sizes without a row run \"balanced\". Written by `gemmkit-bench batched --cpu --tune`\n"
        << "# (median of " << reps << " passes over " << (bytes >> 20) << " MiB of packed operands, one thread, balanced\n"
        << "# kept unless another is over " << int(kKeepBalancedWithin * 100) << " % faster) on " << machine.cpu_model << ", commit "
        << machine.commit << ".\n"
        << "isa,dtype,n,blocking\n"
        << rows.str();
  std::printf("\n%s", table.str().c_str());
  if (!o.tune_out.empty()) {
    std::ofstream out(o.tune_out);
    out << table.str();
    if (!out) {
      std::fprintf(stderr, "gemmkit-bench: cannot write %s\n", o.tune_out.c_str());
      return 2;
    }
    std::printf("written to %s\n", o.tune_out.c_str());
  }
  return 0;
}

}  // namespace gemmkit::bench
