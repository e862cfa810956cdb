/*! \file
    \brief `batched` on the GPU: gemmkit (strided, pointer-array, grouped) against cuBLAS (strided,
           pointer-array, grouped) and the bandwidth bound measured in the same run. See batched_gpu.hpp.
*/
#include "batched_gpu.hpp"

#include "base/nvml.hpp"

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
#include <functional>
#include <limits>
#include <memory>
#include <utility>
#include <vector>
#endif

namespace gemmkit::bench {

#if GEMMKIT_WITH_CUDA

namespace {

// --- device memory and handles -------------------------------------------------------------------

/// Why `need` bytes should not be allocated on the current device (more than 90 % of what is
/// free), or "" when they fit.
std::string device_memory_shortfall(double need) {
  std::size_t free_bytes = 0, total_bytes = 0;
  if (std::string e = cuda_error_text(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo"); !e.empty()) {
    return e;
  }
  if (need <= 0.9 * double(free_bytes)) return "";
  return format("needs %.0f MiB of device memory, %.0f MiB free", need / kMiB, double(free_bytes) / kMiB);
}

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
/// cuBLAS and gemmkit_ptr take), `host` arrays in host memory (gemmkit_ptr_host); either may be
/// absent when nothing runs on it.
struct PointerArrays {
  void const* const* a = nullptr;
  void const* const* b = nullptr;
  void* const* c = nullptr;
};

struct CaseArrays {
  PointerArrays device, host;
};

template <typename P>
P at(void const* const* array, std::int64_t first) {
  return reinterpret_cast<P>(const_cast<void**>(array) + first);
}

// --- the grouped case --------------------------------------------------------------------------------

inline constexpr char kGroupedCaseName[] = "grouped-mix";

/// One group of the grouped case: its shape and ops.
struct GroupShape {
  std::int64_t m, n, k;
  gk_op ta = GK_OP_N, tb = GK_OP_N;
};

/// The grouped case's groups: squares and non-squares across the small kernel's sizes, two of them
/// with a transposed operand.
std::vector<GroupShape> const& grouped_mix() {
  static std::vector<GroupShape> const mix = {{4, 4, 4},   {8, 8, 8},   {16, 16, 16}, {32, 32, 32},
                                              {5, 7, 3},   {20, 12, 28, GK_OP_T, GK_OP_N},
                                              {12, 24, 6, GK_OP_N, GK_OP_T}};
  return mix;
}

/// The grouped case laid out on the device: per group its problems (packed column-major, as stored
/// before op) and where its batch starts in the common A, B and C allocations (each start 256-byte
/// aligned, as separate allocations would be); the device pointer arrays cover all problems, group
/// after group.
struct GroupedCase {
  struct Group {
    GroupShape shape;
    std::int64_t size = 0;   ///< problems
    std::int64_t first = 0;  ///< the first problem's index in the call
    std::int64_t a_offset = 0, b_offset = 0, c_offset = 0;  ///< elements from each allocation's start
    std::int64_t stride_a() const { return shape.m * shape.k; }
    std::int64_t stride_b() const { return shape.k * shape.n; }
    std::int64_t stride_c() const { return shape.m * shape.n; }
    std::int64_t lda() const { return is_transposed(shape.ta) ? shape.k : shape.m; }
    std::int64_t ldb() const { return is_transposed(shape.tb) ? shape.n : shape.k; }
  };
  Dtype dtype = Dtype::kF64;
  double alpha = 1.0, beta = 1.0;
  std::vector<Group> groups;
  std::int64_t problems = 0, a_elements = 0, b_elements = 0, c_elements = 0;
  PointerArrays arrays;  ///< on the device

  /// One problem of group g as a GemmProblem (batch 1), for the reference check.
  GemmProblem problem(Group const& g) const {
    GemmProblem p;
    p.dtype = dtype;
    p.trans_a = g.shape.ta;
    p.trans_b = g.shape.tb;
    p.m = g.shape.m, p.n = g.shape.n, p.k = g.shape.k;
    p.lda = g.lda(), p.ldb = g.ldb(), p.ldc = g.shape.m;
    return p;
  }
  double flops() const {
    double total = 0;
    for (Group const& g : groups) total += 2.0 * double(g.shape.m * g.shape.n * g.shape.k) * double(g.size);
    return total;
  }
  /// A + B + C of every problem.
  double data_bytes() const {
    double elements = 0;
    for (Group const& g : groups) elements += double(g.size) * double(g.stride_a() + g.stride_b() + g.stride_c());
    return elements * double(size_of(dtype));
  }
  /// What the problems move: A and B read, C read (beta != 0) and written; the pointer arrays not counted.
  double gemm_bytes() const {
    double elements = 0;
    for (Group const& g : groups) {
      elements += double(g.size) * double(g.stride_a() + g.stride_b() + (beta != 0.0 ? 2 : 1) * g.stride_c());
    }
    return elements * double(size_of(dtype));
  }
  /// The largest m, n and k of the groups (the JSON row's m, n, k).
  GroupShape largest() const {
    GroupShape out{0, 0, 0};
    for (Group const& g : groups) {
      out.m = std::max(out.m, g.shape.m), out.n = std::max(out.n, g.shape.n), out.k = std::max(out.k, g.shape.k);
    }
    return out;
  }
  bool all_nn() const {
    return std::all_of(groups.begin(), groups.end(),
                       [](Group const& g) { return g.shape.ta == GK_OP_N && g.shape.tb == GK_OP_N; });
  }
  /// "4x4x4 nn x466034, 8x8x8 nn x116509, ...".
  std::string describe() const {
    std::string text;
    for (Group const& g : groups) {
      text += (text.empty() ? "" : ", ") + case_name(g.shape.m, g.shape.n, g.shape.k) + " " + op_letter(g.shape.ta) +
              op_letter(g.shape.tb) + " x" + std::to_string(g.size);
    }
    return text;
  }
};

/// Sizes each group to an equal share of settings.bytes of A+B+C (so the whole call holds at least
/// that much) and places it.
GroupedCase lay_out_grouped(std::vector<GroupShape> const& shapes, Dtype dtype, BatchedSettings const& settings) {
  GroupedCase out;
  out.dtype = dtype;
  out.alpha = settings.alpha;
  out.beta = settings.beta;
  std::int64_t const share = (settings.bytes + std::int64_t(shapes.size()) - 1) / std::int64_t(shapes.size());
  std::int64_t const align = 256 / std::int64_t(size_of(dtype));
  auto aligned = [align](std::int64_t elements) { return (elements + align - 1) / align * align; };
  for (GroupShape const& shape : shapes) {
    GroupedCase::Group g;
    g.shape = shape;
    g.size = batch_for_bytes(shape.m, shape.n, shape.k, size_of(dtype), share);
    g.first = out.problems;
    g.a_offset = out.a_elements;
    g.b_offset = out.b_elements;
    g.c_offset = out.c_elements;
    out.problems += g.size;
    out.a_elements = aligned(out.a_elements + g.size * g.stride_a());
    out.b_elements = aligned(out.b_elements + g.size * g.stride_b());
    out.c_elements = aligned(out.c_elements + g.size * g.stride_c());
    out.groups.push_back(g);
  }
  return out;
}

/// A grouped call's per-group arguments as host arrays of a library's types (gemmkit: gk_op and
/// int64_t; cuBLAS: cublasOperation_t and int).
template <typename Op, typename Int>
struct GroupArguments {
  std::vector<Op> ta, tb;
  std::vector<Int> m, n, k, lda, ldb, ldc, size;
  std::vector<double> alpha, beta;
  std::vector<float> alpha_f32, beta_f32;

  GroupArguments() = default;
  GroupArguments(GroupedCase const& g, Op (*op)(gk_op)) {
    for (GroupedCase::Group const& group : g.groups) {
      ta.push_back(op(group.shape.ta)), tb.push_back(op(group.shape.tb));
      m.push_back(Int(group.shape.m)), n.push_back(Int(group.shape.n)), k.push_back(Int(group.shape.k));
      lda.push_back(Int(group.lda())), ldb.push_back(Int(group.ldb())), ldc.push_back(Int(group.shape.m));
      size.push_back(Int(group.size));
    }
    alpha.assign(g.groups.size(), g.alpha), beta.assign(g.groups.size(), g.beta);
    alpha_f32.assign(g.groups.size(), float(g.alpha)), beta_f32.assign(g.groups.size(), float(g.beta));
  }
  template <typename T>
  T const* alphas() const {
    if constexpr (sizeof(T) == 8) return alpha.data();
    else return alpha_f32.data();
  }
  template <typename T>
  T const* betas() const {
    if constexpr (sizeof(T) == 8) return beta.data();
    else return beta_f32.data();
  }
};

// --- the implementations besides gemmkit's strided call -------------------------------------------

/// A gemmkit contender's own context: GPU backend, the run's device and stream.
class GemmkitGpuImpl : public BatchedImpl {
 public:
  ~GemmkitGpuImpl() override {
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
  /// Forces the registered variant `forced` names (a peer) instead of gemmkit's own pick.
  void force(ForcedIds forced) { forced_ = std::move(forced); }
  std::string prepare(BatchedOperands const& ops) override {
    ops_ = ops;
    if (forced_.name.empty()) return outcome(gk_set_variant(ctx_, ops.variant.c_str()));
    if (ops.batch > INT_MAX) return "batch above INT_MAX (cuBLAS takes int counts)";
    return outcome(gk_set_variant(ctx_, (ops.dtype == Dtype::kF64 ? forced_.f64 : forced_.f32).c_str()));
  }

 protected:
  /// "" for success, else the status and the context's message.
  std::string outcome(gk_status s) const {
    if (s == GK_SUCCESS) return {};
    return std::string(gk_status_string(s)) + (*gk_last_error(ctx_) ? ": " : "") + gk_last_error(ctx_);
  }

  gk_context ctx_ = nullptr;
  ForcedIds forced_;
};

/// gemmkit's pointer-array call, gk_?gemm_batched, on device pointers: with device arrays
/// (gemmkit_ptr, as cuBLAS gets them) or host arrays (gemmkit_ptr_host). Forced to cuBLAS's
/// registered pointer-array variant it is the peer cublas_ptr.
class GemmkitPointerArray final : public GemmkitGpuImpl {
 public:
  GemmkitPointerArray(CaseArrays const* arrays, bool host_arrays) : arrays_(arrays), host_arrays_(host_arrays) {}
  std::string name() const override {
    if (!forced_.name.empty()) return forced_.name;
    return host_arrays_ ? "gemmkit_ptr_host" : "gemmkit_ptr";
  }
  std::string run(std::int64_t first, std::int64_t count) override {
    BatchedOperands const& o = ops_;
    PointerArrays const& p = host_arrays_ ? arrays_->host : arrays_->device;
    return outcome(with_dtype(o.dtype, [&]<typename T>() {
      if constexpr (sizeof(T) == 8) {
        return gk_dgemm_batched(ctx_, GK_COL_MAJOR, GK_OP_N, GK_OP_N, o.m, o.n, o.k, o.alpha,
                                at<T const* const*>(p.a, first), o.m, at<T const* const*>(p.b, first), o.k, o.beta,
                                at<T* const*>(p.c, first), o.m, count);
      } else {
        return gk_sgemm_batched(ctx_, GK_COL_MAJOR, GK_OP_N, GK_OP_N, o.m, o.n, o.k, float(o.alpha),
                                at<T const* const*>(p.a, first), o.m, at<T const* const*>(p.b, first), o.k,
                                float(o.beta), at<T* const*>(p.c, first), o.m, count);
      }
    }));
  }
  std::string variant() const override {
    return std::string(gk_last_variant(ctx_)) + (host_arrays_ ? " (host arrays)" : " (device arrays)");
  }

 private:
  CaseArrays const* arrays_;
  bool host_arrays_;
};

/// gemmkit's grouped call, gk_?gemm_grouped, over the grouped case's device arrays: one launch per
/// group. info = NULL: per-problem statuses are host stores that cuBLAS's grouped call does not make.
class GemmkitGrouped final : public GemmkitGpuImpl {
 public:
  explicit GemmkitGrouped(GroupedCase const* grouped) : case_(grouped) {}
  std::string name() const override { return "gemmkit_grouped"; }
  std::string prepare(BatchedOperands const& ops) override {
    args_ = {*case_, [](gk_op o) { return o; }};
    return GemmkitGpuImpl::prepare(ops);
  }
  std::string run(std::int64_t first, std::int64_t count) override {
    GroupedCase const& g = *case_;
    if (first != 0 || count != g.problems) return "the grouped call runs whole";
    auto const groups = std::int64_t(g.groups.size());
    GroupArguments<gk_op, std::int64_t> const& a = args_;
    return outcome(with_dtype(g.dtype, [&]<typename T>() {
      if constexpr (sizeof(T) == 8) {
        return gk_dgemm_grouped(ctx_, GK_COL_MAJOR, a.ta.data(), a.tb.data(), a.m.data(), a.n.data(), a.k.data(),
                                a.alphas<T>(), at<T const* const*>(g.arrays.a, 0), a.lda.data(),
                                at<T const* const*>(g.arrays.b, 0), a.ldb.data(), a.betas<T>(),
                                at<T* const*>(g.arrays.c, 0), a.ldc.data(), groups, a.size.data(), nullptr);
      } else {
        return gk_sgemm_grouped(ctx_, GK_COL_MAJOR, a.ta.data(), a.tb.data(), a.m.data(), a.n.data(), a.k.data(),
                                a.alphas<T>(), at<T const* const*>(g.arrays.a, 0), a.lda.data(),
                                at<T const* const*>(g.arrays.b, 0), a.ldb.data(), a.betas<T>(),
                                at<T* const*>(g.arrays.c, 0), a.ldc.data(), groups, a.size.data(), nullptr);
      }
    }));
  }
  /// The last group's variant: the rows' `variant` key is gemmkit's chosen id.
  std::string variant() const override { return gk_last_variant(ctx_); }

 private:
  GroupedCase const* case_;
  GroupArguments<gk_op, std::int64_t> args_;
};

/// cuBLAS's grouped call, cublas?gemmGroupedBatched (CUDA 12.5 on), over the grouped case's device
/// arrays; its per-group arguments are host arrays of int.
class CublasGrouped final : public BatchedImpl {
 public:
  CublasGrouped(cublasHandle_t handle, GroupedCase const* grouped) : handle_(handle), case_(grouped) {}
  std::string name() const override { return "cublas_grouped"; }
  std::string prepare(BatchedOperands const& ops) override {
    ops_ = ops;
    if (case_->problems > INT_MAX) return "more than INT_MAX problems (cuBLAS takes int counts)";
    args_ = {*case_, [](gk_op o) { return o == GK_OP_N ? CUBLAS_OP_N : (o == GK_OP_T ? CUBLAS_OP_T : CUBLAS_OP_C); }};
    return {};
  }
  std::string run(std::int64_t first, std::int64_t count) override {
    GroupedCase const& g = *case_;
    if (first != 0 || count != g.problems) return "the grouped call runs whole";
    int const groups = int(g.groups.size());
    GroupArguments<cublasOperation_t, int> const& a = args_;
    cublasStatus_t const s = with_dtype(g.dtype, [&]<typename T>() {
      if constexpr (sizeof(T) == 8) {
        return cublasDgemmGroupedBatched(handle_, a.ta.data(), a.tb.data(), a.m.data(), a.n.data(), a.k.data(),
                                         a.alphas<T>(), at<T const* const*>(g.arrays.a, 0), a.lda.data(),
                                         at<T const* const*>(g.arrays.b, 0), a.ldb.data(), a.betas<T>(),
                                         at<T* const*>(g.arrays.c, 0), a.ldc.data(), groups, a.size.data());
      } else {
        return cublasSgemmGroupedBatched(handle_, a.ta.data(), a.tb.data(), a.m.data(), a.n.data(), a.k.data(),
                                         a.alphas<T>(), at<T const* const*>(g.arrays.a, 0), a.lda.data(),
                                         at<T const* const*>(g.arrays.b, 0), a.ldb.data(), a.betas<T>(),
                                         at<T* const*>(g.arrays.c, 0), a.ldc.data(), groups, a.size.data());
      }
    });
    return cublas_error_text(s, "cublas?gemmGroupedBatched");
  }
  std::string variant() const override {
    return std::string("cublas") + (case_->dtype == Dtype::kF64 ? 'D' : 'S') + "gemmGroupedBatched";
  }

 private:
  cublasHandle_t handle_;
  GroupedCase const* case_;
  GroupArguments<cublasOperation_t, int> args_;
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

/// A reported grouped case, for the goal check.
struct GroupedDigest {
  Dtype dtype;
  double pct_bound;  ///< gemmkit's grouped call, of the bound from the problems' bytes
  double ratio;      ///< gemmkit / cuBLAS grouped
};

/// The bound's pass: launch shape and timings.
struct BoundResult {
  std::string kernel;      ///< the launch shape that was fastest in the warm-up
  Stats time;              ///< ms per pass
  std::string error;
};

/// What the bound's pass streams over: A and B read, C read (unless beta = 0) and written in
/// place, where the GEMM's operands lie on the device.
template <typename T>
struct StreamArrays {
  T const* a;
  std::int64_t la;
  T const* b;
  std::int64_t lb;
  T* c;
  std::int64_t lc;
  bool read_c;
  double bytes() const { return double(sizeof(T)) * double(la + lb + (read_c ? 2 : 1) * lc); }
};

/// One problem a checked pass compares: its index in the call (for the note), its shape (batch 1,
/// packed leading dimensions) and its operands on the device.
template <typename T>
struct SampledProblem {
  std::int64_t index;
  GemmProblem problem;
  T const* a;
  T const* b;
  T* c;
};

/// A contender's checked pass over problems [first, first + count).
using CheckedPass =
    std::function<Verification(BatchedImpl& impl, std::int64_t first, std::int64_t count, std::string* error)>;

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
  void run_grouped();
  void setup_contender(Contender& c, ImplResult& r, BatchedOperands const& ops, std::string const& label,
                       CheckedPass const& checked);
  template <typename T>
  Verification checked_pass(BatchedImpl& impl, std::vector<SampledProblem<T>> const& samples, T* c_window,
                            std::size_t c_elements, double alpha, double beta, std::int64_t first, std::int64_t count,
                            std::string* error);
  template <typename T>
  BoundResult measure(StreamArrays<T> const& arrays, std::int64_t batch, std::string const& label,
                      std::vector<Contender>& contenders, std::vector<ImplResult>& results);
  void report(BatchedOperands const& ops, std::vector<ImplResult> const& results, BoundResult const& bound);
  void report_grouped(double stream_bytes, std::vector<ImplResult> const& results, BoundResult const& bound);
  void report_skipped(std::string const& case_label, std::int64_t m, std::int64_t n, std::int64_t k, Dtype dtype,
                      std::string const& why);
  /// Adds one reported case to the run's summary (gemmkit's result first in `results`).
  void count_outcome(std::vector<ImplResult> const& results, BoundResult const& bound);
  /// A JSON row's keys after the case's own: every implementation's, the peers, status and message,
  /// device and run; then writes it.
  void write_row_tail(JsonObject& row, std::vector<ImplResult> const& results, BoundResult const& bound,
                      double bound_gf);
  /// The table's rows of one case: the bound, then each implementation. `head` holds the dtype, m,
  /// n and k cells; same_form gives gemmkit's GF/s in a row's API form (NaN: none).
  void print_case_rows(std::vector<std::string> const& head, std::int64_t batch, BoundResult const& bound,
                       double bandwidth, double bound_gf, std::vector<ImplResult> const& results,
                       std::function<double(ImplResult const&)> const& same_form);
  std::vector<TableColumn> columns() const;
  void print_goal_check() const;
  std::string sync(char const* what) { return cuda_error_text(cudaStreamSynchronize(stream_), what); }
  /// Ends a case's fill: waits for it and clears the progress line; returns the first error ("" if
  /// none), with CUDA's last error cleared so the next case starts clean.
  std::string end_filling(std::string error) {
    if (error.empty()) error = sync("filling the operands");
    progress_.clear();
    if (!error.empty()) (void)cudaGetLastError();
    return error;
  }

  BatchedSettings const& set_;
  MachineInfo const& machine_;
  std::string suite_, section_;
  JsonLinesFile* json_;
  cudaStream_t stream_ = nullptr;
  cublasHandle_t cublas_ = nullptr;
  EventTimer events_;
  CaseArrays arrays_;
  std::vector<Contender> contenders_;
  GroupedCase grouped_;                        ///< the grouped case being run
  std::vector<Contender> grouped_contenders_;  ///< gemmkit's grouped call, then cuBLAS's
  std::unique_ptr<TablePrinter> table_;
  std::vector<RowDigest> digests_;
  std::vector<GroupedDigest> grouped_digests_;
  BatchedSummary summary_;
  Progress progress_;
};

BatchedGpuRun::~BatchedGpuRun() {
  contenders_.clear();  // the gemmkit contexts hold the stream
  grouped_contenders_.clear();
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
  // A handle for cuBLAS's grouped call only: gemmkit's grouped call runs group by group, so the
  // registry cannot offer it as one variant; the strided and pointer-array peers are registered.
  if (std::find(set_.peers.begin(), set_.peers.end(), "cublas_grouped") != set_.peers.end()) {
    cublas_unavailable = cublas_error_text(cublasCreate(&cublas_), "cublasCreate");
    if (cublas_unavailable.empty()) {
      cublas_unavailable = cublas_error_text(cublasSetStream(cublas_, stream_), "cublasSetStream");
    }
  }
  for (std::string const& name : set_.peers) {
    if (name == "cublas_grouped") continue;  // the grouped case's peer, below
    Contender c;
    c.name = name;
    if (name == "gemmkit_ptr" || name == "gemmkit_ptr_host") {
      auto impl = std::make_unique<GemmkitPointerArray>(&arrays_, name == "gemmkit_ptr_host");
      c.unavailable = impl->init(set_.verbosity, stream_, set_.device);
      c.impl = std::move(impl);
    } else if (name == "cublas_ptr") {  // cuBLAS's registered variants, forced through gemmkit's calls
      auto impl = std::make_unique<GemmkitPointerArray>(&arrays_, false);
      impl->force({name, "cublas_dgemm_pointer_array", "cublas_sgemm_pointer_array"});
      c.unavailable = impl->init(set_.verbosity, stream_, set_.device);
      c.impl = std::move(impl);
    } else {
      c.impl = make_gemmkit_batched_gpu(set_.verbosity, stream_, set_.device, &c.unavailable,
                                        {name, "cublas_dgemm", "cublas_sgemm"});
    }
    contenders_.push_back(std::move(c));
  }
  if (set_.grouped) {
    Contender g;
    g.name = "gemmkit_grouped";
    g.whole_batch = true;
    auto impl = std::make_unique<GemmkitGrouped>(&grouped_);
    g.unavailable = impl->init(set_.verbosity, stream_, set_.device);
    g.impl = std::move(impl);
    grouped_contenders_.push_back(std::move(g));
    if (std::find(set_.peers.begin(), set_.peers.end(), "cublas_grouped") != set_.peers.end()) {
      Contender c;
      c.name = "cublas_grouped";
      c.whole_batch = true;  // one call over every group: nothing to window
      c.unavailable = cublas_unavailable;
      c.impl = std::make_unique<CublasGrouped>(cublas_, &grouped_);
      grouped_contenders_.push_back(std::move(c));
    }
  }
  return {};
}

std::vector<TableColumn> BatchedGpuRun::columns() const {
  return {{"dtype", 5, true}, {"m", 3},        {"n", 3},   {"k", 3},    {"batch", 9},   {"impl", 16, true},
          {"variant", 36, true}, {"GF/s", 7}, {"ms", 7}, {"%bnd", 5}, {"gk/this", 7}, {"verified", 8, true}};
}

BatchedSummary BatchedGpuRun::run() {
  if (std::string e = init(); !e.empty()) {
    std::printf("batched on the GPU: %s\n", e.c_str());
    ++summary_.errors;
    return summary_;
  }
  std::printf("implementations: gemmkit (gk_?gemm_strided_batched)");
  std::vector<Contender const*> listed;
  for (std::size_t i = 1; i < contenders_.size(); ++i) listed.push_back(&contenders_[i]);
  for (Contender const& c : grouped_contenders_) listed.push_back(&c);
  for (Contender const* c : listed) {
    std::string const why = c->unavailable.empty() ? "" : " (skipped: " + c->unavailable + ")";
    std::printf(", %s%s", c->name.c_str(), why.c_str());
  }
  std::printf("\ncolumns: impl = what ran (gemmkit = gk_?gemm_strided_batched, gemmkit_ptr = gk_?gemm_batched on "
              "device pointer arrays, gemmkit_ptr_host = the same on host arrays, cublas_strided = "
              "cublas?gemmStridedBatched, cublas_ptr = cublas?gemmBatched, gemmkit_grouped = gk_?gemm_grouped, "
              "cublas_grouped = cublas?gemmGroupedBatched); bound = the stream-like pass; %%bnd = %% of the bound "
              "flops/(bytes/B), B from the bound's fastest pass; gk/this = gemmkit's GF/s in the same API form "
              "(strided, pointer-array on device arrays, grouped) over this row's; batch~ = timed on windows of the "
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
  if (set_.grouped) {
    for (Dtype dtype : set_.dtypes) {
      if (dtype == Dtype::kF64) run_grouped<double>();
      else run_grouped<float>();
    }
  }
  print_goal_check();
  return summary_;
}

void BatchedGpuRun::report_skipped(std::string const& case_label, std::int64_t m, std::int64_t n, std::int64_t k,
                                   Dtype dtype, std::string const& why) {
  ++summary_.rows;
  ++summary_.skipped;
  table_->print_row({to_string(dtype), std::to_string(m), std::to_string(n), std::to_string(k), "-",
                     "skipped: " + why});
  if (json_ == nullptr || !json_->is_open()) return;
  JsonObject row;
  row.add_string("suite", suite_);
  if (!section_.empty()) row.add_string("section", section_);
  row.add_string("case", case_label).add_string("dtype", to_string(dtype));
  row.add_int("m", m).add_int("n", n).add_int("k", k).add_string("backend", "cuda");
  row.add_string("status", "skipped").add_string("message", why);
  add_gpu_device_keys(row, machine_, std::nullopt);
  add_run_keys(row, machine_);
  json_->write(row);
}

template <typename T>
void BatchedGpuRun::run_case(ShapeSpec const& shape) {
  BatchedOperands ops = batched_case(shape, sizeof(T) == 8 ? Dtype::kF64 : Dtype::kF32, set_);
  std::string const name = case_name(shape.m, shape.n, shape.k);
  auto const skip = [&](std::string const& why) { report_skipped(name, shape.m, shape.n, shape.k, ops.dtype, why); };
  std::size_t const a_bytes = std::size_t(ops.batch * ops.stride_a()) * sizeof(T);
  std::size_t const b_bytes = std::size_t(ops.batch * ops.stride_b()) * sizeof(T);
  std::size_t const c_bytes = std::size_t(ops.batch * ops.stride_c()) * sizeof(T);
  std::size_t const array_bytes = std::size_t(ops.batch) * sizeof(void*);

  // gemmkit_ptr and cuBLAS get device arrays of device pointers, gemmkit_ptr_host host arrays.
  auto const wants = [&](char const* peer) {
    return std::find(set_.peers.begin(), set_.peers.end(), peer) != set_.peers.end();
  };
  arrays_ = CaseArrays{};
  bool const device_arrays = wants("cublas_ptr") || wants("gemmkit_ptr");
  bool const host_arrays = wants("gemmkit_ptr_host");

  double const device_need = double(a_bytes + b_bytes + c_bytes) + (device_arrays ? 3.0 * double(array_bytes) : 0.0);
  if (std::string e = device_memory_shortfall(device_need); !e.empty()) {
    skip(e);
    return;
  }
  if (host_arrays) {
    double const available = double(sysconf(_SC_AVPHYS_PAGES)) * double(sysconf(_SC_PAGESIZE));
    if (available > 0 && 3.0 * double(array_bytes) > 0.5 * available) {
      skip(format("host pointer arrays need %.0f MiB, %.0f MiB of memory available (--peers without gemmkit_ptr_host)",
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
    skip(error);
    return;
  }
  ops.A = a.get();
  ops.B = b.get();
  ops.C = c.get();
  // Fresh random operands, made on the device; the checks read back the problems they compare.
  std::uint64_t const seed = mix64(std::uint64_t(ops.m) << 40 ^ std::uint64_t(ops.n) << 20 ^ std::uint64_t(ops.k) ^
                                   (sizeof(T) == 8 ? 0xD1u : 0xF1u));
  std::string const label = name + " " + to_string(ops.dtype);
  progress_.show(
      format("%s: filling %.0f MiB on the device", label.c_str(), double(a_bytes + b_bytes + c_bytes) / kMiB));
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
  if (error = end_filling(error); !error.empty()) {
    skip(error);
    return;
  }

  CheckedPass const checked = [&](BatchedImpl& impl, std::int64_t first, std::int64_t count, std::string* e) {
    std::vector<SampledProblem<T>> samples;
    if (set_.verify) {
      for (std::int64_t i : pick_samples(first, count, set_.samples, seed ^ 0x5A5A5A5Aull)) {
        samples.push_back({i, ops.problem(), ops.a<T>(i), ops.b<T>(i), ops.c<T>(i)});
      }
    }
    return checked_pass<T>(impl, samples, ops.c<T>(first), std::size_t(count * ops.stride_c()), ops.alpha, ops.beta,
                           first, count, e);
  };
  std::vector<ImplResult> results(contenders_.size());
  for (std::size_t i = 0; i < contenders_.size(); ++i) setup_contender(contenders_[i], results[i], ops, label, checked);
  StreamArrays<T> const stream{ops.a<T>(0), ops.batch * ops.stride_a(), ops.b<T>(0), ops.batch * ops.stride_b(),
                               ops.c<T>(0), ops.batch * ops.stride_c(), ops.beta != 0.0};
  BoundResult const bound = measure<T>(stream, ops.batch, label, contenders_, results);
  for (ImplResult& r : results) {
    if (r.status == RunStatus::kOk) r.gflops = problem_flops(ops) * double(r.count) / (r.time.median * 1e6);
  }
  report(ops, results, bound);
}

/// One gk_?gemm_grouped call over grouped_mix() (device pointer arrays) against cuBLAS's grouped
/// call, with the bound of the bytes its problems move at the B of the stream pass over the same
/// allocations.
template <typename T>
void BatchedGpuRun::run_grouped() {
  Dtype const dtype = sizeof(T) == 8 ? Dtype::kF64 : Dtype::kF32;
  std::vector<GroupShape> mix;
  for (std::size_t i = 0; i < grouped_mix().size(); ++i) {
    if (set_.group_mix.empty() || std::find(set_.group_mix.begin(), set_.group_mix.end(), std::int64_t(i) + 1) != set_.group_mix.end()) {
      mix.push_back(grouped_mix()[i]);
    }
  }
  if (mix.empty()) {
    report_skipped(kGroupedCaseName, 0, 0, 0, dtype, "--group-mix names none of the mix's groups (1 .. " +
                                                         std::to_string(grouped_mix().size()) + ")");
    return;
  }
  grouped_ = lay_out_grouped(mix, dtype, set_);
  GroupedCase& g = grouped_;
  auto const skip = [&](std::string const& why) {
    GroupShape const largest = g.largest();
    report_skipped(kGroupedCaseName, largest.m, largest.n, largest.k, dtype, why);
  };
  std::size_t const a_bytes = std::size_t(g.a_elements) * sizeof(T);
  std::size_t const b_bytes = std::size_t(g.b_elements) * sizeof(T);
  std::size_t const c_bytes = std::size_t(g.c_elements) * sizeof(T);
  std::size_t const array_bytes = std::size_t(g.problems) * sizeof(void*);
  double const device_need = double(a_bytes + b_bytes + c_bytes) + 3.0 * double(array_bytes);
  if (std::string e = device_memory_shortfall(device_need); !e.empty()) {
    skip(e);
    return;
  }
  DeviceMemory a, b, c, array_a, array_b, array_c;
  std::string error = a.allocate(a_bytes, "A");
  if (error.empty()) error = b.allocate(b_bytes, "B");
  if (error.empty()) error = c.allocate(c_bytes, "C");
  if (error.empty()) error = array_a.allocate(array_bytes, "A array");
  if (error.empty()) error = array_b.allocate(array_bytes, "B array");
  if (error.empty()) error = array_c.allocate(array_bytes, "C array");
  if (!error.empty()) {
    skip(error);
    return;
  }
  auto* const a_data = static_cast<T*>(a.get());
  auto* const b_data = static_cast<T*>(b.get());
  auto* const c_data = static_cast<T*>(c.get());
  std::string const label = std::string(kGroupedCaseName) + " " + to_string(dtype);
  progress_.show(
      format("%s: filling %.0f MiB on the device", label.c_str(), double(a_bytes + b_bytes + c_bytes) / kMiB));
  std::uint64_t const seed = mix64(0x6A09E667u ^ (sizeof(T) == 8 ? 0xD1u : 0xF1u));
  std::uint64_t salt = 0;
  for (auto [data, elements] : {std::pair{a_data, g.a_elements}, std::pair{b_data, g.b_elements},
                                std::pair{c_data, g.c_elements}}) {
    if (error.empty()) {
      error = cuda_error_text(fill_random_device(data, elements, mix64(seed + ++salt), stream_), "filling operands");
    }
  }
  for (GroupedCase::Group const& group : g.groups) {
    struct Array {
      DeviceMemory const& array;
      T* base;
      std::int64_t stride;
    };
    for (Array const& o : {Array{array_a, a_data + group.a_offset, group.stride_a()},
                           Array{array_b, b_data + group.b_offset, group.stride_b()},
                           Array{array_c, c_data + group.c_offset, group.stride_c()}}) {
      if (error.empty()) {
        error = cuda_error_text(
            fill_pointer_array(static_cast<T**>(o.array.get()) + group.first, o.base, o.stride, group.size, stream_),
            "filling the pointer arrays");
      }
    }
  }
  g.arrays = {static_cast<void const* const*>(array_a.get()), static_cast<void const* const*>(array_b.get()),
              static_cast<void* const*>(array_c.get())};
  if (error = end_filling(error); !error.empty()) {
    skip(error);
    return;
  }
  std::printf("%s: %zu groups %s; %.0f MiB of A+B+C, %lld problems, pointer arrays on the device\n", label.c_str(),
              g.groups.size(), g.describe().c_str(), g.data_bytes() / kMiB, static_cast<long long>(g.problems));

  // Every contender runs the whole call; its samples come from every group.
  CheckedPass const checked = [&](BatchedImpl& impl, std::int64_t first, std::int64_t count, std::string* e) {
    std::vector<SampledProblem<T>> samples;
    int const per_group = std::max(2, set_.samples / int(g.groups.size()));
    for (std::size_t j = 0; set_.verify && j < g.groups.size(); ++j) {
      GroupedCase::Group const& group = g.groups[j];
      for (std::int64_t i : pick_samples(0, group.size, per_group, seed ^ (0x5A5A5A5Aull + j))) {
        samples.push_back({group.first + i, g.problem(group), a_data + group.a_offset + i * group.stride_a(),
                           b_data + group.b_offset + i * group.stride_b(),
                           c_data + group.c_offset + i * group.stride_c()});
      }
    }
    return checked_pass<T>(impl, samples, c_data, std::size_t(g.c_elements), g.alpha, g.beta, first, count, e);
  };
  BatchedOperands ops;  // what the contenders' prepare() and the common setup read: the call's size
  ops.dtype = dtype;
  ops.batch = g.problems;
  ops.alpha = g.alpha;
  ops.beta = g.beta;
  ops.variant = forced_variant(set_, dtype);
  std::vector<ImplResult> results(grouped_contenders_.size());
  for (std::size_t i = 0; i < grouped_contenders_.size(); ++i) {
    setup_contender(grouped_contenders_[i], results[i], ops, label, checked);
  }
  StreamArrays<T> const stream{a_data, g.a_elements, b_data, g.b_elements, c_data, g.c_elements, g.beta != 0.0};
  BoundResult const bound = measure<T>(stream, g.problems, label, grouped_contenders_, results);
  for (ImplResult& r : results) {
    if (r.status == RunStatus::kOk) r.gflops = g.flops() / (r.time.median * 1e6);
  }
  report_grouped(stream.bytes(), results, bound);
}

void BatchedGpuRun::setup_contender(Contender& c, ImplResult& r, BatchedOperands const& ops, std::string const& label,
                                    CheckedPass const& checked) {
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
    progress_.show(format("%s: %s checked pass", label.c_str(), c.name.c_str()));
    return checked(*c.impl, first, count, error);
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

/// The checked pass: with beta = 0 the window's C (c_window, c_elements) is all NaN first (a
/// correct GEMM never reads it), else each sample's C0 is read back; the implementation runs
/// problems [first, first + count) once, and each sample's A, B and C are read back and compared
/// against the reference. No samples: not checked (--no-verify).
template <typename T>
Verification BatchedGpuRun::checked_pass(BatchedImpl& impl, std::vector<SampledProblem<T>> const& samples,
                                         T* c_window, std::size_t c_elements, double alpha, double beta,
                                         std::int64_t first, std::int64_t count, std::string* error) {
  struct Copies {
    std::vector<T> a, b, c0, c;
  };
  std::vector<Copies> copies(samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) {
    GemmProblem const& p = samples[i].problem;
    copies[i] = {std::vector<T>(std::size_t(p.m * p.k)), std::vector<T>(std::size_t(p.k * p.n)),
                 std::vector<T>(std::size_t(p.m * p.n)), std::vector<T>(std::size_t(p.m * p.n))};
  }
  bool const beta0 = beta == 0.0;
  Verification total;
  auto copy_back = [&](std::vector<T>& to, T const* from) {
    if (error->empty()) {
      *error = cuda_error_text(cudaMemcpyAsync(to.data(), from, to.size() * sizeof(T), cudaMemcpyDeviceToHost, stream_),
                               "reading back a sampled problem");
    }
  };
  if (beta0) {
    *error = cuda_error_text(cudaMemsetAsync(c_window, 0xFF, c_elements * sizeof(T), stream_), "filling C with NaN");
  } else {
    for (std::size_t i = 0; i < samples.size(); ++i) copy_back(copies[i].c0, samples[i].c);
  }
  if (error->empty()) *error = impl.run(first, count);
  if (error->empty()) *error = sync("kernel execution");
  if (!error->empty() || samples.empty()) {
    if (error->empty()) total.note = "--no-verify";
    return total;
  }
  for (std::size_t i = 0; i < samples.size(); ++i) {
    copy_back(copies[i].a, samples[i].a);
    copy_back(copies[i].b, samples[i].b);
    copy_back(copies[i].c, samples[i].c);
  }
  if (error->empty()) *error = sync("reading back the samples");
  if (!error->empty()) return total;
  start_sampled_check(&total, samples.size());
  for (std::size_t i = 0; i < samples.size(); ++i) {
    GemmProblem const& p = samples[i].problem;
    std::vector<std::int64_t> cols(std::size_t(p.n));
    for (std::int64_t j = 0; j < p.n; ++j) cols[std::size_t(j)] = j;
    merge_sampled_check(&total,
                        verify_columns<T>(p, alpha, beta, copies[i].a.data(), copies[i].b.data(), cols,
                                          beta0 ? nullptr : copies[i].c0.data(), copies[i].c.data()),
                        samples[i].index);
  }
  return total;
}

template <typename T>
BoundResult BatchedGpuRun::measure(StreamArrays<T> const& arrays, std::int64_t batch, std::string const& label,
                                   std::vector<Contender>& contenders, std::vector<ImplResult>& results) {
  BoundResult bound;
  DeviceMemory sink;
  if (std::string e = sink.allocate(sizeof(T), "sink"); !e.empty()) {
    bound.error = e;
    return bound;
  }
  std::string error;
  auto bound_pass = [&](int blocks) -> Call {
    return [&, blocks] {
      error = cuda_error_text(stream_pass_device(arrays.a, arrays.la, arrays.b, arrays.lb, arrays.c, arrays.lc,
                                                 arrays.read_c, static_cast<T*>(sink.get()), blocks, stream_),
                              "bound pass");
      return error.empty() ? GK_SUCCESS : GK_CUDA_ERROR;
    };
  };
  progress_.show(format("%s: %d timed reps", label.c_str(), set_.reps));
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
  std::vector<std::vector<double>> impl_ms(contenders.size());
  // Each implementation alternates rep by rep with the bound, one implementation after another:
  // a pass then follows only the bound's and its own, never another implementation's. Passes after
  // a long cuBLAS pass ran 5-7 % slower at n <= 7, the bound's and gemmkit's alike (2x2x2 f64 on
  // the H100 at 990426d: gemmkit 0.485 ms alone with the bound, 0.513 ms after cublasDgemmBatched,
  // bound 0.465 and 0.497 ms), so a shared alternation measured the order, not the implementations.
  for (std::size_t i = 0; i < contenders.size() && bound.error.empty(); ++i) {
    ImplResult& r = results[i];
    for (int rep = 0; rep < set_.reps && bound.error.empty() && r.status == RunStatus::kOk; ++rep) {
      double ms = 0;
      if (events_.time_batch(bound_call, 1, &ms, &bound.error) != GK_SUCCESS) {
        if (bound.error.empty()) bound.error = error;
        break;
      }
      bound_ms.push_back(ms);
      std::int64_t const first = window_first(batch, r.count, 1 + set_.warmup + rep);
      std::string e;
      Call const call = [&] {
        e = contenders[i].impl->run(first, r.count);
        return e.empty() ? GK_SUCCESS : GK_INTERNAL_ERROR;
      };
      std::string cuda;
      if (events_.time_batch(call, 1, &ms, &cuda) != GK_SUCCESS) {
        r.status = RunStatus::kError;
        r.note = !e.empty() ? e : cuda;
        cudaStreamSynchronize(stream_);
        cudaGetLastError();
        break;
      }
      impl_ms[i].push_back(ms);
    }
  }
  progress_.clear();
  if (!bound.error.empty()) cudaGetLastError();
  bound.time = summarize(bound_ms);
  for (std::size_t i = 0; i < contenders.size(); ++i) {
    if (results[i].status == RunStatus::kOk) results[i].time = summarize(impl_ms[i]);
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

void BatchedGpuRun::count_outcome(std::vector<ImplResult> const& results, BoundResult const& bound) {
  ImplResult const& gk = results.front();
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
}

void BatchedGpuRun::print_case_rows(std::vector<std::string> const& head, std::int64_t batch, BoundResult const& bound,
                                    double bandwidth, double bound_gf, std::vector<ImplResult> const& results,
                                    std::function<double(ImplResult const&)> const& same_form) {
  auto row_cells = [&](std::string const& count) {
    std::vector<std::string> cells = head;
    cells.push_back(count);
    return cells;
  };
  {
    std::vector<std::string> cells = row_cells(std::to_string(batch));
    if (!bound.error.empty()) {
      cells.insert(cells.end(), {"bound", "ERROR: " + bound.error});
    } else {
      cells.insert(cells.end(), {"bound", format("%.0f GB/s, %s", bandwidth, bound.kernel.c_str()),
                                 format_gflops(bound_gf), format_ms(bound.time.min), "100", "-", "-"});
    }
    table_->print_row(cells);
  }
  for (ImplResult const& r : results) {
    std::vector<std::string> cells = row_cells(std::to_string(r.count) + (r.count < batch ? "~" : ""));
    cells.push_back(r.name);
    if (r.status != RunStatus::kOk) {
      cells.push_back((r.status == RunStatus::kSkipped ? "skipped: " : "ERROR: ") + r.note);
      table_->print_row(cells);
      continue;
    }
    double const same_form_gk = same_form(r);
    cells.insert(cells.end(), {r.variant, format_gflops(r.gflops) + (r.check.verdict == Verdict::kFailed ? "!" : ""),
                               format_ms(r.time.median), format("%.0f", 100 * r.gflops / bound_gf),
                               std::isfinite(same_form_gk) ? format_ratio(same_form_gk / r.gflops) : "-",
                               verify_cell(r.check)});
    table_->print_row(cells);
    if (r.check.verdict == Verdict::kFailed) std::printf("    %s: %s\n", r.name.c_str(), r.check.note.c_str());
  }
}

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

  count_outcome(results, bound);
  digests_.push_back({ops.dtype, ops.m, ops.n, ops.k, ops.beta, pct, ratio_strided, 100 * gk_ptr_gf / bound_gf,
                      ratio_ptr});

  print_case_rows({to_string(ops.dtype), std::to_string(ops.m), std::to_string(ops.n), std::to_string(ops.k)},
                  ops.batch, bound, bandwidth, bound_gf, results, [&](ImplResult const& r) {
                    if (r.name == "cublas_strided") return gk.gflops;
                    return r.name == "cublas_ptr" ? gk_ptr_gf : kNotMeasured;
                  });

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
  if (gk_ptr != nullptr) row.add_string("gemmkit_ptr_arrays", "device");
  write_row_tail(row, results, bound, bound_gf);
}

void BatchedGpuRun::write_row_tail(JsonObject& row, std::vector<ImplResult> const& results, BoundResult const& bound,
                                   double bound_gf) {
  ImplResult const& gk = results.front();
  add_implementation_keys(row, results, bound_gf);
  std::string peers;
  for (std::size_t i = 1; i < results.size(); ++i) peers += (peers.empty() ? "" : ",") + results[i].name;
  row.add_string("peers", peers);
  char const* const status[] = {"ok", "skipped", "error"};
  std::string message = gk.note;
  if (!bound.error.empty()) message += (message.empty() ? "bound: " : "; bound: ") + bound.error;
  row.add_string("status", bound.error.empty() ? status[int(gk.status)] : "error");
  if (!message.empty()) row.add_string("message", message);
  std::optional<int> const sm_mhz = machine_.gpu ? nvml::sm_clock_mhz(machine_.gpu->pci_bus_id) : std::nullopt;
  add_gpu_device_keys(row, machine_, sm_mhz);
  add_run_keys(row, machine_);
  json_->write(row);
}

/// The grouped case's rows. B comes from the stream pass over the allocations (stream_bytes, a
/// little more than the problems' own bytes: the alignment gaps between groups); the bound is the
/// call's flops over the time its problems' bytes take at B.
void BatchedGpuRun::report_grouped(double stream_bytes, std::vector<ImplResult> const& results,
                                   BoundResult const& bound) {
  GroupedCase const& g = grouped_;
  ImplResult const& gk = results.front();
  double const bandwidth = stream_bytes / (bound.time.min * 1e6);  // GB/s
  double const gemm_bytes = g.gemm_bytes();
  double const bound_gf = g.flops() * bandwidth / gemm_bytes;
  ImplResult const* peer = find_result(results, "cublas_grouped");
  double const peer_gf = gflops_of(peer);
  double const ratio = gk.gflops / peer_gf;
  double const pct = 100 * gk.gflops / bound_gf;
  count_outcome(results, bound);
  grouped_digests_.push_back({g.dtype, pct, ratio});
  print_case_rows({to_string(g.dtype), "mix", "-", "-"}, g.problems, bound, bandwidth, bound_gf, results,
                  [&](ImplResult const& r) { return r.name == "cublas_grouped" ? gk.gflops : kNotMeasured; });

  if (json_ == nullptr || !json_->is_open()) return;
  JsonObject row;
  row.add_string("suite", suite_);
  if (!section_.empty()) row.add_string("section", section_);
  // m, n, k: the largest of the groups; `groups` spells each.
  GroupShape const largest = g.largest();
  row.add_string("case", kGroupedCaseName)
      .add_string("dtype", to_string(g.dtype))
      .add_int("m", largest.m)
      .add_int("n", largest.n)
      .add_int("k", largest.k)
      .add_int("batch", g.problems)
      .add_string("trans", g.all_nn() ? "nn" : "mixed")
      .add_string("groups", g.describe())
      .add_int("group_count", std::int64_t(g.groups.size()));
  add_gemmkit_keys(row, gk, set_, "cuda", 0, g.alpha, g.beta, std::int64_t(g.data_bytes()), gemm_bytes,
                   peer != nullptr && peer->usable_as_peer() ? peer : nullptr);
  row.add_int("pointer_array_bytes", 3 * g.problems * std::int64_t(sizeof(void*)))
      .add_number("peer_gflops", peer_gf)
      .add_number("ratio", ratio)
      .add_number("bound_gflops", bound_gf)
      .add_number("pct_bound", pct)
      .add_string("bound_source",
                  "flops over the problems' bytes (A, B read, C read unless beta = 0, C written; pointer arrays not "
                  "counted) at B, B from the fastest pass of a kernel with the GEMM's access mix over the same "
                  "allocations, same run")
      .add_string("bound_kernel", bound.kernel)
      .add_number("bandwidth_gbs", bandwidth)
      .add_number("bandwidth_median_gbs", stream_bytes / (bound.time.median * 1e6))
      .add_number("bound_time_ms", bound.time.median)
      .add_number("bound_time_min_ms", bound.time.min)
      .add_number("bound_time_max_ms", bound.time.max);
  write_row_tail(row, results, bound, bound_gf);
}

void BatchedGpuRun::print_goal_check() const {
  if (!grouped_digests_.empty()) {
    std::printf("\ngemmkit against the bound, grouped (target: gemmkit / bound >= 80%%, the bound from the problems' "
                "own bytes)\n");
    bool met = true;
    for (GroupedDigest const& d : grouped_digests_) {
      met = met && d.pct_bound >= 80;
      std::printf("  %s %s: %.1f%% of the bound, %.2fx cuBLAS grouped\n", to_string(d.dtype), kGroupedCaseName,
                  d.pct_bound, d.ratio);
    }
    std::printf("  grouped target %s\n", met ? "met" : "NOT met");
  }
  if (digests_.empty()) return;
  std::printf("\ngemmkit against the bound and cuBLAS (beta != 0, square n; targets: gemmkit / bound >= 90%% at every n, "
              "the bound n*B/16 in f64 and n*B/8 in f32; gemmkit / cuBLAS strided >= 10 in f64 for n <= 8)\n");
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
    std::printf("  %s: gemmkit / (%s) >= 90%% in %d of %d%s", to_string(dtype), dtype == Dtype::kF64 ? "n*B/16" : "n*B/8",
                at_bound, cases, below.empty() ? "" : (" (below:" + below + ")").c_str());
    if (dtype == Dtype::kF64) {
      std::printf("; gemmkit / cuBLAS strided >= 10 at n <= 8 in %d of %d%s", small_met, small,
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
  if (!others.empty()) std::printf("  without a target (%% of the measured bound):%s\n", others.c_str());
  std::string ptr;
  for (RowDigest const& d : digests_) {
    if (!std::isfinite(d.ratio_ptr)) continue;
    ptr += format(" %s %s:%.2fx", to_string(d.dtype), case_name(d.m, d.n, d.k).c_str(), d.ratio_ptr);
  }
  if (!ptr.empty()) std::printf("  pointer-array forms, gemmkit_ptr / cublas_ptr:%s\n", ptr.c_str());
  if (any_goal_rows) std::printf("  targets %s\n", met ? "met" : "NOT met");
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
  if (settings.grouped) {
    std::printf("        grouped case: one grouped call over %zu groups of different shapes, each an equal share of "
                "the bytes, packed in common allocations, device pointer arrays (gemmkit's info = NULL); bound from "
                "the problems' own bytes at the B of the stream pass over those allocations\n",
                grouped_mix().size());
  }
  std::printf("        bound: fastest pass of a kernel with the same access mix (read A, B%s, write C) over the same "
              "arrays; checked pass on %d sampled problems per implementation%s, %d warm-up pass%s, then median of %d "
              "timed passes, each implementation in turn alternating with the bound\n",
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
