/*! \file
    \brief Many threads in the BLAS drop-in at once: 8 threads, each making many dgemm_ calls of mixed
    sizes and transposes on its own matrices and checking each result exactly; every other thread
    makes one large call too, above the default host-GEMM crossover (1024^3 multiply-adds, where a
    GPU takes host operands), while the others keep making small ones.

    The data are small integers, so every product and partial sum is exact in double and any correct
    GEMM, whatever its summation order, returns the reference bit for bit: a result from another
    thread's call, a half-written C or a race shows as a mismatch. Small calls are compared element
    by element; the large one (too costly for an O(mnk) reference) by two exact random projections,
    C x == alpha A (B x) + beta C0 x in integers, after checking that C is integer-valued.

      blas_threads_dgemm [threads] [calls per thread]
*/
#define _POSIX_C_SOURCE 200809L

#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void dgemm_(char const* transa, char const* transb, int const* m, int const* n, int const* k, double const* alpha,
            double const* a, int const* lda, double const* b, int const* ldb, double const* beta, double* c,
            int const* ldc, size_t transa_len, size_t transb_len);

typedef struct {
  int m, n, k;
} Size;

/// Small sizes and edges, and the large one: 1024*1024*1040 multiply-adds, just above the default
/// crossover of 1024^3 (src/model/machine.hpp, host_gemm_min_work).
static Size const kSizes[] = {{1, 1, 1}, {8, 8, 8}, {17, 5, 33}, {64, 64, 64}, {100, 90, 80}, {3, 200, 7},
                              {129, 65, 31}, {1024, 1024, 1040}};
enum { kSizeCount = sizeof kSizes / sizeof kSizes[0], kLarge = kSizeCount - 1 };

typedef struct {
  int id;
  int calls;
  int failures;
  long checked;
} Work;

static uint64_t next(uint64_t* state) {
  *state ^= *state << 13;
  *state ^= *state >> 7;
  *state ^= *state << 17;
  return *state;
}

/// An integer in [-4, 4] as a double.
static double small_int(uint64_t* state) { return (double)((int)(next(state) % 9) - 4); }

/// op(X)(i, p) of a column-major X.
static double op_at(double const* x, int ld, char trans, int i, int p) {
  return trans == 'N' ? x[i + (long)p * ld] : x[p + (long)i * ld];
}

/// The large call's check: C integer-valued, C's padding unchanged, and for two random integer x,
/// C x == alpha A (B x) + beta C0 x exactly (int64: |values| stay far below 2^63). Returns 1 on failure.
static int check_by_projection(int id, int call, char transa, char transb, Size z, double alpha, double const* a,
                               int lda, double const* b, int ldb, double beta, double const* c0, double const* c,
                               int ldc, uint64_t* state) {
  for (int j = 0; j < z.n; ++j) {
    for (int i = 0; i < ldc; ++i) {
      double const v = c[i + (long)j * ldc];
      int const bad = i < z.m ? v != (double)(int64_t)v : v != c0[i + (long)j * ldc];
      if (bad) {
        printf("FAIL thread %d call %d (large): C(%d,%d) = %.17g is %s\n", id, call, i, j, v,
               i < z.m ? "not an integer" : "a padding element that was written");
        return 1;
      }
    }
  }
  int64_t* x = malloc(sizeof(int64_t) * (size_t)z.n);
  int64_t* bx = malloc(sizeof(int64_t) * (size_t)z.k);
  if (x == NULL || bx == NULL) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  int failed = 0;
  for (int round = 0; round < 2 && !failed; ++round) {
    for (int j = 0; j < z.n; ++j) x[j] = (int64_t)(next(state) % 4 + 1) * (next(state) % 2 ? 1 : -1);
    for (int p = 0; p < z.k; ++p) {
      int64_t sum = 0;
      for (int j = 0; j < z.n; ++j) sum += (int64_t)op_at(b, ldb, transb, p, j) * x[j];
      bx[p] = sum;
    }
    for (int i = 0; i < z.m && !failed; ++i) {
      int64_t abx = 0, c0x = 0, cx = 0;
      for (int p = 0; p < z.k; ++p) abx += (int64_t)op_at(a, lda, transa, i, p) * bx[p];
      for (int j = 0; j < z.n; ++j) {
        c0x += (int64_t)c0[i + (long)j * ldc] * x[j];
        cx += (int64_t)c[i + (long)j * ldc] * x[j];
      }
      int64_t const expected = (int64_t)alpha * abx + (int64_t)beta * c0x;
      if (cx != expected) {
        printf("FAIL thread %d call %d: dgemm('%c', '%c', %d, %d, %d, alpha %g, beta %g): row %d of C x is %lld, "
               "expected %lld\n",
               id, call, transa, transb, z.m, z.n, z.k, alpha, beta, i, (long long)cx, (long long)expected);
        failed = 1;
      }
    }
  }
  free(x), free(bx);
  return failed;
}

static void* worker(void* arg) {
  Work* work = (Work*)arg;
  uint64_t state = 0x9e3779b97f4a7c15ull * (uint64_t)(work->id + 1);
  for (int call = 0; call < work->calls; ++call) {
    // Even threads make one large call, each at a different point of its run, so large and small
    // calls overlap.
    int const large = work->id % 2 == 0 && call == (work->id * 5 + 3) % work->calls;
    int const which = large ? kLarge : (int)(next(&state) % (kSizeCount - 1));
    Size const z = kSizes[which];
    char const transa = next(&state) % 2 ? 'T' : 'N';
    char const transb = next(&state) % 2 ? 'T' : 'N';
    int const arows = transa == 'N' ? z.m : z.k, acols = transa == 'N' ? z.k : z.m;
    int const brows = transb == 'N' ? z.k : z.n, bcols = transb == 'N' ? z.n : z.k;
    int const lda = arows + (int)(next(&state) % 3), ldb = brows + 1, ldc = z.m + (int)(next(&state) % 2);
    double* a = malloc(sizeof(double) * (size_t)lda * acols);
    double* b = malloc(sizeof(double) * (size_t)ldb * bcols);
    double* c = malloc(sizeof(double) * (size_t)ldc * z.n);
    double* c0 = malloc(sizeof(double) * (size_t)ldc * z.n);
    if (a == NULL || b == NULL || c == NULL || c0 == NULL) {
      fprintf(stderr, "out of memory\n");
      exit(1);
    }
    for (long e = 0; e < (long)lda * acols; ++e) a[e] = small_int(&state);
    for (long e = 0; e < (long)ldb * bcols; ++e) b[e] = small_int(&state);
    for (long e = 0; e < (long)ldc * z.n; ++e) c[e] = small_int(&state);
    memcpy(c0, c, sizeof(double) * (size_t)ldc * z.n);
    static double const alphas[3] = {-1.0, 2.0, 1.0};
    double const alpha = alphas[call % 3];
    double const beta = (double)(call % 4);  // 0, 1, 2, 3

    dgemm_(&transa, &transb, &z.m, &z.n, &z.k, &alpha, a, &lda, b, &ldb, &beta, c, &ldc, 1, 1);

    int wrong = 0;
    if (large) {
      wrong = check_by_projection(work->id, call, transa, transb, z, alpha, a, lda, b, ldb, beta, c0, c, ldc, &state);
    }
    for (int j = 0; j < z.n && !large; ++j) {
      for (int i = 0; i < z.m; ++i) {
        int64_t sum = 0;
        for (int p = 0; p < z.k; ++p) {
          double const x = transa == 'N' ? a[i + (long)p * lda] : a[p + (long)i * lda];
          double const y = transb == 'N' ? b[p + (long)j * ldb] : b[j + (long)p * ldb];
          sum += (int64_t)x * (int64_t)y;
        }
        double const expected = alpha * (double)sum + beta * c0[i + (long)j * ldc];
        if (c[i + (long)j * ldc] != expected && wrong++ == 0) {
          printf("FAIL thread %d call %d: dgemm('%c', '%c', %d, %d, %d, alpha %g, beta %g): C(%d,%d) = %.17g, "
                 "expected %.17g\n",
                 work->id, call, transa, transb, z.m, z.n, z.k, alpha, beta, i, j, c[i + (long)j * ldc], expected);
        }
      }
      for (int i = z.m; i < ldc; ++i) {
        if (c[i + (long)j * ldc] != c0[i + (long)j * ldc] && wrong++ == 0) {
          printf("FAIL thread %d call %d: C's padding row %d of column %d was written\n", work->id, call, i, j);
        }
      }
    }
    work->failures += wrong != 0;
    work->checked += (long)z.m * z.n;
    free(a), free(b), free(c), free(c0);
  }
  return NULL;
}

int main(int argc, char** argv) {
  int const threads = argc > 1 ? atoi(argv[1]) : 8;
  int const calls = argc > 2 ? atoi(argv[2]) : 40;
  if (threads < 1 || threads > 256 || calls < 1) {
    fprintf(stderr, "usage: %s [threads 1-256] [calls per thread >= 1]\n", argv[0]);
    return 2;
  }
  pthread_t ids[256];
  Work work[256];
  for (int t = 0; t < threads; ++t) {
    work[t] = (Work){t, calls, 0, 0};
    if (pthread_create(&ids[t], NULL, worker, &work[t]) != 0) {
      fprintf(stderr, "pthread_create failed\n");
      return 1;
    }
  }
  int failures = 0;
  long checked = 0;
  for (int t = 0; t < threads; ++t) {
    pthread_join(ids[t], NULL);
    failures += work[t].failures;
    checked += work[t].checked;
  }
  printf("%d threads x %d dgemm_ calls: %d failed (%ld elements checked)\n", threads, calls, failures, checked);
  return failures == 0 ? 0 : 1;
}
