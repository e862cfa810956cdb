/*! \file
    \brief The CPU variant for batches of GEMMs with m, n, k <= 32: picks this CPU's kernel table
    once per call, packs transposed operands into L1-resident buffers, and spreads the batch over
    OpenMP threads with a static schedule (the schedule first_touch_batch uses).
*/
#include "cpu/small/small_batched.hpp"

#include "cpu/cpu_features.hpp"
#include "cpu/small/batch_partition.hpp"
#include "cpu/small/small_blocking.hpp"
#include "cpu/small/small_kernels.hpp"

#include <memory>

namespace gemmkit::cpu {

namespace {

/// This CPU's ISA table with the blockings and prefetches tuned for its key (vendor and family), built once.
template <typename T>
SmallKernelTable<T> const* tuned_table(SmallKernelTable<T> const& (*avx512)(), SmallKernelTable<T> const& (*avx2)()) {
  SmallKernelTable<T> const* isa = cpu_has_avx512() ? &avx512() : (cpu_has_avx2_fma() ? &avx2() : nullptr);
  if (isa == nullptr) return nullptr;
  static SmallKernelTable<T> const table = with_tuned_blocking(*isa, small_blocking_table(), this_cpu_tuning_key());
  return &table;
}

}  // namespace

template <>
SmallKernelTable<double> const* small_kernels_for_this_cpu<double>() {
  static SmallKernelTable<double> const* const table = tuned_table(&small_kernels_avx512_f64, &small_kernels_avx2_f64);
  return table;
}

template <>
SmallKernelTable<float> const* small_kernels_for_this_cpu<float>() {
  static SmallKernelTable<float> const* const table = tuned_table(&small_kernels_avx512_f32, &small_kernels_avx2_f32);
  return table;
}

namespace {

/// Batches smaller than this run on the calling thread: a parallel region costs more than they do.
constexpr std::int64_t kMinParallelBatch = 64;

template <typename T>
class SmallBatchedGemm final : public GemmVariant {
 public:
  explicit SmallBatchedGemm(SmallKernelTable<T> const* table)
      : table_(table),
        info_{sizeof(T) == 8 ? "dgemm_cpu_small" : "sgemm_cpu_small",
              sizeof(T) == 8 ? Dtype::kF64 : Dtype::kF32,
              Platform::kCpu,
              VariantKind::kProduction,
              0,
              std::string("m, n, k <= 32, compile-time sizes, ") + (table != nullptr ? table->isa : "no SIMD") +
                  ", OpenMP over the batch",
              /*pointer_array=*/true} {}

  VariantInfo const& info() const override { return info_; }

  gk_status can_implement(GemmProblem const& p) const override {
    bool const fits = p.m <= kSmallMax && p.n <= kSmallMax && p.k <= kSmallMax;
    return table_ != nullptr && p.dtype == info_.dtype && fits ? GK_SUCCESS : GK_NOT_SUPPORTED;
  }

  gk_status run(GemmArguments const& args, void*, ExecutionContext const&) const override {
    GemmProblem const& p = args.problem;
    if (can_implement(p) != GK_SUCCESS) return GK_NOT_SUPPORTED;  // kernels index fixed-size buffers
    SmallGemmFn<T> kernel = table_->lookup(int(p.m), int(p.n), int(p.k));
    bool const packed = p.m == p.n && p.n == p.k && p.lda == p.m && p.ldb == p.m && p.ldc == p.m &&
                        p.stride_a == p.m * p.m && p.stride_b == p.m * p.m && p.stride_c == p.m * p.m &&
                        !p.pointer_array && !is_transposed(p.trans_a) && !is_transposed(p.trans_b);
    // Column groups where a vector holds whole columns of C and B (ldb = k after any repacking of B);
    // squares run what the tuning table says (their packed kernel is the grouped one, or columns).
    bool const grouped_layout = p.k == p.m && p.n != p.m && p.ldc == p.m && table_->grouped[p.m] != nullptr &&
                                p.n >= table_->grouped_min_n[p.m];
    if (grouped_layout && (is_transposed(p.trans_b) || p.ldb == p.k)) kernel = table_->grouped[p.m];
    if (packed && table_->packed[p.m] != nullptr) kernel = table_->packed[p.m];
    auto const* A = static_cast<T const*>(args.A);
    auto const* B = static_cast<T const*>(args.B);
    auto* C = static_cast<T*>(args.C);
    T const alpha = T(args.alpha), beta = T(args.beta);
    int const m = int(p.m), n = int(p.n), k = int(p.k);
    bool const trans_a = is_transposed(p.trans_a), trans_b = is_transposed(p.trans_b);

    if (!trans_a && !trans_b && !p.pointer_array) {  // each thread hands its whole share to the kernel
#pragma omp parallel if (p.batch >= kMinParallelBatch)
      {
        auto const [first, count] = share_of_batch(p.batch);
        kernel(count, n, k, alpha, A + first * p.stride_a, p.lda, p.stride_a, B + first * p.stride_b, p.ldb,
               p.stride_b, beta, C + first * p.stride_c, p.ldc, p.stride_c);
      }
      return GK_SUCCESS;
    }
#pragma omp parallel if (p.batch >= kMinParallelBatch)
    {
      // Pointer arrays and transposes go problem by problem; transposed operands are repacked into
      // untransposed, L1-resident copies.
      alignas(64) T packed_a[kSmallMax * kSmallMax];
      alignas(64) T packed_b[kSmallMax * kSmallMax];
      auto const [first, count] = share_of_batch(p.batch);
      for (std::int64_t b = first; b < first + count; ++b) {
        T const* a = p.pointer_array ? static_cast<T const* const*>(args.A)[b] : A + b * p.stride_a;
        T const* bm = p.pointer_array ? static_cast<T const* const*>(args.B)[b] : B + b * p.stride_b;
        T* c = p.pointer_array ? static_cast<T* const*>(args.C)[b] : C + b * p.stride_c;
        std::int64_t lda = p.lda, ldb = p.ldb;
        if (trans_a) {
          for (int l = 0; l < k; ++l)
            for (int i = 0; i < m; ++i) packed_a[i + l * m] = a[l + i * p.lda];
          a = packed_a, lda = m;
        }
        if (trans_b) {
          for (int j = 0; j < n; ++j)
            for (int l = 0; l < k; ++l) packed_b[l + j * k] = bm[j + l * p.ldb];
          bm = packed_b, ldb = k;
        }
        kernel(1, n, k, alpha, a, lda, 0, bm, ldb, 0, beta, c, p.ldc, 0);
      }
    }
    return GK_SUCCESS;
  }

 private:
  SmallKernelTable<T> const* table_;
  VariantInfo info_;
};

}  // namespace

std::unique_ptr<GemmVariant> make_small_batched_variant(Dtype dtype) {
  if (dtype == Dtype::kF64) return std::make_unique<SmallBatchedGemm<double>>(small_kernels_for_this_cpu<double>());
  return std::make_unique<SmallBatchedGemm<float>>(small_kernels_for_this_cpu<float>());
}

}  // namespace gemmkit::cpu
