/*! \file
    \brief The CPU share: the split rule, its bookkeeping, and the two sides run side by side.
*/
#include "ooc/cpu_share.hpp"

#include "registry/registry.hpp"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <thread>
#include <vector>

namespace gemmkit::ooc {

std::int64_t cpu_columns(std::int64_t n, ShareState const& state, int devices, std::int64_t granule) {
  if (state.balanced && state.last_n == n && state.last_cpu_columns >= 0) return state.last_cpu_columns;
  double const cpu = state.cpu_flops > 0 ? state.cpu_flops : kFirstCpuFlops;
  double const gpu = state.gpu_flops > 0 ? state.gpu_flops : kFirstGpuFlopsPerDevice * std::max(devices, 1);
  double const share = cpu / (cpu + gpu);
  std::int64_t const columns =
      std::min(std::int64_t(std::llround(share * double(n) / double(granule))) * granule, n - granule);
  return columns < granule ? 0 : columns;
}

void record_share(ShareState& state, std::int64_t m, std::int64_t n, std::int64_t k, std::int64_t cpu_cols,
                  double cpu_seconds, double gpu_seconds) {
  double const per_column = 2.0 * double(m) * double(k);
  if (cpu_cols > 0 && cpu_seconds > 0) state.cpu_flops = per_column * double(cpu_cols) / cpu_seconds;
  if (n - cpu_cols > 0 && gpu_seconds > 0) state.gpu_flops = per_column * double(n - cpu_cols) / gpu_seconds;
  double const longer = std::max(cpu_seconds, gpu_seconds);
  state.balanced = cpu_cols > 0 && longer > 0 && std::abs(cpu_seconds - gpu_seconds) < kBalanceThreshold * longer;
  state.last_n = n;
  state.last_cpu_columns = cpu_cols;
}

gk_status execute_with_cpu_share(GemmArguments const& args, ExecutorOptions const& options, ExecutorCache* cache,
                                 ShareState* state, std::string* error, ExecutionReport* report) {
  using Clock = std::chrono::steady_clock;
  GemmProblem const& p = args.problem;
  std::int64_t const granule = std::max<std::int64_t>(options.granule, 1);
  std::int64_t cpu_cols = 0;
  if (options.cpu_fraction > 0) {
    cpu_cols = std::min(p.n, std::int64_t(std::llround(options.cpu_fraction * double(p.n))));
  } else {
    cpu_cols = cpu_columns(p.n, *state, int(options.devices.size()), granule);
  }
  // The GPUs take C's first columns, the CPU the last ones: op(B)'s columns [n - cpu_cols, n).
  std::int64_t const gpu_cols = p.n - cpu_cols;
  std::size_t const e = size_of(p.dtype);
  GemmArguments cpu = args;
  cpu.problem.n = cpu_cols;
  std::size_t const b_offset = is_transposed(p.trans_b) ? std::size_t(gpu_cols) : std::size_t(gpu_cols) * std::size_t(p.ldb);
  cpu.B = static_cast<char const*>(args.B) + b_offset * e;
  cpu.C = static_cast<char*>(args.C) + std::size_t(gpu_cols) * std::size_t(p.ldc) * e;
  GemmArguments gpu = args;
  gpu.problem.n = gpu_cols;

  GemmVariant const* cpu_variant = cpu_cols > 0 ? Registry::instance().select(cpu.problem, Platform::kCpu) : nullptr;
  if (cpu_cols > 0 && cpu_variant == nullptr) {
    *error = std::string("no CPU variant for the CPU share (") + to_string(p.dtype) + ")";
    return GK_NOT_SUPPORTED;
  }
  gk_status cpu_status = GK_SUCCESS;
  double cpu_seconds = 0;
  std::thread cpu_side;
  if (cpu_cols > 0) {
    cpu_side = std::thread([&] {
      Clock::time_point const start = Clock::now();
      std::vector<unsigned char> workspace(cpu_variant->workspace_bytes(cpu.problem));
      cpu_status = cpu_variant->run(cpu, workspace.empty() ? nullptr : workspace.data(), ExecutionContext{});
      cpu_seconds = std::chrono::duration<double>(Clock::now() - start).count();
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
  if (report != nullptr) {
    report->cpu_columns = cpu_cols;
    report->cpu_seconds = cpu_seconds;
    report->gpu_seconds = gpu_seconds;
  }
  if (gpu_status != GK_SUCCESS) {
    *error = gpu_error + (cpu_cols > 0 && cpu_status == GK_SUCCESS ? "; the CPU share's columns of C were computed" : "");
    return gpu_status;
  }
  if (cpu_status != GK_SUCCESS) {
    *error = "the CPU share (" + cpu_variant->info().id + ") failed; the GPU part's columns of C were computed";
    return cpu_status;
  }
  if (options.cpu_fraction <= 0) record_share(*state, p.m, p.n, p.k, cpu_cols, cpu_seconds, gpu_seconds);
  return GK_SUCCESS;
}

}  // namespace gemmkit::ooc
