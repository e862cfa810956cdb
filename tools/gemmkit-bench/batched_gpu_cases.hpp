/*! \file
    \brief `batched` on the GPU, its cases as data: device memory, the pointer arrays of a case and
           the grouped case's layout (groups, offsets, per-group argument arrays).
*/
#pragma once

#include "batched_common.hpp"
#include "timing.hpp"

#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

namespace gemmkit::bench {

// --- device memory and handles -------------------------------------------------------------------

/// Why `need` bytes should not be allocated on the current device (more than 90 % of what is
/// free), or "" when they fit.
std::string device_memory_shortfall(double need);

/// "" for CUBLAS_STATUS_SUCCESS, else "what: name (description)".
std::string cublas_error_text(cublasStatus_t status, char const* what);

/// One device allocation, freed with the object.
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
std::vector<GroupShape> const& grouped_mix();

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
GroupedCase lay_out_grouped(std::vector<GroupShape> const& shapes, Dtype dtype, BatchedSettings const& settings);

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

}  // namespace gemmkit::bench
