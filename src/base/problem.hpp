/*! \file
    \brief Internal description of one (strided-batched) GEMM, normalized to column-major.
*/
#pragma once

#include <gemmkit/gemmkit.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

namespace gemmkit {

enum class Dtype { kF32, kF64 };
enum class Platform { kCpu, kCuda };

inline char const* to_string(Dtype dtype) { return dtype == Dtype::kF64 ? "f64" : "f32"; }
inline char const* to_string(Platform backend) { return backend == Platform::kCpu ? "cpu" : "cuda"; }
inline std::size_t size_of(Dtype dtype) { return dtype == Dtype::kF64 ? 8 : 4; }
inline bool is_transposed(gk_op op) { return op != GK_OP_N; }
inline char op_letter(gk_op op) { return op == GK_OP_N ? 'n' : (op == GK_OP_T ? 't' : 'c'); }

/// Blocks over the slots of the waves that run them (the last wave may run part empty).
inline double wave_efficiency(std::int64_t blocks, std::int64_t blocks_per_wave) {
  if (blocks <= 0 || blocks_per_wave <= 0) return 0.0;
  std::int64_t const waves = (blocks + blocks_per_wave - 1) / blocks_per_wave;
  return double(blocks) / double(waves * blocks_per_wave);
}

/// Column-major problem: C(m x n) = alpha * op(A) * op(B) + beta * C, repeated batch times at the
/// given element strides. Row-major calls are rewritten to this form before they get here.
struct GemmProblem {
  Dtype dtype = Dtype::kF64;
  gk_op trans_a = GK_OP_N;
  gk_op trans_b = GK_OP_N;
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t lda = 1, ldb = 1, ldc = 1;
  std::int64_t batch = 1;
  std::int64_t stride_a = 0, stride_b = 0, stride_c = 0;
  /// The operands are arrays of `batch` pointers (GemmArguments A, B, C point at the arrays)
  /// instead of strided; the strides are unused.
  bool pointer_array = false;
  /// With pointer_array: the three arrays live in device memory (and so do the matrices they point
  /// to), so the host cannot read their entries; a variant takes them as they are, without a copy.
  bool arrays_on_device = false;

  /// Rows and columns of A and B as stored (before op).
  std::int64_t a_rows() const { return is_transposed(trans_a) ? k : m; }
  std::int64_t a_cols() const { return is_transposed(trans_a) ? m : k; }
  std::int64_t b_rows() const { return is_transposed(trans_b) ? n : k; }
  std::int64_t b_cols() const { return is_transposed(trans_b) ? k : n; }
  double flops() const { return 2.0 * double(m) * double(n) * double(k) * double(batch); }
};

/// A problem plus its scalars and operands. alpha/beta are held as double: float scalars
/// round-trip exactly. For a pointer-array problem A, B and C are `void const* const*` arrays.
struct GemmArguments {
  GemmProblem problem;
  double alpha = 1.0;
  double beta = 0.0;
  void const* A = nullptr;
  void const* B = nullptr;
  void* C = nullptr;
};

class GemmVariant;

/// What a variant keeps on the calling context between calls (device buffers and pinned rings
/// that cost milliseconds to obtain, rates measured call by call): made by the variant on first
/// use, freed with the context.
class VariantState {
 public:
  virtual ~VariantState() = default;
};

/// The context's settings for a variant that takes host operands and computes on the GPUs (the
/// host-resident GEMM): gk_set_host_gemm_devices and the setters after it.
struct HostGemmSettings {
  std::vector<int> devices;      ///< one pipeline worker per entry; empty: the context's device
  std::size_t device_budget = 0; ///< bytes per worker; 0 = most of what the device has free
  int pipeline_level = 4;
  gk_host_memory host_memory = GK_HOST_MEMORY_AUTO;
  bool cpu_share = false;
  GemmVariant const* device_kernel = nullptr;  ///< a forced CUDA variant for the blocks; nullptr: the table's
  /// The FP64 emulation the context's setting asks for, run on the blocks first (ExecutionContext's
  /// fp64_emulation_* settings); nullptr: none.
  GemmVariant const* emulation_kernel = nullptr;
  /// Under GK_FP64_EMULATION_AUTO the blocks it runs: from this work (m*n*k) and depth on, where the GPU's
  /// machine description measured it faster (0: every block, as under ON).
  double emulation_min_work = 0, emulation_min_k = 0;
};

/// Where a variant runs: the CUDA stream (cudaStream_t) and device, unused on the CPU.
struct ExecutionContext {
  void* stream = nullptr;
  int device = 0;
  /// The launch may start while the stream's previous kernel, launched by the same call for
  /// problems this one does not touch, drains (programmatic dependent launch): a grouped call's
  /// second and later groups.
  bool overlaps_previous_kernel = false;
  HostGemmSettings const* host_gemm = nullptr;   ///< set for variants with VariantInfo::stages_host_operands
  std::unique_ptr<VariantState>* state = nullptr;  ///< the context's slot for such a variant's state
  std::string* detail = nullptr;  ///< when set (verbosity 2), the variant says here what it did
  /// The limit GemmVariant::workspace_bytes_within sized the workspace for (0: workspace_bytes).
  std::size_t workspace_limit = 0;
  /// For variants that emulate FP64 (VariantInfo::emulates_fp64): bits per operand element, 0 for what
  /// the inputs need to be as accurate as FP64 GEMM.
  int fp64_emulation_bits = 0;
  /// The accurate scaling (gk_fp64_emulation_scaling): per-element bounds from one more INT8 GEMM.
  bool fp64_emulation_accurate = false;
  /// The context's setting chose the emulation (not a forced variant): inputs whose accuracy it cannot
  /// reach leave it (GK_NOT_SUPPORTED, nothing written, the reason in `decline_reason`).
  bool fp64_emulation_may_decline = false;
  std::string* decline_reason = nullptr;
};

}  // namespace gemmkit
