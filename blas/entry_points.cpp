/*! \file
    \brief The BLAS and CBLAS GEMMs libgemmkit_blas implements: sgemm_, dgemm_, cblas_?gemm and the batch
    forms, each a client of gemmkit's public API; GEMMKIT_BLAS=off hands them to the CPU BLAS unchanged.
*/
#include "forwarding.hpp"
#include "routing.hpp"
#include "settings.hpp"

#include <gemmkit/cblas_batch.h>

#include <cctype>
#include <vector>

namespace gemmkit::blas {
namespace {

/// A Fortran transpose letter as gemmkit's op; anything else is out of range, so gemmkit's argument
/// check reports it with its parameter index.
gk_op fortran_op(char const* letter) {
  switch (std::toupper(static_cast<unsigned char>(*letter))) {
    case 'N': return GK_OP_N;
    case 'T': return GK_OP_T;
    case 'C': return GK_OP_C;
    default: return static_cast<gk_op>(-1);
  }
}

gk_op cblas_op(CBLAS_TRANSPOSE trans) {
  switch (trans) {
    case CblasNoTrans: return GK_OP_N;
    case CblasTrans: return GK_OP_T;
    case CblasConjTrans: return GK_OP_C;
    default: return static_cast<gk_op>(-1);
  }
}

char cblas_letter(CBLAS_TRANSPOSE trans) {
  return trans == CblasNoTrans ? 'N' : trans == CblasTrans ? 'T' : trans == CblasConjTrans ? 'C' : '?';
}

gk_layout cblas_layout(CBLAS_LAYOUT layout) {
  return layout == CblasColMajor ? GK_COL_MAJOR : layout == CblasRowMajor ? GK_ROW_MAJOR : static_cast<gk_layout>(-1);
}

/// The CPU BLAS's routine of the same name and signature, for GEMMKIT_BLAS=off.
template <typename Function>
Function* cpu(char const* name) {
  return reinterpret_cast<Function*>(cpu_routine(name));
}

template <typename T>
using FortranGemm = void(char const*, char const*, int const*, int const*, int const*, T const*, T const*, int const*,
                         T const*, int const*, T const*, T*, int const*, std::size_t, std::size_t);

template <typename T>
void fortran_gemm(char const* routine, char const* transa, char const* transb, int const* m, int const* n,
                  int const* k, T const* alpha, T const* A, int const* lda, T const* B, int const* ldb, T const* beta,
                  T* C, int const* ldc, std::size_t transa_length, std::size_t transb_length) {
  CallRecord record;
  record.routine = routine;
  if (settings().off) {
    static FortranGemm<T>* const forward = cpu<FortranGemm<T>>(routine);  // one routine per T
    forward(transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, transa_length, transb_length);
    record.route = "forward", record.reason = "GEMMKIT_BLAS=off";
    record.transa = *transa, record.transb = *transb, record.m = *m, record.n = *n, record.k = *k;
    trace(record);
    return;
  }
  run_gemm<T>(record, true, GK_COL_MAJOR, fortran_op(transa), fortran_op(transb), *m, *n, *k, *alpha, A, *lda, B, *ldb,
              *beta, C, *ldc);
}

template <typename T>
using CblasGemm = void(CBLAS_LAYOUT, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, int, int, int, T, T const*, int, T const*, int,
                       T, T*, int);

template <typename T>
void cblas_gemm(char const* routine, CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb, int m, int n,
                int k, T alpha, T const* A, int lda, T const* B, int ldb, T beta, T* C, int ldc) {
  CallRecord record;
  record.routine = routine;
  if (settings().off) {
    static CblasGemm<T>* const forward = cpu<CblasGemm<T>>(routine);  // one routine per T
    forward(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
    record.route = "forward", record.reason = "GEMMKIT_BLAS=off";
    record.transa = cblas_letter(transa), record.transb = cblas_letter(transb);
    record.m = m, record.n = n, record.k = k;
    trace(record);
    return;
  }
  run_gemm<T>(record, false, cblas_layout(layout), cblas_op(transa), cblas_op(transb), m, n, k, alpha, A, lda, B, ldb,
              beta, C, ldc);
}

/// Where a batch ran, from the variant gemmkit reports.
void finish_batch(CallRecord& record, gk_context context, gk_status status, char const* routine) {
  record.status = status;
  if (status == GK_SUCCESS) {
    record.variant = gk_last_variant(context);
    record.route = route_of(gk_last_variant(context));
    record.reason = record.route[0] == 'g' ? "device operands" : "host operands: gemmkit's batched CPU kernels";
    if (settings().off) record.reason = "GEMMKIT_BLAS=off, but the CPU BLAS has no " + std::string(routine);
  } else {
    record.route = "error";
    record.reason = gk_last_error(context);
    if (status == GK_INVALID_ARGUMENT) {
      report_cblas_error(routine, gk_error_parameter(context), record.reason.c_str());
    } else {
      std::fprintf(stderr, "gemmkit BLAS: %s failed (%s): %s\n", routine, gk_status_string(status),
                   record.reason.c_str());
    }
  }
  trace(record);
}

template <typename T>
void cblas_gemm_batch_strided(char const* routine, CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa,
                              CBLAS_TRANSPOSE transb, int m, int n, int k, T alpha, T const* A, int lda, int stride_a,
                              T const* B, int ldb, int stride_b, T beta, T* C, int ldc, int stride_c, int batch) {
  CallRecord record;
  record.routine = routine;
  record.m = m, record.n = n, record.k = k, record.batch = batch;
  record.transa = cblas_letter(transa), record.transb = cblas_letter(transb);
  using Forward = void(CBLAS_LAYOUT, CBLAS_TRANSPOSE, CBLAS_TRANSPOSE, int, int, int, T, T const*, int, int, T const*,
                       int, int, T, T*, int, int, int);
  static auto* const forward = settings().off ? reinterpret_cast<Forward*>(cpu_routine_if_present(routine)) : nullptr;
  if (forward != nullptr) {
    forward(layout, transa, transb, m, n, k, alpha, A, lda, stride_a, B, ldb, stride_b, beta, C, ldc, stride_c, batch);
    record.route = "forward", record.reason = "GEMMKIT_BLAS=off";
    trace(record);
    return;
  }
  gk_context const context = thread_context();
  gk_status status;
  if constexpr (sizeof(T) == 8) {
    status = gk_dgemm_strided_batched(context, cblas_layout(layout), cblas_op(transa), cblas_op(transb), m, n, k, alpha,
                                      A, lda, stride_a, B, ldb, stride_b, beta, C, ldc, stride_c, batch);
  } else {
    status = gk_sgemm_strided_batched(context, cblas_layout(layout), cblas_op(transa), cblas_op(transb), m, n, k, alpha,
                                      A, lda, stride_a, B, ldb, stride_b, beta, C, ldc, stride_c, batch);
  }
  finish_batch(record, context, status, routine);
}

/// The group form (MKL's and OpenBLAS's cblas_?gemm_batch): the per-group arrays widened to gemmkit's
/// 64-bit ones, the matrix arrays passed as they are.
template <typename T>
void cblas_gemm_batch(char const* routine, CBLAS_LAYOUT layout, CBLAS_TRANSPOSE const* transa,
                      CBLAS_TRANSPOSE const* transb, int const* m, int const* n, int const* k, T const* alpha,
                      T const** A, int const* lda, T const** B, int const* ldb, T const* beta, T** C, int const* ldc,
                      int group_count, int const* group_size) {
  CallRecord record;
  record.routine = routine;
  using Forward = void(CBLAS_LAYOUT, CBLAS_TRANSPOSE const*, CBLAS_TRANSPOSE const*, int const*, int const*,
                       int const*, T const*, T const**, int const*, T const**, int const*, T const*, T**, int const*,
                       int, int const*);
  static auto* const forward = settings().off ? reinterpret_cast<Forward*>(cpu_routine_if_present(routine)) : nullptr;
  if (forward != nullptr) {
    forward(layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, group_count, group_size);
    record.route = "forward", record.reason = "GEMMKIT_BLAS=off";
    trace(record);
    return;
  }
  gk_context const context = thread_context();
  std::size_t const groups = group_count > 0 ? std::size_t(group_count) : 0;
  bool const arrays_given = groups == 0 || (transa && transb && m && n && k && lda && ldb && ldc && group_size);
  std::vector<gk_op> ops_a(groups), ops_b(groups);
  std::vector<std::int64_t> m64(groups), n64(groups), k64(groups), lda64(groups), ldb64(groups), ldc64(groups),
      sizes(groups);
  if (arrays_given) {
    for (std::size_t g = 0; g < groups; ++g) {
      ops_a[g] = cblas_op(transa[g]), ops_b[g] = cblas_op(transb[g]);
      m64[g] = m[g], n64[g] = n[g], k64[g] = k[g], lda64[g] = lda[g], ldb64[g] = ldb[g], ldc64[g] = ldc[g];
      sizes[g] = group_size[g];
      record.batch += group_size[g] > 0 ? group_size[g] : 0;
    }
    record.batch -= 1;  // counted from the 1 a record starts with
    if (groups > 0) record.m = m[0], record.n = n[0], record.k = k[0];
  }
  // A missing per-group array reaches gemmkit as NULL, which it reports with the parameter's index.
  auto const or_null = [&](auto& values) { return arrays_given ? values.data() : nullptr; };
  gk_status status;
  if constexpr (sizeof(T) == 8) {
    status = gk_dgemm_grouped(context, cblas_layout(layout), or_null(ops_a), or_null(ops_b), or_null(m64),
                              or_null(n64), or_null(k64), alpha, A, or_null(lda64), B, or_null(ldb64), beta, C,
                              or_null(ldc64), group_count, or_null(sizes), nullptr);
  } else {
    status = gk_sgemm_grouped(context, cblas_layout(layout), or_null(ops_a), or_null(ops_b), or_null(m64),
                              or_null(n64), or_null(k64), alpha, A, or_null(lda64), B, or_null(ldb64), beta, C,
                              or_null(ldc64), group_count, or_null(sizes), nullptr);
  }
  finish_batch(record, context, status, routine);
}

}  // namespace
}  // namespace gemmkit::blas

using namespace gemmkit::blas;

extern "C" {

__attribute__((visibility("default"))) void dgemm_(char const* transa, char const* transb, int const* m,
                                                   int const* n, int const* k, double const* alpha, double const* A,
                                                   int const* lda, double const* B, int const* ldb,
                                                   double const* beta, double* C, int const* ldc,
                                                   std::size_t transa_length, std::size_t transb_length) {
  fortran_gemm<double>("dgemm_", transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, transa_length,
                       transb_length);
}

__attribute__((visibility("default"))) void sgemm_(char const* transa, char const* transb, int const* m,
                                                   int const* n, int const* k, float const* alpha, float const* A,
                                                   int const* lda, float const* B, int const* ldb, float const* beta,
                                                   float* C, int const* ldc, std::size_t transa_length,
                                                   std::size_t transb_length) {
  fortran_gemm<float>("sgemm_", transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc, transa_length,
                      transb_length);
}

__attribute__((visibility("default"))) void cblas_dgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa,
                                                        CBLAS_TRANSPOSE transb, blasint m, blasint n, blasint k,
                                                        double alpha, double const* A, blasint lda, double const* B,
                                                        blasint ldb, double beta, double* C, blasint ldc) {
  cblas_gemm<double>("cblas_dgemm", layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

__attribute__((visibility("default"))) void cblas_sgemm(CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa,
                                                        CBLAS_TRANSPOSE transb, blasint m, blasint n, blasint k,
                                                        float alpha, float const* A, blasint lda, float const* B,
                                                        blasint ldb, float beta, float* C, blasint ldc) {
  cblas_gemm<float>("cblas_sgemm", layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc);
}

__attribute__((visibility("default"))) void cblas_dgemm_batch(
    CBLAS_LAYOUT layout, CBLAS_TRANSPOSE const* transa, CBLAS_TRANSPOSE const* transb, int const* m, int const* n,
    int const* k, double const* alpha, double const** A, int const* lda, double const** B, int const* ldb,
    double const* beta, double** C, int const* ldc, int group_count, int const* group_size) {
  cblas_gemm_batch<double>("cblas_dgemm_batch", layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                           group_count, group_size);
}

__attribute__((visibility("default"))) void cblas_sgemm_batch(
    CBLAS_LAYOUT layout, CBLAS_TRANSPOSE const* transa, CBLAS_TRANSPOSE const* transb, int const* m, int const* n,
    int const* k, float const* alpha, float const** A, int const* lda, float const** B, int const* ldb,
    float const* beta, float** C, int const* ldc, int group_count, int const* group_size) {
  cblas_gemm_batch<float>("cblas_sgemm_batch", layout, transa, transb, m, n, k, alpha, A, lda, B, ldb, beta, C, ldc,
                          group_count, group_size);
}

__attribute__((visibility("default"))) void cblas_dgemm_batch_strided(
    CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb, int m, int n, int k, double alpha,
    double const* A, int lda, int stride_a, double const* B, int ldb, int stride_b, double beta, double* C, int ldc,
    int stride_c, int batch_size) {
  cblas_gemm_batch_strided<double>("cblas_dgemm_batch_strided", layout, transa, transb, m, n, k, alpha, A, lda,
                                   stride_a, B, ldb, stride_b, beta, C, ldc, stride_c, batch_size);
}

__attribute__((visibility("default"))) void cblas_sgemm_batch_strided(
    CBLAS_LAYOUT layout, CBLAS_TRANSPOSE transa, CBLAS_TRANSPOSE transb, int m, int n, int k, float alpha,
    float const* A, int lda, int stride_a, float const* B, int ldb, int stride_b, float beta, float* C, int ldc,
    int stride_c, int batch_size) {
  cblas_gemm_batch_strided<float>("cblas_sgemm_batch_strided", layout, transa, transb, m, n, k, alpha, A, lda,
                                  stride_a, B, ldb, stride_b, beta, C, ldc, stride_c, batch_size);
}

}  // extern "C"
