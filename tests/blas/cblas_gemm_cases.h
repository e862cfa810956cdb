/*! \file
    \brief The checks of cblas_gemm.c for one precision, included once per precision with REAL
    (double, float), P(name) (name_d, name_s), the routines' letter L ("d", "s"), kEps, and the entry
    points CBLAS_GEMM, FORTRAN_GEMM, CBLAS_GEMM_BATCH, CBLAS_GEMM_BATCH_STRIDED defined.

    Each check allocates its operands with padding (ld above the minimum) and guard elements on both
    sides, fills the padding and guards of C with a poison value, runs one call of the drop-in, and
    checks: every element of C against a long double reference within (k+3) eps of the magnitudes
    involved, C's padding and guards bitwise unchanged, A and B bitwise unchanged.
*/

/// One operand as stored: rows x cols in `layout`, leading dimension ld, kGuard poison elements on
/// both sides of the data.
typedef struct {
  int layout;  // CblasColMajor or CblasRowMajor
  int rows, cols, ld;
  size_t size;  // elements of data (without guards)
  REAL* base;   // guard, data, guard
  REAL* data;
} P(Operand);

static size_t P(index)(P(Operand) const* x, int i, int j) {
  return x->layout == CblasColMajor ? (size_t)i + (size_t)j * (size_t)x->ld : (size_t)i * (size_t)x->ld + (size_t)j;
}

static int P(min_ld)(int layout, int rows, int cols) {
  int const needed = layout == CblasColMajor ? rows : cols;
  return needed > 1 ? needed : 1;
}

/// An operand of rows x cols with ld = minimum + pad; data random in [-1,1), padding and guards poison.
static P(Operand) P(operand_new)(int layout, int rows, int cols, int pad) {
  P(Operand) x;
  x.layout = layout;
  x.rows = rows;
  x.cols = cols;
  x.ld = P(min_ld)(layout, rows, cols) + pad;
  size_t const lines = (size_t)(layout == CblasColMajor ? cols : rows);
  x.size = lines * (size_t)x.ld;
  x.base = (REAL*)malloc((x.size + 2 * kGuard) * sizeof(REAL));
  if (x.base == NULL) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  x.data = x.base + kGuard;
  for (size_t e = 0; e < x.size + 2 * kGuard; ++e) x.base[e] = (REAL)kPoison;
  for (int i = 0; i < rows; ++i) {
    for (int j = 0; j < cols; ++j) x.data[P(index)(&x, i, j)] = (REAL)uniform();
  }
  return x;
}

static P(Operand) P(operand_copy)(P(Operand) const* x) {
  P(Operand) y = *x;
  y.base = (REAL*)malloc((x->size + 2 * kGuard) * sizeof(REAL));
  if (y.base == NULL) {
    fprintf(stderr, "out of memory\n");
    exit(1);
  }
  memcpy(y.base, x->base, (x->size + 2 * kGuard) * sizeof(REAL));
  y.data = y.base + kGuard;
  return y;
}

static void P(fill_logical)(P(Operand)* x, REAL value) {
  for (int i = 0; i < x->rows; ++i) {
    for (int j = 0; j < x->cols; ++j) x->data[P(index)(x, i, j)] = value;
  }
}

static int P(is_logical)(P(Operand) const* x, long e) {
  if (e < 0 || (size_t)e >= x->size) return 0;
  long const line = e / x->ld;
  long const in_line = e % x->ld;
  return x->layout == CblasColMajor ? in_line < x->rows && line < x->cols : in_line < x->cols && line < x->rows;
}

/// op(X)(i, p): X itself or its transpose (CblasConjTrans is the transpose for real data).
static REAL P(op_at)(P(Operand) const* x, int trans, int i, int p) {
  return trans == CblasNoTrans ? x->data[P(index)(x, i, p)] : x->data[P(index)(x, p, i)];
}

/// Checks C (after) against beta*C0 + alpha*op(A0)*op(B0) (the copies taken before the call), C's
/// padding and guards, and A and B (when given) bitwise equal to A0 and B0. Returns the number of
/// wrong elements; prints the first few with `what`.
static int P(check_result)(char const* what, int transa, int transb, int m, int n, int k, REAL alpha, REAL beta,
                           P(Operand) const* a, P(Operand) const* a0, P(Operand) const* b, P(Operand) const* b0,
                           P(Operand) const* c, P(Operand) const* c0) {
  long double const eps = kEps;
  int wrong = 0;
  for (int i = 0; i < m; ++i) {
    for (int j = 0; j < n; ++j) {
      long double sum = 0.0L;
      long double magnitude = 0.0L;
      if (alpha != 0 && k > 0) {
        for (int p = 0; p < k; ++p) {
          long double const prod = (long double)P(op_at)(a0, transa, i, p) * (long double)P(op_at)(b0, transb, p, j);
          sum += prod;
          magnitude += fabsl(prod);
        }
      }
      long double expected = (long double)alpha * sum;
      magnitude *= fabsl((long double)alpha);
      if (beta != 0) {  // beta == 0: C is not read, it may hold NaN
        long double const old = (long double)c0->data[P(index)(c0, i, j)];
        expected += (long double)beta * old;
        magnitude += fabsl((long double)beta * old);
      }
      REAL const got = c->data[P(index)(c, i, j)];
      long double const tolerance = (long double)(k + 3) * eps * magnitude + 4 * kTiny;
      if (!(fabsl((long double)got - expected) <= tolerance)) {
        if (wrong++ < 3) {
          printf("FAIL %s: C(%d,%d) = %.17Lg, expected %.17Lg (tolerance %.3Lg)\n", what, i, j, (long double)got,
                 expected, tolerance);
        }
      }
    }
  }
  // C outside its m x n elements (padding, guards), A and B everywhere: bitwise unchanged.
  for (long e = -kGuard; e < (long)(c->size + kGuard); ++e) {
    if (P(is_logical)(c, e)) continue;
    if (memcmp(&c->data[e], &c0->data[e], sizeof(REAL)) != 0) {
      if (wrong++ < 3) printf("FAIL %s: C's padding or guard element %ld was written\n", what, e);
    }
  }
  if (a != NULL && memcmp(a->base, a0->base, (a->size + 2 * kGuard) * sizeof(REAL)) != 0) {
    ++wrong;
    printf("FAIL %s: A was written\n", what);
  }
  if (b != NULL && memcmp(b->base, b0->base, (b->size + 2 * kGuard) * sizeof(REAL)) != 0) {
    ++wrong;
    printf("FAIL %s: B was written\n", what);
  }
  return wrong;
}

static void P(operand_free)(P(Operand)* x) {
  free(x->base);
  x->base = x->data = NULL;
}

/// Rows and columns of A (or B) as stored for op(A) of m x k.
static void P(stored_shape)(int trans, int m, int k, int* rows, int* cols) {
  *rows = trans == CblasNoTrans ? m : k;
  *cols = trans == CblasNoTrans ? k : m;
}

/// One cblas_?gemm call. flags: kNanC fills C with NaN (with beta == 0 it must not show), kNanAB fills
/// A and B with NaN (with alpha == 0 they must not be read).
static int P(check_cblas_gemm)(int layout, int transa, int transb, int m, int n, int k, REAL alpha, REAL beta, int pad,
                               int flags) {
  int ar, ac, br, bc;
  P(stored_shape)(transa, m, k, &ar, &ac);
  P(stored_shape)(transb, k, n, &br, &bc);
  P(Operand) a = P(operand_new)(layout, ar, ac, pad);
  P(Operand) b = P(operand_new)(layout, br, bc, pad + 1);
  P(Operand) c = P(operand_new)(layout, m, n, pad + 2);
  if (flags & kNanC) P(fill_logical)(&c, (REAL)NAN);
  if (flags & kNanAB) {
    P(fill_logical)(&a, (REAL)NAN);
    P(fill_logical)(&b, (REAL)NAN);
  }
  P(Operand) a0 = P(operand_copy)(&a), b0 = P(operand_copy)(&b), c0 = P(operand_copy)(&c);
  char what[160];
  snprintf(what, sizeof what, "cblas_" L "gemm(%s, %s, %s, m=%d, n=%d, k=%d, alpha=%g, lda=%d, ldb=%d, beta=%g, ldc=%d%s%s)",
           layout_name(layout), trans_name(transa), trans_name(transb), m, n, k, (double)alpha, a.ld, b.ld,
           (double)beta, c.ld, flags & kNanC ? ", C NaN" : "", flags & kNanAB ? ", A and B NaN" : "");
  xerbla_reset();
  CBLAS_GEMM((CBLAS_LAYOUT)layout, (CBLAS_TRANSPOSE)transa, (CBLAS_TRANSPOSE)transb, m, n, k, alpha, a.data, a.ld,
             b.data, b.ld, beta, c.data, c.ld);
  int wrong = P(check_result)(what, transa, transb, m, n, k, alpha, beta, &a, &a0, &b, &b0, &c, &c0);
  if (g_xerbla.calls != 0) {
    printf("FAIL %s: a valid call reached xerbla (%s, %d)\n", what, g_xerbla.name, g_xerbla.info);
    ++wrong;
  }
  P(operand_free)(&a), P(operand_free)(&b), P(operand_free)(&c);
  P(operand_free)(&a0), P(operand_free)(&b0), P(operand_free)(&c0);
  return wrong != 0;
}

/// The Fortran entry (?gemm_), column-major by definition, with character transposes.
static int P(check_fortran_gemm)(char transa_char, char transb_char, int m, int n, int k, REAL alpha, REAL beta, int pad) {
  int const transa = transa_char == 'N' || transa_char == 'n' ? CblasNoTrans : CblasTrans;
  int const transb = transb_char == 'N' || transb_char == 'n' ? CblasNoTrans : CblasTrans;
  int ar, ac, br, bc;
  P(stored_shape)(transa, m, k, &ar, &ac);
  P(stored_shape)(transb, k, n, &br, &bc);
  P(Operand) a = P(operand_new)(CblasColMajor, ar, ac, pad);
  P(Operand) b = P(operand_new)(CblasColMajor, br, bc, pad);
  P(Operand) c = P(operand_new)(CblasColMajor, m, n, pad);
  P(Operand) a0 = P(operand_copy)(&a), b0 = P(operand_copy)(&b), c0 = P(operand_copy)(&c);
  char what[160];
  snprintf(what, sizeof what, L "gemm_('%c', '%c', m=%d, n=%d, k=%d, alpha=%g, lda=%d, ldb=%d, beta=%g, ldc=%d)",
           transa_char, transb_char, m, n, k, (double)alpha, a.ld, b.ld, (double)beta, c.ld);
  xerbla_reset();
  FORTRAN_GEMM(&transa_char, &transb_char, &m, &n, &k, &alpha, a.data, &a.ld, b.data, &b.ld, &beta, c.data, &c.ld, 1,
                  1);
  int wrong = P(check_result)(what, transa, transb, m, n, k, alpha, beta, &a, &a0, &b, &b0, &c, &c0);
  if (g_xerbla.calls != 0) {
    printf("FAIL %s: a valid call reached xerbla (%s, %d)\n", what, g_xerbla.name, g_xerbla.info);
    ++wrong;
  }
  P(operand_free)(&a), P(operand_free)(&b), P(operand_free)(&c);
  P(operand_free)(&a0), P(operand_free)(&b0), P(operand_free)(&c0);
  return wrong != 0;
}

/// cblas_?gemm_batch: three groups of different shapes, transposes, alpha and beta; one C per entry.
static int P(check_batch)(int layout) {
  enum { kGroups = 3 };
  CBLAS_TRANSPOSE const transa[kGroups] = {CblasNoTrans, CblasTrans, CblasConjTrans};
  CBLAS_TRANSPOSE const transb[kGroups] = {CblasNoTrans, CblasNoTrans, CblasTrans};
  int const m[kGroups] = {5, 33, 1};
  int const n[kGroups] = {7, 20, 64};
  int const k[kGroups] = {3, 40, 17};
  REAL const alpha[kGroups] = {1, (REAL)-0.5, 2};
  REAL const beta[kGroups] = {0, 2, 1};
  int const group_size[kGroups] = {3, 2, 4};
  enum { kEntries = 9 };
  P(Operand) a[kEntries], b[kEntries], c[kEntries], a0[kEntries], b0[kEntries], c0[kEntries];
  REAL const* a_array[kEntries];
  REAL const* b_array[kEntries];
  REAL* c_array[kEntries];
  int lda[kGroups], ldb[kGroups], ldc[kGroups];
  int e = 0;
  for (int g = 0; g < kGroups; ++g) {
    for (int i = 0; i < group_size[g]; ++i, ++e) {
      int ar, ac, br, bc;
      P(stored_shape)(transa[g], m[g], k[g], &ar, &ac);
      P(stored_shape)(transb[g], k[g], n[g], &br, &bc);
      a[e] = P(operand_new)(layout, ar, ac, 1 + g);
      b[e] = P(operand_new)(layout, br, bc, 2);
      c[e] = P(operand_new)(layout, m[g], n[g], 3 - g);
      if (beta[g] == 0) P(fill_logical)(&c[e], (REAL)NAN);
      a0[e] = P(operand_copy)(&a[e]), b0[e] = P(operand_copy)(&b[e]), c0[e] = P(operand_copy)(&c[e]);
      a_array[e] = a[e].data, b_array[e] = b[e].data, c_array[e] = c[e].data;
      lda[g] = a[e].ld, ldb[g] = b[e].ld, ldc[g] = c[e].ld;
    }
  }
  xerbla_reset();
  CBLAS_GEMM_BATCH((CBLAS_LAYOUT)layout, transa, transb, m, n, k, alpha, a_array, lda, b_array, ldb, beta, c_array,
                   ldc, kGroups, group_size);
  int failed = 0;
  e = 0;
  for (int g = 0; g < kGroups; ++g) {
    for (int i = 0; i < group_size[g]; ++i, ++e) {
      char what[160];
      snprintf(what, sizeof what, "cblas_" L "gemm_batch(%s) group %d entry %d (%s, %s, m=%d, n=%d, k=%d)",
               layout_name(layout), g, i, trans_name(transa[g]), trans_name(transb[g]), m[g], n[g], k[g]);
      failed |= P(check_result)(what, transa[g], transb[g], m[g], n[g], k[g], alpha[g], beta[g], &a[e], &a0[e], &b[e],
                                &b0[e], &c[e], &c0[e]) != 0;
      P(operand_free)(&a[e]), P(operand_free)(&b[e]), P(operand_free)(&c[e]);
      P(operand_free)(&a0[e]), P(operand_free)(&b0[e]), P(operand_free)(&c0[e]);
    }
  }
  if (g_xerbla.calls != 0) {
    printf("FAIL cblas_" L "gemm_batch(%s): a valid call reached xerbla (%s, %d)\n", layout_name(layout),
           g_xerbla.name, g_xerbla.info);
    failed = 1;
  }
  return failed;
}

/// cblas_?gemm_batch_strided: the entries of each operand `stride` elements apart, with a gap of at
/// least kGuard poison elements after each C (which must stay unchanged); with share_b, one B for all
/// (strideb 0).
static int P(check_strided)(int layout, int transa, int transb, int m, int n, int k, REAL alpha, REAL beta, int batch,
                            int share_b) {
  enum { kMaxBatch = 8 };
  if (batch > kMaxBatch) batch = kMaxBatch;
  int ar, ac, br, bc;
  P(stored_shape)(transa, m, k, &ar, &ac);
  P(stored_shape)(transb, k, n, &br, &bc);
  // Entry shapes: ld and the data extent of one matrix, as operand_new makes them.
  P(Operand) a = P(operand_new)(layout, ar, ac, 2);
  P(Operand) b = P(operand_new)(layout, br, bc, 1);
  P(Operand) c = P(operand_new)(layout, m, n, 3);
  int const stride_a = (int)a.size + 5, stride_b = share_b ? 0 : (int)b.size, stride_c = (int)c.size + kGuard + 3;
  size_t const total_a = (size_t)stride_a * batch, total_b = share_b ? b.size : (size_t)stride_b * batch;
  size_t const total_c = (size_t)stride_c * batch;
  REAL* big[3];
  REAL* copy[3];
  size_t const totals[3] = {total_a, total_b, total_c};
  for (int x = 0; x < 3; ++x) {
    big[x] = (REAL*)malloc((totals[x] + 2 * kGuard) * sizeof(REAL));
    copy[x] = (REAL*)malloc((totals[x] + 2 * kGuard) * sizeof(REAL));
    if (big[x] == NULL || copy[x] == NULL) {
      fprintf(stderr, "out of memory\n");
      exit(1);
    }
    for (size_t e = 0; e < totals[x] + 2 * kGuard; ++e) big[x][e] = x < 2 ? (REAL)uniform() : (REAL)kPoison;
  }
  P(Operand) av[kMaxBatch], bv[kMaxBatch], cv[kMaxBatch];
  for (int i = 0; i < batch; ++i) {
    av[i] = a, bv[i] = b, cv[i] = c;
    av[i].data = big[0] + kGuard + (size_t)i * stride_a;
    bv[i].data = big[1] + kGuard + (size_t)i * stride_b;
    cv[i].data = big[2] + kGuard + (size_t)i * stride_c;
    av[i].base = bv[i].base = cv[i].base = NULL;
    for (int r = 0; r < m; ++r) {
      for (int s = 0; s < n; ++s) cv[i].data[P(index)(&cv[i], r, s)] = beta == 0 ? (REAL)NAN : (REAL)uniform();
    }
  }
  for (int x = 0; x < 3; ++x) memcpy(copy[x], big[x], (totals[x] + 2 * kGuard) * sizeof(REAL));
  xerbla_reset();
  CBLAS_GEMM_BATCH_STRIDED((CBLAS_LAYOUT)layout, (CBLAS_TRANSPOSE)transa, (CBLAS_TRANSPOSE)transb, m, n, k, alpha,
                           big[0] + kGuard, a.ld, stride_a, big[1] + kGuard, b.ld, stride_b, beta, big[2] + kGuard,
                           c.ld, stride_c, batch);
  int failed = 0;
  for (int i = 0; i < batch; ++i) {
    P(Operand) a0 = av[i], b0 = bv[i], c0 = cv[i];
    a0.data = copy[0] + kGuard + (size_t)i * stride_a;
    b0.data = copy[1] + kGuard + (size_t)i * stride_b;
    c0.data = copy[2] + kGuard + (size_t)i * stride_c;
    char what[200];
    snprintf(what, sizeof what,
             "cblas_" L "gemm_batch_strided(%s, %s, %s, m=%d, n=%d, k=%d, alpha=%g, beta=%g, strides %d %d %d) entry %d",
             layout_name(layout), trans_name(transa), trans_name(transb), m, n, k, (double)alpha, (double)beta,
             stride_a, stride_b, stride_c, i);
    // A and B are compared whole below; C's guards here are the gaps between the entries.
    failed |= P(check_result)(what, transa, transb, m, n, k, alpha, beta, NULL, &a0, NULL, &b0, &cv[i], &c0) != 0;
  }
  if (memcmp(big[0], copy[0], (total_a + 2 * kGuard) * sizeof(REAL)) != 0 ||
      memcmp(big[1], copy[1], (total_b + 2 * kGuard) * sizeof(REAL)) != 0) {
    printf("FAIL cblas_" L "gemm_batch_strided(%s): A or B was written\n", layout_name(layout));
    failed = 1;
  }
  if (g_xerbla.calls != 0) {
    printf("FAIL cblas_" L "gemm_batch_strided(%s): a valid call reached xerbla (%s, %d)\n", layout_name(layout),
           g_xerbla.name, g_xerbla.info);
    failed = 1;
  }
  for (int x = 0; x < 3; ++x) free(big[x]), free(copy[x]);
  P(operand_free)(&a), P(operand_free)(&b), P(operand_free)(&c);
  return failed;
}

/// Bad arguments: each call must reach the program's xerbla (once, with the routine's name and the
/// number of the bad argument) and write nothing. With `forwarded` (GEMMKIT_BLAS=off: the CPU BLAS
/// reports in its own words) only "xerbla once, nothing written" is asserted.
static int P(check_errors)(int forwarded) {
  enum { kSide = 48 };
  P(Operand) a = P(operand_new)(CblasColMajor, kSide, kSide, 0);
  P(Operand) b = P(operand_new)(CblasColMajor, kSide, kSide, 0);
  P(Operand) c = P(operand_new)(CblasColMajor, kSide, kSide, 0);
  P(Operand) c0 = P(operand_copy)(&c);
  REAL const alpha = (REAL)1.5, beta = (REAL)0.5;
  int failed = 0;
  char what[200];
#define CHECK_ERROR(NAME, INFO)                                                                   \
  do {                                                                                            \
    failed |= expect_xerbla(what, NAME, INFO, forwarded);                                         \
    if (memcmp(c.base, c0.base, (c.size + 2 * kGuard) * sizeof(REAL)) != 0) {                     \
      printf("FAIL %s: C was written\n", what);                                                   \
      memcpy(c.base, c0.base, (c.size + 2 * kGuard) * sizeof(REAL));                              \
      failed = 1;                                                                                 \
    }                                                                                             \
  } while (0)

  // The Fortran entry: argument numbers of ?GEMM(TRANSA, TRANSB, M, N, K, ALPHA, A, LDA, B, LDB,
  // BETA, C, LDC).
  static struct {
    char transa, transb;
    int m, n, k, lda, ldb, ldc, info;
  } const fortran_cases[] = {
      {'X', 'N', 4, 3, 5, 4, 5, 4, 1},  {'N', '/', 4, 3, 5, 4, 5, 4, 2},  {'N', 'N', -1, 3, 5, 4, 5, 4, 3},
      {'N', 'N', 4, -1, 5, 4, 5, 4, 4}, {'N', 'N', 4, 3, -1, 4, 5, 4, 5}, {'N', 'N', 4, 3, 5, 3, 5, 4, 8},
      {'T', 'N', 4, 3, 5, 4, 5, 4, 8},  {'N', 'N', 4, 3, 5, 4, 4, 4, 10}, {'N', 'T', 4, 3, 5, 4, 2, 4, 10},
      {'N', 'N', 4, 3, 5, 4, 5, 3, 13},
      // LDA >= MAX(1, M) even when M is 0 (the reference checks it; OpenBLAS does not, so not when
      // forwarded).
      {'N', 'N', 0, 0, 0, 0, 1, 1, 8},
  };
  for (size_t t = 0; t < sizeof fortran_cases / sizeof fortran_cases[0]; ++t) {
    char const ta = fortran_cases[t].transa, tb = fortran_cases[t].transb;
    int const m = fortran_cases[t].m, n = fortran_cases[t].n, k = fortran_cases[t].k;
    int const lda = fortran_cases[t].lda, ldb = fortran_cases[t].ldb, ldc = fortran_cases[t].ldc;
    if (forwarded && m == 0) continue;
    snprintf(what, sizeof what, L "gemm_('%c', '%c', m=%d, n=%d, k=%d, lda=%d, ldb=%d, ldc=%d)", ta, tb, m, n, k, lda,
             ldb, ldc);
    xerbla_reset();
    FORTRAN_GEMM(&ta, &tb, &m, &n, &k, &alpha, a.data, &lda, b.data, &ldb, &beta, c.data, &ldc, 1, 1);
    CHECK_ERROR(kFortranName, fortran_cases[t].info);
  }

  // The CBLAS entry: argument numbers of cblas_?gemm(Layout, TransA, TransB, M, N, K, alpha, A, lda,
  // B, ldb, beta, C, ldc), the same in both layouts (the number of the argument as the caller wrote it).
  static struct {
    int layout, transa, transb, m, n, k, lda, ldb, ldc, info;
  } const cblas_cases[] = {
      {99, CblasNoTrans, CblasNoTrans, 4, 3, 5, 4, 5, 4, 1},
      {CblasColMajor, 99, CblasNoTrans, 4, 3, 5, 4, 5, 4, 2},
      {CblasColMajor, CblasNoTrans, 99, 4, 3, 5, 4, 5, 4, 3},
      {CblasColMajor, CblasNoTrans, CblasNoTrans, -1, 3, 5, 4, 5, 4, 4},
      {CblasColMajor, CblasNoTrans, CblasNoTrans, 4, -1, 5, 4, 5, 4, 5},
      {CblasColMajor, CblasNoTrans, CblasNoTrans, 4, 3, -1, 4, 5, 4, 6},
      {CblasColMajor, CblasNoTrans, CblasNoTrans, 4, 3, 5, 3, 5, 4, 9},
      {CblasColMajor, CblasTrans, CblasNoTrans, 4, 3, 5, 4, 5, 4, 9},
      {CblasColMajor, CblasNoTrans, CblasNoTrans, 4, 3, 5, 4, 4, 4, 11},
      {CblasColMajor, CblasNoTrans, CblasNoTrans, 4, 3, 5, 4, 5, 3, 14},
      {CblasRowMajor, 99, CblasNoTrans, 4, 3, 5, 5, 3, 3, 2},
      {CblasRowMajor, CblasNoTrans, 99, 4, 3, 5, 5, 3, 3, 3},
      {CblasRowMajor, CblasNoTrans, CblasNoTrans, -1, 3, 5, 5, 3, 3, 4},
      {CblasRowMajor, CblasNoTrans, CblasNoTrans, 4, -1, 5, 5, 3, 3, 5},
      {CblasRowMajor, CblasNoTrans, CblasNoTrans, 4, 3, -1, 5, 3, 3, 6},
      {CblasRowMajor, CblasNoTrans, CblasNoTrans, 4, 3, 5, 4, 3, 3, 9},
      {CblasRowMajor, CblasTrans, CblasNoTrans, 4, 3, 5, 3, 3, 3, 9},
      {CblasRowMajor, CblasNoTrans, CblasNoTrans, 4, 3, 5, 5, 2, 3, 11},
      {CblasRowMajor, CblasNoTrans, CblasTrans, 4, 3, 5, 5, 4, 3, 11},
      {CblasRowMajor, CblasNoTrans, CblasNoTrans, 4, 3, 5, 5, 3, 2, 14},
  };
  for (size_t t = 0; t < sizeof cblas_cases / sizeof cblas_cases[0]; ++t) {
    int const layout = cblas_cases[t].layout, transa = cblas_cases[t].transa, transb = cblas_cases[t].transb;
    int const m = cblas_cases[t].m, n = cblas_cases[t].n, k = cblas_cases[t].k;
    int const lda = cblas_cases[t].lda, ldb = cblas_cases[t].ldb, ldc = cblas_cases[t].ldc;
    snprintf(what, sizeof what, "cblas_" L "gemm(%s, %s, %s, m=%d, n=%d, k=%d, lda=%d, ldb=%d, ldc=%d)",
             layout_name(layout), trans_name(transa), trans_name(transb), m, n, k, lda, ldb, ldc);
    xerbla_reset();
    CBLAS_GEMM((CBLAS_LAYOUT)layout, (CBLAS_TRANSPOSE)transa, (CBLAS_TRANSPOSE)transb, m, n, k, alpha, a.data, lda,
               b.data, ldb, beta, c.data, ldc);
    CHECK_ERROR("cblas_" L "gemm", cblas_cases[t].info);
  }

  // The group batch: argument numbers of cblas_?gemm_batch(Layout, transa_array, transb_array,
  // m_array, n_array, k_array, alpha_array, a_array, lda_array, b_array, ldb_array, beta_array,
  // c_array, ldc_array, group_count, group_size). A bad group 1 must stop group 0 from being written
  // too (nothing is written).
  {
    CBLAS_TRANSPOSE const transa[2] = {CblasNoTrans, CblasNoTrans}, transb[2] = {CblasNoTrans, CblasTrans};
    int const m[2] = {4, 6}, n[2] = {3, 5}, k[2] = {5, 2};
    REAL const alphas[2] = {1, 2}, betas[2] = {0, 1};
    REAL const* a_array[4] = {a.data, a.data + 1, a.data + 2, a.data + 3};
    REAL const* b_array[4] = {b.data, b.data + 1, b.data + 2, b.data + 3};
    REAL* c_array[4] = {c.data, c.data + 4 * kSide, c.data + 8 * kSide, c.data + 16 * kSide};
    int const good_ld[2] = {kSide, kSide};
    int const bad_lda[2] = {kSide, 5};  // group 1: lda 5 < m 6
    int const good_size[2] = {2, 2}, bad_size[2] = {2, -1};
    struct {
      int const* lda;
      int group_count;
      int const* group_size;
      int info;
      char const* why;
    } const batch_cases[] = {
        {bad_lda, 2, good_size, 9, "group 1 lda < m"},
        {good_ld, -1, good_size, 15, "group_count < 0"},
        {good_ld, 2, bad_size, 16, "group_size[1] < 0"},
    };
    for (size_t t = 0; t < sizeof batch_cases / sizeof batch_cases[0]; ++t) {
      snprintf(what, sizeof what, "cblas_" L "gemm_batch(ColMajor, %s)", batch_cases[t].why);
      xerbla_reset();
      CBLAS_GEMM_BATCH(CblasColMajor, transa, transb, m, n, k, alphas, a_array, batch_cases[t].lda, b_array, good_ld,
                       betas, c_array, good_ld, batch_cases[t].group_count, batch_cases[t].group_size);
      CHECK_ERROR("cblas_" L "gemm_batch", batch_cases[t].info);
    }
  }

  // The strided batch: cblas_?gemm_batch_strided(Layout, TransA, TransB, M, N, K, alpha, A, lda,
  // stridea, B, ldb, strideb, beta, C, ldc, stridec, batch_size).
  {
    int const m = 4, n = 3, k = 5;
    snprintf(what, sizeof what, "cblas_" L "gemm_batch_strided(ColMajor, N, N, m=4, n=3, k=5, lda=3)");
    xerbla_reset();
    CBLAS_GEMM_BATCH_STRIDED(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, alpha, a.data, 3, 20, b.data, 5, 20,
                             beta, c.data, 4, 20, 2);
    CHECK_ERROR("cblas_" L "gemm_batch_strided", 9);
    snprintf(what, sizeof what, "cblas_" L "gemm_batch_strided(ColMajor, N, N, m=4, n=3, k=5, batch_size=-1)");
    xerbla_reset();
    CBLAS_GEMM_BATCH_STRIDED(CblasColMajor, CblasNoTrans, CblasNoTrans, m, n, k, alpha, a.data, 4, 20, b.data, 5, 20,
                             beta, c.data, 4, 20, -1);
    CHECK_ERROR("cblas_" L "gemm_batch_strided", 18);
  }
#undef CHECK_ERROR
  P(operand_free)(&a), P(operand_free)(&b), P(operand_free)(&c), P(operand_free)(&c0);
  return failed;
}
