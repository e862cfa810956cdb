/*! \file
    \brief `overhead`: what one call costs the host on the GPU path, gemmkit and cuBLAS at small sizes,
           next to the CUDA calls a gemmkit call is made of. See overhead.hpp for the method.
*/
#include "overhead.hpp"

#include "table_printer.hpp"
#include "timing.hpp"

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <functional>
#include <optional>

#if GEMMKIT_WITH_CUDA
#include "base/problem.hpp"
#include "base/driver_pointer_query.hpp"
#include "cuda/gemm/scale_c.hpp"
#include "registry/registry.hpp"
#include "variants/variants.hpp"

#include <cublas_v2.h>
#endif

namespace gemmkit::bench {

std::string overhead_settings_from_options(Options const& o, OverheadSettings* out) {
  if (!o.m.empty() || !o.k.empty() || !o.shapes_file.empty() || !o.variants.empty() || !o.trans.empty() ||
      !o.dtypes.empty()) {
    return "overhead takes square sizes with --n only (f64, nn, the variant the selection table picks)";
  }
  OverheadSettings s;
  if (!o.n.empty()) s.sizes = o.n;
  if (o.calls > 0) s.calls = o.calls;
  if (o.reps > 0) s.reps = o.reps;
  if (o.warmup >= 0) s.warmup = o.warmup;
  s.device = o.device;
  s.verbosity = o.verbosity;
  *out = s;
  return {};
}

#if GEMMKIT_WITH_CUDA

namespace {

/// The target for gemmkit's host cost per call on device pointers.
constexpr double kGoalHostUs = 3.0;

/// One timed row: a call issued back to back.
struct Row {
  std::string name;    ///< the `case` key
  std::string what;    ///< what the call is, for the table
  std::int64_t n = 0;  ///< m = n = k of a GEMM row, 0 for the others
  Call call;
  std::function<std::string()> variant;  ///< the registry id that ran, read after the row (GEMM rows)
};

struct RowResult {
  Stats host_us, wall_us;
  std::string variant;
  std::string error;  ///< "" when measured
  std::optional<int> sm_mhz;
};

/// A CUDA call inside a row: GK_SUCCESS, or GK_CUDA_ERROR with the message in *error.
gk_status check(cudaError_t e, char const* what, std::string* error) {
  if (e == cudaSuccess) return GK_SUCCESS;
  *error = cuda_error_text(e, what);
  cudaGetLastError();
  return GK_CUDA_ERROR;
}

/// Host and wall microseconds per call over the reps. `error` is where the row's calls put their
/// failure text.
RowResult measure(Row const& row, cudaStream_t stream, OverheadSettings const& s, std::string& error,
                  std::string const& pci_bus_id) {
  RowResult r;
  error.clear();
  auto failed = [&](gk_status status) {
    r.error = error.empty() ? std::string(gk_status_string(status)) : error;
    cudaStreamSynchronize(stream);  // leave nothing of this row in flight
    cudaGetLastError();
    return r;
  };
  for (int i = 0; i < s.warmup; ++i) {
    if (gk_status const st = row.call(); st != GK_SUCCESS) return failed(st);
  }
  if (gk_status const st = check(cudaStreamSynchronize(stream), "warm-up", &error); st != GK_SUCCESS) return failed(st);
  std::vector<double> host, wall;
  for (int rep = 0; rep < s.reps; ++rep) {
    double host_ms = 0;
    if (gk_status const st = time_host_batch(row.call, s.calls, &host_ms); st != GK_SUCCESS) return failed(st);
    auto const sync_start = std::chrono::steady_clock::now();
    if (gk_status const st = check(cudaStreamSynchronize(stream), "cudaStreamSynchronize", &error); st != GK_SUCCESS) {
      return failed(st);
    }
    double const sync_us =
        std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - sync_start).count();
    host.push_back(host_ms * 1e3);
    wall.push_back(host_ms * 1e3 + sync_us / s.calls);
  }
  r.host_us = summarize(host);
  r.wall_us = summarize(wall);
  if (row.variant) r.variant = row.variant();
  r.sm_mhz = sm_clock_mhz(pci_bus_id);
  return r;
}

/// Everything the rows use, released in an order that is safe for each (the context before its
/// stream, handles before the memory they ran on).
struct Resources {
  cudaStream_t stream = nullptr;
  double* A = nullptr;
  double* B = nullptr;
  double* C = nullptr;
  double* scratch = nullptr;  ///< 8 bytes for the memset and kernel-launch rows
  gk_context ctx = nullptr;
  cublasHandle_t cublas = nullptr;

  ~Resources() {
    if (ctx != nullptr) gk_destroy(ctx);
    if (cublas != nullptr) cublasDestroy(cublas);
    for (double* p : {A, B, C, scratch}) {
      if (p != nullptr) cudaFree(p);
    }
    if (stream != nullptr) cudaStreamDestroy(stream);
  }

  std::string init(OverheadSettings const& s) {
    std::int64_t const n_max = *std::max_element(s.sizes.begin(), s.sizes.end());
    std::size_t const bytes = std::size_t(n_max) * std::size_t(n_max) * sizeof(double);
    std::string e = cuda_error_text(cudaSetDevice(s.device), "cudaSetDevice");
    if (e.empty()) e = cuda_error_text(cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking), "cudaStreamCreate");
    for (double** p : {&A, &B, &C}) {
      if (e.empty()) e = cuda_error_text(cudaMalloc(reinterpret_cast<void**>(p), bytes), "cudaMalloc");
      if (e.empty()) e = cuda_error_text(cudaMemset(*p, 0, bytes), "cudaMemset");
    }
    if (e.empty()) e = cuda_error_text(cudaMalloc(reinterpret_cast<void**>(&scratch), sizeof(double)), "cudaMalloc");
    if (!e.empty()) return e;
    if (gk_create(&ctx) != GK_SUCCESS) return "gk_create failed";
    gk_set_verbosity(ctx, s.verbosity);
    if (gk_set_device(ctx, s.device) != GK_SUCCESS) return gk_last_error(ctx);
    gk_set_stream(ctx, stream);
    if (cublasCreate(&cublas) != CUBLAS_STATUS_SUCCESS) return "cublasCreate failed";
    if (cublasSetStream(cublas, stream) != CUBLAS_STATUS_SUCCESS) return "cublasSetStream failed";
    return {};
  }
};

std::vector<Row> make_rows(OverheadSettings const& s, Resources& res, std::string& error) {
  std::vector<Row> rows;
  cudaStream_t const stream = res.stream;
  void const* const device_pointer = res.C;
  rows.push_back({"cudaGetDevice", "the thread's current device (gemmkit: before cudaSetDevice)", 0,
                  [&error] {
                    int device = 0;
                    return check(cudaGetDevice(&device), "cudaGetDevice", &error);
                  },
                  {}});
  rows.push_back({"cudaSetDevice", "to the device already current", 0,
                  [&error, device = s.device] { return check(cudaSetDevice(device), "cudaSetDevice", &error); }, {}});
  rows.push_back({"cudaPointerGetAttributes", "on a device pointer (gemmkit where the driver query is not available)", 0,
                  [&error, device_pointer] {
                    cudaPointerAttributes attributes{};
                    return check(cudaPointerGetAttributes(&attributes, device_pointer), "cudaPointerGetAttributes",
                                 &error);
                  },
                  {}});
  if (driver_pointer_get_attributes() != nullptr) {
    rows.push_back({"cuPointerGetAttributes", "driver query of memory type and managed (gemmkit: one per distinct operand)",
                    0,
                    [&error, device_pointer] {
                      DriverPointerKind kind;
                      if (driver_pointer_kind(device_pointer, &kind)) return GK_SUCCESS;
                      error = "cuPointerGetAttributes failed";
                      return GK_CUDA_ERROR;
                    },
                    {}});
  }
  rows.push_back({"cudaStreamIsCapturing", "gemmkit: once per call that needs a workspace", 0,
                  [&error, stream] {
                    cudaStreamCaptureStatus status{};
                    return check(cudaStreamIsCapturing(stream, &status), "cudaStreamIsCapturing", &error);
                  },
                  {}});
  rows.push_back({"cudaMallocAsync+cudaFreeAsync", "1 MiB stream-ordered, what split-K did per call before", 0,
                  [&error, stream] {
                    void* p = nullptr;
                    if (gk_status const st = check(cudaMallocAsync(&p, 1 << 20, stream), "cudaMallocAsync", &error);
                        st != GK_SUCCESS) {
                      return st;
                    }
                    return check(cudaFreeAsync(p, stream), "cudaFreeAsync", &error);
                  },
                  {}});
  rows.push_back({"cudaMemsetAsync", "8 bytes on the stream", 0,
                  [&error, stream, scratch = res.scratch] {
                    return check(cudaMemsetAsync(scratch, 0, sizeof(double), stream), "cudaMemsetAsync", &error);
                  },
                  {}});
  rows.push_back({"kernel launch", "gemmkit's scale_c kernel on one element, <<<1, 256>>>", 0,
                  [&error, stream, scratch = res.scratch] {
                    gemmkit::GemmProblem one;
                    one.m = one.n = one.ldc = 1;
                    return check(launch_scale_c(one, 0.5, scratch, stream), "scale_c launch", &error);
                  },
                  {}});

  GemmVariant const* const peer = variant_registry().find("cublas_dgemm");
  for (std::int64_t const n : s.sizes) {
    rows.push_back({"gk_dgemm", "gemmkit, the public API on device pointers", n,
                    [&error, &res, n] {
                      gk_status const st = gk_dgemm(res.ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, n, n, n, 1.0, res.A, n,
                                                    res.B, n, 0.0, res.C, n);
                      if (st != GK_SUCCESS) error = std::string(gk_status_string(st)) + ": " + gk_last_error(res.ctx);
                      return st;
                    },
                    [&res] { return std::string(gk_last_variant(res.ctx)); }});
    rows.push_back({"cublasDgemm_64", "cuBLAS, handle and stream set once", n,
                    [&error, &res, n] {
                      double const one = 1.0, zero = 0.0;
                      cublasStatus_t const st = cublasDgemm_64(res.cublas, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one,
                                                               res.A, n, res.B, n, &zero, res.C, n);
                      if (st == CUBLAS_STATUS_SUCCESS) return GK_SUCCESS;
                      error = std::string("cublasDgemm_64: ") + cublasGetStatusString(st);
                      return GK_CUDA_ERROR;
                    },
                    [] { return std::string("cublas"); }});
    if (peer != nullptr) {
      GemmArguments args;
      args.problem.m = args.problem.n = args.problem.k = n;
      args.problem.lda = args.problem.ldb = args.problem.ldc = n;
      args.A = res.A;
      args.B = res.B;
      args.C = res.C;
      ExecutionContext const exec{stream, s.device};
      rows.push_back({"cublas_dgemm peer", "the registered peer as `gemm` times it (cublasSetStream each call)", n,
                      [peer, args, exec] { return peer->run(args, nullptr, exec); },
                      [peer] { return peer->info().id; }});
    }
  }
  return rows;
}

std::string us(double value) { return value == value ? format("%.2f", value) : "-"; }

}  // namespace

int run_overhead(OverheadSettings const& s, MachineInfo const& machine, std::string const& suite, JsonLinesFile* json) {
  Resources res;
  if (std::string e = res.init(s); !e.empty()) {
    std::fprintf(stderr, "gemmkit-bench overhead: %s\n", e.c_str());
    return 1;
  }
  std::printf("timing: host = per-call time to issue %d back-to-back calls on one stream (steady clock), wall = "
              "host + the stream synchronize after them; median of %d reps after %d warm-up calls; us per call\n",
              s.calls, s.reps, s.warmup);
  std::string error;
  std::vector<Row> const rows = make_rows(s, res, error);
  TablePrinter table({{"case", 29, true}, {"n", 5}, {"variant", 36, true}, {"host us", 8}, {"min", 7}, {"max", 7},
                      {"wall us", 8}, {"what", 40, true}});
  table.print_header();
  int failures = 0;
  std::vector<std::pair<Row const*, RowResult>> results;
  for (Row const& row : rows) {
    RowResult const r = measure(row, res.stream, s, error, machine.gpu->pci_bus_id);
    results.emplace_back(&row, r);
    failures += r.error.empty() ? 0 : 1;
    std::string const n_text = row.n > 0 ? std::to_string(row.n) : "-";
    if (!r.error.empty()) {
      table.print_row({row.name, n_text, r.variant, "error", "", "", "", r.error});
    } else {
      table.print_row({row.name, n_text, r.variant.empty() ? "-" : r.variant, us(r.host_us.median), us(r.host_us.min),
                       us(r.host_us.max), us(r.wall_us.median), row.what});
    }
    if (json != nullptr && json->is_open()) {
      JsonObject o;
      o.add_string("suite", suite).add_string("case", row.name).add_string("what", row.what);
      if (row.n > 0) o.add_int("n", row.n);
      else o.add_null("n");
      if (r.variant.empty()) o.add_null("variant");
      else o.add_string("variant", r.variant);
      o.add_number("host_us", r.host_us.median)
          .add_number("host_us_min", r.host_us.min)
          .add_number("host_us_max", r.host_us.max)
          .add_number("wall_us", r.wall_us.median)
          .add_number("wall_us_min", r.wall_us.min)
          .add_number("wall_us_max", r.wall_us.max)
          .add_int("calls_per_rep", s.calls)
          .add_int("reps", s.reps)
          .add_int("warmup", s.warmup)
          .add_string("status", r.error.empty() ? "ok" : "error");
      if (!r.error.empty()) o.add_string("message", r.error);
      add_gpu_device_keys(o, machine, r.sm_mhz);
      add_run_keys(o, machine);
      json->write(o);
    }
  }

  // The target: gemmkit's host time per call against cuBLAS's at each size.
  std::printf("\nhost cost per call, gemmkit beside cuBLAS (target: gk_dgemm <= %.0f us per call on the host)\n",
              kGoalHostUs);
  TablePrinter goal({{"n", 5}, {"gk_dgemm us", 11}, {"cuBLAS us", 9}, {"cuBLAS/gemmkit", 14}, {"target", 6, true}});
  goal.print_header();
  auto host_of = [&](char const* name, std::int64_t n) {
    for (auto const& [row, r] : results) {
      if (row->name == name && row->n == n && r.error.empty()) return r.host_us.median;
    }
    return kNotMeasured;
  };
  for (std::int64_t const n : s.sizes) {
    double const ours = host_of("gk_dgemm", n);
    double const theirs = host_of("cublasDgemm_64", n);
    bool const both = ours == ours && theirs == theirs;  // NaN: not measured
    goal.print_row({std::to_string(n), us(ours), us(theirs), both ? format("%.2fx", theirs / ours) : "-",
                    ours == ours ? (ours <= kGoalHostUs ? "met" : "not") : "-"});
  }
  return failures > 0 ? 1 : 0;
}

#else  // GEMMKIT_WITH_CUDA

int run_overhead(OverheadSettings const&, MachineInfo const&, std::string const&, JsonLinesFile*) {
  std::printf("gemmkit-bench overhead: needs a GPU (gemmkit built without CUDA)\n");
  return 0;
}

#endif  // GEMMKIT_WITH_CUDA

}  // namespace gemmkit::bench
