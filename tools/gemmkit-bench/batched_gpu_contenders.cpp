/*! \file
    \brief The contenders of `batched` on the GPU: gemmkit's calls (strided, pointer-array on device or
           host arrays, grouped) and the peers, cuBLAS's registered variants forced through the same
           calls, and cuBLAS's grouped call made directly.
*/
#include "batched_gpu_contenders.hpp"

#include <gemmkit/gemmkit.h>

#include <climits>
#include <memory>

namespace gemmkit::bench {

namespace {

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

}  // namespace

GpuContenders::~GpuContenders() { release(); }

void GpuContenders::release() {
  batched.clear();  // the gemmkit contexts hold the stream
  grouped.clear();
  if (cublas != nullptr) cublasDestroy(cublas);
  cublas = nullptr;
}

void make_gpu_contenders(BatchedSettings const& set, void* stream_handle, CaseArrays const* arrays,
                         GroupedCase const* grouped, GpuContenders* out) {
  auto const stream = static_cast<cudaStream_t>(stream_handle);
  {
    Contender g;
    g.name = "gemmkit";
    g.whole_batch = true;
    g.impl = make_gemmkit_batched_gpu(set.verbosity, stream, set.device, &g.unavailable);
    out->batched.push_back(std::move(g));
  }
  std::string cublas_unavailable;
  // A handle for cuBLAS's grouped call only: gemmkit's grouped call runs group by group, so the
  // registry cannot offer it as one variant; the strided and pointer-array peers are registered.
  if (std::find(set.peers.begin(), set.peers.end(), "cublas_grouped") != set.peers.end()) {
    cublas_unavailable = cublas_error_text(cublasCreate(&out->cublas), "cublasCreate");
    if (cublas_unavailable.empty()) {
      cublas_unavailable = cublas_error_text(cublasSetStream(out->cublas, stream), "cublasSetStream");
    }
  }
  for (std::string const& name : set.peers) {
    if (name == "cublas_grouped") continue;  // the grouped case's peer, below
    Contender c;
    c.name = name;
    if (name == "gemmkit_ptr" || name == "gemmkit_ptr_host") {
      auto impl = std::make_unique<GemmkitPointerArray>(arrays, name == "gemmkit_ptr_host");
      c.unavailable = impl->init(set.verbosity, stream, set.device);
      c.impl = std::move(impl);
    } else if (name == "cublas_ptr") {  // cuBLAS's registered variants, forced through gemmkit's calls
      auto impl = std::make_unique<GemmkitPointerArray>(arrays, false);
      impl->force({name, "cublas_dgemm_pointer_array", "cublas_sgemm_pointer_array"});
      c.unavailable = impl->init(set.verbosity, stream, set.device);
      c.impl = std::move(impl);
    } else {
      c.impl = make_gemmkit_batched_gpu(set.verbosity, stream, set.device, &c.unavailable,
                                        {name, "cublas_dgemm", "cublas_sgemm"});
    }
    out->batched.push_back(std::move(c));
  }
  if (set.grouped) {
    Contender g;
    g.name = "gemmkit_grouped";
    g.whole_batch = true;
    auto impl = std::make_unique<GemmkitGrouped>(grouped);
    g.unavailable = impl->init(set.verbosity, stream, set.device);
    g.impl = std::move(impl);
    out->grouped.push_back(std::move(g));
    if (std::find(set.peers.begin(), set.peers.end(), "cublas_grouped") != set.peers.end()) {
      Contender c;
      c.name = "cublas_grouped";
      c.whole_batch = true;  // one call over every group: nothing to window
      c.unavailable = cublas_unavailable;
      c.impl = std::make_unique<CublasGrouped>(out->cublas, grouped);
      out->grouped.push_back(std::move(c));
    }
  }
}

}  // namespace gemmkit::bench
