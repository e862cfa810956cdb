/*! \file
    \brief The C entry points for gemm, strided, pointer-array and grouped batches.
*/
#include "api/argument_check.hpp"
#include "api/context.hpp"
#include "base/device.hpp"
#include "api/dispatch.hpp"
#include "gemmkit/introspect.h"

#include <algorithm>
#include <exception>
#include <vector>

namespace gemmkit {

namespace {

template <typename T>
constexpr Dtype dtype_of() {
  return sizeof(T) == 8 ? Dtype::kF64 : Dtype::kF32;
}

/// Swaps the operands to match to_column_major's rewrite of the problem.
template <typename T>
GemmArguments make_arguments(gk_layout layout, GemmProblem const& problem, T alpha, T const* A, T const* B,
                             T beta, T* C) {
  GemmArguments args;
  args.problem = problem;
  args.alpha = alpha;
  args.beta = beta;
  args.A = layout == GK_COL_MAJOR ? A : B;
  args.B = layout == GK_COL_MAJOR ? B : A;
  args.C = C;
  return args;
}

/// A pointer-array batch of `count` problems starting at the arrays given (host or device memory,
/// locate_arrays says which), operands swapped as make_arguments does.
template <typename T>
GemmArguments make_array_arguments(gk_layout layout, GemmProblem problem, std::int64_t count, T alpha,
                                   T const* const* A_array, T const* const* B_array, T beta, T* const* C_array,
                                   bool arrays_on_device) {
  problem.pointer_array = true;
  problem.arrays_on_device = arrays_on_device;
  problem.batch = count;
  GemmArguments args;
  args.problem = problem;
  args.alpha = alpha;
  args.beta = beta;
  args.A = layout == GK_COL_MAJOR ? static_cast<void const*>(A_array) : static_cast<void const*>(B_array);
  args.B = layout == GK_COL_MAJOR ? static_cast<void const*>(B_array) : static_cast<void const*>(A_array);
  args.C = const_cast<T**>(C_array);
  return args;
}

/// Where the three pointer arrays of a pointer-array or grouped call live: *on_device when all are
/// in device memory (managed counts as device), false when all are in host memory; mixed is
/// GK_NOT_SUPPORTED. One pointer query each, once per call.
gk_status locate_arrays(gk_context_st& ctx, void const* A_array, void const* B_array, void const* C_array,
                        bool* on_device) {
  MemoryLocation const a = locate(A_array);
  if (locate(B_array) != a || locate(C_array) != a) {
    return fail(ctx, GK_NOT_SUPPORTED,
                "A_array, B_array and C_array must all be in host memory or all in device memory (mixed locations "
                "given)");
  }
  *on_device = a == MemoryLocation::kDevice;
  return GK_SUCCESS;
}

/// The caller's operand indices as dispatch sees the operands: row-major swapped A and B.
OperandPositions positions_for(gk_layout layout, OperandPositions caller) {
  return layout == GK_COL_MAJOR ? caller : OperandPositions{caller.b, caller.a, caller.c};
}

/// Runs `body` and turns any escaping exception into a status: the C API never throws.
template <typename Body>
gk_status guarded(gk_context_st& ctx, Body&& body) {
  try {
    return body();
  } catch (std::bad_alloc const&) {
    return fail(ctx, GK_ALLOCATION_FAILED, "host allocation failed");
  } catch (std::exception const& e) {
    return fail(ctx, GK_INTERNAL_ERROR, e.what());
  }
}

template <typename T>
gk_status gemm(gk_context handle, gk_layout layout, gk_op transa, gk_op transb, std::int64_t m, std::int64_t n,
               std::int64_t k, T alpha, T const* A, std::int64_t lda, T const* B, std::int64_t ldb, T beta, T* C,
               std::int64_t ldc) {
  gk_context_st& ctx = resolve_context(handle);
  clear_error(ctx);
  return guarded(ctx, [&] {
    if (ArgumentError e = check_gemm_arguments(layout, transa, transb, m, n, k, lda, ldb, ldc)) {
      return fail(ctx, GK_INVALID_ARGUMENT, e.message, e.parameter);
    }
    GemmProblem const p = to_column_major(layout, dtype_of<T>(), transa, transb, m, n, k, lda, ldb, ldc);
    return dispatch(ctx, make_arguments(layout, p, alpha, A, B, beta, C), positions_for(layout, {}));
  });
}

/// Whether a strided batch's C windows are disjoint: empty, one after another (stride_c at least a window's
/// extent), or interleaved within one line's gap (stride_c at least a line's length and the last window's
/// line ending within ldc of the first's).
bool c_windows_disjoint(gk_layout layout, std::int64_t m, std::int64_t n, std::int64_t ldc, std::int64_t stride_c,
                        std::int64_t batch) {
  if (batch <= 1 || m == 0 || n == 0) return true;
  StoredShape const c = stored_shape(layout, false, m, n);
  if (stride_c >= operand_extent(ldc, c.lines, c.length)) return true;
  std::int64_t reach = 0;
  return stride_c >= c.length && !__builtin_mul_overflow(stride_c, batch - 1, &reach) && reach <= ldc - c.length;
}

template <typename T>
gk_status gemm_strided_batched(gk_context handle, gk_layout layout, gk_op transa, gk_op transb, std::int64_t m,
                               std::int64_t n, std::int64_t k, T alpha, T const* A, std::int64_t lda,
                               std::int64_t stride_a, T const* B, std::int64_t ldb, std::int64_t stride_b, T beta,
                               T* C, std::int64_t ldc, std::int64_t stride_c, std::int64_t batch) {
  gk_context_st& ctx = resolve_context(handle);
  clear_error(ctx);
  return guarded(ctx, [&] {
    if (ArgumentError e =
            check_gemm_arguments(layout, transa, transb, m, n, k, lda, ldb, ldc, kStridedBatchedPositions)) {
      return fail(ctx, GK_INVALID_ARGUMENT, e.message, e.parameter);
    }
    if (stride_a < 0) return fail(ctx, GK_INVALID_ARGUMENT, "stride_a is negative", 10);
    if (stride_b < 0) return fail(ctx, GK_INVALID_ARGUMENT, "stride_b is negative", 13);
    if (batch < 0) return fail(ctx, GK_INVALID_ARGUMENT, "batch is negative", 18);
    if (stride_c < 0) return fail(ctx, GK_INVALID_ARGUMENT, "stride_c is negative", 17);
    if (!c_windows_disjoint(layout, m, n, ldc, stride_c, batch)) {
      StoredShape const c = stored_shape(layout, false, m, n);
      return fail(ctx, GK_INVALID_ARGUMENT,
                  "stride_c = " + std::to_string(stride_c) + " makes the C matrices overlap (need >= " +
                      std::to_string(operand_extent(ldc, c.lines, c.length)) +
                      ", or windows interleaved within ldc)",
                  17);
    }
    // The last problem's operands must end at a 64-bit address too.
    StoredShape const a = stored_shape(layout, is_transposed(transa), m, k);
    StoredShape const b = stored_shape(layout, is_transposed(transb), k, n);
    StoredShape const c = stored_shape(layout, false, m, n);
    if (batch_extent(operand_extent(lda, a.lines, a.length), stride_a, batch) < 0) {
      return fail(ctx, GK_INVALID_ARGUMENT, "stride_a * (batch - 1) puts the last A past a 64-bit address", 10);
    }
    if (batch_extent(operand_extent(ldb, b.lines, b.length), stride_b, batch) < 0) {
      return fail(ctx, GK_INVALID_ARGUMENT, "stride_b * (batch - 1) puts the last B past a 64-bit address", 13);
    }
    if (batch_extent(operand_extent(ldc, c.lines, c.length), stride_c, batch) < 0) {
      return fail(ctx, GK_INVALID_ARGUMENT, "stride_c * (batch - 1) puts the last C past a 64-bit address", 17);
    }
    GemmProblem p = to_column_major(layout, dtype_of<T>(), transa, transb, m, n, k, lda, ldb, ldc);
    p.batch = batch;
    p.stride_a = layout == GK_COL_MAJOR ? stride_a : stride_b;
    p.stride_b = layout == GK_COL_MAJOR ? stride_b : stride_a;
    p.stride_c = stride_c;
    return dispatch(ctx, make_arguments(layout, p, alpha, A, B, beta, C), positions_for(layout, {8, 11, 15}));
  });
}

template <typename T>
gk_status gemm_batched(gk_context handle, gk_layout layout, gk_op transa, gk_op transb, std::int64_t m,
                       std::int64_t n, std::int64_t k, T alpha, T const* const* A_array, std::int64_t lda,
                       T const* const* B_array, std::int64_t ldb, T beta, T* const* C_array, std::int64_t ldc,
                       std::int64_t batch) {
  gk_context_st& ctx = resolve_context(handle);
  clear_error(ctx);
  return guarded(ctx, [&] {
    if (ArgumentError e = check_gemm_arguments(layout, transa, transb, m, n, k, lda, ldb, ldc)) {
      return fail(ctx, GK_INVALID_ARGUMENT, e.message, e.parameter);
    }
    if (batch < 0) return fail(ctx, GK_INVALID_ARGUMENT, "batch is negative", 15);
    if (batch > 0 && (A_array == nullptr || B_array == nullptr || C_array == nullptr)) {
      int const parameter = A_array == nullptr ? 8 : (B_array == nullptr ? 10 : 13);
      return fail(ctx, GK_INVALID_ARGUMENT, "pointer array is NULL", parameter);
    }
    bool arrays_on_device = false;
    if (batch > 0) {
      if (gk_status s = locate_arrays(ctx, A_array, B_array, C_array, &arrays_on_device); s != GK_SUCCESS) return s;
    }
    GemmProblem const p = to_column_major(layout, dtype_of<T>(), transa, transb, m, n, k, lda, ldb, ldc);
    return dispatch(ctx,
                    make_array_arguments(layout, p, batch, alpha, A_array, B_array, beta, C_array, arrays_on_device),
                    positions_for(layout, {}));
  });
}

template <typename T>
gk_status gemm_grouped(gk_context handle, gk_layout layout, gk_op const* transa, gk_op const* transb,
                       std::int64_t const* m, std::int64_t const* n, std::int64_t const* k, T const* alpha,
                       T const* const* A_array, std::int64_t const* lda, T const* const* B_array,
                       std::int64_t const* ldb, T const* beta, T* const* C_array, std::int64_t const* ldc,
                       std::int64_t group_count, std::int64_t const* group_size, gk_status* info) {
  gk_context_st& ctx = resolve_context(handle);
  clear_error(ctx);
  return guarded(ctx, [&] {
    // Reference CBLAS order: the layout first, whatever the groups.
    if (layout != GK_COL_MAJOR && layout != GK_ROW_MAJOR) {
      return fail(ctx, GK_INVALID_ARGUMENT, "layout must be GK_COL_MAJOR or GK_ROW_MAJOR", 1);
    }
    if (group_count < 0) return fail(ctx, GK_INVALID_ARGUMENT, "group_count is negative", 15);
    if (group_count == 0) return GK_SUCCESS;
    void const* const arrays[] = {transa, transb, m, n, k, alpha, lda, ldb, beta, ldc, group_size};
    int const positions[] = {2, 3, 4, 5, 6, 7, 9, 11, 12, 14, 16};
    for (int i = 0; i < 11; ++i) {
      if (arrays[i] == nullptr) return fail(ctx, GK_INVALID_ARGUMENT, "per-group array is NULL", positions[i]);
    }
    // Every group is checked before anything runs, so a bad group leaves all of C untouched.
    std::int64_t problems = 0;
    for (std::int64_t g = 0; g < group_count; ++g) {
      if (group_size[g] < 0) {
        return fail(ctx, GK_INVALID_ARGUMENT, "group " + std::to_string(g) + ": group_size is negative", 16);
      }
      if (ArgumentError e = check_gemm_arguments(layout, transa[g], transb[g], m[g], n[g], k[g], lda[g], ldb[g], ldc[g])) {
        return fail(ctx, GK_INVALID_ARGUMENT, "group " + std::to_string(g) + ": " + e.message, e.parameter);
      }
      if (__builtin_add_overflow(problems, group_size[g], &problems)) {
        return fail(ctx, GK_INVALID_ARGUMENT, "the group sizes' sum overflows 64 bits", 16);
      }
    }
    if (problems > 0 && (A_array == nullptr || B_array == nullptr || C_array == nullptr)) {
      int const parameter = A_array == nullptr ? 8 : (B_array == nullptr ? 10 : 13);
      return fail(ctx, GK_INVALID_ARGUMENT, "pointer array is NULL", parameter);
    }
    bool arrays_on_device = false;
    if (problems > 0) {
      if (gk_status s = locate_arrays(ctx, A_array, B_array, C_array, &arrays_on_device); s != GK_SUCCESS) return s;
    }
    // Every group is placed and its entries checked before any runs: a rejected call has written no C, and its
    // status is every problem's in info.
    auto const group_arguments = [&](std::int64_t g, std::int64_t first) {
      GemmProblem const p =
          to_column_major(layout, dtype_of<T>(), transa[g], transb[g], m[g], n[g], k[g], lda[g], ldb[g], ldc[g]);
      return make_array_arguments(layout, p, group_size[g], alpha[g], A_array + first, B_array + first, beta[g],
                                  C_array + first, arrays_on_device);
    };
    for (std::int64_t g = 0, first = 0; g < group_count; first += group_size[g], ++g) {
      if (gk_status s = check_pointer_array(ctx, group_arguments(g, first), positions_for(layout, {}), first);
          s != GK_SUCCESS) {
        if (info != nullptr) std::fill(info, info + problems, s);
        ctx.last_error = "group " + std::to_string(g) + ", " + ctx.last_error;
        return s;
      }
    }
    gk_status first_failure = GK_SUCCESS;
    std::string first_message;
    // info is filled after the last launch, so that no per-problem store holds back the next group's.
    std::vector<gk_status> group_status(std::size_t(group_count), GK_SUCCESS);
    for (std::int64_t g = 0, first = 0; g < group_count; first += group_size[g], ++g) {
      // The groups' problems are independent, so a group's kernel may start while the previous group's
      // drains; the first group's waits for what came before.
      gk_status const s = dispatch(ctx, group_arguments(g, first), CallSite{positions_for(layout, {}), g > 0});
      group_status[std::size_t(g)] = s;
      if (s != GK_SUCCESS && first_failure == GK_SUCCESS) {
        first_failure = s;
        first_message = "group " + std::to_string(g) + ": " + ctx.last_error;
      }
    }
    if (info != nullptr) {
      for (std::int64_t g = 0, first = 0; g < group_count; first += group_size[g], ++g) {
        std::fill(info + first, info + first + group_size[g], group_status[std::size_t(g)]);
      }
    }
    if (first_failure != GK_SUCCESS) ctx.last_error = first_message;
    return first_failure;
  });
}

}  // namespace

}  // namespace gemmkit

extern "C" {

gk_status gk_dgemm(gk_context ctx, gk_layout layout, gk_op transa, gk_op transb, int64_t m, int64_t n, int64_t k,
                   double alpha, double const* A, int64_t lda, double const* B, int64_t ldb, double beta, double* C,
                   int64_t ldc) {
  return gemmkit::gemm(ctx, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

gk_status gk_sgemm(gk_context ctx, gk_layout layout, gk_op transa, gk_op transb, int64_t m, int64_t n, int64_t k,
                   float alpha, float const* A, int64_t lda, float const* B, int64_t ldb, float beta, float* C,
                   int64_t ldc) {
  return gemmkit::gemm(ctx, layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

gk_status gk_dgemm_strided_batched(gk_context ctx, gk_layout layout, gk_op transa, gk_op transb, int64_t m,
                                   int64_t n, int64_t k, double alpha, double const* A, int64_t lda, int64_t stride_a,
                                   double const* B, int64_t ldb, int64_t stride_b, double beta, double* C,
                                   int64_t ldc, int64_t stride_c, int64_t batch) {
  return gemmkit::gemm_strided_batched(ctx, layout, transa, transb, m, n, k, alpha, A, lda, stride_a, B, ldb,
                                       stride_b, beta, C, ldc, stride_c, batch);
}

gk_status gk_sgemm_strided_batched(gk_context ctx, gk_layout layout, gk_op transa, gk_op transb, int64_t m,
                                   int64_t n, int64_t k, float alpha, float const* A, int64_t lda, int64_t stride_a,
                                   float const* B, int64_t ldb, int64_t stride_b, float beta, float* C, int64_t ldc,
                                   int64_t stride_c, int64_t batch) {
  return gemmkit::gemm_strided_batched(ctx, layout, transa, transb, m, n, k, alpha, A, lda, stride_a, B, ldb,
                                       stride_b, beta, C, ldc, stride_c, batch);
}

gk_status gk_dgemm_batched(gk_context ctx, gk_layout layout, gk_op transa, gk_op transb, int64_t m, int64_t n,
                           int64_t k, double alpha, double const* const* A_array, int64_t lda,
                           double const* const* B_array, int64_t ldb, double beta, double* const* C_array,
                           int64_t ldc, int64_t batch) {
  return gemmkit::gemm_batched(ctx, layout, transa, transb, m, n, k, alpha, A_array, lda, B_array, ldb, beta,
                               C_array, ldc, batch);
}

gk_status gk_sgemm_batched(gk_context ctx, gk_layout layout, gk_op transa, gk_op transb, int64_t m, int64_t n,
                           int64_t k, float alpha, float const* const* A_array, int64_t lda,
                           float const* const* B_array, int64_t ldb, float beta, float* const* C_array, int64_t ldc,
                           int64_t batch) {
  return gemmkit::gemm_batched(ctx, layout, transa, transb, m, n, k, alpha, A_array, lda, B_array, ldb, beta,
                               C_array, ldc, batch);
}

gk_status gk_dgemm_grouped(gk_context ctx, gk_layout layout, gk_op const* transa, gk_op const* transb,
                           int64_t const* m, int64_t const* n, int64_t const* k, double const* alpha,
                           double const* const* A_array, int64_t const* lda, double const* const* B_array,
                           int64_t const* ldb, double const* beta, double* const* C_array, int64_t const* ldc,
                           int64_t group_count, int64_t const* group_size, gk_status* info) {
  return gemmkit::gemm_grouped(ctx, layout, transa, transb, m, n, k, alpha, A_array, lda, B_array, ldb, beta,
                               C_array, ldc, group_count, group_size, info);
}

gk_status gk_sgemm_grouped(gk_context ctx, gk_layout layout, gk_op const* transa, gk_op const* transb,
                           int64_t const* m, int64_t const* n, int64_t const* k, float const* alpha,
                           float const* const* A_array, int64_t const* lda, float const* const* B_array,
                           int64_t const* ldb, float const* beta, float* const* C_array, int64_t const* ldc,
                           int64_t group_count, int64_t const* group_size, gk_status* info) {
  return gemmkit::gemm_grouped(ctx, layout, transa, transb, m, n, k, alpha, A_array, lda, B_array, ldb, beta,
                               C_array, ldc, group_count, group_size, info);
}

}  // extern "C"

gk_status gk_gemm_plan(gk_context handle, gk_dtype dtype, gk_layout layout, gk_op transa, gk_op transb, int64_t m,
                       int64_t n, int64_t k, double alpha, void const* A, int64_t lda, void const* B, int64_t ldb,
                       void const* C, int64_t ldc, gk_gemm_plan_info* plan) {
  using namespace gemmkit;
  gk_context_st& ctx = resolve_context(handle);
  clear_error(ctx);
  return guarded(ctx, [&] {
    if (plan == nullptr) return fail(ctx, GK_INVALID_ARGUMENT, "plan out-pointer is NULL");
    *plan = gk_gemm_plan_info{"", 0, 0};
    if (dtype != GK_DTYPE_F64 && dtype != GK_DTYPE_F32) {
      return fail(ctx, GK_INVALID_ARGUMENT, "dtype must be GK_DTYPE_F64 or GK_DTYPE_F32");
    }
    if (ArgumentError e = check_gemm_arguments(layout, transa, transb, m, n, k, lda, ldb, ldc)) {
      return fail(ctx, GK_INVALID_ARGUMENT, e.message, e.parameter);
    }
    Dtype const d = dtype == GK_DTYPE_F64 ? Dtype::kF64 : Dtype::kF32;
    GemmArguments args;
    args.problem = to_column_major(layout, d, transa, transb, m, n, k, lda, ldb, ldc);
    args.alpha = alpha;
    args.A = layout == GK_COL_MAJOR ? A : B;
    args.B = layout == GK_COL_MAJOR ? B : A;
    args.C = const_cast<void*>(C);
    DispatchPlan found;
    gk_status const s = plan_dispatch(ctx, args, &found, positions_for(layout, {}));
    if (s == GK_SUCCESS) *plan = gk_gemm_plan_info{found.variant, found.on_gpu ? 1 : 0, found.host_resident ? 1 : 0};
    return s;
  });
}
