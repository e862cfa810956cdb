/*! \file
    \brief Runs one GEMM case: gemmkit and its peer on the same operands, checked, then timed side by side.

    Order of a case: fresh random A and B (C poisoned with NaN when beta = 0), one gemmkit call that
    is verified, then warm-up and calibration of each side, then the timed batches alternating
    gemmkit / peer so both see the same clocks and temperature, then (small sizes, GPU) the same
    calls replayed from CUDA graphs.
*/
#include "gemm_runner.hpp"

#include "machine_info.hpp"

#include <gemmkit/introspect.h>

#include <algorithm>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <vector>

namespace gemmkit::bench {

namespace {

constexpr int kMaxCallsPerRep = 100000;  // ~1 us calls still fill a 20 ms batch
constexpr int kMaxGraphCalls = 200;

gk_status api_gemm(gk_context ctx, GemmProblem const& p, double alpha, double const* A, double const* B, double beta,
                   double* C) {
  return gk_dgemm(ctx, GK_COL_MAJOR, p.trans_a, p.trans_b, p.m, p.n, p.k, alpha, A, p.lda, B, p.ldb, beta, C, p.ldc);
}

gk_status api_gemm(gk_context ctx, GemmProblem const& p, double alpha, float const* A, float const* B, double beta,
                   float* C) {
  return gk_sgemm(ctx, GK_COL_MAJOR, p.trans_a, p.trans_b, p.m, p.n, p.k, float(alpha), A, p.lda, B, p.ldb,
                  float(beta), C, p.ldc);
}

std::uint64_t case_seed(GemmCase const& c) {
  std::uint64_t h = 1469598103934665603ull;  // FNV-1a over the case's defining numbers
  for (std::uint64_t v : {std::uint64_t(c.m), std::uint64_t(c.n), std::uint64_t(c.k), std::uint64_t(c.trans_a),
                          std::uint64_t(c.trans_b), std::uint64_t(c.dtype)}) {
    h = (h ^ v) * 1099511628211ull;
  }
  return h;
}

#if GEMMKIT_WITH_CUDA
std::string mib(double bytes) { return std::to_string(std::lround(bytes / (1 << 20))) + " MiB"; }
#endif

template <typename T>
struct Operands {
  T const* A = nullptr;
  T const* B = nullptr;
  T* C = nullptr;
};

/// One side being timed: how its calls are issued and where its results go.
struct Side {
  Platform backend;
  Call call;
  SideResult* result;
  std::vector<double> samples;
};

#if GEMMKIT_WITH_CUDA
template <typename T>
class DeviceArray {
 public:
  DeviceArray() = default;
  ~DeviceArray() {
    if (data_ != nullptr) cudaFree(data_);
  }
  DeviceArray(DeviceArray const&) = delete;
  DeviceArray& operator=(DeviceArray const&) = delete;
  std::string allocate(std::size_t count) {
    return cuda_error_text(cudaMalloc(reinterpret_cast<void**>(&data_), std::max<std::size_t>(count, 1) * sizeof(T)),
                              "cudaMalloc");
  }
  T* get() const { return data_; }

 private:
  T* data_ = nullptr;
};
#endif

/// Thrown inside run_typed to end a case with a status and message.
struct CaseEnd {
  CaseStatus status;
  std::string message;
};

}  // namespace

std::string GemmCase::trans() const { return std::string{op_letter(trans_a), op_letter(trans_b)}; }

std::string GemmCase::name() const {
  std::string const base = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + "_" + trans();
  return leading == LeadingForm::kTight ? base : base + "_ld" + to_string(leading);
}

GemmRunner::~GemmRunner() {
#if GEMMKIT_WITH_CUDA
  if (stream_ != nullptr) cudaStreamDestroy(stream_);
#endif
  if (ctx_ != nullptr) gk_destroy(ctx_);
  if (peer_ctx_ != nullptr) gk_destroy(peer_ctx_);
}

std::string GemmRunner::init(bool use_gpu) {
  if (gk_create(&ctx_) != GK_SUCCESS || gk_create(&peer_ctx_) != GK_SUCCESS) return "gk_create failed";
  gk_set_verbosity(ctx_, settings_.verbosity);
  if (!use_gpu) return {};
#if GEMMKIT_WITH_CUDA
  if (gk_set_device(ctx_, settings_.device) != GK_SUCCESS) return gk_last_error(ctx_);
  if (gk_set_device(peer_ctx_, settings_.device) != GK_SUCCESS) return gk_last_error(peer_ctx_);
  if (std::string e = cuda_error_text(cudaSetDevice(settings_.device), "cudaSetDevice"); !e.empty()) return e;
  // A stream of our own: graph capture needs a non-default stream, and gemmkit queues on it too.
  if (std::string e = cuda_error_text(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking),
                                         "cudaStreamCreateWithFlags");
      !e.empty()) {
    return e;
  }
  gk_set_stream(ctx_, stream_);
  gk_set_stream(peer_ctx_, stream_);
  if (std::string e = events_.init(stream_); !e.empty()) return e;
  char bus_id[32] = {};
  if (cudaDeviceGetPCIBusId(bus_id, int(sizeof(bus_id)), settings_.device) == cudaSuccess) pci_bus_id_ = bus_id;
  gpu_ = true;
  return {};
#else
  return "gemmkit-bench was built without CUDA";
#endif
}

std::optional<gk_variant_info> GemmRunner::peer_for(Dtype dtype, Platform backend, std::string* name,
                                                    std::string* why) const {
  std::string peer = settings_.peer;
  if (peer == "none") {
    *name = "";
    *why = "--peer none";
    return std::nullopt;
  }
  if (peer == "auto") peer = backend == Platform::kCuda ? "cublas" : "openblas";
  *name = peer;
  std::string const id = peer + (dtype == Dtype::kF64 ? "_dgemm" : "_sgemm");
  gk_variant_info v{};
  if (gk_variant_find(id.c_str(), &v) != GK_SUCCESS) {
    *why = "peer variant '" + id + "' is not registered in this build";
    return std::nullopt;
  }
  if (v.backend == GK_BACKEND_GPU && !gpu_) {
    *why = "peer '" + id + "' needs a GPU and none is in use";
    return std::nullopt;
  }
  return v;
}

CaseResult GemmRunner::run(GemmCase const& spec) {
  CaseResult result;
  result.spec = spec;
  try {
    if (spec.backend == Platform::kCuda && !gpu_) throw CaseEnd{CaseStatus::kSkipped, "no GPU in use"};
    if (spec.dtype == Dtype::kF64) run_typed<double>(result);
    else run_typed<float>(result);
  } catch (CaseEnd const& end) {
    result.status = end.status;
    result.message = end.message;
  } catch (std::bad_alloc const&) {
    result.status = CaseStatus::kError;
    result.message = "host allocation failed";
  } catch (std::exception const& e) {
    result.status = CaseStatus::kError;
    result.message = e.what();
  }
  if (ctx_ != nullptr) gk_set_variant(ctx_, "");
#if GEMMKIT_WITH_CUDA
  if (gpu_ && result.status == CaseStatus::kError) cudaGetLastError();  // leave no stale error to the next case
#endif
  return result;
}

template <typename T>
void GemmRunner::run_typed(CaseResult& r) {
  GemmCase const& c = r.spec;
  RunSettings const& set = settings_;
  GemmProblem p;
  p.dtype = c.dtype;
  p.trans_a = c.trans_a;
  p.trans_b = c.trans_b;
  p.m = c.m;
  p.n = c.n;
  p.k = c.k;
  p.lda = leading_dimension(p.a_rows(), c.leading);
  p.ldb = leading_dimension(p.b_rows(), c.leading);
  p.ldc = leading_dimension(p.m, c.leading);

  auto const can_implement = [&](char const* id) {
    return gk_variant_can_implement(id, p.trans_a, p.trans_b, p.m, p.n, p.k, p.lda, p.ldb, p.ldc, 1);
  };
  if (!c.forced_variant.empty()) {
    gk_status const s = can_implement(c.forced_variant.c_str());
    if (s == GK_INVALID_ARGUMENT) throw CaseEnd{CaseStatus::kError, "no registered variant '" + c.forced_variant + "'"};
    if (s != GK_SUCCESS) throw CaseEnd{CaseStatus::kSkipped, c.forced_variant + " cannot run this problem (can_implement)"};
  }

  std::string peer_why;
  std::optional<gk_variant_info> peer = peer_for(c.dtype, c.backend, &r.peer_name, &peer_why);
  if (peer && can_implement(peer->id) != GK_SUCCESS) {
    peer_why = std::string(peer->id) + " cannot run this problem";
    peer.reset();
  }
  if (!peer) {
    r.peer_name.clear();
    r.message = peer_why;
  }
  Platform const peer_backend = !peer ? c.backend : (peer->backend == GK_BACKEND_GPU ? Platform::kCuda : Platform::kCpu);
  bool const host_c_needed = c.backend == Platform::kCpu || (peer && peer_backend == Platform::kCpu);
  bool const device_needed = c.backend == Platform::kCuda || (peer && peer_backend == Platform::kCuda);

  std::size_t const a_count = std::size_t(p.lda) * std::size_t(p.a_cols());
  std::size_t const b_count = std::size_t(p.ldb) * std::size_t(p.b_cols());
  std::size_t const c_count = std::size_t(p.ldc) * std::size_t(p.n);
  std::uint64_t const seed = case_seed(c);

  // Fresh random operands for every case; never zeros.
  std::vector<T> A(a_count), B(b_count), C0, host_c;
  fill_random(A.data(), a_count, seed);
  fill_random(B.data(), b_count, seed + 1);
  if (set.beta != 0.0) {
    C0.resize(c_count);
    fill_random(C0.data(), c_count, seed + 2);
  }
  if (host_c_needed) host_c.resize(c_count);

#if GEMMKIT_WITH_CUDA
  cudaStream_t const stream = stream_;
  auto check = [](cudaError_t e, char const* what) {
    if (std::string m = cuda_error_text(e, what); !m.empty()) throw CaseEnd{CaseStatus::kError, m};
  };
  DeviceArray<T> dA, dB, dC, dC0;
  if (device_needed) {
    std::size_t free_bytes = 0, total_bytes = 0;
    check(cudaMemGetInfo(&free_bytes, &total_bytes), "cudaMemGetInfo");
    double const need = double(a_count + b_count + c_count + C0.size()) * sizeof(T);
    if (need > 0.95 * double(free_bytes)) {
      throw CaseEnd{CaseStatus::kSkipped, "needs " + mib(need) + " of device memory, " + mib(double(free_bytes)) + " free"};
    }
    auto allocate = [](DeviceArray<T>& array, std::size_t count, char const* what) {
      if (std::string e = array.allocate(count); !e.empty()) throw CaseEnd{CaseStatus::kError, e + " (" + what + ")"};
    };
    allocate(dA, a_count, "A");
    allocate(dB, b_count, "B");
    allocate(dC, c_count, "C");
    check(cudaMemcpyAsync(dA.get(), A.data(), a_count * sizeof(T), cudaMemcpyHostToDevice, stream), "copy A");
    check(cudaMemcpyAsync(dB.get(), B.data(), b_count * sizeof(T), cudaMemcpyHostToDevice, stream), "copy B");
    if (!C0.empty()) {
      allocate(dC0, c_count, "C0");
      check(cudaMemcpyAsync(dC0.get(), C0.data(), c_count * sizeof(T), cudaMemcpyHostToDevice, stream), "copy C0");
    }
    check(cudaStreamSynchronize(stream), "upload");
  }
#else
  if (device_needed) throw CaseEnd{CaseStatus::kSkipped, "built without CUDA"};
#endif

  auto operands = [&](Platform b) {
#if GEMMKIT_WITH_CUDA
    if (b == Platform::kCuda) return Operands<T>{dA.get(), dB.get(), dC.get()};
#endif
    (void)b;
    return Operands<T>{A.data(), B.data(), host_c.data()};
  };
  // beta = 0: C holds NaN, which a correct GEMM never reads; else C goes back to C0.
  auto reset_c = [&](Platform b) {
#if GEMMKIT_WITH_CUDA
    if (b == Platform::kCuda) {
      if (C0.empty()) check(cudaMemsetAsync(dC.get(), 0xFF, c_count * sizeof(T), stream), "poison C");
      else check(cudaMemcpyAsync(dC.get(), dC0.get(), c_count * sizeof(T), cudaMemcpyDeviceToDevice, stream), "reset C");
      return;
    }
#endif
    (void)b;
    if (C0.empty()) std::fill(host_c.begin(), host_c.end(), std::numeric_limits<T>::quiet_NaN());
    else std::copy(C0.begin(), C0.end(), host_c.begin());
  };
  auto sync = [&](Platform b) {
#if GEMMKIT_WITH_CUDA
    if (b == Platform::kCuda) check(cudaStreamSynchronize(stream), "kernel execution");
#endif
    (void)b;
  };

  // --- gemmkit: one checked call through the public API ------------------------------------------
  gk_set_backend(ctx_, c.backend == Platform::kCpu ? GK_BACKEND_CPU : GK_BACKEND_GPU);
  gk_set_variant(ctx_, c.forced_variant.c_str());
  Operands<T> const gk_ops = operands(c.backend);
  Call const gk_call = [&] { return api_gemm(ctx_, p, set.alpha, gk_ops.A, gk_ops.B, set.beta, gk_ops.C); };
  auto const api_failure = [&](gk_status s) {
    return CaseEnd{CaseStatus::kError,
                   std::string("gemmkit: ") + gk_status_string(s) + (*gk_last_error(ctx_) ? ": " : "") + gk_last_error(ctx_)};
  };
  reset_c(c.backend);
  if (gk_status const s = gk_call(); s != GK_SUCCESS) throw api_failure(s);
  sync(c.backend);
  r.gemmkit.variant = gk_last_variant(ctx_);

  if (set.verify) {
    std::string why;
    std::vector<std::int64_t> const cols = pick_verify_columns(p, seed + 3, &why);
    if (cols.empty()) {
      r.verify.note = why;
    } else {
      std::size_t const col_len = std::size_t(p.m);
      std::vector<T> got(col_len * cols.size()), c0_cols;
      for (std::size_t i = 0; i < cols.size(); ++i) {
        std::size_t const offset = std::size_t(cols[i]) * std::size_t(p.ldc);
#if GEMMKIT_WITH_CUDA
        if (c.backend == Platform::kCuda) {
          check(cudaMemcpyAsync(got.data() + i * col_len, dC.get() + offset, col_len * sizeof(T),
                                cudaMemcpyDeviceToHost, stream),
                "fetch C");
          continue;
        }
#endif
        std::copy_n(host_c.begin() + std::ptrdiff_t(offset), col_len, got.begin() + std::ptrdiff_t(i * col_len));
      }
      sync(c.backend);
      if (!C0.empty()) {
        c0_cols.resize(got.size());
        for (std::size_t i = 0; i < cols.size(); ++i) {
          std::copy_n(C0.begin() + std::ptrdiff_t(std::size_t(cols[i]) * std::size_t(p.ldc)), col_len,
                      c0_cols.begin() + std::ptrdiff_t(i * col_len));
        }
      }
      r.verify = verify_columns<T>(p, set.alpha, set.beta, A.data(), B.data(), cols,
                                   c0_cols.empty() ? nullptr : c0_cols.data(), got.data());
    }
  } else {
    r.verify.note = "--no-verify";
  }

  // --- the peer: its registered variant forced on a context of its own, through the public API ---
  Call peer_call;
  if (peer) {
    gk_set_backend(peer_ctx_, peer_backend == Platform::kCpu ? GK_BACKEND_CPU : GK_BACKEND_GPU);
    if (gk_status const s = gk_set_variant(peer_ctx_, peer->id); s != GK_SUCCESS) {
      throw CaseEnd{CaseStatus::kError, std::string(peer->id) + ": " + gk_last_error(peer_ctx_)};
    }
    Operands<T> const ops = operands(peer_backend);
    peer_call = [this, p, ops, alpha = set.alpha, beta = set.beta] {
      return api_gemm(peer_ctx_, p, alpha, ops.A, ops.B, beta, ops.C);
    };
    r.peer.variant = peer->id;
  }

  // --- timing ----------------------------------------------------------------------------------
  std::vector<Side> sides;
  sides.push_back({c.backend, gk_call, &r.gemmkit, {}});
  if (peer) sides.push_back({peer_backend, peer_call, &r.peer, {}});

  auto batch = [&](Side& side, int calls) {
    double ms = 0;
    gk_status s = GK_SUCCESS;
#if GEMMKIT_WITH_CUDA
    if (side.backend == Platform::kCuda) {
      std::string error;
      s = events_.time_batch(side.call, calls, &ms, &error);
      if (!error.empty()) throw CaseEnd{CaseStatus::kError, side.result->variant + ": " + error};
    }
#endif
    if (side.backend == Platform::kCpu) s = time_host_batch(side.call, calls, &ms);
    if (s != GK_SUCCESS) {
      if (side.result == &r.gemmkit) throw api_failure(s);
      throw CaseEnd{CaseStatus::kError, side.result->variant + ": " + gk_status_string(s)};
    }
    return ms;
  };

  for (Side& side : sides) {
    for (int i = 0; i < set.warmup; ++i) {
      if (gk_status const s = side.call(); s != GK_SUCCESS) {
        throw CaseEnd{CaseStatus::kError, side.result->variant + " warm-up: " + gk_status_string(s)};
      }
    }
    sync(side.backend);
    // Calibration: double the batch until it lasts a tenth of the target, so the estimate of a
    // call's time is not one cold call's; then size the timed batches to about target_ms.
    int calls = 1;
    double estimate = batch(side, calls);
    while (estimate * calls < 0.1 * set.target_ms && calls < kMaxCallsPerRep) {
      calls = std::min(2 * calls, kMaxCallsPerRep);
      estimate = batch(side, calls);
    }
    side.result->calls_per_rep =
        std::clamp(int(std::ceil(set.target_ms / std::max(estimate, 1e-7))), 1, kMaxCallsPerRep);
  }
  for (int rep = 0; rep < set.reps; ++rep) {
    for (Side& side : sides) {
      if (!C0.empty()) {
        reset_c(side.backend);
        sync(side.backend);
      }
      side.samples.push_back(batch(side, side.result->calls_per_rep));
#if GEMMKIT_WITH_CUDA
      if (side.backend == Platform::kCuda && rep + 1 == set.reps) {
        side.result->sm_clock_mhz = sm_clock_mhz(pci_bus_id_);
      }
#endif
    }
  }
  for (Side& side : sides) side.result->time = summarize(side.samples);

  // --- CUDA graphs: the same calls with host overhead taken out ---------------------------------
#if GEMMKIT_WITH_CUDA
  bool const small = std::max({p.m, p.n, p.k}) <= kGraphMaxSize;
  if (set.graph && small) {
    std::vector<std::unique_ptr<CapturedGraph>> graphs;
    std::vector<int> graph_calls;
    for (Side& side : sides) {
      graphs.emplace_back();
      graph_calls.push_back(0);
      if (side.backend != Platform::kCuda) continue;
      int const calls = std::clamp(side.result->calls_per_rep, 1, kMaxGraphCalls);
      auto graph = std::make_unique<CapturedGraph>();
      std::string e = graph->capture(stream, side.call, calls, cudaStreamCaptureModeThreadLocal);
      if (!e.empty()) {
        // Thread-local capture refuses calls unsafe during capture; relaxed mode says whether the
        // calls are capturable at all, and the note keeps the first refusal.
        graph = std::make_unique<CapturedGraph>();
        std::string const relaxed = graph->capture(stream, side.call, calls, cudaStreamCaptureModeRelaxed);
        if (!relaxed.empty()) {
          side.result->graph_note = "not capturable: " + e;
          continue;
        }
        side.result->graph_note = "captured only in relaxed mode (thread-local: " + e + ")";
      }
      double warm = 0;
      if (std::string w = events_.time_graph(graph->exec(), calls, &warm); !w.empty()) {
        side.result->graph_note = "graph launch failed: " + w;
        cudaGetLastError();
        continue;
      }
      graphs.back() = std::move(graph);
      graph_calls.back() = calls;
    }
    std::vector<std::vector<double>> graph_samples(sides.size());
    for (int rep = 0; rep < set.reps; ++rep) {
      for (std::size_t i = 0; i < sides.size(); ++i) {
        if (graphs[i] == nullptr) continue;
        if (!C0.empty()) reset_c(sides[i].backend);
        double ms = 0;
        if (std::string e = events_.time_graph(graphs[i]->exec(), graph_calls[i], &ms); !e.empty()) {
          throw CaseEnd{CaseStatus::kError, sides[i].result->variant + " graph: " + e};
        }
        graph_samples[i].push_back(ms);
      }
    }
    for (std::size_t i = 0; i < sides.size(); ++i) {
      if (!graph_samples[i].empty()) sides[i].result->graph_ms = summarize(graph_samples[i]).median;
    }
  }
#endif
}

}  // namespace gemmkit::bench
