/*! \file
    \brief FP64 GEMM emulated on the INT8 tensor cores (the Ozaki scheme II) as a CUDA variant: gemmkit's
    scaling, residue and reconstruction kernels around an INT8 GEMM engine (gemmkit's own sm_90a kernel, or
    cuBLAS's), one batched call over the moduli per block of columns. Never selected by the table: the context's FP64 emulation
    setting or a forced id runs it.
*/
#include "cpu/emulation/ozaki2.hpp"
#include "cuda/emulation/int8_gemm_sm90.hpp"
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

/// The int32 products and op(B)'s residues of at most this many bytes are held at once: wider problems
/// run in blocks of columns of C.
constexpr std::size_t kBlockBytes = std::size_t(8) << 30;

/// `count` split into even parts of at most `most`, each rounded up to `granule` (and at most count).
std::int64_t even_part(std::int64_t count, std::int64_t most, std::int64_t granule) {
  if (most >= count) return count;
  std::int64_t const parts = (count + most - 1) / most;
  return std::min({most, count, ((count + parts - 1) / parts + granule - 1) / granule * granule});
}

/// Columns per block for `moduli` moduli: as many as kBlockBytes hold, balanced over the blocks.
std::int64_t block_columns(GemmProblem const& p, int moduli) {
  std::int64_t const per_column = std::int64_t(moduli) * ((p.m + 3) / 4 * 4 * 4 + (p.k + 15) / 16 * 16);
  std::int64_t const fit = std::max<std::int64_t>(64, std::int64_t(kBlockBytes) / std::max<std::int64_t>(per_column, 1));
  return even_part(p.n, std::min(fit, p.n), 16);
}

/// The smallest blocks a limit brings the workspace down to.
constexpr std::int64_t kLeastBlockRows = 256, kLeastBlockColumns = 64;

/// The layout for `moduli` moduli: all rows and kBlockBytes' columns per block, or within `limit` bytes (0: none)
/// as many columns as fit, and when even the fewest do not, fewer rows as well (rows of 256, columns of 16,
/// balanced over the blocks). A limit below the smallest blocks' workspace leaves them, over the limit.
ozaki2::DeviceLayout blocked_layout(GemmProblem const& p, int moduli, std::size_t limit) {
  ozaki2::Plan const plan{moduli, ozaki2::kMaxBits, 0};
  ozaki2::DeviceLayout const whole = ozaki2::device_layout(p, plan, p.m, block_columns(p, moduli));
  if (limit == 0 || whole.bytes <= limit) return whole;
  std::int64_t const least_columns = std::min(p.n, kLeastBlockColumns);
  for (std::int64_t rows = p.m;; rows = even_part(p.m, std::max(kLeastBlockRows, rows / 2), kLeastBlockRows)) {
    auto const fits = [&](std::int64_t columns) { return ozaki2::device_layout(p, plan, rows, columns).bytes <= limit; };
    if (fits(least_columns)) {
      std::int64_t low = least_columns, high = whole.block_columns;  // the most columns that fit, by bisection
      while (low < high) {
        std::int64_t const mid = (low + high + 1) / 2;
        if (fits(mid)) low = mid; else high = mid - 1;
      }
      std::int64_t const columns = even_part(p.n, low, 16);
      return ozaki2::device_layout(p, plan, rows, fits(columns) ? columns : low);
    }
    if (rows <= kLeastBlockRows) return ozaki2::device_layout(p, plan, rows, least_columns);
  }
}

/// The INT8 GEMM each variant runs per block: all moduli in one batched call.
enum class Engine { kCublas, kOwnSm90 };

class Ozaki2Dgemm final : public GemmVariant {
 public:
  explicit Ozaki2Dgemm(Engine engine)
      : engine_(engine),
        info_{engine == Engine::kOwnSm90 ? "dgemm_ozaki2_int8_sm90" : "dgemm_ozaki2_int8_cublas", Dtype::kF64,
              Platform::kCuda, VariantKind::kProduction, engine == Engine::kOwnSm90 ? 90 : 80,
              std::string("FP64 from exact INT8 GEMMs (Ozaki scheme II, as many bits per operand element as FP64 "
                          "accuracy needs) on ") +
                  (engine == Engine::kOwnSm90 ? "gemmkit's own sm_90a INT8 GEMM (wgmma, TMA)"
                                              : "cuBLAS's INT8 GEMM")} {
    info_.emulates_fp64 = true;
  }

  VariantInfo const& info() const override { return info_; }

  gk_status can_implement(GemmProblem const& p) const override {
    bool const fits = p.dtype == Dtype::kF64 && !p.pointer_array && p.k <= ozaki2::kExactK && p.m <= kIntMax &&
                      p.n <= kIntMax;
    return fits ? GK_SUCCESS : GK_NOT_SUPPORTED;
  }

  /// Room for the most moduli a plan takes; wide problems in column blocks.
  std::size_t workspace_bytes(GemmProblem const& p) const override { return workspace_bytes_within(p, 0); }
  /// Within a limit, in smaller blocks of C.
  std::size_t workspace_bytes_within(GemmProblem const& p, std::size_t limit) const override {
    return blocked_layout(p, ozaki2::kMaxModuli, limit).bytes;
  }

  /// Problems of a strided batch run one after another in the one workspace with one plan: every problem's
  /// operands are measured (Inf and NaN, spread, and under the accurate scaling every element's bounds)
  /// first, so a batch that leaves the scheme has written nothing.
  gk_status run(GemmArguments const& args, void* workspace, ExecutionContext const& exec) const override {
    GemmProblem const& p = args.problem;
    auto const* A = static_cast<double const*>(args.A);
    auto const* B = static_cast<double const*>(args.B);
    auto* C = static_cast<double*>(args.C);
    auto const stream = static_cast<cudaStream_t>(exec.stream);
    auto* const base = static_cast<unsigned char*>(workspace);
    if (engine_ == Engine::kOwnSm90 && !ozaki2::int8_gemm_sm90_available(exec.device)) {
      if (exec.decline_reason != nullptr) *exec.decline_reason = "this GPU cannot run the sm_90a INT8 GEMM";
      return GK_NOT_SUPPORTED;
    }
    ozaki2::DeviceLayout const sizing = blocked_layout(p, ozaki2::kMaxModuli, exec.workspace_limit);
    PhaseTimer timer(exec.detail != nullptr, stream);  // verbosity 2: events between the phases
    if (cudaMemsetAsync(base + sizing.summary, 0, sizeof(ozaki2::Summary), stream) != cudaSuccess) return GK_CUDA_ERROR;
    for (std::int64_t b = 0; b < p.batch; ++b) {
      double const* const a = A + b * p.stride_a;
      double const* const bm = B + b * p.stride_b;
      if (!ozaki2::find_scales(p, a, bm, workspace, sizing, exec.stream).empty() ||
          (exec.fp64_emulation_accurate && !bound_elements(p, a, bm, workspace, sizing, exec).empty())) {
        return GK_CUDA_ERROR;
      }
    }
    ozaki2::Summary summary{};
    if (!ozaki2::read_summary(workspace, sizing, &summary, exec.stream).empty()) return GK_CUDA_ERROR;
    std::string why;
    ozaki2::Plan const chosen = choose_plan(p, summary, exec, &why);
    if (chosen.moduli == 0) {
      if (exec.decline_reason != nullptr) *exec.decline_reason = why;
      return GK_NOT_SUPPORTED;
    }
    timer.mark(3);
    // The chosen plan's planes (wider column blocks where fewer moduli leave room); the maxima, sums and summary
    // sit where the sizing put them (they precede everything the blocks size).
    ozaki2::DeviceLayout layout = ozaki2::device_layout(p, chosen, sizing.block_rows, sizing.block_columns);
    if (sizing.block_rows == p.m) {
      ozaki2::DeviceLayout const wider = ozaki2::device_layout(p, chosen, p.m, block_columns(p, chosen.moduli));
      if (wider.bytes <= sizing.bytes) layout = wider;
    }
    for (std::int64_t b = 0; b < p.batch; ++b) {
      double const* const a = A + b * p.stride_a;
      double const* const bm = B + b * p.stride_b;
      double* const c = C + b * p.stride_c;
      // A single problem's maxima are in the workspace from the measurement above.
      if (p.batch > 1 && !ozaki2::find_scales(p, a, bm, workspace, layout, exec.stream).empty()) return GK_CUDA_ERROR;
      for (ozaki2::Block const& block : blocks_of(p, layout)) {
        if ((block.first_column == 0 && !ozaki2::make_residues(p, chosen, ozaki2::Operand::kA, a, block.first_row,
                                                               block.rows, workspace, layout, exec.stream)
                                              .empty()) ||
            !ozaki2::make_residues(p, chosen, ozaki2::Operand::kB, bm, block.first_column, block.columns, workspace,
                                   layout, exec.stream)
                 .empty()) {
          return GK_CUDA_ERROR;
        }
        timer.mark(0);
        if (!int8_products(chosen, layout, block, workspace, exec).empty()) return GK_CUDA_ERROR;
        timer.mark(1);
        if (!ozaki2::reconstruct(p, chosen, args.alpha, args.beta, c, block, workspace, layout, exec.stream).empty()) {
          return GK_CUDA_ERROR;
        }
        timer.mark(2);
      }
    }
    if (exec.detail != nullptr) {
      *exec.detail = std::to_string(chosen.moduli) + " moduli, " + std::to_string(chosen.bits) + " bits, spread " +
                     format_spread(ozaki2::spread_of(summary)) +
                     (exec.fp64_emulation_accurate ? ", accurate scaling; " : ", fast scaling; ") +
                     timer.report({"residues", "INT8 GEMMs", "reconstruction", "scaling"});
    }
    return GK_SUCCESS;
  }

 private:
  static constexpr std::int64_t kIntMax = 2147483647;

  /// The accurate scaling's bounds for one problem whose maxima and sums are in the workspace: its quantized
  /// magnitudes' INT8 GEMM, block by block of columns, into the Summary.
  std::string bound_elements(GemmProblem const& p, double const* A, double const* B, void* workspace,
                             ozaki2::DeviceLayout const& layout, ExecutionContext const& exec) const {
    ozaki2::Plan const one{1, 7, 0};
    std::string e;
    for (ozaki2::Block const& block : blocks_of(p, layout)) {
      if (e.empty() && block.first_column == 0) {
        e = ozaki2::make_magnitudes(p, ozaki2::Operand::kA, A, block.first_row, block.rows, workspace, layout,
                                    exec.stream);
      }
      if (e.empty()) {
        e = ozaki2::make_magnitudes(p, ozaki2::Operand::kB, B, block.first_column, block.columns, workspace, layout,
                                    exec.stream);
      }
      if (e.empty()) e = int8_products(one, layout, block, workspace, exec);
      if (e.empty()) e = ozaki2::bound_elements(p, block, workspace, layout, exec.stream);
    }
    return e;
  }

  /// The blocks of C in the order they run: row blocks outermost (op(A)'s residues made once per row block).
  static std::vector<ozaki2::Block> blocks_of(GemmProblem const& p, ozaki2::DeviceLayout const& layout) {
    std::vector<ozaki2::Block> blocks;
    for (std::int64_t i0 = 0; i0 < p.m; i0 += layout.block_rows) {
      for (std::int64_t j0 = 0; j0 < p.n; j0 += layout.block_columns) {
        blocks.push_back({i0, std::min(layout.block_rows, p.m - i0), j0, std::min(layout.block_columns, p.n - j0)});
      }
    }
    return blocks;
  }

  /// The block's products, one INT8 GEMM per modulus in one batched call: "" or what failed.
  std::string int8_products(ozaki2::Plan const& plan, ozaki2::DeviceLayout const& layout, ozaki2::Block const& block,
                            void* workspace, ExecutionContext const& exec) const {
    std::int64_t const rows = block.rows, columns = block.columns;
    auto* const base = static_cast<unsigned char*>(workspace);
    auto const* const a = reinterpret_cast<std::int8_t const*>(base + layout.a_residues);
    auto const* const b = reinterpret_cast<std::int8_t const*>(base + layout.b_residues);
    auto* const c = reinterpret_cast<std::int32_t*>(base + layout.products);
    if (engine_ == Engine::kOwnSm90) {
      return ozaki2::int8_gemm_sm90(rows, columns, layout.k_padded, a, layout.a_plane, b, layout.b_plane, c, layout.ldc,
                                    layout.product_plane, plan.moduli, exec.stream);
    }
    auto* const handle = static_cast<cublasHandle_t>(cublas_handle(exec.device));
    if (handle == nullptr || cublasSetStream(handle, static_cast<cudaStream_t>(exec.stream)) != CUBLAS_STATUS_SUCCESS) {
      return "no cuBLAS handle";
    }
    std::int32_t const one = 1, zero = 0;
    int const k = int(layout.k_padded);  // the padding's residues are zero
    return cublasGemmStridedBatchedEx(handle, CUBLAS_OP_T, CUBLAS_OP_N, int(rows), int(columns), k, &one, a, CUDA_R_8I,
                                      k, (long long)layout.a_plane, b, CUDA_R_8I, k, (long long)layout.b_plane, &zero,
                                      c, CUDA_R_32I, int(layout.ldc), (long long)layout.product_plane, plan.moduli,
                                      CUBLAS_COMPUTE_32I, CUBLAS_GEMM_DEFAULT) == CUBLAS_STATUS_SUCCESS
               ? ""
               : "cuBLAS's INT8 GEMM failed";
  }

  static std::string format_spread(double spread) {
    char text[32];
    std::snprintf(text, sizeof text, "%.3g", spread);
    return text;
  }

  /// The context's bits, else under the fast scaling those FP64 accuracy needs at the inputs' spread and under
  /// the accurate scaling those every element's bound needs; the moduli from plan_for_bits, or from the
  /// accurate scaling's bounds. A plan the context's setting chose declines what it cannot carry (moduli = 0
  /// and the reason); a forced variant takes the most bits it can instead.
  static ozaki2::Plan choose_plan(GemmProblem const& p, ozaki2::Summary const& summary, ExecutionContext const& exec,
                                  std::string* why) {
    std::int64_t const k = std::max<std::int64_t>(p.k, 1);
    if (summary.nonfinite != 0) {
      *why = "Inf or NaN in A or B";
      return {};
    }
    bool const accurate = exec.fp64_emulation_accurate;
    double const product_bound = ozaki2::product_bound_of(summary), sum_bound = ozaki2::sum_bound_of(summary);
    auto const plan_for = [&](int b) {
      return accurate ? ozaki2::plan_for_bounds(b, product_bound, sum_bound, k) : ozaki2::plan_for_bits(b, k);
    };
    if (exec.fp64_emulation_bits > 0) {
      ozaki2::Plan const plan = plan_for(exec.fp64_emulation_bits);
      if (plan.moduli == 0) *why = std::to_string(exec.fp64_emulation_bits) + " bits need more moduli than there are";
      return plan;
    }
    double const spread = ozaki2::spread_of(summary);
    int const bits = accurate ? std::max(summary.required_bits, 1) : ozaki2::bits_for_fp64_accuracy(spread);
    ozaki2::Plan const plan = plan_for(std::min(bits, ozaki2::kMaxBits));
    if (bits <= ozaki2::kMaxBits && plan.moduli > 0) return plan;
    if (exec.fp64_emulation_may_decline) {
      *why = accurate ? "an element of C needs " + (bits > ozaki2::kMaxBits + 30 ? std::string("unboundedly many")
                                                                                   : std::to_string(bits)) +
                            " bits per operand element for its error bound (|A||B| of it too small for the "
                            "rounding of the rows' and columns' largest), more than the scheme carries"
                     : "the inputs' spread " + format_spread(spread) + " needs " + std::to_string(bits) +
                           " bits per element for FP64 accuracy, more than the scheme carries";
      return {};
    }
    ozaki2::Plan const most = plan_for(ozaki2::kMaxBits);
    return most.moduli > 0 ? most : ozaki2::plan_for_moduli(ozaki2::kMaxModuli, k);
  }

  Engine engine_;
  VariantInfo info_;
};

}  // namespace

/// The own engine first: the context's emulation setting takes the first emulating variant that runs.
void register_emulation_variants(Registry& registry) {
  registry.add(std::make_unique<Ozaki2Dgemm>(Engine::kOwnSm90));
  registry.add(std::make_unique<Ozaki2Dgemm>(Engine::kCublas));
}

}  // namespace gemmkit
