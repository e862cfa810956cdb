/*! \file
    \brief A C client of the BLAS drop-in: cblas_dgemm and cblas_sgemm in both layouts and every
    transpose pair, dgemm_ and sgemm_, the group batch cblas_?gemm_batch and cblas_?gemm_batch_strided,
    all against a long double reference, with C's padding and guards poisoned and checked unchanged;
    then bad arguments, which must reach this program's own xerbla_ (or cblas_xerbla) with the
    routine's name and the bad argument's number, and write nothing.

      blas_cblas_gemm [--forwarded]
        --forwarded  the run is GEMMKIT_BLAS=off: errors are reported by the CPU BLAS in its own words,
                     so only "xerbla called once, nothing written" is asserted for them.
    Prints FAIL lines and a summary; exits 1 on any failure.
*/
#define _POSIX_C_SOURCE 200809L  // strnlen

#include <cblas.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gemmkit/cblas_batch.h>  // the batch entry points

// The Fortran entries (gfortran's ABI: hidden character lengths last).
void dgemm_(char const* transa, char const* transb, int const* m, int const* n, int const* k, double const* alpha,
            double const* a, int const* lda, double const* b, int const* ldb, double const* beta, double* c,
            int const* ldc, size_t transa_len, size_t transb_len);
void sgemm_(char const* transa, char const* transb, int const* m, int const* n, int const* k, float const* alpha,
            float const* a, int const* lda, float const* b, int const* ldb, float const* beta, float* c,
            int const* ldc, size_t transa_len, size_t transb_len);

// --- this program's own error handlers -------------------------------------------------------------

/// What the last call reported through xerbla_ or cblas_xerbla.
static struct {
  int calls;
  char name[64];
  int info;
  char const* via;
} g_xerbla;

/// Calls of each handler over the whole run, for the summary.
static int g_xerbla_calls_fortran, g_xerbla_calls_cblas;

static void xerbla_reset(void) { memset(&g_xerbla, 0, sizeof g_xerbla); }

static void xerbla_record(char const* via, char const* name, size_t len, int info) {
  ++g_xerbla.calls;
  ++*(strcmp(via, "xerbla_") == 0 ? &g_xerbla_calls_fortran : &g_xerbla_calls_cblas);
  g_xerbla.via = via;
  g_xerbla.info = info;
  // Fortran passes the length and no terminating zero; C callers usually a C string.
  if (len == 0 || len >= sizeof g_xerbla.name) len = strnlen(name, sizeof g_xerbla.name - 1);
  memcpy(g_xerbla.name, name, len);
  g_xerbla.name[len] = '\0';
  len = strlen(g_xerbla.name);  // a length that counted the C string's terminating zero
  while (len > 0 && g_xerbla.name[len - 1] == ' ') g_xerbla.name[--len] = '\0';
}

/// The application's XERBLA: the drop-in must call this one rather than print and carry on.
void xerbla_(char const* srname, int const* info, size_t srname_len) {
  xerbla_record("xerbla_", srname, srname_len, *info);
}

/// The reference CBLAS's error handler, in OpenBLAS's prototype (its cblas.h declares it).
void cblas_xerbla(blasint p, char* rout, char* form, ...) {
  (void)form;
  xerbla_record("cblas_xerbla", rout, 0, (int)p);
}

/// 1 (a failure) unless exactly one xerbla call reported `name` (trailing blanks ignored) and `info`.
static int expect_xerbla(char const* what, char const* name, int info, int forwarded) {
  if (g_xerbla.calls != 1) {
    printf("FAIL %s: xerbla was called %d times, expected once (%s, %d)\n", what, g_xerbla.calls, name, info);
    return 1;
  }
  if (forwarded) return 0;
  if (strcmp(g_xerbla.name, name) != 0 || g_xerbla.info != info) {
    printf("FAIL %s: %s('%s', %d), expected ('%s', %d)\n", what, g_xerbla.via, g_xerbla.name, g_xerbla.info, name,
           info);
    return 1;
  }
  return 0;
}

// --- shared helpers ---------------------------------------------------------------------------------

enum { kGuard = 16 };
/// What padding and guards hold: a NaN with a payload, compared bitwise.
#define kPoison (-NAN)
#define kTiny 1e-300L
/// check_cblas_gemm flags: C holds NaN before the call (beta 0), A and B hold NaN (alpha 0).
enum { kNanC = 1, kNanAB = 2 };

static uint64_t g_state = 0x9e3779b97f4a7c15ull;

/// Uniform in [-1, 1) from a fixed xorshift stream (the same data on every run).
static double uniform(void) {
  g_state ^= g_state << 13;
  g_state ^= g_state >> 7;
  g_state ^= g_state << 17;
  return (double)(g_state >> 11) * 0x1.0p-52 - 1.0;
}

static char const* layout_name(int layout) {
  return layout == CblasColMajor ? "ColMajor" : layout == CblasRowMajor ? "RowMajor" : "bad layout";
}

static char const* trans_name(int trans) {
  return trans == CblasNoTrans ? "N" : trans == CblasTrans ? "T" : trans == CblasConjTrans ? "C" : "bad trans";
}

// --- the checks, once per precision ---------------------------------------------------------------

#define REAL double
#define P(name) name##_d
#define L "d"
#define kEps 0x1.0p-53L
#define kFortranName "DGEMM"
#define CBLAS_GEMM cblas_dgemm
#define FORTRAN_GEMM dgemm_
#define CBLAS_GEMM_BATCH cblas_dgemm_batch
#define CBLAS_GEMM_BATCH_STRIDED cblas_dgemm_batch_strided
#include "cblas_gemm_cases.h"
#undef REAL
#undef P
#undef L
#undef kEps
#undef kFortranName
#undef CBLAS_GEMM
#undef FORTRAN_GEMM
#undef CBLAS_GEMM_BATCH
#undef CBLAS_GEMM_BATCH_STRIDED

#define REAL float
#define P(name) name##_s
#define L "s"
#define kEps 0x1.0p-24L
#define kFortranName "SGEMM"
#define CBLAS_GEMM cblas_sgemm
#define FORTRAN_GEMM sgemm_
#define CBLAS_GEMM_BATCH cblas_sgemm_batch
#define CBLAS_GEMM_BATCH_STRIDED cblas_sgemm_batch_strided
#include "cblas_gemm_cases.h"

// --- the cases ---------------------------------------------------------------------------------------

typedef struct {
  int m, n, k;
} Size;

/// Whether the CUDA driver is mapped into this process.
static int cuda_driver_mapped(void) {
  FILE* maps = fopen("/proc/self/maps", "r");
  if (maps == NULL) return 0;
  char line[4096];
  int found = 0;
  while (!found && fgets(line, sizeof line, maps) != NULL) found = strstr(line, "/libcuda.so") != NULL;
  fclose(maps);
  return found;
}

int main(int argc, char** argv) {
  int forwarded = 0, host_only = 0;
  for (int i = 1; i < argc; ++i) {
    if (strcmp(argv[i], "--forwarded") == 0) {
      forwarded = 1;
    } else if (strcmp(argv[i], "--host-only") == 0) {
      host_only = 1;  // every call is small and on host memory: none may start CUDA
    } else {
      fprintf(stderr, "usage: %s [--forwarded] [--host-only]\n", argv[0]);
      return 2;
    }
  }
  int const layouts[2] = {CblasColMajor, CblasRowMajor};
  int const transposes[3] = {CblasNoTrans, CblasTrans, CblasConjTrans};
  // Sizes around kernel edges (1, odd, one past a power of two) and one that is not small.
  Size const sizes[] = {{1, 1, 1}, {7, 5, 3}, {33, 17, 65}, {64, 64, 64}, {100, 37, 129}, {150, 130, 120}};
  double const alphas[] = {1.0, -0.7, 2.0, 0.5};
  double const betas[] = {0.0, 1.3, 1.0, -2.0};
  int checks = 0, failures = 0;

  // Every layout, transpose pair and size; alpha and beta turn with the case number.
  int turn = 0;
  for (int l = 0; l < 2; ++l) {
    for (int ta = 0; ta < 3; ++ta) {
      for (int tb = 0; tb < 3; ++tb) {
        for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; ++s, ++turn) {
          Size const z = sizes[s];
          double const alpha = alphas[turn % 4], beta = betas[(turn / 4) % 4];
          int const flags = beta == 0 ? kNanC : 0;
          int const pad = turn % 3;
          failures += check_cblas_gemm_d(layouts[l], transposes[ta], transposes[tb], z.m, z.n, z.k, alpha, beta, pad,
                                         flags);
          failures += check_cblas_gemm_s(layouts[l], transposes[ta], transposes[tb], z.m, z.n, z.k, (float)alpha,
                                         (float)beta, pad, flags);
          checks += 2;
        }
      }
    }
  }
  // Quick returns and degenerate sizes: nothing (m or n 0), C = beta C (k 0 or alpha 0: A and B are
  // then not read, so they hold NaN here).
  for (int l = 0; l < 2; ++l) {
    int const layout = layouts[l];
    failures += check_cblas_gemm_d(layout, CblasNoTrans, CblasNoTrans, 0, 5, 3, 1.0, 1.0, 1, 0);
    failures += check_cblas_gemm_d(layout, CblasNoTrans, CblasTrans, 5, 0, 3, 1.0, 1.0, 1, 0);
    failures += check_cblas_gemm_d(layout, CblasNoTrans, CblasNoTrans, 6, 5, 0, 1.0, 0.5, 1, 0);
    failures += check_cblas_gemm_d(layout, CblasTrans, CblasNoTrans, 6, 5, 0, 1.0, 0.0, 1, kNanC);
    // Forwarded, the CPU BLAS's own semantics apply: OpenBLAS 0.3.21 reads A and B at alpha = 0 with
    // some of its cores (its Cooperlake kernels let NaN through on the H200's host, 2026-11-29).
    int const nan_ab = forwarded ? 0 : kNanAB;
    failures += check_cblas_gemm_d(layout, CblasNoTrans, CblasNoTrans, 9, 8, 7, 0.0, 0.5, 2, nan_ab);
    failures += check_cblas_gemm_d(layout, CblasTrans, CblasTrans, 9, 8, 7, 0.0, 0.0, 2, nan_ab | kNanC);
    failures += check_cblas_gemm_s(layout, CblasNoTrans, CblasNoTrans, 6, 5, 0, 1.0f, 0.5f, 1, 0);
    failures += check_cblas_gemm_s(layout, CblasNoTrans, CblasTrans, 9, 8, 7, 0.0f, 2.0f, 2, nan_ab);
    checks += 8;
  }
  // The Fortran entries: column-major, characters in either case.
  static struct {
    char ta, tb;
    int m, n, k;
    double alpha, beta;
    int pad;
  } const fortran_cases[] = {
      {'N', 'N', 13, 11, 9, 1.0, 0.0, 3}, {'N', 'T', 31, 7, 64, -1.5, 1.0, 1}, {'T', 'N', 5, 40, 33, 0.3, 0.7, 2},
      {'T', 'T', 65, 65, 65, 1.0, 1.0, 0}, {'n', 't', 8, 9, 10, 2.0, -1.0, 5}, {'C', 'c', 17, 3, 2, 1.0, 0.5, 1},
      {'N', 'N', 150, 140, 160, 1.0, 0.25, 7},
  };
  for (size_t t = 0; t < sizeof fortran_cases / sizeof fortran_cases[0]; ++t) {
    failures += check_fortran_gemm_d(fortran_cases[t].ta, fortran_cases[t].tb, fortran_cases[t].m, fortran_cases[t].n,
                                     fortran_cases[t].k, fortran_cases[t].alpha, fortran_cases[t].beta,
                                     fortran_cases[t].pad);
    failures += check_fortran_gemm_s(fortran_cases[t].ta, fortran_cases[t].tb, fortran_cases[t].m, fortran_cases[t].n,
                                     fortran_cases[t].k, (float)fortran_cases[t].alpha, (float)fortran_cases[t].beta,
                                     fortran_cases[t].pad);
    checks += 2;
  }
  // The batches, both layouts.
  for (int l = 0; l < 2; ++l) {
    failures += check_batch_d(layouts[l]);
    failures += check_batch_s(layouts[l]);
    failures += check_strided_d(layouts[l], CblasNoTrans, CblasNoTrans, 12, 9, 7, 1.0, 0.0, 4, 0);
    failures += check_strided_d(layouts[l], CblasTrans, CblasConjTrans, 31, 33, 20, -0.5, 1.5, 3, 0);
    failures += check_strided_d(layouts[l], CblasNoTrans, CblasTrans, 1, 40, 65, 2.0, 1.0, 5, 0);
    failures += check_strided_d(layouts[l], CblasNoTrans, CblasNoTrans, 24, 8, 16, 1.0, 1.0, 6, 1);
    failures += check_strided_s(layouts[l], CblasTrans, CblasNoTrans, 16, 17, 18, 1.0f, 0.5f, 4, 0);
    failures += check_strided_s(layouts[l], CblasNoTrans, CblasNoTrans, 3, 2, 1, 1.0f, 0.0f, 2, 0);
    failures += check_strided_s(layouts[l], CblasTrans, CblasTrans, 9, 10, 11, -1.0f, 0.0f, 3, 1);
    checks += 9;
  }
  // Bad arguments.
  failures += check_errors_d(forwarded);
  failures += check_errors_s(forwarded);
  checks += 2;

  printf("bad arguments reported through xerbla_ %d times, through cblas_xerbla %d times\n", g_xerbla_calls_fortran,
         g_xerbla_calls_cblas);
  if (host_only) {
    ++checks;
    if (cuda_driver_mapped()) {
      ++failures;
      printf("FAIL small host GEMMs loaded the CUDA driver (libcuda.so is mapped)\n");
    }
  }
  printf("%d of %d checks failed%s\n", failures, checks, forwarded ? " (forwarded: error reports not compared)" : "");
  return failures == 0 ? 0 : 1;
}
