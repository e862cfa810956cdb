/*! \file
    \brief Random calls of the C API from a fixed seed, so a failure replays: the four forms (gemm,
    strided, pointer-array and grouped batches), both layouts, every op, sizes 0..40, padded leading
    dimensions with poisoned padding, alpha and beta specials (a NaN C with beta = 0), broadcast strides,
    and one invalid argument at a time, on host or device operands. A valid call matches the
    higher-precision reference and leaves the padding alone; a rejected one names its parameter and has
    written nothing. Included by the CPU test (host operands) and the GPU test (device operands).
*/
#pragma once

#include "api/argument_check.hpp"
#include "support/api_calls.hpp"
#include "support/gemm_check.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <iterator>
#include <random>
#include <sstream>
#include <string>
#include <utility>
#include <vector>

namespace gemmkit::test::random_calls {

constexpr std::uint64_t kSeed = 20261129;

enum class Form { kGemm, kStrided, kPointerArray, kGrouped };

/// One problem as the caller passes it, and the column-major problem gemmkit sees (to_column_major), whose
/// operands (A and B trading places for row-major) the checks build and read.
struct CallerProblem {
  gk_layout layout = GK_COL_MAJOR;
  gk_op transa = GK_OP_N, transb = GK_OP_N;
  std::int64_t m = 0, n = 0, k = 0, lda = 1, ldb = 1, ldc = 1;
  GemmProblem column_major(Dtype dtype) const {
    return to_column_major(layout, dtype, transa, transb, m, n, k, lda, ldb, ldc);
  }
};

/// The smallest leading dimensions the caller may pass.
struct LeadingMinimum {
  std::int64_t a, b, c;
};
inline LeadingMinimum leading_minimum(CallerProblem const& c) {
  bool const col = c.layout == GK_COL_MAJOR;
  bool const ta = is_transposed(c.transa), tb = is_transposed(c.transb);
  return {std::max<std::int64_t>(1, col ? (ta ? c.k : c.m) : (ta ? c.m : c.k)),
          std::max<std::int64_t>(1, col ? (tb ? c.n : c.k) : (tb ? c.k : c.n)),
          std::max<std::int64_t>(1, col ? c.m : c.n)};
}

class RandomCalls {
 public:
  explicit RandomCalls(std::uint64_t seed) : rng_(seed) {}

  int below(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  bool chance(double p) { return std::bernoulli_distribution(p)(rng_); }
  std::int64_t size() {
    static constexpr std::int64_t kSizes[] = {0, 1, 2, 3, 4, 5, 7, 8, 9, 13, 16, 17, 24, 31, 32, 33, 40};
    return kSizes[below(int(std::size(kSizes)))];
  }
  gk_op op() { return gk_op(below(3)); }
  double scalar() {
    static constexpr double kSpecial[] = {0.0, 1.0, -1.0, 0.5};
    return chance(0.6) ? kSpecial[below(4)] : std::uniform_real_distribution<double>(-2, 2)(rng_);
  }
  CallerProblem problem(gk_layout layout) {
    CallerProblem c;
    c.layout = layout;
    c.transa = op(), c.transb = op();
    c.m = size(), c.n = size(), c.k = size();
    LeadingMinimum const min = leading_minimum(c);
    c.lda = min.a + (chance(0.5) ? below(4) : 0);
    c.ldb = min.b + (chance(0.5) ? below(4) : 0);
    c.ldc = min.c + (chance(0.5) ? below(4) : 0);
    return c;
  }
  std::mt19937_64& engine() { return rng_; }

 private:
  std::mt19937_64 rng_;
};

/// A copy of a host matrix in device memory (device_memory()), freed on scope exit.
template <typename T>
class DeviceCopy {
 public:
  DeviceCopy() = default;
  explicit DeviceCopy(Matrix<T> const& host) : bytes_(host.bytes()) {
    EXPECT_EQ(device_memory()->allocate(&data_, bytes_ > 0 ? bytes_ : 1), "");
    if (bytes_ > 0) {
      EXPECT_EQ(device_memory()->to_device(data_, host.data(), bytes_), "");
    }
  }
  ~DeviceCopy() {
    if (data_ != nullptr) device_memory()->free(data_);
  }
  DeviceCopy(DeviceCopy&& other) noexcept : data_(std::exchange(other.data_, nullptr)), bytes_(other.bytes_) {}
  DeviceCopy& operator=(DeviceCopy&&) = delete;
  T* get() const { return static_cast<T*>(data_); }
  void fetch(Matrix<T>& host) const {
    if (bytes_ > 0) {
      EXPECT_EQ(device_memory()->to_host(host.data(), data_, bytes_), "");
    }
  }

 private:
  void* data_ = nullptr;
  std::size_t bytes_ = 0;
};

/// A call's data: each problem's operands (as gemmkit's column-major view stores them) and their copies;
/// with on_device, the call gets device copies and fetch() brings them back.
template <typename T>
struct Problem {
  GemmProblem column;
  double alpha = 1, beta = 0;
  Operands<T> ops, before;
  std::vector<DeviceCopy<T>> device;  // A, B, C
  Problem(GemmProblem const& p, double a, double b, bool on_device)
      : column(p), alpha(a), beta(b), ops(make_operands<T>(p, b)), before(ops) {
    if (on_device) {
      for (Matrix<T> const* m : {&ops.A, &ops.B, &ops.C}) device.emplace_back(*m);
    }
  }
  T const* a_data() const { return device.empty() ? ops.A.data() : device[0].get(); }
  T const* b_data() const { return device.empty() ? ops.B.data() : device[1].get(); }
  /// The caller's A, B and C: row-major swaps A and B back.
  T const* caller_a(gk_layout layout) const { return layout == GK_COL_MAJOR ? a_data() : b_data(); }
  T const* caller_b(gk_layout layout) const { return layout == GK_COL_MAJOR ? b_data() : a_data(); }
  T* caller_c() { return device.empty() ? ops.C.data() : device[2].get(); }
  void fetch() {
    if (device.empty()) return;
    device[0].fetch(ops.A), device[1].fetch(ops.B), device[2].fetch(ops.C);
  }
  ::testing::AssertionResult check() const {
    auto const reference = reference_result(column, alpha, before.A, before.B, beta, before.C);
    if (!ops.A.bitwise_equal(before.A) || !ops.B.bitwise_equal(before.B)) {
      return ::testing::AssertionFailure() << "A or B was written";
    }
    return check_result(column, alpha, beta, before.A, before.B, before.C, ops.C, reference);
  }
  bool untouched() const {
    return ops.A.bitwise_equal(before.A) && ops.B.bitwise_equal(before.B) && ops.C.bitwise_equal(before.C);
  }
};

/// The invalid argument a call carries, if any: its CBLAS position, and what the call passes instead.
struct Fault {
  int parameter = 0;
  std::string what;
};

template <typename T>
void run_random_calls(bool on_device, int calls) {
  Dtype const dtype = sizeof(T) == 8 ? Dtype::kF64 : Dtype::kF32;
  RandomCalls random(kSeed + sizeof(T));
  ScopedContext ctx;
  int rejected = 0, ran = 0;
  for (int call = 0; call < calls; ++call) {
    Form const form = Form(random.below(4));
    gk_layout const layout = random.chance(0.5) ? GK_COL_MAJOR : GK_ROW_MAJOR;
    CallerProblem c = random.problem(layout);
    double const alpha = random.scalar(), beta = random.scalar();
    std::int64_t batch = random.below(4);
    bool const faulty = random.chance(0.35);
    std::ostringstream said;
    said << "call " << call << " (seed " << kSeed + sizeof(T) << "): form " << int(form) << " layout "
         << int(layout) << " ops " << int(c.transa) << int(c.transb) << " m n k " << c.m << " " << c.n << " "
         << c.k << " ld " << c.lda << " " << c.ldb << " " << c.ldc << " alpha " << alpha << " beta " << beta
         << " batch " << batch;
    SCOPED_TRACE(said.str());

    // The faults every form shares, in argument order, on the caller's values.
    Fault fault;
    gk_layout call_layout = layout;
    gk_op call_ta = c.transa, call_tb = c.transb;
    std::int64_t call_m = c.m, call_n = c.n, call_k = c.k;
    std::int64_t call_lda = c.lda, call_ldb = c.ldb, call_ldc = c.ldc;
    bool const strided = form == Form::kStrided;
    int const lda_at = 9, ldb_at = strided ? 12 : 11, ldc_at = strided ? 16 : 14;
    int const kind = faulty ? random.below(15) : -1;  // 9 and above: the form's own faults, below
    LeadingMinimum const min = leading_minimum(c);
    switch (kind) {
      case 0: call_layout = gk_layout(7), fault = {1, "layout"}; break;
      case 1: call_ta = gk_op(9), fault = {2, "transa"}; break;
      case 2: call_tb = gk_op(-1), fault = {3, "transb"}; break;
      case 3: call_m = -1 - c.m, fault = {4, "m"}; break;
      case 4: call_n = -2, fault = {5, "n"}; break;
      case 5: call_k = -1, fault = {6, "k"}; break;
      case 6: call_lda = min.a - 1, fault = {lda_at, "lda"}; break;
      case 7: call_ldb = min.b - 1, fault = {ldb_at, "ldb"}; break;
      case 8: call_ldc = min.c - 1, fault = {ldc_at, "ldc"}; break;
      default: break;
    }
    GemmProblem p = c.column_major(dtype);
    std::vector<Problem<T>> problems;
    gk_status status = GK_SUCCESS;
    if (form == Form::kGemm) {
      problems.emplace_back(p, alpha, beta, on_device);
      Problem<T>& q = problems.back();
      status = api_gemm(ctx, call_layout, call_ta, call_tb, call_m, call_n, call_k, T(alpha), q.caller_a(layout),
                        call_lda, q.caller_b(layout), call_ldb, T(beta), q.caller_c(), call_ldc);
    } else if (form == Form::kStrided) {
      // Packed windows with a few elements between them, or a broadcast A or B.
      p.batch = batch;
      p.stride_a = random.chance(0.2) ? 0 : p.lda * p.a_cols() + random.below(3);
      p.stride_b = random.chance(0.2) ? 0 : p.ldb * p.b_cols() + random.below(3);
      p.stride_c = p.ldc * p.n + random.below(3);
      std::int64_t stride_a = layout == GK_COL_MAJOR ? p.stride_a : p.stride_b;
      std::int64_t stride_b = layout == GK_COL_MAJOR ? p.stride_b : p.stride_a;
      std::int64_t stride_c = p.stride_c, call_batch = batch;
      if (faulty && fault.parameter == 0) {
        switch (random.below(4)) {
          case 0: stride_a = -3, fault = {10, "stride_a"}; break;
          case 1: stride_b = -1, fault = {13, "stride_b"}; break;
          case 2: call_batch = -1, fault = {18, "batch"}; break;
          default:
            if (batch > 1 && c.m > 0 && c.n > 0) stride_c = 0, fault = {17, "stride_c (overlapping windows)"};
        }
      }
      problems.emplace_back(p, alpha, beta, on_device);
      Problem<T>& q = problems.back();
      status = api_gemm_strided_batched(ctx, call_layout, call_ta, call_tb, call_m, call_n, call_k, T(alpha),
                                        q.caller_a(layout), call_lda, stride_a, q.caller_b(layout), call_ldb,
                                        stride_b, T(beta), q.caller_c(), call_ldc, stride_c, call_batch);
    } else if (form == Form::kPointerArray) {
      for (std::int64_t i = 0; i < batch; ++i) problems.emplace_back(p, alpha, beta, on_device);
      std::vector<T const*> A, B;
      std::vector<T*> C;
      for (auto& q : problems) A.push_back(q.caller_a(layout)), B.push_back(q.caller_b(layout)), C.push_back(q.caller_c());
      std::int64_t call_batch = batch;
      bool const reads_ab = c.k > 0 && alpha != 0.0;
      if (faulty && fault.parameter == 0) {
        std::int64_t const victim = batch > 0 ? random.below(int(batch)) : 0;
        switch (random.below(3)) {
          case 0: call_batch = -1, fault = {15, "batch"}; break;
          case 1:
            if (batch > 0 && c.m > 0 && c.n > 0) C[std::size_t(victim)] = nullptr, fault = {13, "a NULL C entry"};
            break;
          default:
            if (batch > 0 && c.m > 0 && c.n > 0 && reads_ab) A[std::size_t(victim)] = nullptr, fault = {8, "a NULL A entry"};
        }
      }
      status = api_gemm_batched(ctx, call_layout, call_ta, call_tb, call_m, call_n, call_k, T(alpha), A.data(),
                                call_lda, B.data(), call_ldb, T(beta), C.data(), call_ldc, call_batch);
    } else {
      // Up to three groups; the shared faults land in the last one.
      int const groups = 1 + random.below(3);
      std::vector<gk_op> ta, tb;
      std::vector<std::int64_t> m, n, k, lda, ldb, ldc, sizes;
      std::vector<T> alphas, betas;
      for (int g = 0; g < groups; ++g) {
        bool const last = g == groups - 1;
        CallerProblem const own = last ? c : random.problem(layout);
        double const a = last ? alpha : random.scalar(), b = last ? beta : random.scalar();
        std::int64_t const size = last ? batch : random.below(3);
        GemmProblem const gp = own.column_major(dtype);
        for (std::int64_t i = 0; i < size; ++i) problems.emplace_back(gp, a, b, on_device);
        ta.push_back(last ? call_ta : own.transa), tb.push_back(last ? call_tb : own.transb);
        m.push_back(last ? call_m : own.m), n.push_back(last ? call_n : own.n), k.push_back(last ? call_k : own.k);
        lda.push_back(last ? call_lda : own.lda), ldb.push_back(last ? call_ldb : own.ldb);
        ldc.push_back(last ? call_ldc : own.ldc);
        alphas.push_back(T(a)), betas.push_back(T(b)), sizes.push_back(size);
      }
      std::vector<T const*> A, B;
      std::vector<T*> C;
      for (auto& q : problems) A.push_back(q.caller_a(layout)), B.push_back(q.caller_b(layout)), C.push_back(q.caller_c());
      std::int64_t group_count = groups;
      if (faulty && fault.parameter == 0) {
        switch (random.below(3)) {
          case 0: group_count = -1, fault = {15, "group_count"}; break;
          case 1: sizes[0] = -1, fault = {16, "group_size"}; break;
          default:
            // A NULL C in a later group: the groups before it must not have run.
            if (batch > 0 && c.m > 0 && c.n > 0) C.back() = nullptr, fault = {13, "a NULL C entry in the last group"};
        }
      }
      std::vector<gk_status> info(problems.size(), GK_INTERNAL_ERROR);
      status = api_gemm_grouped(ctx, call_layout, ta.data(), tb.data(), m.data(), n.data(), k.data(), alphas.data(),
                                A.data(), lda.data(), B.data(), ldb.data(), betas.data(), C.data(), ldc.data(),
                                group_count, sizes.data(), info.data());
      if (status == GK_SUCCESS) {
        for (std::size_t i = 0; i < info.size(); ++i) EXPECT_EQ(info[i], GK_SUCCESS) << "info[" << i << "]";
      }
    }
    if (on_device) {  // the results back on the host, once the stream is done
      EXPECT_EQ(device_memory()->synchronize(), "");
      for (auto& q : problems) q.fetch();
    }
    if (fault.parameter != 0) {
      ++rejected;
      EXPECT_EQ(status, GK_INVALID_ARGUMENT) << "with a bad " << fault.what;
      EXPECT_EQ(gk_error_parameter(ctx), fault.parameter) << "with a bad " << fault.what << ": " << gk_last_error(ctx);
      for (std::size_t i = 0; i < problems.size(); ++i) {
        EXPECT_TRUE(problems[i].untouched()) << "problem " << i << " was written by a rejected call (" << fault.what << ")";
      }
    } else {
      ++ran;
      ASSERT_EQ(status, GK_SUCCESS) << gk_last_error(ctx);
      for (std::size_t i = 0; i < problems.size(); ++i) EXPECT_TRUE(problems[i].check()) << "problem " << i;
    }
    if (::testing::Test::HasFailure()) break;  // the trace names the call to replay
  }
  // The mix is what the seed gives; both kinds must be well represented for the test to mean anything.
  EXPECT_GT(rejected, calls / 5);
  EXPECT_GT(ran, calls / 2);
}

}  // namespace gemmkit::test::random_calls
