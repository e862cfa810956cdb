/*! \file
    \brief gemmkit-bench ooc: host-resident GEMM rows (pinned and pageable, each pipeline level, 1..N
    GPUs, device budgets) next to cuBLASXt (block 8192 and its default) and in-core cuBLAS from the
    same run; JSON lines, a timeline dump of one run, and `ooc --plan`.
*/
#include "ooc_bench.hpp"

#include "json_writer.hpp"
#include "machine_info.hpp"
#include "ooc/cpu_share.hpp"
#include "ooc/executor.hpp"
#include "registry/registry.hpp"
#include "variants/variants.hpp"
#include "options.hpp"
#include "table_printer.hpp"
#include "timing.hpp"
#include "verify.hpp"

#if GEMMKIT_WITH_CUDA
#include <cublasXt.h>
#include <cublas_v2.h>
#include <cuda_runtime.h>
#endif

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <vector>

namespace gemmkit::bench {

namespace {

/// `ooc --plan`: the planner's plan for --m/--n/--k (default 32768) within --budget (default a
/// quarter of the operands' bytes), f64 unless --dtype f32, C loaded unless --beta 0, with the
/// The planning machine's rates (ooc::planning_machine).
int run_ooc_plan(OocOptions const& o) {
  ooc::PlanRequest r;
  r.m = !o.plan_m.empty() ? o.plan_m.front() : (!o.sizes.empty() ? o.sizes.front() : 32768);
  r.n = !o.plan_m.empty() && !o.sizes.empty() ? o.sizes.front() : r.m;
  r.k = !o.plan_k.empty() ? o.plan_k.front() : r.m;
  r.element_bytes = o.dtype == Dtype::kF32 ? 4 : 8;
  r.reads_c = !o.beta_given || o.beta != 0.0;
  double const operands = double(r.element_bytes) * (double(r.m) * r.k + double(r.k) * r.n + double(r.m) * r.n);
  r.device_budget = o.budget > 0 ? std::size_t(o.budget) : std::size_t(operands / 4);
  r.workers = o.gpus.empty() ? 1 : int(o.gpus.front());
  // What the executor plans with at the highest --pipeline level: its rates (pinned unless only
  // --memory pageable) and, at level 4, C stored in column pieces.
  bool const staged = o.memory.size() == 1 && o.memory.front() == "pageable";
  r.rates = ooc::executor_rates(ooc::planning_machine(), r.element_bytes, staged, staged);
  std::int64_t const level = o.levels.empty() ? 4 : *std::max_element(o.levels.begin(), o.levels.end());
  r.store_sub_blocks = level >= 4 ? ooc::ExecutorOptions{}.store_sub_blocks : 1;
  std::printf("host-resident plan: m=%lld n=%lld k=%lld %s, beta %s, device budget %.2f GiB (operands %.2f GiB), %d GPU%s\n"
              "model: H2D %.0f GB/s, D2H %.0f GB/s per GPU, the host %.0f / %.0f GB/s for all, %.0f TFLOP/s (the executor's rates)\n",
              (long long)r.m, (long long)r.n, (long long)r.k, r.element_bytes == 8 ? "f64" : "f32", r.reads_c ? "!= 0" : "= 0",
              double(r.device_budget) / (1 << 30), operands / (1 << 30), r.workers, r.workers == 1 ? "" : "s",
              r.rates.h2d_bytes_per_s / 1e9, r.rates.d2h_bytes_per_s / 1e9, r.rates.host_h2d_bytes_per_s / 1e9,
              r.rates.host_d2h_bytes_per_s / 1e9, r.rates.device_flops / 1e12);
  ooc::Plan const plan = ooc::make_plan(r);
  std::printf("%s", plan.describe(12).c_str());
  return plan.error.empty() ? 0 : 1;
}

#if GEMMKIT_WITH_CUDA

/// Host operands of one size: allocated pageable; page-locked (cudaHostRegister) for pinned rows.
template <typename T>
struct HostOperands {
  std::int64_t n = 0;
  std::unique_ptr<T[]> A, B, C;
  bool registered = false;

  std::size_t count() const { return std::size_t(n) * std::size_t(n); }
  std::size_t bytes() const { return count() * sizeof(T); }

  std::string allocate(std::int64_t size) {
    n = size;
    try {
      A.reset(new T[count()]);
      B.reset(new T[count()]);
      C.reset(new T[count()]);
    } catch (std::bad_alloc const&) {
      return "host memory for 3 x " + format("%.1f", double(bytes()) / (1 << 30)) + " GiB";
    }
    // Filled in parallel (fresh values per chunk), first touch spread over the threads.
    std::int64_t const chunks = 256;
#pragma omp parallel for schedule(dynamic)
    for (std::int64_t c = 0; c < 3 * chunks; ++c) {
      T* base = c < chunks ? A.get() : (c < 2 * chunks ? B.get() : C.get());
      std::size_t const begin = count() * std::size_t(c % chunks) / chunks;
      std::size_t const end = count() * std::size_t(c % chunks + 1) / chunks;
      fill_random(base + begin, end - begin, 0x00c0ffeeull + std::uint64_t(c));
    }
    return {};
  }
  std::string set_pinned(bool pinned) {
    if (pinned == registered) return {};
    for (T* p : {A.get(), B.get(), C.get()}) {
      cudaError_t const e = pinned ? cudaHostRegister(p, bytes(), cudaHostRegisterDefault) : cudaHostUnregister(p);
      if (e != cudaSuccess) return cuda_error_text(e, pinned ? "cudaHostRegister" : "cudaHostUnregister");
    }
    registered = pinned;
    return {};
  }
  ~HostOperands() { set_pinned(false); }
};

/// One measured implementation in one configuration.
struct Measurement {
  std::string variant;  ///< gemmkit: host_resident_l<level>; peers: cublasxt_b<block>, cublas_incore
  Stats time;
  std::string error;
  std::string skipped;  ///< why a case that cannot run here did not (not a failure)
  Verification verify;
  ooc::ExecutionReport report;
  double cpu_only_gflops = kNotMeasured;  ///< CPU share rows: the CPU BLAS alone (its columns, else the probe shape)
  std::string h2d_gbs, d2h_gbs;  ///< per GPU, comma-separated: bytes over busy time of its copies (timeline call)
  bool measured() const { return error.empty() && std::isfinite(time.median); }
};

double gflops(std::int64_t n, double ms) { return 2.0 * double(n) * double(n) * double(n) / (ms * 1e6); }

/// Times a synchronous call: `warmup` untimed, then `reps` timed, on the host clock.
Stats time_calls(Call const& call, int warmup, int reps, std::string* error) {
  for (int i = 0; i < warmup; ++i) {
    if (gk_status s = call(); s != GK_SUCCESS) {
      if (error->empty()) *error = gk_status_string(s);
      return {};
    }
  }
  std::vector<double> times;
  for (int i = 0; i < reps; ++i) {
    double ms = 0;
    if (gk_status s = time_host_batch(call, 1, &ms); s != GK_SUCCESS) {
      if (error->empty()) *error = gk_status_string(s);
      return {};
    }
    times.push_back(ms);
  }
  return summarize(times);
}

template <typename T>
Verification verify_result(HostOperands<T> const& ops, double beta, std::vector<T> const& c0_columns,
                           std::vector<std::int64_t> const& cols, std::string const& why) {
  Verification v;
  if (cols.empty()) {
    v.note = why;
    return v;
  }
  GemmProblem p;
  p.dtype = sizeof(T) == 8 ? Dtype::kF64 : Dtype::kF32;
  p.m = p.n = p.k = ops.n;
  p.lda = p.ldb = p.ldc = ops.n;
  std::vector<T> c_columns(std::size_t(ops.n) * cols.size());
  for (std::size_t j = 0; j < cols.size(); ++j) {
    std::memcpy(c_columns.data() + j * std::size_t(ops.n), ops.C.get() + std::size_t(cols[j]) * std::size_t(ops.n),
                std::size_t(ops.n) * sizeof(T));
  }
  return verify_columns<T>(p, 1.0, beta, ops.A.get(), ops.B.get(), cols, beta != 0.0 ? c0_columns.data() : nullptr,
                           c_columns.data());
}

/// In-core cuBLAS on device 0: operands copied to the device first, the GEMM alone timed with events.
template <typename T>
Measurement measure_incore(HostOperands<T> const& ops, OocOptions const& o) {
  Measurement m;
  m.variant = "cublas_incore";
  std::size_t free_bytes = 0, total = 0;
  cudaSetDevice(0);
  cudaMemGetInfo(&free_bytes, &total);
  // Operands past the device's memory are the case the host-resident GEMM exists for: no in-core
  // peer there, and no failure either.
  if (3 * ops.bytes() + (std::size_t(1) << 30) > free_bytes) {
    m.skipped = format("operands (3 x %.1f GiB) past the device's free memory (%.1f GiB): no in-core run",
                       double(ops.bytes()) / (1 << 30), double(free_bytes) / (1 << 30));
    return m;
  }
  T *dA = nullptr, *dB = nullptr, *dC = nullptr;
  cublasHandle_t handle = nullptr;
  cudaEvent_t start = nullptr, stop = nullptr;
  auto cleanup = [&] {
    cudaFree(dA), cudaFree(dB), cudaFree(dC);
    if (handle != nullptr) cublasDestroy(handle);
    if (start != nullptr) cudaEventDestroy(start);
    if (stop != nullptr) cudaEventDestroy(stop);
  };
  if (cudaMalloc(&dA, ops.bytes()) != cudaSuccess || cudaMalloc(&dB, ops.bytes()) != cudaSuccess ||
      cudaMalloc(&dC, ops.bytes()) != cudaSuccess || cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS ||
      cudaEventCreate(&start) != cudaSuccess || cudaEventCreate(&stop) != cudaSuccess ||
      cudaMemcpy(dA, ops.A.get(), ops.bytes(), cudaMemcpyHostToDevice) != cudaSuccess ||
      cudaMemcpy(dB, ops.B.get(), ops.bytes(), cudaMemcpyHostToDevice) != cudaSuccess ||
      cudaMemcpy(dC, ops.C.get(), ops.bytes(), cudaMemcpyHostToDevice) != cudaSuccess) {
    m.error = "in-core cuBLAS setup: " + cuda_error_text(cudaGetLastError(), "CUDA");
    cleanup();
    return m;
  }
  T const alpha = T(1), beta = T(o.beta);
  std::int64_t const n = ops.n;
  auto gemm = [&] {
    cublasStatus_t s;
    if constexpr (sizeof(T) == 8) s = cublasDgemm_64(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, dA, n, dB, n, &beta, dC, n);
    else s = cublasSgemm_64(handle, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, dA, n, dB, n, &beta, dC, n);
    return s == CUBLAS_STATUS_SUCCESS;
  };
  for (int i = 0; i < o.warmup; ++i) gemm();
  std::vector<double> times;
  for (int i = 0; i < o.reps; ++i) {
    cudaEventRecord(start);
    bool const ok = gemm();
    cudaEventRecord(stop);
    float ms = 0;
    if (!ok || cudaEventSynchronize(stop) != cudaSuccess || cudaEventElapsedTime(&ms, start, stop) != cudaSuccess) {
      m.error = "in-core cuBLAS failed";
      break;
    }
    times.push_back(ms);
  }
  m.time = summarize(times);
  cleanup();
  return m;
}

/// cuBLASXt on the first `gpus` devices with a block size (0: its default), straight on host memory.
template <typename T>
Measurement measure_cublasxt(HostOperands<T>& ops, OocOptions const& o, std::vector<int> const& devices,
                             std::int64_t block, std::vector<T> const& c0_columns, std::vector<std::int64_t> const& cols,
                             std::string const& why) {
  Measurement m;
  m.variant = block > 0 ? "cublasxt_b" + std::to_string(block) : "cublasxt_default";
  cublasXtHandle_t xt = nullptr;
  if (cublasXtCreate(&xt) != CUBLAS_STATUS_SUCCESS) {
    m.error = "cublasXtCreate failed";
    return m;
  }
  std::vector<int> list = devices;
  if (cublasXtDeviceSelect(xt, int(list.size()), list.data()) != CUBLAS_STATUS_SUCCESS ||
      (block > 0 && cublasXtSetBlockDim(xt, int(block)) != CUBLAS_STATUS_SUCCESS)) {
    m.error = "cublasXt device or block selection failed (devices repeated?)";
    cublasXtDestroy(xt);
    return m;
  }
  T const alpha = T(1), beta = T(o.beta);
  std::size_t const n = std::size_t(ops.n);
  Call const call = [&] {
    cublasStatus_t s;
    if constexpr (sizeof(T) == 8) {
      s = cublasXtDgemm(xt, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, ops.A.get(), n, ops.B.get(), n, &beta, ops.C.get(), n);
    } else {
      s = cublasXtSgemm(xt, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &alpha, ops.A.get(), n, ops.B.get(), n, &beta, ops.C.get(), n);
    }
    return s == CUBLAS_STATUS_SUCCESS && cudaDeviceSynchronize() == cudaSuccess ? GK_SUCCESS : GK_CUDA_ERROR;
  };
  m.time = time_calls(call, o.warmup, o.reps, &m.error);
  cublasXtDestroy(xt);
  if (m.error.empty() && o.verify && o.beta == 0.0) m.verify = verify_result(ops, o.beta, c0_columns, cols, why);
  return m;
}

/// Per worker, the bytes of its copies on `lane` over the time they took (GB/s, comma-separated):
/// what each GPU's link delivers while the others copy too (seed 004's PCIe contention).
std::string copy_rates(std::vector<ooc::TimelineEvent> const& events, char const* lane) {
  std::map<int, std::pair<double, double>> per_worker;  // worker -> (bytes, ms)
  for (ooc::TimelineEvent const& e : events) {
    if (e.lane != lane || e.bytes <= 0) continue;
    per_worker[e.worker].first += double(e.bytes);
    per_worker[e.worker].second += e.end_ms - e.start_ms;
  }
  std::string rates;
  for (auto const& [worker, sum] : per_worker) {
    if (!rates.empty()) rates += ',';
    rates += format("%.1f", sum.second > 0 ? sum.first / (sum.second * 1e6) : 0.0);
  }
  return rates;
}

/// The FP64 emulation the API's setting would run on device 0 for an n^3 problem (nullptr for f32 or none).
GemmVariant const* emulation_kernel(Dtype dtype, std::int64_t n) {
  int major = 0, minor = 0;
  cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0);
  cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, 0);
  gemmkit::GemmProblem p;
  p.dtype = dtype == Dtype::kF64 ? gemmkit::Dtype::kF64 : gemmkit::Dtype::kF32;
  p.m = p.n = p.k = n;
  p.lda = p.ldb = p.ldc = n;
  return variant_registry().emulation_for(p, major * 10 + minor);
}

/// The rows of one setting: each emulation mode (CPU share off), and each CPU thread count of a share.
std::vector<std::pair<std::string, std::int64_t>> emulation_and_threads(OocOptions const& o, bool cpu_share) {
  std::vector<std::pair<std::string, std::int64_t>> rows;
  if (cpu_share) {
    for (std::int64_t threads : o.cpu_threads) rows.emplace_back("off", threads);
  } else {
    for (std::string const& emulation : o.emulation) rows.emplace_back(emulation, 0);
  }
  return rows;
}

/// gemmkit's host-resident GEMM through the executor the API routes to, its buffers kept between calls.
template <typename T>
Measurement measure_gemmkit(HostOperands<T>& ops, OocOptions const& o, ooc::ExecutorOptions options, bool cpu_share,
                            std::vector<T> const& c0_columns, std::vector<std::int64_t> const& cols,
                            std::string const& why, std::vector<ooc::TimelineEvent>* timeline) {
  Measurement m;
  m.variant = "host_resident_l" + std::to_string(int(options.level)) + (cpu_share ? "_cpushare" : "") +
              (cpu_share && options.cpu_threads > 0 ? "_t" + std::to_string(options.cpu_threads) : "") +
              (options.emulation_kernel == nullptr           ? ""
               : options.fp64_emulation_accurate ? "_emulated_accurate"
                                                 : "_emulated");
  ooc::ExecutorCachePtr cache = ooc::make_executor_cache();
  ooc::ShareState share;  // learned over the warm-up and timed calls, as a context would
  GemmArguments args;
  args.problem.dtype = sizeof(T) == 8 ? gemmkit::Dtype::kF64 : gemmkit::Dtype::kF32;
  args.problem.m = args.problem.n = args.problem.k = ops.n;
  args.problem.lda = args.problem.ldb = args.problem.ldc = ops.n;
  args.alpha = 1.0;
  args.beta = o.beta;
  args.A = ops.A.get(), args.B = ops.B.get(), args.C = ops.C.get();
  Call const call = [&] {
    std::string error;
    gk_status const s = cpu_share ? ooc::execute_with_cpu_share(args, options, cache.get(), &share, &error, &m.report)
                                  : ooc::execute(args, options, cache.get(), &error, &m.report);
    if (s != GK_SUCCESS && m.error.empty()) m.error = error;
    return s;
  };
  m.time = time_calls(call, o.warmup, o.reps, &m.error);
  if (m.error.empty() && o.verify && o.beta == 0.0) m.verify = verify_result(ops, o.beta, c0_columns, cols, why);
  if (m.error.empty() && timeline != nullptr) {
    options.timeline = timeline;
    call();
    m.h2d_gbs = copy_rates(*timeline, "h2d");
    m.d2h_gbs = copy_rates(*timeline, "d2h");
  }
  if (m.measured() && cpu_share) {
    // The CPU alone (nothing else running, all its threads): the rate the share should add. On the
    // columns it took, else (share off) on the probe's shape, so the goal is known either way.
    GemmArguments slice = args;
    std::int64_t const gpu_cols = ops.n - m.report.cpu_columns;
    if (m.report.cpu_columns > 0) {
      slice.problem.n = m.report.cpu_columns;
      slice.B = ops.B.get() + std::size_t(gpu_cols) * std::size_t(ops.n);
      slice.C = ops.C.get() + std::size_t(gpu_cols) * std::size_t(ops.n);
    } else {
      slice.problem.m = slice.problem.k = std::min<std::int64_t>(ops.n, ooc::kProbeExtent);
      slice.problem.n = std::min<std::int64_t>(ops.n, ooc::kProbeColumns);
    }
    if (GemmVariant const* v = variant_registry().select(slice.problem, gemmkit::Platform::kCpu); v != nullptr) {
      // The faster of two calls: the first wakes the CPU BLAS's threads.
      double best_ms = 0;
      for (int run = 0; run < 2; ++run) {
        double ms = 0;
        if (time_host_batch([&] { return v->run(slice, nullptr, ExecutionContext{}); }, 1, &ms) != GK_SUCCESS) break;
        best_ms = run == 0 ? ms : std::min(best_ms, ms);
        m.cpu_only_gflops =
            2.0 * double(slice.problem.m) * double(slice.problem.k) * double(slice.problem.n) / (best_ms * 1e6);
      }
    }
  }
  return m;
}

void write_timeline(std::string const& path, std::string const& case_name, std::vector<ooc::TimelineEvent> const& events) {
  JsonLinesFile file;
  if (std::string e = file.open(path); !e.empty()) {
    std::fprintf(stderr, "gemmkit-bench: %s\n", e.c_str());
    return;
  }
  for (ooc::TimelineEvent const& e : events) {
    JsonObject row;
    row.add_string("case", case_name)
        .add_int("worker", e.worker)
        .add_int("device", e.device)
        .add_string("lane", e.lane)
        .add_string("what", e.what)
        .add_int("block", e.block)
        .add_number("start_ms", e.start_ms)
        .add_number("end_ms", e.end_ms)
        .add_int("bytes", e.bytes);
    file.write(row);
  }
  std::printf("timeline of %s: %zu operations written to %s\n", case_name.c_str(), events.size(), path.c_str());
}

/// The configuration a row was measured in.
struct RowSetting {
  std::int64_t n = 0;
  std::string memory;
  int gpus = 1;
  int level = 0;  ///< 0 for peers
  std::size_t budget_bytes = 0;
  double budget_fraction = 0;
  bool cpu_share = false;
  std::int64_t forced_tile = 0;  ///< 0: the planner's tile
};

class OocReporter {
 public:
  OocReporter(MachineInfo const& machine, OocOptions const& o, JsonLinesFile* json)
      : machine_(machine), o_(o), json_(json),
        table_({{"case", 40, true}, {"TFLOP/s", 8}, {"ms", 9}, {"vs XT", 6}, {"vs in-core", 10}, {"tile", 18, true},
                {"verified", 8, true}}) {}

  void header() const { table_.print_header(); }

  /// Prints and writes one row; gemmkit rows carry the best cuBLASXt and in-core cuBLAS of the same setting.
  void row(RowSetting const& s, Measurement const& m, Measurement const* best_xt, Measurement const* incore,
           Measurement const* gpu_only = nullptr) {
    std::string const name = case_name(s, m.variant);
    double const gf = m.measured() ? gflops(s.n, m.time.median) : kNotMeasured;
    double const xt_gf = best_xt != nullptr && best_xt->measured() ? gflops(s.n, best_xt->time.median) : kNotMeasured;
    double const incore_gf = incore != nullptr && incore->measured() ? gflops(s.n, incore->time.median) : kNotMeasured;
    ooc::Plan const& plan = m.report.plan;
    std::string const tile = s.level > 0 && m.measured()
                                 ? format("%lldx%lldx%lld", (long long)plan.tile_rows, (long long)plan.tile_cols,
                                          (long long)plan.tile_depth)
                                 : "";
    table_.print_row({name, m.measured() ? format("%.2f", gf / 1e3) : "-", format_ms(m.time.median),
                      format_ratio(gf / xt_gf), format_ratio(gf / incore_gf), tile,
                      m.measured() ? verify_cell(m.verify) : (m.skipped.empty() ? "error" : "skipped")});
    if (!m.error.empty()) std::printf("    %s: %s\n", m.variant.c_str(), m.error.c_str());
    if (!m.skipped.empty()) std::printf("    %s skipped: %s\n", m.variant.c_str(), m.skipped.c_str());
    if (!m.h2d_gbs.empty()) {
      std::printf("    copies per GPU: H2D %s GB/s, D2H %s GB/s\n", m.h2d_gbs.c_str(), m.d2h_gbs.c_str());
    }
    double const gpu_only_gf = gpu_only != nullptr && gpu_only->measured() ? gflops(s.n, gpu_only->time.median)
                                                                           : kNotMeasured;
    // The hybrid target: the total at least the GPUs alone plus 0.7 of the CPU alone.
    double const goal_gf = gpu_only_gf + 0.7 * m.cpu_only_gflops;
    if (s.cpu_share && m.measured()) {
      std::printf("    CPU share: %lld columns on %d threads; CPU alone %.1f GFLOP/s, GPUs alone %.2f TFLOP/s, "
                  "target (GPUs + 0.7 CPU) %.2f TFLOP/s, reached %.3f of it; %s\n",
                  (long long)m.report.cpu_columns, m.report.cpu_threads, m.cpu_only_gflops, gpu_only_gf / 1e3,
                  goal_gf / 1e3, gf / goal_gf, m.report.cpu_share_note.c_str());
    }
    failed_ |= !m.error.empty() || m.verify.verdict == Verdict::kFailed;
    if (json_ == nullptr || !json_->is_open()) return;
    JsonObject r;
    r.add_string("suite", "ooc")
        .add_string("case", name)
        .add_string("dtype", to_string(o_.dtype))
        .add_int("m", s.n)
        .add_int("n", s.n)
        .add_int("k", s.n)
        .add_int("batch", 1)
        .add_string("trans", "nn")
        .add_string("variant", m.variant)
        .add_number("gflops", gf)
        .add_number("time_ms", m.time.median)
        .add_number("time_min_ms", m.time.min)
        .add_number("time_max_ms", m.time.max)
        .add_int("reps", o_.reps)
        .add_int("warmup", o_.warmup);
    if (best_xt != nullptr) r.add_string("peer", "cublasxt").add_string("peer_variant", best_xt->variant);
    else r.add_null("peer").add_null("peer_variant");
    r.add_number("peer_gflops", xt_gf).add_number("ratio", gf / xt_gf);
    r.add_number("incore_gflops", incore_gf).add_number("ratio_incore", gf / incore_gf);
    // The bound of a host-resident run: the in-core GEMM on the same device in the same run.
    if (std::isfinite(incore_gf)) {
      r.add_number("bound_gflops", incore_gf).add_number("pct_bound", 100 * gf / incore_gf);
      r.add_string("bound_source", "in-core cuBLAS, same run");
    } else {
      r.add_null("bound_gflops").add_null("pct_bound");
    }
    r.add_string("memory", s.memory)
        .add_int("gpus", s.gpus)
        .add_int("pipeline", s.level)
        .add_int("budget_bytes", std::int64_t(s.budget_bytes))
        .add_number("budget_fraction", s.budget_fraction)
        .add_bool("cpu_share", s.cpu_share)
        .add_int("forced_tile", s.forced_tile);
    if (s.cpu_share && m.measured()) {
      r.add_int("cpu_columns", m.report.cpu_columns)
          .add_int("cpu_threads", m.report.cpu_threads)
          .add_string("cpu_share_note", m.report.cpu_share_note)
          .add_number("cpu_seconds", m.report.cpu_seconds)
          .add_number("gpu_seconds", m.report.gpu_seconds)
          .add_number("cpu_only_gflops", m.cpu_only_gflops)
          .add_number("gpu_only_gflops", gpu_only_gf)
          .add_number("share_goal_gflops", goal_gf)
          .add_number("share_goal_ratio", gf / goal_gf);
    }
    if (s.level > 0 && m.measured()) {
      r.add_string("kernel", m.report.kernel)
          .add_int("tile_rows", plan.tile_rows)
          .add_int("tile_cols", plan.tile_cols)
          .add_int("tile_depth", plan.tile_depth)
          .add_int("k_chunks", plan.k_chunks)
          .add_int("units", std::int64_t(plan.units.size()))
          .add_int("device_bytes", std::int64_t(plan.device_bytes))
          .add_number("model_gflops", plan.flops / plan.model_seconds / 1e9)
          .add_bool("staged", m.report.staged_a || m.report.staged_b || m.report.staged_c);
      std::string blocks;
      for (std::int64_t b : m.report.blocks_per_worker) blocks += (blocks.empty() ? "" : ",") + std::to_string(b);
      r.add_string("blocks_per_gpu", blocks);
      if (!m.h2d_gbs.empty()) r.add_string("h2d_gbs_per_gpu", m.h2d_gbs).add_string("d2h_gbs_per_gpu", m.d2h_gbs);
    }
    Verification const& v = m.verify;
    if (m.measured() && v.verdict == Verdict::kPassed) r.add_bool("verified", true);
    else if (m.measured() && v.verdict == Verdict::kFailed) r.add_bool("verified", false);
    else r.add_string("verified", "skipped");
    r.add_number("verify_error", v.error).add_int("verify_columns", v.columns);
    if (!v.note.empty()) r.add_string("verify_note", v.note);
    r.add_number("alpha", 1.0).add_number("beta", o_.beta);
    r.add_string("status", !m.error.empty() ? "error" : (m.skipped.empty() ? "ok" : "skipped"));
    if (std::string const& why = m.error.empty() ? m.skipped : m.error; !why.empty()) r.add_string("message", why);
    add_gpu_device_keys(r, machine_, std::nullopt);
    add_run_keys(r, machine_);
    json_->write(r);
  }

  static std::string case_name(RowSetting const& s, std::string const& variant) {
    std::string name = "n" + std::to_string(s.n) + "_" + s.memory + "_g" + std::to_string(s.gpus) + "_" + variant;
    if (s.level > 0) name += s.budget_fraction > 0 ? format("_budget%.3g", s.budget_fraction) : "_budgetfree";
    if (s.forced_tile > 0) name += format("_tile%lld", static_cast<long long>(s.forced_tile));
    return name;
  }

  bool failed() const { return failed_; }

 private:
  MachineInfo const& machine_;
  OocOptions const& o_;
  JsonLinesFile* json_;
  TablePrinter table_;
  bool failed_ = false;
};

template <typename T>
int run_ooc_bench(OocOptions o, MachineInfo const& machine) {
  int device_total = 0;
  cudaGetDeviceCount(&device_total);
  if (o.sizes.empty()) o.sizes = o.plan_m.empty() ? std::vector<std::int64_t>{16384, 32768} : o.plan_m;
  std::vector<std::vector<int>> device_lists;
  if (!o.devices.empty()) {
    device_lists.push_back(o.devices);
  } else {
    if (o.gpus.empty()) {
      for (int g = 1; g <= device_total; ++g) o.gpus.push_back(g);
    }
    for (std::int64_t g : o.gpus) {
      if (g < 1 || g > device_total) {
        std::fprintf(stderr, "gemmkit-bench ooc: %lld GPUs asked, %d present\n", (long long)g, device_total);
        return 2;
      }
      std::vector<int> list(static_cast<std::size_t>(g));
      for (int d = 0; d < int(g); ++d) list[std::size_t(d)] = d;
      device_lists.push_back(list);
    }
  }
  JsonLinesFile json;
  if (!o.json_file.empty()) {
    if (std::string e = json.open(o.json_file); !e.empty()) {
      std::fprintf(stderr, "gemmkit-bench: %s\n", e.c_str());
      return 2;
    }
  }
  auto const wants = [&](char const* peer) { return std::find(o.peers.begin(), o.peers.end(), peer) != o.peers.end(); };
  OocReporter reporter(machine, o, &json);
  std::printf("timing: host clock around each synchronous call (operands in host memory, C back in host memory), "
              "median of %d after %d warm-up; in-core cuBLAS: CUDA events around the GEMM alone\n",
              o.reps, o.warmup);
  // GPU counts and emulation modes whose first top-level case is in the timeline file.
  std::set<std::pair<int, std::string>> timeline_cases;
  std::int64_t const top_level = *std::max_element(o.levels.begin(), o.levels.end());
  for (std::int64_t n : o.sizes) {
    HostOperands<T> ops;
    if (std::string e = ops.allocate(n); !e.empty()) {
      std::printf("n = %lld: skipped, no %s\n", (long long)n, e.c_str());
      continue;
    }
    double const operand_bytes = 3.0 * double(ops.bytes());
    std::printf("\nn = %lld, %s, operands %.1f GiB in host memory\n", (long long)n, to_string(o.dtype),
                operand_bytes / (1 << 30));
    GemmProblem vp;
    vp.dtype = o.dtype;
    vp.m = vp.n = vp.k = n;
    vp.lda = vp.ldb = vp.ldc = n;
    std::string why;
    std::vector<std::int64_t> const cols = o.verify ? pick_verify_columns(vp, 7, &why) : std::vector<std::int64_t>{};
    if (!o.verify) why = "--no-verify";
    if (o.beta != 0.0) why = "beta != 0: C changes from call to call";
    std::vector<T> c0_columns;
    reporter.header();
    std::optional<Measurement> incore;
    if (wants("cublas")) {
      incore = measure_incore(ops, o);
      reporter.row({n, "device", 1, 0, 0, 0}, *incore, nullptr, nullptr);
    }
    for (std::string const& memory : o.memory) {
      if (std::string e = ops.set_pinned(memory == "pinned"); !e.empty()) {
        std::printf("%s rows skipped: %s\n", memory.c_str(), e.c_str());
        continue;
      }
      for (std::vector<int> const& devices : device_lists) {
        int const gpus = int(devices.size());
        std::optional<Measurement> best_xt;
        std::vector<int> distinct = devices;
        std::sort(distinct.begin(), distinct.end());
        bool const repeats = std::unique(distinct.begin(), distinct.end()) != distinct.end();
        if (wants("cublasxt") && repeats) std::printf("cuBLASXt skipped: it takes each device once\n");
        if (wants("cublasxt") && !repeats) {
          for (std::int64_t block : o.xt_blocks) {
            Measurement const xt = measure_cublasxt(ops, o, devices, block, c0_columns, cols, why);
            reporter.row({n, memory, gpus, 0, 0, 0}, xt, nullptr, incore ? &*incore : nullptr);
            if (xt.measured() && (!best_xt || xt.time.median < best_xt->time.median)) best_xt = xt;
          }
        }
        std::vector<std::pair<double, std::size_t>> budgets;
        if (o.budget > 0) budgets.emplace_back(double(o.budget) / operand_bytes, std::size_t(o.budget));
        for (double f : o.budget_fractions) {
          if (o.budget == 0) budgets.emplace_back(f, std::size_t(f * operand_bytes));
        }
        for (auto [fraction, budget] : budgets) {
          std::optional<Measurement> gpu_only;  // the top level without the CPU share, for the share rows
          for (std::int64_t level : o.levels) {
            for (std::string const& share : o.cpu_share) {
              bool const cpu_share = share == "on";
              if (cpu_share && level != top_level) continue;
              for (std::int64_t tile : o.tiles) {
                for (auto const& [emulation, cpu_threads] : emulation_and_threads(o, cpu_share)) {
                  ooc::ExecutorOptions options;
                  options.kernels = &variant_registry();
                  if (emulation != "off") {
                    options.emulation_kernel = emulation_kernel(o.dtype, n);
                    options.fp64_emulation_accurate = emulation == "accurate";
                    if (options.emulation_kernel == nullptr) continue;  // f32, or no GPU that runs one
                  }
                  options.cpu_threads = int(cpu_threads);
                  options.forced_tile = tile;
                  options.devices = devices;
                  options.device_budget = budget;
                  options.level = ooc::PipelineLevel(level);
                  options.host_memory = memory == "pinned" ? ooc::HostMemory::kAuto : ooc::HostMemory::kPageable;
                  std::vector<ooc::TimelineEvent> timeline;
                  // The top level's copies are timed in one more call (per-GPU copy rates); the
                  // first such case per GPU count goes to the timeline file.
                  bool const timed = level == top_level && !cpu_share && tile == 0;
                  bool const dump =
                      timed && !o.timeline_file.empty() && timeline_cases.insert({gpus, emulation}).second;
                  Measurement const m =
                      measure_gemmkit(ops, o, options, cpu_share, c0_columns, cols, why, timed ? &timeline : nullptr);
                  RowSetting const s{n, memory, gpus, int(level), budget, fraction, cpu_share, tile};
                  reporter.row(s, m, best_xt ? &*best_xt : nullptr, incore ? &*incore : nullptr,
                               gpu_only ? &*gpu_only : nullptr);
                  if (level == top_level && !cpu_share && tile == 0) gpu_only = m;
                  if (dump && m.measured()) {
                    write_timeline(o.timeline_file, OocReporter::case_name(s, m.variant), timeline);
                  }
                }
              }
            }
          }
        }
      }
    }
  }
  if (json.is_open()) std::printf("JSON lines appended to %s\n", o.json_file.c_str());
  return reporter.failed() ? 1 : 0;
}

#endif  // GEMMKIT_WITH_CUDA

}  // namespace

int run_ooc_command(OocOptions const& o) {
  if (o.plan) return run_ooc_plan(o);
  MachineInfo const machine = collect_machine_info(0, true);
  if (!machine.gpu) {
    std::printf("gemmkit-bench ooc: needs a GPU (%s); `gemmkit-bench ooc --plan` prints the plan without one\n",
                machine.no_gpu_reason.c_str());
    return 0;
  }
#if GEMMKIT_WITH_CUDA
  std::printf("gemmkit-bench ooc  commit %s  %s\nGPU 0: %s, driver %s\n", machine.commit.c_str(), iso_utc_now().c_str(),
              machine.gpu->name.c_str(), machine.driver.c_str());
  return o.dtype == Dtype::kF64 ? run_ooc_bench<double>(o, machine) : run_ooc_bench<float>(o, machine);
#else
  return 0;
#endif
}

}  // namespace gemmkit::bench
