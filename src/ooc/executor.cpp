/*! \file
    \brief The host-resident GEMM's executor on the CUDA runtime: which operands go through the pinned
    ring, the budget and plan of a call, and the workers (worker.hpp) sharing a BlockQueue.
*/
#include "ooc/executor.hpp"

#include "base/device.hpp"
#include "base/cuda_check.hpp"
#include "ooc/block_queue.hpp"
#include "ooc/cuda_resources.hpp"
#include "ooc/device_layout.hpp"
#include "ooc/worker.hpp"
#include "registry/gemm_variant.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace gemmkit::ooc {

void ExecutorCacheDeleter::operator()(ExecutorCache* cache) const { delete cache; }
ExecutorCachePtr make_executor_cache() { return ExecutorCachePtr(new ExecutorCache); }

namespace {

// ---- the call -----------------------------------------------------------------------------------

/// Emulated blocks against the in-core FP64 rate the plan models: the emulation ran 1.35x / 1.43x cuBLAS's
/// DGEMM at 8192^3 / 16384^3 on the H200 (bench/results/h200/emulation.jsonl), which a rate of 1.5x with
/// half of it at depth 768 fits; its per-element reconstruction makes thin K chunks costlier than natively.
constexpr double kEmulatedRate = 1.5;
constexpr double kEmulatedDepthForHalfRate = 768;

/// True when [pointer, pointer + bytes) is page-locked host memory the DMA engines can use.
bool is_pinned(void const* pointer, std::size_t bytes) {
  for (char const* at : {static_cast<char const*>(pointer), static_cast<char const*>(pointer) + bytes - 1}) {
    cudaPointerAttributes attributes{};
    if (cudaPointerGetAttributes(&attributes, at) != cudaSuccess) {
      cudaGetLastError();
      return false;
    }
    if (attributes.type != cudaMemoryTypeHost) return false;
  }
  return true;
}

/// Bytes spanned by a column-major rows x cols matrix with leading dimension ld.
std::size_t span_bytes(std::int64_t rows, std::int64_t cols, std::int64_t ld, std::size_t element) {
  return (std::size_t(cols - 1) * std::size_t(ld) + std::size_t(rows)) * element;
}

/// Which operands go through the pinned ring: all when asked (kPageable), else those the runtime
/// does not know as page-locked.
struct Staging {
  bool a = false, b = false, c = false;
  bool any() const { return a || b || c; }
};
Staging staging_for(GemmArguments const& args, HostMemory memory) {
  GemmProblem const& p = args.problem;
  std::size_t const e = size_of(p.dtype);
  if (memory == HostMemory::kPageable) return {true, true, true};
  if (memory == HostMemory::kPinned) return {};
  return {!is_pinned(args.A, span_bytes(p.a_rows(), p.a_cols(), p.lda, e)),
          !is_pinned(args.B, span_bytes(p.b_rows(), p.b_cols(), p.ldb, e)),
          !is_pinned(args.C, span_bytes(p.m, p.n, p.ldc, e))};
}

/// CPU threads per worker that pack pageable panels (and as many copying C out).
int staging_threads_for(ExecutorOptions const& options) {
  unsigned const cores = std::max(1u, std::thread::hardware_concurrency());
  std::size_t const workers = std::max<std::size_t>(options.devices.size(), 1);
  return options.staging_threads > 0 ? options.staging_threads
                                     : int(std::clamp<unsigned>(cores / unsigned(2 * workers), 1u, 8u));
}

}  // namespace

int pipeline_host_threads(GemmArguments const& args, ExecutorOptions const& options) {
  int const workers = int(options.devices.size());
  Staging const staged = staging_for(args, options.host_memory);
  int const per_worker = (staged.a || staged.b ? staging_threads_for(options) : 0) + (staged.c ? staging_threads_for(options) : 0);
  return workers * (1 + per_worker);
}

gk_status execute(GemmArguments const& args, ExecutorOptions const& requested, ExecutorCache* cache, std::string* error,
                  ExecutionReport* report) {
  GemmProblem const& p = args.problem;
  // An emulated block is not computed in column pieces: each piece would make the whole A panel's residues again.
  ExecutorOptions options = requested;
  if (options.emulation_kernel != nullptr) options.store_sub_blocks = 1;
  auto fail = [&](gk_status status, std::string message) {
    *error = std::move(message);
    return status;
  };
  if (p.batch != 1 || p.pointer_array || p.m <= 0 || p.n <= 0 || p.k <= 0) {
    return fail(GK_INTERNAL_ERROR, "the host-resident executor runs single problems with m, n, k > 0");
  }
  if (options.kernels == nullptr) return fail(GK_INTERNAL_ERROR, "no kernel registry for the host-resident GEMM");
  if (options.devices.empty()) return fail(GK_INVALID_ARGUMENT, "no devices to run the host-resident GEMM on");
  int const count = device_count();
  for (int d : options.devices) {
    if (d < 0 || d >= count) {
      return fail(GK_INVALID_ARGUMENT, "device " + std::to_string(d) + " does not exist (" + std::to_string(count) + " usable)");
    }
  }
  int const level = int(options.level);
  if (level < 1 || level > 4) return fail(GK_INVALID_ARGUMENT, "pipeline level " + std::to_string(level) + " is not 1..4");
  if (options.staging_slots < 1 || options.staging_slot_bytes < (std::size_t(1) << 16)) {
    return fail(GK_INVALID_ARGUMENT, "the staging ring needs at least one slot of 64 KiB");
  }

  std::size_t const e = size_of(p.dtype);
  Staging const staging = staging_for(args, options.host_memory);
  bool const staged_a = staging.a, staged_b = staging.b, staged_c = staging.c;

  ExecutorCache local_cache;
  ExecutorCache& buffers = cache != nullptr ? *cache : local_cache;
  std::size_t const workers = options.devices.size();
  while (buffers.workers.size() < workers) buffers.workers.push_back(std::make_unique<detail::WorkerBuffers>());

  int caller_device = -1;
  cudaGetDevice(&caller_device);
  // Budget per worker: the caller's, else 90% of what the device has free (counting what this
  // cache already holds there), shared by the workers on that device.
  std::size_t budget = options.device_budget;
  if (budget == 0) {
    budget = SIZE_MAX;
    for (std::size_t w = 0; w < workers; ++w) {
      int const d = options.devices[w];
      std::size_t free_bytes = 0, total = 0;
      if (cudaSetDevice(d) != cudaSuccess || cudaMemGetInfo(&free_bytes, &total) != cudaSuccess) {
        std::string const text = cuda_error_text(cudaGetLastError(), "cudaMemGetInfo");
        if (caller_device >= 0) cudaSetDevice(caller_device);
        return fail(GK_CUDA_ERROR, "device " + std::to_string(d) + ": " + text);
      }
      std::size_t held = 0;
      std::size_t sharing = 0;
      for (std::size_t v = 0; v < workers; ++v) {
        if (options.devices[v] != d) continue;
        ++sharing;
        if (buffers.workers[v]->device == d) held += buffers.workers[v]->arena_bytes;
      }
      budget = std::min(budget, std::size_t(double(free_bytes + held) * 0.9) / sharing);
    }
  }
  if (caller_device >= 0) cudaSetDevice(caller_device);

  PlanRequest request;
  request.m = p.m, request.n = p.n, request.k = p.k;
  request.element_bytes = int(e);
  request.device_budget = planning_budget(budget);
  request.reads_c = args.beta != 0.0;
  request.granule = options.granule;
  request.store_sub_blocks = level >= 4 ? std::max(options.store_sub_blocks, 1) : 1;
  request.workers = int(workers);
  request.rates = executor_rates(planning_machine(), int(e), staged_a || staged_b, staged_c);
  if (options.emulation_kernel != nullptr) {
    request.rates.device_flops *= kEmulatedRate;
    request.rates.depth_for_half_rate = kEmulatedDepthForHalfRate;
  }
  auto const plan_for = [&] {
    return options.forced_tile > 0 ? plan_forced_tile(request, options.forced_tile) : make_plan(request);
  };
  Plan plan = plan_for();
  // The emulation's workspace (its tile's residues and int32 products) comes out of the same budget: a plan
  // that leaves too little is made again within what remains.
  for (int attempt = 0; options.emulation_kernel != nullptr && plan.error.empty() && attempt < 3; ++attempt) {
    GemmProblem tile = p;
    tile.m = plan.tile_rows, tile.n = plan.tile_cols, tile.k = plan.tile_depth;
    std::size_t const workspace = options.emulation_kernel->workspace_bytes(tile);
    if (plan.device_bytes + workspace <= request.device_budget) break;
    if (workspace >= request.device_budget) break;  // the workers' set-up says what does not fit
    request.device_budget -= workspace;
    plan = plan_for();
  }
  if (!plan.error.empty()) return fail(GK_ALLOCATION_FAILED, "host-resident plan: " + plan.error);

  std::vector<std::int64_t> block_first_unit;
  for (std::size_t u = 0; u < plan.units.size(); ++u) {
    if (plan.units[u].first_chunk) block_first_unit.push_back(std::int64_t(u));
  }
  BlockQueue queue(std::int64_t(block_first_unit.size()), int(workers));
  detail::Failure failure;
  std::atomic<bool> c_touched{false};
  int const staging_threads = staging_threads_for(options);
  detail::Job const job{args,     options,         plan,  block_first_unit, staged_a,  staged_b,
                        staged_c, staging_threads, queue, failure,          c_touched, detail::Clock::now()};

  // Every worker sets up (allocations included) before any starts, so a failure there leaves C as it was.
  std::vector<std::unique_ptr<detail::Worker>> pool;
  for (std::size_t w = 0; w < workers; ++w) {
    pool.push_back(std::make_unique<detail::Worker>(job, int(w), *buffers.workers[w]));
  }
  std::mutex gate_mutex;
  std::condition_variable gate;
  std::size_t ready = 0;
  auto body = [&](std::size_t w) {
    bool const ok = pool[w]->set_up(budget);
    {
      std::unique_lock<std::mutex> lock(gate_mutex);
      ++ready;
      gate.notify_all();
      gate.wait(lock, [&] { return ready == workers; });
    }
    if (ok && !failure.raised()) pool[w]->run();
  };
  std::vector<std::thread> threads;
  for (std::size_t w = 1; w < workers; ++w) threads.emplace_back(body, w);
  body(0);  // the caller's thread serves the first device (its thread-local handles persist)
  for (std::thread& t : threads) t.join();
  if (caller_device >= 0) cudaSetDevice(caller_device);

  if (options.timeline != nullptr) {
    for (auto& worker : pool) worker->collect_timeline(options.timeline);
  }
  if (report != nullptr) {
    report->plan = plan;
    report->staged_a = staged_a, report->staged_b = staged_b, report->staged_c = staged_c;
    report->blocks_per_worker.clear();
    report->panel_loads_per_worker.clear();
    for (auto& worker : pool) {
      report->blocks_per_worker.push_back(worker->blocks());
      report->panel_loads_per_worker.push_back(worker->panel_loads());
    }
    report->kernel = pool.front()->kernel_id();
  }
  pool.clear();  // streams and events go before the error is read back
  if (failure.raised()) {
    std::string message = failure.message();
    if (c_touched.load()) message += "; C is partly updated (the blocks copied back before the failure)";
    return fail(failure.status(), message);
  }
  return GK_SUCCESS;
}

}  // namespace gemmkit::ooc
