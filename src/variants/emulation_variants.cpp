/*! \file
    \brief FP64 GEMM emulated on the INT8 tensor cores (the Ozaki scheme II) as a CUDA variant: gemmkit's
    scaling, residue and reconstruction kernels around cuBLAS's INT8 GEMM, one strided-batched call
    over the moduli. Never selected by the table: it runs when forced by id.
*/
#include "cpu/emulation/ozaki2.hpp"
#include "cuda/emulation/ozaki2_device.hpp"
#include "variants/cublas_peer.hpp"
#include "variants/variants.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

namespace gemmkit {

namespace {

/// CUDA events at the ends of the phases of each problem, summed into milliseconds per phase; inert
/// when not enabled.
class PhaseTimer {
 public:
  PhaseTimer(bool enabled, cudaStream_t stream) : enabled_(enabled), stream_(stream) {
    if (enabled_ && (cudaEventCreate(&start_) != cudaSuccess || cudaEventRecord(start_, stream_) != cudaSuccess)) {
      enabled_ = false;
    }
    last_ = start_;
  }
  ~PhaseTimer() {
    for (cudaEvent_t e : events_) cudaEventDestroy(e);
    if (start_ != nullptr) cudaEventDestroy(start_);
  }
  PhaseTimer(PhaseTimer const&) = delete;
  PhaseTimer& operator=(PhaseTimer const&) = delete;

  void mark(int phase) {
    if (!enabled_) return;
    cudaEvent_t e = nullptr;
    if (cudaEventCreate(&e) != cudaSuccess || cudaEventRecord(e, stream_) != cudaSuccess) return;
    events_.push_back(e);
    spans_.push_back({phase, last_, e});
    last_ = e;
  }

  /// "name a.bc ms, ..." after waiting for the stream; "" when not enabled.
  std::string report(std::vector<std::string> const& names) {
    if (!enabled_ || cudaStreamSynchronize(stream_) != cudaSuccess) return {};
    std::vector<float> totals(names.size(), 0.0f);
    for (Span const& s : spans_) {
      float ms = 0;
      if (cudaEventElapsedTime(&ms, s.from, s.to) == cudaSuccess && s.phase < int(totals.size())) {
        totals[std::size_t(s.phase)] += ms;
      }
    }
    std::string out;
    for (std::size_t i = 0; i < names.size(); ++i) {
      char text[64];
      std::snprintf(text, sizeof text, "%s%s %.3f ms", i == 0 ? "" : ", ", names[i].c_str(), double(totals[i]));
      out += text;
    }
    return out;
  }

 private:
  struct Span {
    int phase;
    cudaEvent_t from, to;
  };
  bool enabled_;
  cudaStream_t stream_;
  cudaEvent_t start_ = nullptr, last_ = nullptr;
  std::vector<cudaEvent_t> events_;
  std::vector<Span> spans_;
};

/// Bits per scaled operand element at most: a double's 53, so the operands' rounding matches FP64's.
constexpr int kBits = 53;

class Ozaki2Dgemm final : public GemmVariant {
 public:
  Ozaki2Dgemm()
      : info_{"dgemm_ozaki2_int8_cublas", Dtype::kF64, Platform::kCuda, VariantKind::kProduction, 80,
              "FP64 from exact INT8 GEMMs (Ozaki scheme II, 53 bits per operand element), cuBLAS's INT8 GEMM as "
              "the engine"} {
    info_.emulates_fp64 = true;
  }

  VariantInfo const& info() const override { return info_; }

  gk_status can_implement(GemmProblem const& p) const override {
    bool const fits = p.dtype == Dtype::kF64 && !p.pointer_array && p.k <= ozaki2::kExactK &&
                      p.m <= kIntMax && p.n <= kIntMax && ozaki2::plan_for_bits(kBits, std::max<std::int64_t>(p.k, 1))
                                                                  .moduli > 0;
    return fits ? GK_SUCCESS : GK_NOT_SUPPORTED;
  }

  std::size_t workspace_bytes(GemmProblem const& p) const override {
    return ozaki2::device_layout(p, plan(p)).bytes;
  }

  /// Problems of a strided batch run one after another in the one workspace; every problem's operands
  /// are checked for Inf and NaN first, so a batch that leaves the scheme has written nothing.
  gk_status run(GemmArguments const& args, void* workspace, ExecutionContext const& exec) const override {
    GemmProblem const& p = args.problem;
    auto const* A = static_cast<double const*>(args.A);
    auto const* B = static_cast<double const*>(args.B);
    auto* C = static_cast<double*>(args.C);
    // The context's bits (its accuracy target); the workspace was sized for kBits, the most.
    ozaki2::Plan const chosen =
        ozaki2::plan_for_bits(std::min(exec.fp64_emulation_bits, kBits), std::max<std::int64_t>(p.k, 1));
    if (chosen.moduli == 0) return GK_NOT_SUPPORTED;
    ozaki2::DeviceLayout const layout = ozaki2::device_layout(p, chosen);
    auto const stream = static_cast<cudaStream_t>(exec.stream);
    auto* const base = static_cast<unsigned char*>(workspace);
    PhaseTimer timer(exec.detail != nullptr, stream);  // verbosity 2: events between the phases
    if (cudaMemsetAsync(base + layout.flag, 0, sizeof(int), stream) != cudaSuccess) return GK_CUDA_ERROR;
    for (std::int64_t b = 0; b < p.batch; ++b) {
      if (!ozaki2::find_scales(p, A + b * p.stride_a, B + b * p.stride_b, workspace, layout, exec.stream).empty()) {
        return GK_CUDA_ERROR;
      }
    }
    int nonfinite = 0;
    if (cudaMemcpyAsync(&nonfinite, base + layout.flag, sizeof(int), cudaMemcpyDeviceToHost, stream) != cudaSuccess ||
        cudaStreamSynchronize(stream) != cudaSuccess) {
      return GK_CUDA_ERROR;
    }
    if (nonfinite != 0) return GK_NOT_SUPPORTED;
    timer.mark(3);
    auto* const handle = static_cast<cublasHandle_t>(cublas_handle(exec.device));
    if (handle == nullptr || cublasSetStream(handle, stream) != CUBLAS_STATUS_SUCCESS) return GK_CUDA_ERROR;
    std::int32_t const one = 1, zero = 0;
    int const k = int(layout.k_padded);  // the padding's residues are zero
    for (std::int64_t b = 0; b < p.batch; ++b) {
      double const* const a = A + b * p.stride_a;
      double const* const bm = B + b * p.stride_b;
      // A single problem's maxima are in the workspace from the check above.
      if ((p.batch > 1 && !ozaki2::find_scales(p, a, bm, workspace, layout, exec.stream).empty()) ||
          !ozaki2::make_residues(p, chosen, a, bm, workspace, layout, exec.stream).empty()) {
        return GK_CUDA_ERROR;
      }
      timer.mark(0);
      if (cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, int(p.m), int(p.n), k, &one,
                                     base + layout.a_residues, CUDA_R_8I, k, (long long)layout.a_plane,
                                     base + layout.b_residues, CUDA_R_8I, k, (long long)layout.b_plane, &zero,
                                     base + layout.products, CUDA_R_32I, int(layout.ldc),
                                     (long long)layout.product_plane, chosen.moduli, CUBLAS_COMPUTE_32I,
                                     CUBLAS_GEMM_DEFAULT) != CUBLAS_STATUS_SUCCESS) {
        return GK_CUDA_ERROR;
      }
      timer.mark(1);
      if (!ozaki2::reconstruct(p, chosen, args.alpha, args.beta, C + b * p.stride_c, workspace, layout, exec.stream)
               .empty()) {
        return GK_CUDA_ERROR;
      }
      timer.mark(2);
    }
    if (exec.detail != nullptr) {
      *exec.detail = std::to_string(chosen.moduli) + " moduli, " + std::to_string(chosen.bits) + " bits; " +
                     timer.report({"residues", "INT8 GEMMs", "reconstruction", "maxima and the Inf/NaN check"});
    }
    return GK_SUCCESS;
  }

 private:
  static constexpr std::int64_t kIntMax = 2147483647;
  static ozaki2::Plan plan(GemmProblem const& p) { return ozaki2::plan_for_bits(kBits, std::max<std::int64_t>(p.k, 1)); }
  VariantInfo info_;
};

}  // namespace

void register_emulation_variants(Registry& registry) { registry.add(std::make_unique<Ozaki2Dgemm>()); }

}  // namespace gemmkit
