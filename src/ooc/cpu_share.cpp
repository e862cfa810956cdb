/*! \file
    \brief The CPU share: the split rule, its bookkeeping, the first call's probe, and the two sides
    run side by side.
*/
#include "ooc/cpu_share.hpp"

#include "cpu/cpu_blas.hpp"
#include "registry/registry.hpp"

#include <cblas.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <thread>
#include <vector>

namespace gemmkit::ooc {

namespace {

std::string rates_text(double cpu, double gpu) {
  char text[96];
  std::snprintf(text, sizeof text, "CPU %.3g GFLOP/s, GPUs %.3g GFLOP/s", cpu / 1e9, gpu / 1e9);
  return text;
}

/// OpenBLAS's thread count is process-wide: set for the CPU side, restored after it.
class BlasThreads {
 public:
  explicit BlasThreads(int threads) : previous_(openblas_get_num_threads()) { openblas_set_num_threads(threads); }
  ~BlasThreads() { openblas_set_num_threads(previous_); }
  BlasThreads(BlasThreads const&) = delete;
  BlasThreads& operator=(BlasThreads const&) = delete;

 private:
  int previous_;
};

}  // namespace

std::int64_t cpu_columns(std::int64_t n, ShareState const& state, std::int64_t granule, std::string* why) {
  auto say = [&](std::string text) {
    if (why != nullptr) *why = std::move(text);
  };
  if (state.off && state.last_n == n) {
    say(state.note);
    return 0;
  }
  if (state.balanced && state.last_n == n && state.last_cpu_columns >= 0) {
    say("kept: the last split was balanced");
    return state.last_cpu_columns;
  }
  if (state.cpu_flops <= 0) {
    say("probe: the GPUs run all of C while the CPU's rate is measured");
    return 0;
  }
  double const gpu = state.gpu_flops > 0 ? state.gpu_flops : state.gpu_alone_flops;
  if (gpu <= 0) {
    say("probe: the GPUs' rate is not measured yet");
    return 0;
  }
  double const share = state.cpu_flops / (state.cpu_flops + gpu);
  std::int64_t const columns =
      std::min(std::int64_t(std::floor(share * double(n) / double(granule))) * granule, n - granule);
  if (columns < granule) {
    say("off: the CPU's share is under one " + std::to_string(granule) + "-column granule (" +
        rates_text(state.cpu_flops, gpu) + ")");
    return 0;
  }
  say("split from measured rates (" + rates_text(state.cpu_flops, gpu) + ")");
  return columns;
}

void record_share(ShareState& state, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t cpu_cols,
                  double cpu_seconds, double gpu_seconds) {
  double const per_column = 2.0 * double(m) * double(k);
  if (state.last_n != n) state.off = false;  // another size is judged afresh
  if (cpu_cols == 0) {
    if (gpu_seconds > 0) state.gpu_alone_flops = per_column * double(n) / gpu_seconds;
  } else {
    if (cpu_seconds > 0) state.cpu_flops = per_column * double(cpu_cols) / cpu_seconds;
    if (n - cpu_cols > 0 && gpu_seconds > 0) state.gpu_flops = per_column * double(n - cpu_cols) / gpu_seconds;
    // No gain: the split call took at least as long as the GPUs alone take for all of C.
    double const together = std::max(cpu_seconds, gpu_seconds);
    double const alone = state.gpu_alone_flops > 0 ? per_column * double(n) / state.gpu_alone_flops : 0;
    if (alone > 0 && together >= alone) {
      state.off = true;
      char text[160];
      std::snprintf(text, sizeof text, "off: a %lld-column CPU share took %.1f ms, the GPUs alone %.1f ms",
                    (long long)cpu_cols, together * 1e3, alone * 1e3);
      state.note = text;
    }
  }
  double const longer = std::max(cpu_seconds, gpu_seconds);
  state.balanced = cpu_cols > 0 && longer > 0 && std::abs(cpu_seconds - gpu_seconds) < kBalanceThreshold * longer;
  state.last_n = n;
  state.last_cpu_columns = cpu_cols;
}

void record_probe(ShareState& state, double flops, double seconds) {
  if (flops > 0 && seconds > 0) state.cpu_flops = flops / seconds;
}

int cpu_share_threads(int cores, int pipeline_threads) {
  int const left = cores - pipeline_threads;
  return left >= kMinCpuShareThreads ? left : 0;
}

gk_status execute_with_cpu_share(GemmArguments const& args, ExecutorOptions const& options, ExecutorCache* cache,
                                 ShareState* state, std::string* error, ExecutionReport* report) {
  using Clock = std::chrono::steady_clock;
  GemmProblem const& p = args.problem;
  if (options.kernels == nullptr) {
    *error = "no kernel registry for the host-resident GEMM";
    return GK_INTERNAL_ERROR;
  }
  bool const fixed = options.cpu_fraction > 0;
  int const cores = int(std::max(1u, std::thread::hardware_concurrency()));
  int const pipeline_threads = pipeline_host_threads(args, options);
  // The CPU BLAS never competes with the pipeline's own threads for cores (a fixed share still
  // gets at least one thread: tests ask for it on any host).
  int threads = options.cpu_threads > 0 ? options.cpu_threads : cpu_share_threads(cores, pipeline_threads);
  if (fixed) threads = std::max(threads, 1);
  std::string note;
  std::int64_t cpu_cols = 0;
  bool probe = false;
  if (fixed) {
    cpu_cols = std::min(p.n, std::int64_t(std::llround(options.cpu_fraction * double(p.n))));
    note = "fixed fraction";
  } else if (threads == 0) {
    note = "off: the pipeline keeps " + std::to_string(pipeline_threads) + " of " + std::to_string(cores) +
           " CPU threads busy";
  } else {
    cpu_cols = cpu_columns(p.n, *state, kCpuShareGranule, &note);
    probe = state->cpu_flops <= 0;
  }
  // The GPUs take C's first columns, the CPU the last ones: op(B)'s columns [n - cpu_cols, n).
  std::int64_t const gpu_cols = p.n - cpu_cols;
  std::size_t const e = size_of(p.dtype);
  GemmArguments cpu = args;
  cpu.problem.n = cpu_cols;
  std::size_t const b_offset = is_transposed(p.trans_b) ? std::size_t(gpu_cols) : std::size_t(gpu_cols) * std::size_t(p.ldb);
  cpu.B = static_cast<char const*>(args.B) + b_offset * e;
  cpu.C = static_cast<char*>(args.C) + std::size_t(gpu_cols) * std::size_t(p.ldc) * e;
  // The probe: op(A)'s and op(B)'s top-left corners into a scratch C (beta = 0), the caller's C untouched.
  std::vector<unsigned char> probe_c;
  if (probe) {
    cpu.problem.m = std::min(p.m, kProbeExtent);
    cpu.problem.n = std::min(p.n, kProbeColumns);
    cpu.problem.k = std::min(p.k, kProbeExtent);
    cpu.problem.ldc = cpu.problem.m;
    cpu.B = args.B;
    cpu.beta = 0.0;
    probe_c.resize(std::size_t(cpu.problem.m) * std::size_t(cpu.problem.n) * e);
    cpu.C = probe_c.data();
  }
  GemmArguments gpu = args;
  gpu.problem.n = gpu_cols;

  bool const cpu_runs = cpu_cols > 0 || probe;
  GemmVariant const* cpu_variant =
      cpu_runs ? options.kernels->select(cpu.problem, Platform::kCpu, 0, 0, 0, HostCompute::kCpuOnly) : nullptr;
  if (cpu_runs && cpu_variant == nullptr) {
    *error = std::string("no CPU variant for the CPU share (") + to_string(p.dtype) + ")";
    return GK_NOT_SUPPORTED;
  }
  gk_status cpu_status = GK_SUCCESS;
  double cpu_seconds = 0;
  std::thread cpu_side;
  if (cpu_runs) {
    cpu_side = std::thread([&] {
      BlasThreads const limit(threads);
      std::vector<unsigned char> workspace(cpu_variant->workspace_bytes(cpu.problem));
      // The probe runs twice and keeps the faster: the first also wakes the CPU BLAS's threads and
      // sizes its buffers (one cold call of the probe's shape read 22 GFLOP/s on a host where
      // OpenBLAS runs 101).
      for (int run = 0; run < (probe ? 2 : 1) && cpu_status == GK_SUCCESS; ++run) {
        Clock::time_point const start = Clock::now();
        cpu_status = cpu_variant->run(cpu, workspace.empty() ? nullptr : workspace.data(), ExecutionContext{});
        double const seconds = std::chrono::duration<double>(Clock::now() - start).count();
        cpu_seconds = run == 0 ? seconds : std::min(cpu_seconds, seconds);
      }
    });
  }
  gk_status gpu_status = GK_SUCCESS;
  double gpu_seconds = 0;
  std::string gpu_error;
  if (gpu_cols > 0) {
    Clock::time_point const start = Clock::now();
    gpu_status = execute(gpu, options, cache, &gpu_error, report);
    gpu_seconds = std::chrono::duration<double>(Clock::now() - start).count();
  }
  if (cpu_side.joinable()) cpu_side.join();
  if (gpu_status != GK_SUCCESS) {
    *error = gpu_error + (cpu_cols > 0 && cpu_status == GK_SUCCESS ? "; the CPU share's columns of C were computed" : "");
    return gpu_status;
  }
  if (cpu_status != GK_SUCCESS) {
    *error = "the CPU share (" + cpu_variant->info().id + ") failed" +
             (probe ? std::string() : "; the GPU part's columns of C were computed");
    return cpu_status;
  }
  if (!fixed) {
    if (probe) {
      record_probe(*state, 2.0 * double(cpu.problem.m) * double(cpu.problem.n) * double(cpu.problem.k), cpu_seconds);
      char text[96];
      std::snprintf(text, sizeof text, " (CPU %.3g GFLOP/s on %d threads)", state->cpu_flops / 1e9, threads);
      note += text;
    }
    record_share(*state, p.m, p.n, p.k, cpu_cols, probe ? 0.0 : cpu_seconds, gpu_seconds);
    if (state->off && state->last_cpu_columns == cpu_cols && cpu_cols > 0) note = state->note;
    if (!state->off) state->note = note;
  }
  // A slow CPU BLAS core is the likeliest reason for a small or absent share: say how to fix it.
  if (!fixed && (probe || note.rfind("off", 0) == 0)) {
    if (std::string const hint = cpu::cpu_blas_core_hint(); !hint.empty()) note += "; " + hint;
  }
  if (report != nullptr) {
    report->cpu_columns = cpu_cols;
    report->cpu_seconds = probe ? 0.0 : cpu_seconds;
    report->gpu_seconds = gpu_seconds;
    report->cpu_threads = cpu_runs ? threads : 0;
    report->cpu_share_note = note;
  }
  return GK_SUCCESS;
}

}  // namespace gemmkit::ooc
