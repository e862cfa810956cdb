/*! \file
    \brief `batched` on the GPU: gemmkit (strided, pointer-array, grouped) against cuBLAS (strided,
           pointer-array, grouped) and the bandwidth bound measured in the same run. See batched_gpu.hpp.
*/
#include "batched_gpu.hpp"

#include "timing.hpp"
#include "verify.hpp"

#include <cstdio>

#if GEMMKIT_WITH_CUDA
#include "batched_gpu_contenders.hpp"
#include "batched_gpu_kernels.hpp"
#include "batched_gpu_report.hpp"

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

// --- the run ---------------------------------------------------------------------------------------

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

/// One `batched` run on the GPU: the stream and events, the contenders, each case's operands on the
/// device, the bound's pass and the timed passes; what it measures goes to its report.
class BatchedGpuRun {
 public:
  BatchedGpuRun(BatchedSettings const& settings, MachineInfo const& machine, std::string suite, std::string section,
                JsonLinesFile* json)
      : set_(settings), machine_(machine), report_(settings, machine, std::move(suite), std::move(section), json) {}
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
  BatchedGpuReport report_;
  cudaStream_t stream_ = nullptr;
  EventTimer events_;
  CaseArrays arrays_;
  GroupedCase grouped_;  ///< the grouped case being run
  GpuContenders contenders_;
  Progress progress_;
};

BatchedGpuRun::~BatchedGpuRun() {
  contenders_.release();  // before the stream: the gemmkit contexts hold it
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
}

std::string BatchedGpuRun::init() {
  if (std::string e = cuda_error_text(cudaSetDevice(set_.device), "cudaSetDevice"); !e.empty()) return e;
  if (std::string e = cuda_error_text(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
      !e.empty()) {
    return e;
  }
  if (std::string e = events_.init(stream_); !e.empty()) return e;
  make_gpu_contenders(set_, stream_, &arrays_, &grouped_, &contenders_);
  return {};
}

BatchedSummary BatchedGpuRun::run() {
  if (std::string e = init(); !e.empty()) {
    std::printf("batched on the GPU: %s\n", e.c_str());
    ++report_.summary().errors;
    return report_.summary();
  }
  std::printf("implementations: gemmkit (gk_?gemm_strided_batched)");
  std::vector<Contender const*> listed;
  for (std::size_t i = 1; i < contenders_.batched.size(); ++i) listed.push_back(&contenders_.batched[i]);
  for (Contender const& c : contenders_.grouped) listed.push_back(&c);
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
  report_.begin();
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
  report_.print_goal_check();
  return report_.summary();
}

template <typename T>
void BatchedGpuRun::run_case(ShapeSpec const& shape) {
  BatchedOperands ops = batched_case(shape, sizeof(T) == 8 ? Dtype::kF64 : Dtype::kF32, set_);
  std::string const name = case_name(shape.m, shape.n, shape.k);
  auto const skip = [&](std::string const& why) { report_.report_skipped(name, shape.m, shape.n, shape.k, ops.dtype, why); };
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
  std::vector<ImplResult> results(contenders_.batched.size());
  for (std::size_t i = 0; i < contenders_.batched.size(); ++i) setup_contender(contenders_.batched[i], results[i], ops, label, checked);
  StreamArrays<T> const stream{ops.a<T>(0), ops.batch * ops.stride_a(), ops.b<T>(0), ops.batch * ops.stride_b(),
                               ops.c<T>(0), ops.batch * ops.stride_c(), ops.beta != 0.0};
  BoundResult const bound = measure<T>(stream, ops.batch, label, contenders_.batched, results);
  for (ImplResult& r : results) {
    if (r.status == RunStatus::kOk) r.gflops = problem_flops(ops) * double(r.count) / (r.time.median * 1e6);
  }
  report_.report(ops, results, bound);
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
    report_.report_skipped(kGroupedCaseName, 0, 0, 0, dtype, "--group-mix names none of the mix's groups (1 .. " +
                                                         std::to_string(grouped_mix().size()) + ")");
    return;
  }
  grouped_ = lay_out_grouped(mix, dtype, set_);
  GroupedCase& g = grouped_;
  auto const skip = [&](std::string const& why) {
    GroupShape const largest = g.largest();
    report_.report_skipped(kGroupedCaseName, largest.m, largest.n, largest.k, dtype, why);
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
  std::vector<ImplResult> results(contenders_.grouped.size());
  for (std::size_t i = 0; i < contenders_.grouped.size(); ++i) {
    setup_contender(contenders_.grouped[i], results[i], ops, label, checked);
  }
  StreamArrays<T> const stream{a_data, g.a_elements, b_data, g.b_elements, c_data, g.c_elements, g.beta != 0.0};
  BoundResult const bound = measure<T>(stream, g.problems, label, contenders_.grouped, results);
  for (ImplResult& r : results) {
    if (r.status == RunStatus::kOk) r.gflops = g.flops() / (r.time.median * 1e6);
  }
  report_.report_grouped(grouped_, stream.bytes(), results, bound);
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
