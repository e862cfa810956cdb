/*! \file
    \brief `batched` on the GPU: gemmkit (strided and pointer-array) against cuBLAS (strided and
           pointer-array) and the bandwidth bound measured in the same run. See batched_gpu.hpp.
*/
#include "batched_gpu.hpp"

#include "table_printer.hpp"
#include "timing.hpp"
#include "verify.hpp"

#include <cstdio>

#if GEMMKIT_WITH_CUDA
#include "batched_gpu_kernels.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <unistd.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <limits>
#include <memory>
#endif

namespace gemmkit::bench {

#if GEMMKIT_WITH_CUDA

namespace {

// --- device memory and handles -------------------------------------------------------------------

class DeviceMemory {
 public:
  DeviceMemory() = default;
  ~DeviceMemory() {
    if (data_ != nullptr) cudaFree(data_);
  }
  DeviceMemory(DeviceMemory const&) = delete;
  DeviceMemory& operator=(DeviceMemory const&) = delete;

  std::string allocate(std::size_t bytes, char const* what) {
    std::string e = cuda_error_text(cudaMalloc(&data_, std::max<std::size_t>(bytes, 16)), "cudaMalloc");
    if (!e.empty()) {
      data_ = nullptr;
      cudaGetLastError();
      return e + " (" + what + ")";
    }
    return {};
  }
  void* get() const { return data_; }

 private:
  void* data_ = nullptr;
};

std::string cublas_error_text(cublasStatus_t status, char const* what) {
  if (status == CUBLAS_STATUS_SUCCESS) return {};
  return std::string(what) + ": " + cublasGetStatusName(status) + " (" + cublasGetStatusString(status) + ")";
}

/// The pointer arrays of one case: problem i's A, B and C. `device` arrays live on the GPU (what
/// cuBLAS takes), `host` arrays in host memory; either may be absent when nothing runs on it.
struct PointerArrays {
  void const* const* a = nullptr;
  void const* const* b = nullptr;
  void* const* c = nullptr;
  bool present() const { return a != nullptr; }
};

struct CaseArrays {
  PointerArrays device, host;
  std::string gemmkit_where;  ///< "device" or "host": which of the two gemmkit_ptr gets this case
};

template <typename P>
P at(void const* const* array, std::int64_t first) {
  return reinterpret_cast<P>(const_cast<void**>(array) + first);
}

// --- the implementations besides gemmkit's strided call -------------------------------------------

/// gemmkit's pointer-array call, gk_?gemm_batched, on device pointers (GPU backend, the run's stream).
class GemmkitPointerArray final : public BatchedImpl {
 public:
  explicit GemmkitPointerArray(CaseArrays const* arrays) : arrays_(arrays) {}
  ~GemmkitPointerArray() override {
    if (ctx_ != nullptr) gk_destroy(ctx_);
  }
  std::string init(int verbosity, cudaStream_t stream, int device) {
    if (gk_create(&ctx_) != GK_SUCCESS) return "gk_create failed";
    gk_set_verbosity(ctx_, verbosity);
    gk_set_backend(ctx_, GK_BACKEND_GPU);
    if (gk_set_device(ctx_, device) != GK_SUCCESS || gk_set_stream(ctx_, stream) != GK_SUCCESS) {
      return std::string("gk_set_device/gk_set_stream: ") + gk_last_error(ctx_);
    }
    return {};
  }
  std::string name() const override { return "gemmkit_ptr"; }
  std::string run(std::int64_t first, std::int64_t count) override {
    BatchedOperands const& o = ops_;
    PointerArrays const& p = arrays_->gemmkit_where == "device" ? arrays_->device : arrays_->host;
    gk_status const s = with_dtype(o.dtype, [&]<typename T>() {
      if constexpr (sizeof(T) == 8) {
        return gk_dgemm_batched(ctx_, GK_COL_MAJOR, GK_OP_N, GK_OP_N, o.m, o.n, o.k, o.alpha,
                                at<T const* const*>(p.a, first), o.m, at<T const* const*>(p.b, first), o.k, o.beta,
                                at<T* const*>(p.c, first), o.m, count);
      } else {
        return gk_sgemm_batched(ctx_, GK_COL_MAJOR, GK_OP_N, GK_OP_N, o.m, o.n, o.k, float(o.alpha),
                                at<T const* const*>(p.a, first), o.m, at<T const* const*>(p.b, first), o.k,
                                float(o.beta), at<T* const*>(p.c, first), o.m, count);
      }
    });
    if (s == GK_SUCCESS) return {};
    return std::string(gk_status_string(s)) + (*gk_last_error(ctx_) ? ": " : "") + gk_last_error(ctx_);
  }
  std::string variant() const override {
    return std::string(gk_last_variant(ctx_)) + " (" + arrays_->gemmkit_where + " arrays)";
  }

 private:
  CaseArrays const* arrays_;
  gk_context ctx_ = nullptr;
};

/// cuBLAS with its default math mode (no TF32): cublas?gemmStridedBatched over the strided batch,
/// or cublas?gemmBatched over the device pointer arrays.
class CublasBatched final : public BatchedImpl {
 public:
  CublasBatched(cublasHandle_t handle, bool pointer_array, CaseArrays const* arrays)
      : handle_(handle), pointer_array_(pointer_array), arrays_(arrays) {}
  std::string name() const override { return pointer_array_ ? "cublas_ptr" : "cublas_strided"; }
  std::string prepare(BatchedOperands const& ops) override {
    ops_ = ops;
    if (ops.batch > INT_MAX) return "batch above INT_MAX (cuBLAS takes int counts)";
    return {};
  }
  std::string run(std::int64_t first, std::int64_t count) override {
    BatchedOperands const& o = ops_;
    int const m = int(o.m), n = int(o.n), k = int(o.k), batch = int(count);
    PointerArrays const& p = arrays_->device;
    cublasStatus_t const s = with_dtype(o.dtype, [&]<typename T>() {
      T const alpha = T(o.alpha), beta = T(o.beta);
      if constexpr (sizeof(T) == 8) {
        if (pointer_array_) {
          return cublasDgemmBatched(handle_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, at<T const* const*>(p.a, first),
                                    m, at<T const* const*>(p.b, first), k, &beta, at<T* const*>(p.c, first), m, batch);
        }
        return cublasDgemmStridedBatched(handle_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, o.a<T>(first), m,
                                         o.stride_a(), o.b<T>(first), k, o.stride_b(), &beta, o.c<T>(first), m,
                                         o.stride_c(), batch);
      } else {
        if (pointer_array_) {
          return cublasSgemmBatched(handle_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, at<T const* const*>(p.a, first),
                                    m, at<T const* const*>(p.b, first), k, &beta, at<T* const*>(p.c, first), m, batch);
        }
        return cublasSgemmStridedBatched(handle_, CUBLAS_OP_N, CUBLAS_OP_N, m, n, k, &alpha, o.a<T>(first), m,
                                         o.stride_a(), o.b<T>(first), k, o.stride_b(), &beta, o.c<T>(first), m,
                                         o.stride_c(), batch);
      }
    });
    return cublas_error_text(s, name().c_str());
  }
  std::string variant() const override {
    char const d = ops_.dtype == Dtype::kF64 ? 'D' : 'S';
    return std::string("cublas") + d + (pointer_array_ ? "gemmBatched" : "gemmStridedBatched");
  }

 private:
  cublasHandle_t handle_;
  bool pointer_array_;
  CaseArrays const* arrays_;
};

// --- the run ---------------------------------------------------------------------------------------

/// One reported case, kept for the goal check at the end.
struct RowDigest {
  Dtype dtype;
  std::int64_t m, n, k;
  double beta;
  double pct_bound;        ///< gemmkit's strided call
  double ratio_strided;    ///< gemmkit / cuBLAS strided
  double ptr_pct_bound;    ///< gemmkit_ptr
  double ratio_ptr;        ///< gemmkit_ptr / cuBLAS pointer-array
  bool square() const { return m == n && n == k; }
};

/// The bound's pass: launch shape and timings.
struct BoundResult {
  std::string kernel;      ///< the launch shape that was fastest in the warm-up
  Stats time;              ///< ms per pass
  std::string error;
};

class BatchedGpuRun {
 public:
  BatchedGpuRun(BatchedSettings const& settings, MachineInfo const& machine, std::string suite, std::string section,
                JsonLinesFile* json)
      : set_(settings), machine_(machine), suite_(std::move(suite)), section_(std::move(section)), json_(json) {}
  ~BatchedGpuRun();

  BatchedSummary run();

 private:
  std::string init();
  template <typename T>
  void run_case(ShapeSpec const& shape);
  template <typename T>
  void setup_contender(Contender& c, ImplResult& r, BatchedOperands const& ops, std::uint64_t seed);
  template <typename T>
  Verification checked_pass(BatchedImpl& impl, BatchedOperands const& ops, std::uint64_t seed, std::int64_t first,
                             std::int64_t count, std::string* error);
  template <typename T>
  BoundResult measure(BatchedOperands const& ops, std::vector<ImplResult>& results);
  void report(BatchedOperands const& ops, std::vector<ImplResult> const& results, BoundResult const& bound);
  void report_skipped_case(ShapeSpec const& shape, Dtype dtype, std::string const& why);
  std::vector<TableColumn> columns() const;
  void print_goal_check() const;
  std::string sync(char const* what) { return cuda_error_text(cudaStreamSynchronize(stream_), what); }

  BatchedSettings const& set_;
  MachineInfo const& machine_;
  std::string suite_, section_;
  JsonLinesFile* json_;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  EventTimer events_;
  CaseArrays arrays_;
  std::vector<Contender> contenders_;
  std::unique_ptr<TablePrinter> table_;
  std::vector<RowDigest> digests_;
  BatchedSummary summary_;
  Progress progress_;
};

BatchedGpuRun::~BatchedGpuRun() {
  contenders_.clear();  // the gemmkit contexts hold the stream
  if (cublas_ != nullptr) cublasDestroy(cublas_);
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

std::string BatchedGpuRun::init() {
  if (std::string e = cuda_error_text(cudaSetDevice(set_.device), "cudaSetDevice"); !e.empty()) return e;
  if (std::string e = cuda_error_text(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
      !e.empty()) {
    return e;
  }
  if (std::string e = events_.init(stream_); !e.empty()) return e;
  {
    Contender g;
    g.name = "gemmkit";
    g.whole_batch = true;
    g.impl = make_gemmkit_batched_gpu(set_.verbosity, stream_, set_.device, &g.unavailable);
    contenders_.push_back(std::move(g));
  }
  std::string cublas_unavailable;
  auto const is_cublas = [](std::string const& peer) { return peer.rfind("cublas", 0) == 0; };
  if (std::any_of(set_.peers.begin(), set_.peers.end(), is_cublas)) {
    cublas_unavailable = cublas_error_text(cublasCreate(&cublas_), "cublasCreate");
    if (cublas_unavailable.empty()) {
      cublas_unavailable = cublas_error_text(cublasSetStream(cublas_, stream_), "cublasSetStream");
    }
  }
  for (std::string const& name : set_.peers) {
    Contender c;
    c.name = name;
    if (name == "gemmkit_ptr") {
      auto impl = std::make_unique<GemmkitPointerArray>(&arrays_);
      c.unavailable = impl->init(set_.verbosity, stream_, set_.device);
      c.impl = std::move(impl);
    } else {
      c.unavailable = cublas_unavailable;
      c.impl = std::make_unique<CublasBatched>(cublas_, name == "cublas_ptr", &arrays_);
    }
    contenders_.push_back(std::move(c));
  }
  return {};
}

std::vector<TableColumn> BatchedGpuRun::columns() const {
  return {{"dtype", 5, true}, {"m", 3},        {"n", 3},   {"k", 3},    {"batch", 9},   {"impl", 14, true},
          {"variant", 36, true}, {"GF/s", 7}, {"ms", 7}, {"%bnd", 5}, {"gk/this", 7}, {"verified", 8, true}};
}

BatchedSummary BatchedGpuRun::run() {
  if (std::string e = init(); !e.empty()) {
    std::printf("batched on the GPU: %s\n", e.c_str());
    ++summary_.errors;
    return summary_;
  }
  std::printf("implementations: gemmkit (gk_?gemm_strided_batched)");
  for (std::size_t i = 1; i < contenders_.size(); ++i) {
    Contender const& c = contenders_[i];
    std::string const why = c.unavailable.empty() ? "" : " (skipped: " + c.unavailable + ")";
    std::printf(", %s%s", c.name.c_str(), why.c_str());
  }
  std::printf("\ncolumns: impl = what ran (gemmkit = gk_?gemm_strided_batched, gemmkit_ptr = gk_?gemm_batched, "
              "cublas_strided = cublas?gemmStridedBatched, cublas_ptr = cublas?gemmBatched); bound = the stream-like "
              "pass; %%bnd = %% of the bound flops/(bytes/B), B from the bound's fastest pass; gk/this = gemmkit's "
              "GF/s in the same API form (strided or pointer-array) over this row's; batch~ = timed on windows of the "
              "batch (pass longer than %.0f ms); ! = failed its check\n",
              set_.max_pass_ms);
  table_ = std::make_unique<TablePrinter>(columns());
  table_->print_header();
  for (ShapeSpec const& shape : set_.shapes) {
    for (Dtype dtype : set_.dtypes) {
      if (dtype == Dtype::kF64) run_case<double>(shape);
      else run_case<float>(shape);
    }
  }
  print_goal_check();
  return summary_;
}

void BatchedGpuRun::report_skipped_case(ShapeSpec const& shape, Dtype dtype, std::string const& why) {
  ++summary_.rows;
  ++summary_.skipped;
  table_->print_row({to_string(dtype), std::to_string(shape.m), std::to_string(shape.n), std::to_string(shape.k), "-",
                     "skipped: " + why});
  if (json_ == nullptr || !json_->is_open()) return;
  JsonObject row;
  row.add_string("suite", suite_);
  if (!section_.empty()) row.add_string("section", section_);
  row.add_string("case", case_name(shape.m, shape.n, shape.k)).add_string("dtype", to_string(dtype));
  row.add_int("m", shape.m).add_int("n", shape.n).add_int("k", shape.k).add_string("backend", "cuda");
  row.add_string("status", "skipped").add_string("message", why);
  add_gpu_device_keys(row, machine_, std::nullopt);
  add_run_keys(row, machine_);
  json_->write(row);
}

template <typename T>
void BatchedGpuRun::run_case(ShapeSpec const& shape) {
  BatchedOperands ops = batched_case(shape, sizeof(T) == 8 ? Dtype::kF64 : Dtype::kF32, set_);
  std::size_t const a_bytes = std::size_t(ops.batch * ops.stride_a()) * sizeof(T);
  std::size_t const b_bytes = std::size_t(ops.batch * ops.stride_b()) * sizeof(T);
  std::size_t const c_bytes = std::size_t(ops.batch * ops.stride_c()) * sizeof(T);
  std::size_t const array_bytes = std::size_t(ops.batch) * sizeof(void*);

  // gemmkit_ptr gets host arrays of device pointers (gk_?gemm_batched's contract) unless
  // --ptr-arrays device; cuBLAS always gets device arrays.
  bool const gemmkit_ptr = std::find(set_.peers.begin(), set_.peers.end(), "gemmkit_ptr") != set_.peers.end();
  bool const cublas_ptr = std::find(set_.peers.begin(), set_.peers.end(), "cublas_ptr") != set_.peers.end();
  arrays_ = CaseArrays{};
  arrays_.gemmkit_where = set_.ptr_arrays;
  bool const device_arrays = cublas_ptr || (gemmkit_ptr && arrays_.gemmkit_where == "device");
  bool const host_arrays = gemmkit_ptr && arrays_.gemmkit_where == "host";

  double const device_need = double(a_bytes + b_bytes + c_bytes) + (device_arrays ? 3.0 * double(array_bytes) : 0.0);
  std::size_t free_bytes = 0, total_bytes = 0;
  if (std::string e = cuda_error_text(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo"); !e.empty()) {
    report_skipped_case(shape, ops.dtype, e);
    return;
  }
  if (device_need > 0.9 * double(free_bytes)) {
    report_skipped_case(shape, ops.dtype,
                        format("needs %.0f MiB of device memory, %.0f MiB free", device_need / kMiB,
                               double(free_bytes) / kMiB));
    return;
  }
  if (host_arrays) {
    double const available = double(sysconf(_SC_AVPHYS_PAGES)) * double(sysconf(_SC_PAGESIZE));
    if (available > 0 && 3.0 * double(array_bytes) > 0.5 * available) {
      report_skipped_case(shape, ops.dtype,
                          format("host pointer arrays need %.0f MiB, %.0f MiB of memory available (--ptr-arrays device "
                                 "or --peers without gemmkit_ptr)",
                                 3.0 * double(array_bytes) / kMiB, available / kMiB));
      return;
    }
  }

  DeviceMemory a, b, c, array_a, array_b, array_c;
  std::string error = a.allocate(a_bytes, "A");
  if (error.empty()) error = b.allocate(b_bytes, "B");
  if (error.empty()) error = c.allocate(c_bytes, "C");
  if (error.empty() && device_arrays) {
    error = array_a.allocate(array_bytes, "A array");
    if (error.empty()) error = array_b.allocate(array_bytes, "B array");
    if (error.empty()) error = array_c.allocate(array_bytes, "C array");
  }
  if (!error.empty()) {
    report_skipped_case(shape, ops.dtype, error);
    return;
  }
  ops.A = a.get();
  ops.B = b.get();
  ops.C = c.get();
  // Fresh random operands, made on the device; the checks read back the problems they compare.
  std::uint64_t const seed = mix64(std::uint64_t(ops.m) << 40 ^ std::uint64_t(ops.n) << 20 ^ std::uint64_t(ops.k) ^
                                   (sizeof(T) == 8 ? 0xD1u : 0xF1u));
  progress_.show(format("%s %s: filling %.0f MiB on the device", case_name(ops.m, ops.n, ops.k).c_str(),
                        to_string(ops.dtype), double(a_bytes + b_bytes + c_bytes) / kMiB));
  struct Operand {
    DeviceMemory const& data;
    DeviceMemory const& array;
    std::int64_t stride;
    char const* what;
  };
  Operand const operands[] = {{a, array_a, ops.stride_a(), "A"}, {b, array_b, ops.stride_b(), "B"},
                              {c, array_c, ops.stride_c(), "C"}};
  std::uint64_t salt = 0;
  for (Operand const& o : operands) {
    auto* const data = static_cast<T*>(o.data.get());
    if (error.empty()) {
      error = cuda_error_text(fill_random_device(data, ops.batch * o.stride, mix64(seed + ++salt), stream_),
                              (std::string("filling ") + o.what).c_str());
    }
    if (error.empty() && device_arrays) {
      error = cuda_error_text(fill_pointer_array(static_cast<T**>(o.array.get()), data, o.stride, ops.batch, stream_),
                              (std::string("pointer array of ") + o.what).c_str());
    }
  }
  if (device_arrays) {
    arrays_.device = {static_cast<void const* const*>(array_a.get()), static_cast<void const* const*>(array_b.get()),
                      static_cast<void* const*>(array_c.get())};
  }
  std::vector<void const*> host_a, host_b;
  std::vector<void*> host_c;
  if (error.empty() && host_arrays) {
    host_a.resize(std::size_t(ops.batch));
    host_b.resize(std::size_t(ops.batch));
    host_c.resize(std::size_t(ops.batch));
    for (std::int64_t i = 0; i < ops.batch; ++i) {
      host_a[std::size_t(i)] = ops.a<T>(i);
      host_b[std::size_t(i)] = ops.b<T>(i);
      host_c[std::size_t(i)] = ops.c<T>(i);
    }
    arrays_.host = {host_a.data(), host_b.data(), host_c.data()};
  }
  if (error.empty()) error = sync("filling the operands");
  progress_.clear();
  if (!error.empty()) {
    cudaGetLastError();
    report_skipped_case(shape, ops.dtype, error);
    return;
  }

  std::vector<ImplResult> results(contenders_.size());
  for (std::size_t i = 0; i < contenders_.size(); ++i) setup_contender<T>(contenders_[i], results[i], ops, seed);
  BoundResult const bound = measure<T>(ops, results);
  report(ops, results, bound);
}

template <typename T>
void BatchedGpuRun::setup_contender(Contender& c, ImplResult& r, BatchedOperands const& ops, std::uint64_t seed) {
  ContenderSetup steps;
  steps.timed = [&](std::int64_t first, std::int64_t count, double* ms) {
    std::string e;
    Call const call = [&] {
      e = c.impl->run(first, count);
      if (e.empty()) e = sync("kernel execution");
      return e.empty() ? GK_SUCCESS : GK_INTERNAL_ERROR;
    };
    time_host_batch(call, 1, ms);
    return e;
  };
  steps.checked_pass = [&](std::int64_t first, std::int64_t count, std::string* error) {
    progress_.show(format("%s %s: %s checked pass", case_name(ops.m, ops.n, ops.k).c_str(), to_string(ops.dtype),
                          c.name.c_str()));
    return checked_pass<T>(*c.impl, ops, seed, first, count, error);
  };
  steps.warm_pass = [&](std::int64_t first, std::int64_t count) {
    std::string e = c.impl->run(first, count);
    return e.empty() ? sync("warm-up pass") : e;
  };
  steps.after_error = [&] {
    cudaStreamSynchronize(stream_);
    cudaGetLastError();  // leave no stale error to the next implementation
  };
  gemmkit::bench::setup_contender(c, r, ops, set_.max_pass_ms, set_.warmup, steps);
  progress_.clear();
}

/// The checked pass: with beta = 0 the window's C is all NaN first (a correct GEMM never reads it),
/// else each sampled problem's C0 is read back; the implementation runs the window once, and each
/// sample's A, B and C are read back and compared against the reference.
template <typename T>
Verification BatchedGpuRun::checked_pass(BatchedImpl& impl, BatchedOperands const& ops, std::uint64_t seed,
                                         std::int64_t first, std::int64_t count, std::string* error) {
  std::vector<std::int64_t> const picked =
      set_.verify ? pick_samples(first, count, set_.samples, seed ^ 0x5A5A5A5Aull) : std::vector<std::int64_t>{};
  std::size_t const sa = std::size_t(ops.stride_a());
  std::size_t const sb = std::size_t(ops.stride_b());
  std::size_t const sc = std::size_t(ops.stride_c());
  std::size_t const s = picked.size();
  std::vector<T> a(s * sa), b(s * sb), c0(s * sc), c(s * sc);
  bool const beta0 = ops.beta == 0.0;
  Verification total;
  auto copy_back = [&](T* to, T const* from, std::size_t count_elements) {
    if (error->empty()) {
      *error = cuda_error_text(cudaMemcpyAsync(to, from, count_elements * sizeof(T), cudaMemcpyDeviceToHost, stream_),
                               "reading back a sampled problem");
    }
  };
  if (beta0) {
    *error = cuda_error_text(
        cudaMemsetAsync(ops.c<T>(first), 0xFF, std::size_t(count) * sc * sizeof(T), stream_), "filling C with NaN");
  } else {
    for (std::size_t i = 0; i < s; ++i) copy_back(c0.data() + i * sc, ops.c<T>(picked[i]), sc);
  }
  if (error->empty()) *error = impl.run(first, count);
  if (error->empty()) *error = sync("kernel execution");
  if (!error->empty() || !set_.verify) {
    if (!set_.verify) total.note = "--no-verify";
    return total;
  }
  for (std::size_t i = 0; i < s; ++i) {
    copy_back(a.data() + i * sa, ops.a<T>(picked[i]), sa);
    copy_back(b.data() + i * sb, ops.b<T>(picked[i]), sb);
    copy_back(c.data() + i * sc, ops.c<T>(picked[i]), sc);
  }
  if (error->empty()) *error = sync("reading back the samples");
  if (!error->empty()) return total;
  GemmProblem const p = ops.problem();
  std::vector<std::int64_t> cols(std::size_t(ops.n));
  for (std::int64_t j = 0; j < ops.n; ++j) cols[std::size_t(j)] = j;
  start_sampled_check(&total, s);
  for (std::size_t i = 0; i < s; ++i) {
    merge_sampled_check(&total,
                        verify_columns<T>(p, ops.alpha, ops.beta, a.data() + i * sa, b.data() + i * sb, cols,
                                          beta0 ? nullptr : c0.data() + i * sc, c.data() + i * sc),
                        picked[i]);
  }
  return total;
}

template <typename T>
BoundResult BatchedGpuRun::measure(BatchedOperands const& ops, std::vector<ImplResult>& results) {
  BoundResult bound;
  DeviceMemory sink;
  if (std::string e = sink.allocate(sizeof(T), "sink"); !e.empty()) {
    bound.error = e;
    return bound;
  }
  std::string error;
  auto bound_pass = [&](int blocks) -> Call {
    return [&, blocks] {
      error = cuda_error_text(stream_pass_device(ops.a<T>(0), ops.batch * ops.stride_a(), ops.b<T>(0),
                                                 ops.batch * ops.stride_b(), ops.c<T>(0), ops.batch * ops.stride_c(),
                                                 ops.beta != 0.0, static_cast<T*>(sink.get()), blocks, stream_),
                              "bound pass");
      return error.empty() ? GK_SUCCESS : GK_CUDA_ERROR;
    };
  };
  progress_.show(format("%s %s: %d timed reps", case_name(ops.m, ops.n, ops.k).c_str(), to_string(ops.dtype),
                        set_.reps));
  // Two launch shapes, the faster in a short warm-up kept: one full wave of blocks striding over
  // the arrays, or one 16-byte vector per thread.
  int const wave = (machine_.gpu ? machine_.gpu->sm_count : 132) * (2048 / kStreamThreads);
  std::pair<int, char const*> const shapes[] = {{wave, "grid-stride, one wave"}, {0, "one vector per thread"}};
  double best = std::numeric_limits<double>::infinity();
  int blocks = wave;
  for (auto const& [candidate, what] : shapes) {
    for (int i = 0; i < 3 && bound.error.empty(); ++i) {
      double ms = 0;
      if (events_.time_batch(bound_pass(candidate), 1, &ms, &bound.error) != GK_SUCCESS && bound.error.empty()) {
        bound.error = error;
      }
      if (bound.error.empty() && ms < best) {
        best = ms;
        blocks = candidate;
        bound.kernel = candidate > 0 ? format("%s (%d blocks of %d)", what, candidate, kStreamThreads) : what;
      }
    }
  }
  Call const bound_call = bound_pass(blocks);
  std::vector<double> bound_ms;
  std::vector<std::vector<double>> impl_ms(contenders_.size());
  // The bound and every implementation alternate rep by rep, so all see the same clocks.
  for (int rep = 0; rep < set_.reps && bound.error.empty(); ++rep) {
    double ms = 0;
    if (events_.time_batch(bound_call, 1, &ms, &bound.error) != GK_SUCCESS) {
      if (bound.error.empty()) bound.error = error;
      break;
    }
    bound_ms.push_back(ms);
    for (std::size_t i = 0; i < contenders_.size(); ++i) {
      ImplResult& r = results[i];
      if (r.status != RunStatus::kOk) continue;
      std::int64_t const first = window_first(ops.batch, r.count, 1 + set_.warmup + rep);
      std::string e;
      Call const call = [&] {
        e = contenders_[i].impl->run(first, r.count);
        return e.empty() ? GK_SUCCESS : GK_INTERNAL_ERROR;
      };
      std::string cuda;
      if (events_.time_batch(call, 1, &ms, &cuda) != GK_SUCCESS) {
        r.status = RunStatus::kError;
        r.note = !e.empty() ? e : cuda;
        cudaStreamSynchronize(stream_);
        cudaGetLastError();
        continue;
      }
      impl_ms[i].push_back(ms);
    }
  }
  progress_.clear();
  if (!bound.error.empty()) cudaGetLastError();
  bound.time = summarize(bound_ms);
  for (std::size_t i = 0; i < contenders_.size(); ++i) {
    ImplResult& r = results[i];
    if (r.status != RunStatus::kOk) continue;
    r.time = summarize(impl_ms[i]);
    r.gflops = problem_flops(ops) * double(r.count) / (r.time.median * 1e6);
  }
  return bound;
}

ImplResult const* find_result(std::vector<ImplResult> const& results, char const* name) {
  for (ImplResult const& r : results) {
    if (r.name == name) return &r;
  }
  return nullptr;
}

double gflops_of(ImplResult const* r) { return r != nullptr && r->usable_as_peer() ? r->gflops : kNotMeasured; }

void BatchedGpuRun::report(BatchedOperands const& ops, std::vector<ImplResult> const& results,
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

  ++summary_.rows;
  if (gk.status == RunStatus::kError || !bound.error.empty()) ++summary_.errors;
  if (gk.status == RunStatus::kSkipped) ++summary_.skipped;
  if (gk.status == RunStatus::kOk) {
    switch (gk.check.verdict) {
      case Verdict::kPassed: ++summary_.verify_passed; break;
      case Verdict::kFailed: ++summary_.verify_failed; break;
      case Verdict::kSkipped: ++summary_.verify_skipped; break;
    }
  }
  for (std::size_t i = 1; i < results.size(); ++i) {
    if (results[i].status == RunStatus::kOk && results[i].check.verdict == Verdict::kFailed) {
      ++summary_.peer_verify_failed;
    }
  }
  digests_.push_back({ops.dtype, ops.m, ops.n, ops.k, ops.beta, pct, ratio_strided, 100 * gk_ptr_gf / bound_gf,
                      ratio_ptr});

  // --- table: the bound, then one row per implementation ---
  std::vector<std::string> const head = {to_string(ops.dtype), std::to_string(ops.m), std::to_string(ops.n),
                                         std::to_string(ops.k)};
  auto row_cells = [&](std::string const& batch) {
    std::vector<std::string> cells = head;
    cells.push_back(batch);
    return cells;
  };
  {
    std::vector<std::string> cells = row_cells(std::to_string(ops.batch));
    if (!bound.error.empty()) {
      cells.insert(cells.end(), {"bound", "ERROR: " + bound.error});
    } else {
      cells.insert(cells.end(), {"bound", format("%.0f GB/s, %s", bandwidth, bound.kernel.c_str()),
                                 format_gflops(bound_gf), format_ms(bound.time.min), "100", "-", "-"});
    }
    table_->print_row(cells);
  }
  for (ImplResult const& r : results) {
    std::vector<std::string> cells = row_cells(std::to_string(r.count) + (r.count < ops.batch ? "~" : ""));
    cells.push_back(r.name);
    if (r.status != RunStatus::kOk) {
      cells.push_back((r.status == RunStatus::kSkipped ? "skipped: " : "ERROR: ") + r.note);
      table_->print_row(cells);
      continue;
    }
    double same_form_gk = kNotMeasured;
    if (r.name == "cublas_strided") same_form_gk = gk.gflops;
    if (r.name == "cublas_ptr") same_form_gk = gk_ptr_gf;
    cells.insert(cells.end(), {r.variant, format_gflops(r.gflops) + (r.check.verdict == Verdict::kFailed ? "!" : ""),
                               format_ms(r.time.median), format("%.0f", 100 * r.gflops / bound_gf),
                               std::isfinite(same_form_gk) ? format_ratio(same_form_gk / r.gflops) : "-",
                               verify_cell(r.check)});
    table_->print_row(cells);
    if (r.check.verdict == Verdict::kFailed) std::printf("    %s: %s\n", r.name.c_str(), r.check.note.c_str());
  }

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
  add_implementation_keys(row, results, bound_gf);
  std::string peers;
  for (std::size_t i = 1; i < results.size(); ++i) peers += (peers.empty() ? "" : ",") + results[i].name;
  row.add_string("peers", peers);
  if (gk_ptr != nullptr) row.add_string("gemmkit_ptr_arrays", arrays_.gemmkit_where);
  char const* const status[] = {"ok", "skipped", "error"};
  std::string message = gk.note;
  if (!bound.error.empty()) message += (message.empty() ? "bound: " : "; bound: ") + bound.error;
  row.add_string("status", bound.error.empty() ? status[int(gk.status)] : "error");
  if (!message.empty()) row.add_string("message", message);
  std::optional<int> const sm_mhz = machine_.gpu ? current_sm_clock_mhz(machine_.gpu->pci_bus_id) : std::nullopt;
  add_gpu_device_keys(row, machine_, sm_mhz);
  add_run_keys(row, machine_);
  json_->write(row);
}

void BatchedGpuRun::print_goal_check() const {
  if (digests_.empty()) return;
  std::printf("\ngoal check (the issue's, beta != 0, square n): f64 >= 90%% of the bound n*B/16 at every n and >= 10x "
              "cuBLAS strided for n <= 8; f32 >= 90%% of n*B/8\n");
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
    std::printf("  %s: >= 90%% of %s %d/%d%s", to_string(dtype), dtype == Dtype::kF64 ? "n*B/16" : "n*B/8", at_bound,
                cases, below.empty() ? "" : (" (below:" + below + ")").c_str());
    if (dtype == Dtype::kF64) {
      std::printf("; >= 10x cuBLAS strided at n <= 8 %d/%d%s", small_met, small,
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
  if (!others.empty()) std::printf("  outside the goal (%% of the measured bound):%s\n", others.c_str());
  std::string ptr;
  for (RowDigest const& d : digests_) {
    if (!std::isfinite(d.ratio_ptr)) continue;
    ptr += format(" %s %s:%.2fx", to_string(d.dtype), case_name(d.m, d.n, d.k).c_str(), d.ratio_ptr);
  }
  if (!ptr.empty()) std::printf("  pointer-array forms, gemmkit_ptr / cublas_ptr:%s\n", ptr.c_str());
  if (any_goal_rows) std::printf("  goal %s\n", met ? "MET" : "not met");
}

}  // namespace

BatchedSummary run_batched_gpu(BatchedSettings const& settings, MachineInfo const& machine, std::string const& suite,
                               std::string const& section, JsonLinesFile* json) {
  if (!machine.gpu) {
    std::printf("batched on the GPU: needs a GPU (%s)\n", machine.no_gpu_reason.c_str());
    return {};
  }
  std::printf("method: per case one strided batch (column-major, packed, nn) of >= %.0f MiB of A+B+C on the device, "
              "fresh random data; alpha = %g, beta = %g; one stream, CUDA events around every pass\n",
              double(settings.bytes) / kMiB, settings.alpha, settings.beta);
  std::printf("        bound: fastest pass of a kernel with the same access mix (read A, B%s, write C) over the same "
              "arrays; checked pass on %d sampled problems per implementation%s, %d warm-up pass%s, then median of %d "
              "timed passes, bound and implementations alternating\n",
              settings.beta != 0 ? ", read C" : "", settings.samples, settings.beta == 0 ? " (C filled with NaN)" : "",
              settings.warmup, settings.warmup == 1 ? "" : "es", settings.reps);
  BatchedGpuRun run(settings, machine, suite, section, json);
  return run.run();
}

#else  // !GEMMKIT_WITH_CUDA

BatchedSummary run_batched_gpu(BatchedSettings const&, MachineInfo const& machine, std::string const&,
                               std::string const&, JsonLinesFile*) {
  std::printf("batched on the GPU: needs a GPU (%s)\n", machine.no_gpu_reason.c_str());
  return {};
}

#endif  // GEMMKIT_WITH_CUDA

}  // namespace gemmkit::bench
