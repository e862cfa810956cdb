/*! \file
    \brief Shared test support: fresh random operands, padded matrices with poisoned padding, the
    normalized error of docs/kernel-contracts.md against the higher-precision reference, and check_variant(), which
    runs one registered variant through its lifecycle and through the public API.

    Used by both test binaries. Device memory is reached through the DeviceMemory interface, which
    only the GPU binary implements (support/device_memory.cpp), so this file needs no CUDA.
*/
#pragma once

#include "base/problem.hpp"
#include "cpu/reference_gemm.hpp"
#include "registry/gemm_variant.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <limits>
#include <random>
#include <string>
#include <type_traits>
#include <vector>

namespace gemmkit::test {

template <typename T>
constexpr Dtype dtype_of() {
  static_assert(std::is_same_v<T, double> || std::is_same_v<T, float>);
  return std::is_same_v<T, double> ? Dtype::kF64 : Dtype::kF32;
}

/// Bound on the normalized error, in units of the dtype's epsilon (docs/kernel-contracts.md).
inline constexpr double kErrorBound = 8.0;

/// A new seed per call (so every check gets new data); the base comes from GEMMKIT_TEST_SEED when
/// set, so a failure printed with its seed can be replayed.
std::uint64_t next_seed();

/// A generator seeded with next_seed(); `seed` receives the seed for failure messages.
std::mt19937_64 fresh_generator(std::uint64_t* seed = nullptr);

/// Padding poison: a quiet NaN with a payload no computation produces, so an element that was
/// written is told apart from one left alone by its bits, and one that was read turns C into NaN.
template <typename T>
T poison_value() {
  if constexpr (sizeof(T) == 8) {
    std::uint64_t const bits = 0x7FF8DEADBEEF1234ull;
    T v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  } else {
    std::uint32_t const bits = 0x7FC0BEEFu;
    T v;
    std::memcpy(&v, &bits, sizeof v);
    return v;
  }
}

template <typename T>
bool same_bits(T a, T b) {
  return std::memcmp(&a, &b, sizeof(T)) == 0;
}

/// Uniform in [-1, 1], never exactly zero (a zero operand hides missing terms).
template <typename T>
T random_value(std::mt19937_64& rng) {
  std::uniform_real_distribution<T> dist(T(-1), T(1));
  for (;;) {
    T const v = dist(rng);
    if (v != T(0)) return v;
  }
}

/// A (batch of) column-major rows x cols matrices with leading dimension ld >= rows, entry b at
/// element offset b*stride. stride = 0 stores one matrix that every batch entry shares (broadcast).
/// Everything outside the windows is padding, filled with poison_value<T>().
template <typename T>
class Matrix {
 public:
  Matrix(std::int64_t rows, std::int64_t cols, std::int64_t ld, std::int64_t batch = 1, std::int64_t stride = -1)
      : rows_(rows), cols_(cols), ld_(ld), batch_(batch), stride_(stride < 0 ? ld * cols : stride) {
    std::int64_t const stored = stride_ == 0 ? 1 : batch_;
    std::int64_t const size = stored > 0 ? (stored - 1) * stride_ + ld_ * cols_ : 0;
    data_.assign(static_cast<std::size_t>(size > 0 ? size : 1), poison_value<T>());
    window_.assign(data_.size(), false);
    for (std::int64_t b = 0; b < stored; ++b) {
      for (std::int64_t j = 0; j < cols_; ++j) {
        for (std::int64_t i = 0; i < rows_; ++i) window_[static_cast<std::size_t>(index(i, j, b))] = true;
      }
    }
  }

  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const { return cols_; }
  std::int64_t ld() const { return ld_; }
  std::int64_t batch() const { return batch_; }
  std::int64_t stride() const { return stride_; }

  std::int64_t index(std::int64_t i, std::int64_t j, std::int64_t b = 0) const { return b * stride_ + i + j * ld_; }
  T& at(std::int64_t i, std::int64_t j, std::int64_t b = 0) { return data_[static_cast<std::size_t>(index(i, j, b))]; }
  T at(std::int64_t i, std::int64_t j, std::int64_t b = 0) const {
    return data_[static_cast<std::size_t>(index(i, j, b))];
  }

  T* data() { return data_.data(); }
  T const* data() const { return data_.data(); }
  std::size_t size() const { return data_.size(); }
  std::size_t bytes() const { return data_.size() * sizeof(T); }
  std::vector<T> const& storage() const { return data_; }
  bool in_window(std::size_t element) const { return window_[element]; }

  /// Fresh uniform values in every window; padding poisoned.
  void fill_random(std::mt19937_64& rng) {
    for (std::size_t e = 0; e < data_.size(); ++e) data_[e] = window_[e] ? random_value<T>(rng) : poison_value<T>();
  }
  /// One value in every window (e.g. NaN for a C that must not be read); padding poisoned.
  void fill(T value) {
    for (std::size_t e = 0; e < data_.size(); ++e) data_[e] = window_[e] ? value : poison_value<T>();
  }
  /// Number of padding elements whose bits are no longer the poison.
  std::size_t padding_changes() const {
    std::size_t changed = 0;
    for (std::size_t e = 0; e < data_.size(); ++e) changed += !window_[e] && !same_bits(data_[e], poison_value<T>());
    return changed;
  }
  /// True when every element (window and padding) has the same bits as `other`.
  bool bitwise_equal(Matrix const& other) const {
    return data_.size() == other.data_.size() &&
           std::memcmp(data_.data(), other.data_.data(), data_.size() * sizeof(T)) == 0;
  }

 private:
  std::int64_t rows_, cols_, ld_, batch_, stride_;
  std::vector<T> data_;
  std::vector<bool> window_;
};

/// Operands of one problem, sized from it: A and B stored as the problem says (before op), C with
/// its ldc, all with the problem's batch and strides (stride 0 for A or B broadcasts).
template <typename T>
struct Operands {
  Matrix<T> A, B, C;
  explicit Operands(GemmProblem const& p)
      : A(p.a_rows(), p.a_cols(), p.lda, p.batch, p.stride_a),
        B(p.b_rows(), p.b_cols(), p.ldb, p.batch, p.stride_b),
        C(p.m, p.n, p.ldc, p.batch, p.stride_c) {}
};

/// Makes operands with fresh random A and B, and C random, or NaN when beta = 0 (C must not be read).
template <typename T>
Operands<T> make_operands(GemmProblem const& p, double beta, std::uint64_t* seed = nullptr) {
  std::mt19937_64 rng = fresh_generator(seed);
  Operands<T> ops(p);
  ops.A.fill_random(rng);
  ops.B.fill_random(rng);
  if (beta == 0.0) ops.C.fill(std::numeric_limits<T>::quiet_NaN());
  else ops.C.fill_random(rng);
  return ops;
}

/// The reference result of a problem, m x n per batch entry packed at m*n, in higher precision.
template <typename T>
std::vector<ReferenceAccumulator<T>> reference_result(GemmProblem const& p, double alpha, Matrix<T> const& A,
                                                      Matrix<T> const& B, double beta, Matrix<T> const& C0) {
  std::vector<ReferenceAccumulator<T>> out(static_cast<std::size_t>(p.m * p.n * p.batch));
  if (!out.empty()) reference_gemm<T>(p, alpha, A.data(), B.data(), beta, C0.data(), out.data());
  return out;
}

/// Checks C against the reference: every C element finite, the normalized error of every batch entry
///   ||C - Cref||_F / (|alpha| sqrt(k+2) ||A||_F ||B||_F + 2 |beta| ||C0||_F) < bound * eps
/// (the contracts' form, with alpha and beta folded in so scaling the scalars does not move the bound;
/// the C0 term is dropped for beta = 0, where C0 may be NaN), and C's padding untouched.
template <typename T>
::testing::AssertionResult check_result(GemmProblem const& p, double alpha, double beta, Matrix<T> const& A,
                                        Matrix<T> const& B, Matrix<T> const& C0, Matrix<T> const& C,
                                        std::vector<ReferenceAccumulator<T>> const& reference,
                                        double bound = kErrorBound);

/// Short text of a problem for messages: "f64 nt m=17 n=16 k=33 lda=.. batch=..".
std::string describe(GemmProblem const& p);

/// Column-major problem with minimal (or padded) leading dimensions and packed batch strides.
GemmProblem make_problem(Dtype dtype, gk_op transa, gk_op transb, std::int64_t m, std::int64_t n, std::int64_t k,
                         std::int64_t ld_pad = 0, std::int64_t batch = 1);

/// Device memory for the checks; the GPU test binary registers its CUDA implementation at startup.
class DeviceMemory {
 public:
  virtual ~DeviceMemory() = default;
  /// Each returns "" on success or an error message.
  virtual std::string allocate(void** pointer, std::size_t bytes) const = 0;
  virtual void free(void* pointer) const = 0;
  virtual std::string to_device(void* dst, void const* src, std::size_t bytes) const = 0;
  virtual std::string to_host(void* dst, void const* src, std::size_t bytes) const = 0;
  /// Waits for all device work and reports any pending or sticky error.
  virtual std::string synchronize() const = 0;
  virtual int device() const = 0;
};

void set_device_memory(DeviceMemory const* memory);
/// The registered implementation, or nullptr in a binary without CUDA.
DeviceMemory const* device_memory();

/// What check_variant exercises.
struct CheckOptions {
  bool direct = true;     ///< can_implement -> workspace_bytes -> initialize -> run on the variant itself
  bool api = true;        ///< gk_?gemm / gk_?gemm_strided_batched with gk_set_variant forcing the variant
  double bound = kErrorBound;
  /// Device only: A, B and C start this many elements past an allocation's (256-byte aligned)
  /// base, so vectorized or asynchronous-copy paths meet unaligned operands.
  std::int64_t element_offset = 0;
};

/// Builds fresh operands for `problem` (poisoned padding; NaN C when beta = 0), runs `variant` on
/// host or device memory, and checks result, padding, unmodified inputs and (API path) the status
/// and gk_last_variant. Precondition: k > 0 and alpha != 0 (the dispatcher owns the other cases).
::testing::AssertionResult check_variant(GemmVariant const& variant, GemmProblem const& problem, double alpha,
                                         double beta, bool on_device, CheckOptions const& options = {});

/// The same checks through the public API with table-driven selection (column-major; gk_?gemm for
/// batch 1, gk_?gemm_strided_batched otherwise). `ran_variant` receives gk_last_variant.
::testing::AssertionResult check_api(GemmProblem const& problem, double alpha, double beta, bool on_device,
                                     std::string* ran_variant = nullptr, double bound = kErrorBound);

}  // namespace gemmkit::test
