/*! \file
    \brief Test support: seeds, the normalized-error check and check_variant() on host or device memory.
*/
#include "support/gemm_check.hpp"

#include "support/api_calls.hpp"

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <memory>
#include <sstream>

namespace gemmkit::test {

std::uint64_t next_seed() {
  static std::uint64_t const base = [] {
    char const* env = std::getenv("GEMMKIT_TEST_SEED");
    return env != nullptr ? std::strtoull(env, nullptr, 0) : 0x5eed2026ull;
  }();
  static std::atomic<std::uint64_t> counter{0};
  return base + counter.fetch_add(1);
}

std::mt19937_64 fresh_generator(std::uint64_t* seed) {
  std::uint64_t const s = next_seed();
  if (seed != nullptr) *seed = s;
  // Spread consecutive seeds so neighbouring checks do not start from related states.
  std::seed_seq seq{std::uint32_t(s), std::uint32_t(s >> 32), 0x9e3779b9u};
  return std::mt19937_64(seq);
}

std::string describe(GemmProblem const& p) {
  std::ostringstream s;
  s << to_string(p.dtype) << ' ' << op_letter(p.trans_a) << op_letter(p.trans_b) << " m=" << p.m << " n=" << p.n
    << " k=" << p.k << " lda=" << p.lda << " ldb=" << p.ldb << " ldc=" << p.ldc;
  if (p.batch != 1) {
    s << " batch=" << p.batch << " strides=" << p.stride_a << '/' << p.stride_b << '/' << p.stride_c;
  }
  return s.str();
}

GemmProblem make_problem(Dtype dtype, gk_op transa, gk_op transb, std::int64_t m, std::int64_t n, std::int64_t k,
                         std::int64_t ld_pad, std::int64_t batch) {
  GemmProblem p;
  p.dtype = dtype;
  p.trans_a = transa;
  p.trans_b = transb;
  p.m = m, p.n = n, p.k = k;
  auto ld = [&](std::int64_t rows) { return std::max<std::int64_t>(1, rows) + ld_pad; };
  p.lda = ld(p.a_rows());
  p.ldb = ld(p.b_rows());
  p.ldc = ld(p.m);
  p.batch = batch;
  // With padding, batch entries also get a poisoned gap between them.
  p.stride_a = p.lda * p.a_cols() + ld_pad;
  p.stride_b = p.ldb * p.b_cols() + ld_pad;
  p.stride_c = p.ldc * p.n + ld_pad;
  return p;
}

template <typename T>
::testing::AssertionResult check_result(GemmProblem const& p, double alpha, double beta, Matrix<T> const& A,
                                        Matrix<T> const& B, Matrix<T> const& C0, Matrix<T> const& C,
                                        std::vector<ReferenceAccumulator<T>> const& reference, double bound) {
  using Acc = ReferenceAccumulator<T>;
  std::ostringstream failure;
  if (std::size_t const written = C.padding_changes(); written != 0) {
    failure << written << " padding element(s) of C were written; ";
  }
  auto norm = [](Matrix<T> const& X, std::int64_t b) {
    Acc sum = 0;
    for (std::int64_t j = 0; j < X.cols(); ++j) {
      for (std::int64_t i = 0; i < X.rows(); ++i) sum += Acc(X.at(i, j, b)) * Acc(X.at(i, j, b));
    }
    return std::sqrt(sum);
  };
  long double const eps = std::numeric_limits<T>::epsilon();
  for (std::int64_t b = 0; b < p.batch; ++b) {
    Acc diff2 = 0;
    std::int64_t nonfinite = 0, worst_i = -1, worst_j = -1;
    Acc worst = -1;
    for (std::int64_t j = 0; j < p.n; ++j) {
      for (std::int64_t i = 0; i < p.m; ++i) {
        T const c = C.at(i, j, b);
        Acc const r = reference[static_cast<std::size_t>(b * p.m * p.n + i + j * p.m)];
        if (!std::isfinite(c)) {
          if (nonfinite++ == 0) worst_i = i, worst_j = j;
          continue;
        }
        Acc const d = Acc(c) - r;
        diff2 += d * d;
        if (nonfinite == 0 && std::fabs(d) > worst) worst = std::fabs(d), worst_i = i, worst_j = j;
      }
    }
    Acc den = Acc(std::fabs(alpha)) * std::sqrt(Acc(p.k + 2)) * norm(A, b) * norm(B, b);
    if (beta != 0.0) den += 2 * Acc(std::fabs(beta)) * norm(C0, b);
    Acc const num = std::sqrt(diff2);
    long double const error = den > 0 ? (long double)(num / den) : (num == 0 ? 0.0L : INFINITY);
    if (nonfinite != 0) {
      failure << "batch " << b << ": " << nonfinite << " non-finite element(s) of C, first C(" << worst_i << ","
              << worst_j << ") = " << C.at(worst_i, worst_j, b) << "; ";
    } else if (!(error < bound * eps)) {
      std::size_t const w = static_cast<std::size_t>(b * p.m * p.n + worst_i + worst_j * p.m);
      failure << "batch " << b << ": normalized error " << double(error / eps) << " eps >= " << bound
              << " eps; worst C(" << worst_i << "," << worst_j << ") = " << C.at(worst_i, worst_j, b)
              << " vs reference " << double(reference[w]) << "; ";
    }
  }
  if (failure.str().empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << failure.str();
}

template ::testing::AssertionResult check_result<double>(GemmProblem const&, double, double, Matrix<double> const&,
                                                         Matrix<double> const&, Matrix<double> const&,
                                                         Matrix<double> const&,
                                                         std::vector<long double> const&, double);
template ::testing::AssertionResult check_result<float>(GemmProblem const&, double, double, Matrix<float> const&,
                                                        Matrix<float> const&, Matrix<float> const&,
                                                        Matrix<float> const&, std::vector<double> const&, double);

namespace {

DeviceMemory const* g_device_memory = nullptr;

/// A device allocation released on scope exit.
struct DeviceAllocation {
  DeviceMemory const* memory = nullptr;
  void* pointer = nullptr;
  DeviceAllocation() = default;
  DeviceAllocation(DeviceAllocation const&) = delete;
  DeviceAllocation& operator=(DeviceAllocation const&) = delete;
  ~DeviceAllocation() {
    if (pointer != nullptr) memory->free(pointer);
  }
  std::string allocate(DeviceMemory const* m, std::size_t bytes) {
    memory = m;
    return m->allocate(&pointer, bytes);
  }
};

/// The three operands where a variant reads them: the host copy itself, or device copies of it
/// (the whole buffer, poisoned padding included, so padding is checked on the device too).
template <typename T>
class PlacedOperands {
 public:
  PlacedOperands(Operands<T>& host, bool on_device, std::int64_t offset = 0)
      : host_(host), memory_(on_device ? device_memory() : nullptr), offset_(on_device ? offset : 0) {
    if (!on_device) return;
    if (memory_ == nullptr) {
      error_ = "no DeviceMemory registered (device checks run only in the GPU test binary)";
      return;
    }
    Matrix<T>* const matrices[] = {&host.A, &host.B, &host.C};
    for (int i = 0; i < 3 && error_.empty(); ++i) {
      error_ = device_[i].allocate(memory_, matrices[i]->bytes() + offset_ * sizeof(T));
      if (error_.empty()) error_ = memory_->to_device(device(i), matrices[i]->data(), matrices[i]->bytes());
    }
  }

  std::string const& error() const { return error_; }
  T const* A() const { return memory_ ? device(0) : host_.A.data(); }
  T const* B() const { return memory_ ? device(1) : host_.B.data(); }
  T* C() const { return memory_ ? device(2) : host_.C.data(); }

  /// Brings the device buffers back into the host operands (a no-op for host placement).
  std::string fetch() {
    if (memory_ == nullptr) return {};
    Matrix<T>* const matrices[] = {&host_.A, &host_.B, &host_.C};
    for (int i = 0; i < 3; ++i) {
      if (std::string e = memory_->to_host(matrices[i]->data(), device(i), matrices[i]->bytes()); !e.empty()) {
        return e;
      }
    }
    return {};
  }

 private:
  T* device(int i) const { return static_cast<T*>(device_[i].pointer) + offset_; }

  Operands<T>& host_;
  DeviceMemory const* memory_;
  std::int64_t offset_;
  DeviceAllocation device_[3];
  std::string error_;
};

/// Result, padding and unmodified inputs of one run.
template <typename T>
void verify_run(char const* path, GemmProblem const& p, double alpha, double beta, Operands<T> const& original,
                Operands<T> const& after, std::vector<ReferenceAccumulator<T>> const& reference, double bound,
                std::ostringstream& failures) {
  if (!after.A.bitwise_equal(original.A)) failures << path << ": A was modified; ";
  if (!after.B.bitwise_equal(original.B)) failures << path << ": B was modified; ";
  auto const r = check_result(p, alpha, beta, original.A, original.B, original.C, after.C, reference, bound);
  if (!r) failures << path << ": " << r.message();
}

template <typename T>
void run_direct(GemmVariant const& v, GemmProblem const& p, double alpha, double beta, bool on_device,
                Operands<T> const& original, std::vector<ReferenceAccumulator<T>> const& reference,
                CheckOptions const& options, std::ostringstream& failures) {
  double const bound = options.bound;
  Operands<T> work = original;
  PlacedOperands<T> placed(work, on_device, options.element_offset);
  if (!placed.error().empty()) {
    failures << "direct: " << placed.error() << "; ";
    return;
  }
  ExecutionContext const exec{nullptr, on_device ? device_memory()->device() : 0};
  std::size_t const ws_bytes = v.workspace_bytes(p);
  // The workspace starts as all-ones bytes (NaN in both precisions, a flag no launch stamps): a
  // variant must not read what it did not write there, as an allocation may hold anything.
  std::vector<unsigned char> host_workspace(ws_bytes, 0xFF);
  DeviceAllocation device_workspace;
  void* workspace = nullptr;
  if (ws_bytes > 0) {
    if (on_device) {
      std::string e = device_workspace.allocate(device_memory(), ws_bytes);
      if (e.empty()) e = device_memory()->to_device(device_workspace.pointer, host_workspace.data(), ws_bytes);
      if (!e.empty()) {
        failures << "direct: workspace: " << e << "; ";
        return;
      }
      workspace = device_workspace.pointer;
    } else {
      workspace = host_workspace.data();
    }
  }
  if (gk_status s = v.initialize(exec); s != GK_SUCCESS) {
    failures << "direct: initialize returned " << gk_status_string(s) << "; ";
    return;
  }
  GemmArguments args;
  args.problem = p;
  args.alpha = alpha;
  args.beta = beta;
  args.A = placed.A();
  args.B = placed.B();
  args.C = placed.C();
  if (gk_status s = v.run(args, workspace, exec); s != GK_SUCCESS) {
    failures << "direct: run returned " << gk_status_string(s) << "; ";
    return;
  }
  if (on_device) {
    if (std::string e = device_memory()->synchronize(); !e.empty()) {
      failures << "direct: " << e << "; ";
      return;
    }
  }
  if (std::string e = placed.fetch(); !e.empty()) {
    failures << "direct: " << e << "; ";
    return;
  }
  verify_run("direct", p, alpha, beta, original, work, reference, bound, failures);
}

/// The public API path; forces `variant_id` unless it is empty, and reports the variant that ran.
template <typename T>
void run_api(std::string const& variant_id, GemmProblem const& p, double alpha, double beta, bool on_device,
             Operands<T> const& original, std::vector<ReferenceAccumulator<T>> const& reference,
             CheckOptions const& options, std::ostringstream& failures, std::string* ran = nullptr) {
  double const bound = options.bound;
  Operands<T> work = original;
  PlacedOperands<T> placed(work, on_device, options.element_offset);
  if (!placed.error().empty()) {
    failures << "api: " << placed.error() << "; ";
    return;
  }
  ScopedContext ctx;
  if (!variant_id.empty()) gk_set_variant(ctx, variant_id.c_str());
  gk_status const s =
      p.batch == 1
          ? api_gemm(ctx, GK_COL_MAJOR, p.trans_a, p.trans_b, p.m, p.n, p.k, T(alpha), placed.A(), p.lda, placed.B(),
                     p.ldb, T(beta), placed.C(), p.ldc)
          : api_gemm_strided_batched(ctx, GK_COL_MAJOR, p.trans_a, p.trans_b, p.m, p.n, p.k, T(alpha), placed.A(),
                                     p.lda, p.stride_a, placed.B(), p.ldb, p.stride_b, T(beta), placed.C(), p.ldc,
                                     p.stride_c, p.batch);
  if (s != GK_SUCCESS) {
    failures << "api: returned " << gk_status_string(s) << " (" << gk_last_error(ctx) << "); ";
    return;
  }
  std::string const last = gk_last_variant(ctx);
  if (ran != nullptr) *ran = last;
  if (!variant_id.empty() && last != variant_id) failures << "api: gk_last_variant is '" << last << "'; ";
  if (on_device) {
    if (std::string e = device_memory()->synchronize(); !e.empty()) {
      failures << "api: " << e << "; ";
      return;
    }
  }
  if (std::string e = placed.fetch(); !e.empty()) {
    failures << "api: " << e << "; ";
    return;
  }
  verify_run("api", p, alpha, beta, original, work, reference, bound, failures);
}

template <typename T>
::testing::AssertionResult check_variant_typed(GemmVariant const& v, GemmProblem const& p, double alpha, double beta,
                                               bool on_device, CheckOptions const& options) {
  std::uint64_t seed = 0;
  Operands<T> const original = make_operands<T>(p, beta, &seed);
  std::ostringstream where;
  where << v.info().id << ' ' << describe(p) << " alpha=" << alpha << " beta=" << beta << " seed=" << seed << ": ";
  if (gk_status s = v.can_implement(p); s != GK_SUCCESS) {
    return ::testing::AssertionFailure() << where.str() << "can_implement returned " << gk_status_string(s);
  }
  auto const reference = reference_result(p, alpha, original.A, original.B, beta, original.C);
  std::ostringstream failures;
  if (options.direct) run_direct(v, p, alpha, beta, on_device, original, reference, options, failures);
  if (options.api) run_api(v.info().id, p, alpha, beta, on_device, original, reference, options, failures);
  if (failures.str().empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << where.str() << failures.str();
}

template <typename T>
::testing::AssertionResult check_api_typed(GemmProblem const& p, double alpha, double beta, bool on_device,
                                           std::string* ran_variant, double bound) {
  std::uint64_t seed = 0;
  Operands<T> const original = make_operands<T>(p, beta, &seed);
  auto const reference = reference_result(p, alpha, original.A, original.B, beta, original.C);
  std::ostringstream failures;
  run_api(std::string(), p, alpha, beta, on_device, original, reference, CheckOptions{.bound = bound}, failures,
          ran_variant);
  if (failures.str().empty()) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << describe(p) << " alpha=" << alpha << " beta=" << beta << " seed=" << seed
                                       << ": " << failures.str();
}

}  // namespace

::testing::AssertionResult check_api(GemmProblem const& problem, double alpha, double beta, bool on_device,
                                     std::string* ran_variant, double bound) {
  if (problem.dtype == Dtype::kF64) return check_api_typed<double>(problem, alpha, beta, on_device, ran_variant, bound);
  return check_api_typed<float>(problem, alpha, beta, on_device, ran_variant, bound);
}

void set_device_memory(DeviceMemory const* memory) { g_device_memory = memory; }
DeviceMemory const* device_memory() { return g_device_memory; }

::testing::AssertionResult check_variant(GemmVariant const& variant, GemmProblem const& problem, double alpha,
                                         double beta, bool on_device, CheckOptions const& options) {
  if (problem.dtype == Dtype::kF64) return check_variant_typed<double>(variant, problem, alpha, beta, on_device, options);
  return check_variant_typed<float>(variant, problem, alpha, beta, on_device, options);
}

}  // namespace gemmkit::test
