/*! \file pdgemm_check.c
    \brief ScaLAPACK PDGEMM on a BLACS grid, checked entry by entry against a long-double reference,
           or timed (--bench).

    Every matrix entry is a hash of (matrix, global row, global column, seed), so each rank fills its
    block-cyclic pieces without communication and recomputes, for each of its local C entries, the
    exact dot product in long double from the same generator. The local DGEMM calls PBLAS makes go
    to whichever dgemm_ the process resolves (libblas.so.3, or an LD_PRELOADed library): that is
    what tests/blas/scalapack checks for gemmkit's libgemmkit_blas.

    Check mode (default): for each transpose pair, C := alpha*op(A)*op(B) + beta*C on the
    submatrices starting at global (offset+1, offset+1) of matrices `offset` rows and columns larger;
    the entries outside sub(C) must come back unchanged. Per entry the error is normalized by the
    absolute dot product |alpha|*sum|a||b| + |beta*c| and must stay under 2*(k+2)*eps (NaN fails).
    One line per case on rank 0; the exit status is 1 when any case fails.

    PBLAS cuts k into panels of PILAENV columns (32 in reference ScaLAPACK, whatever nb is), so
    every local DGEMM is a rank-32 update: (local rows) x (local columns) x 32. --panel K replaces
    ScaLAPACK's pilaenv_ with one returning K (this executable's definition comes first in the
    symbol lookup), which makes the local DGEMMs (local rows) x (local columns) x K.

    Bench mode (--bench): m = n = k = --n, C := A*B (beta 0), one small PDGEMM first (library and
    device start-up), then --reps timed calls between barriers; prints one JSON line with the best.

    Usage: mpirun -np <p*q> pdgemm_check [--m M] [--n N] [--k K] [--nb NB] [--trans NN,NT,TN,TT|all]
             [--alpha A] [--beta B] [--offset O] [--grid PxQ] [--seed S] [--nan-c] [--lld-pad P]
             [--panel K]
           mpirun -np <p*q> pdgemm_check --bench [--n N] [--nb NB] [--reps R] [--grid PxQ] [--panel K]
*/
#define _GNU_SOURCE  // RTLD_NEXT
#include <dlfcn.h>
#include <float.h>
#include <math.h>
#include <mpi.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

// BLACS (C interface) and ScaLAPACK/PBLAS (Fortran interface; PBLAS is C inside, so the character
// arguments need no hidden lengths). ScaLAPACK ships no C header for these.
void Cblacs_pinfo(int* rank, int* nprocs);
void Cblacs_get(int context, int what, int* value);
void Cblacs_gridinit(int* context, char const* order, int nprow, int npcol);
void Cblacs_gridinfo(int context, int* nprow, int* npcol, int* myrow, int* mycol);
void Cblacs_gridexit(int context);
void Cblacs_exit(int keep_mpi);
int numroc_(int const* n, int const* nb, int const* iproc, int const* isrcproc, int const* nprocs);
void descinit_(int* desc, int const* m, int const* n, int const* mb, int const* nb, int const* irsrc,
               int const* icsrc, int const* context, int const* lld, int* info);
void pdgemm_(char const* transa, char const* transb, int const* m, int const* n, int const* k,
             double const* alpha, double const* a, int const* ia, int const* ja, int const* desca,
             double const* b, int const* ib, int const* jb, int const* descb, double const* beta,
             double* c, int const* ic, int const* jc, int const* descc);

/// --panel: the k-panel width PBLAS asks pilaenv_ for; 0 = ScaLAPACK's own answer.
static int g_panel = 0;

/// Interposes ScaLAPACK's PILAENV (the executable's symbol wins over the library's).
int pilaenv_(int const* context, char const* precision) {
  if (g_panel > 0) return g_panel;
  typedef int (*PilaenvFn)(int const*, char const*);
  static PilaenvFn library_pilaenv = NULL;
  if (!library_pilaenv) library_pilaenv = (PilaenvFn)dlsym(RTLD_NEXT, "pilaenv_");
  return library_pilaenv ? library_pilaenv(context, precision) : 32;
}

enum { kMatrixA = 1, kMatrixB = 2, kMatrixC = 3 };

typedef struct Options {
  int m, n, k, nb, offset, lld_pad, reps, grid_p, grid_q, bench, nan_c;
  double alpha, beta;
  uint64_t seed;
  char trans[64];
} Options;

typedef struct Grid {
  int context, nprow, npcol, myrow, mycol, rank, size;
} Grid;

/// A distributed matrix: global rows x cols, nb x nb blocks, this rank's column-major piece.
typedef struct Local {
  int rows, cols, local_rows, local_cols, lld;
  int desc[9];
  double* data;
} Local;

static uint64_t mix64(uint64_t x) {  // splitmix64's finalizer
  x += 0x9e3779b97f4a7c15ull;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ull;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebull;
  return x ^ (x >> 31);
}

/// Entry (row, col) (0-based, global) of matrix `which`: uniform in [-1, 1).
static double entry(int which, long row, long col, uint64_t seed) {
  uint64_t h = mix64(seed ^ ((uint64_t)which << 58));
  h = mix64(h ^ (uint64_t)row);
  h = mix64(h ^ ((uint64_t)col << 1));
  return (double)(h >> 11) * 0x1.0p-52 - 1.0;
}

/// Global index of local index `local` (0-based) along a dimension with block nb over nprocs.
static long global_index(int local, int nb, int iproc, int nprocs) {
  return ((long)(local / nb) * nprocs + iproc) * nb + local % nb;
}

static void usage_exit(char const* arg) {
  fprintf(stderr, "pdgemm_check: bad argument '%s' (see the header of pdgemm_check.c)\n", arg);
  MPI_Abort(MPI_COMM_WORLD, 2);
}

static void parse(int argc, char** argv, Options* o) {
  *o = (Options){.m = 457, .n = 389, .k = 311, .nb = 32, .offset = 0, .lld_pad = 5, .reps = 1,
                 .alpha = 0.75, .beta = -1.25, .seed = 20261129, .trans = "all"};
  int n_given = 0, m_given = 0, k_given = 0;
  for (int i = 1; i < argc; ++i) {
    char const* a = argv[i];
    char const* v = i + 1 < argc ? argv[i + 1] : NULL;
    if (!strcmp(a, "--bench")) { o->bench = 1; continue; }
    if (!strcmp(a, "--nan-c")) { o->nan_c = 1; continue; }
    if (!v) usage_exit(a);
    ++i;
    if (!strcmp(a, "--m")) { o->m = atoi(v); m_given = 1; }
    else if (!strcmp(a, "--n")) { o->n = atoi(v); n_given = 1; }
    else if (!strcmp(a, "--k")) { o->k = atoi(v); k_given = 1; }
    else if (!strcmp(a, "--nb")) o->nb = atoi(v);
    else if (!strcmp(a, "--offset")) o->offset = atoi(v);
    else if (!strcmp(a, "--lld-pad")) o->lld_pad = atoi(v);
    else if (!strcmp(a, "--reps")) o->reps = atoi(v);
    else if (!strcmp(a, "--panel")) g_panel = atoi(v);
    else if (!strcmp(a, "--alpha")) o->alpha = atof(v);
    else if (!strcmp(a, "--beta")) o->beta = atof(v);
    else if (!strcmp(a, "--seed")) o->seed = strtoull(v, NULL, 10);
    else if (!strcmp(a, "--trans")) snprintf(o->trans, sizeof o->trans, "%s", v);
    else if (!strcmp(a, "--grid")) {
      if (sscanf(v, "%dx%d", &o->grid_p, &o->grid_q) != 2) usage_exit(v);
    } else usage_exit(a);
  }
  if (o->bench) {  // square, C := A*B, no padding unless asked
    if (!n_given) o->n = 8192;
    if (!m_given) o->m = o->n;
    if (!k_given) o->k = o->n;
    if (!n_given && m_given) o->n = o->m;
    o->alpha = 1.0;
    o->beta = 0.0;
    o->offset = 0;
    o->lld_pad = 0;
    if (!strcmp(o->trans, "all")) snprintf(o->trans, sizeof o->trans, "NN");
  }
  if (o->m < 0 || o->n < 0 || o->k < 0 || o->nb < 1 || o->offset < 0 || o->lld_pad < 0 || o->reps < 1 || g_panel < 0)
    usage_exit("sizes");
}

/// p x q from the rank count: the most square grid with p <= q (2 ranks: 1x2, 4: 2x2, 6: 2x3).
static void default_grid(int size, int* p, int* q) {
  *p = 1;
  for (int d = 1; d * d <= size; ++d)
    if (size % d == 0) *p = d;
  *q = size / *p;
}

static int make_local(Grid const* g, int rows, int cols, int nb, int pad, Local* x) {
  int const zero = 0;
  x->rows = rows;
  x->cols = cols;
  x->local_rows = numroc_(&rows, &nb, &g->myrow, &zero, &g->nprow);
  x->local_cols = numroc_(&cols, &nb, &g->mycol, &zero, &g->npcol);
  x->lld = (x->local_rows > 1 ? x->local_rows : 1) + pad;
  int info = 0;
  descinit_(x->desc, &rows, &cols, &nb, &nb, &zero, &zero, &g->context, &x->lld, &info);
  if (info != 0) return info;
  size_t const count = (size_t)x->lld * (size_t)(x->local_cols > 0 ? x->local_cols : 1);
  x->data = malloc(count * sizeof(double));
  return x->data ? 0 : -1000;
}

/// Fills this rank's piece of `which` from the generator (NaN instead when nan is set); the
/// padding rows past local_rows get NaN, which no correct DGEMM reads.
static void fill(Grid const* g, int which, int nb, uint64_t seed, int nan, Local* x) {
  for (int jl = 0; jl < x->local_cols; ++jl) {
    long const gj = global_index(jl, nb, g->mycol, g->npcol);
    double* column = x->data + (size_t)jl * (size_t)x->lld;
    for (int il = 0; il < x->local_rows; ++il)
      column[il] = nan ? NAN : entry(which, global_index(il, nb, g->myrow, g->nprow), gj, seed);
    for (int il = x->local_rows; il < x->lld; ++il) column[il] = NAN;
  }
}

/// Runs one PDGEMM case and returns the largest normalized error over this rank's entries
/// (+inf for NaN or for a changed entry outside sub(C)).
static double check_case(Grid const* g, Options const* o, char ta, char tb) {
  int const m = o->m, n = o->n, k = o->k, nb = o->nb, off = o->offset;
  int const a_rows = (ta == 'N' ? m : k) + off, a_cols = (ta == 'N' ? k : m) + off;
  int const b_rows = (tb == 'N' ? k : n) + off, b_cols = (tb == 'N' ? n : k) + off;
  Local a = {0}, b = {0}, c = {0};
  if (make_local(g, a_rows, a_cols, nb, o->lld_pad, &a) || make_local(g, b_rows, b_cols, nb, o->lld_pad, &b) ||
      make_local(g, m + off, n + off, nb, o->lld_pad, &c)) {
    fprintf(stderr, "pdgemm_check: descinit or malloc failed\n");
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  uint64_t const seed = o->seed + (uint64_t)(ta * 256 + tb);
  fill(g, kMatrixA, nb, seed, 0, &a);
  fill(g, kMatrixB, nb, seed, 0, &b);
  // C keeps generator values outside sub(C) even with --nan-c: they must come back unchanged.
  fill(g, kMatrixC, nb, seed, 0, &c);
  if (o->nan_c) {
    for (int jl = 0; jl < c.local_cols; ++jl)
      for (int il = 0; il < c.local_rows; ++il)
        if (global_index(il, nb, g->myrow, g->nprow) >= off && global_index(jl, nb, g->mycol, g->npcol) >= off)
          c.data[(size_t)jl * c.lld + il] = NAN;
  }

  int const one = off + 1;
  pdgemm_(&ta, &tb, &m, &n, &k, &o->alpha, a.data, &one, &one, a.desc, b.data, &one, &one, b.desc, &o->beta,
          c.data, &one, &one, c.desc);

  // op(A) rows for this rank's C rows and op(B) columns for its C columns, from the generator.
  int const lr = c.local_rows, lc = c.local_cols;
  double* opa = malloc(((size_t)lr * k + 1) * sizeof(double));  // (lr, k) row-major
  double* opb = malloc(((size_t)lc * k + 1) * sizeof(double));  // (lc, k) row-major
  long* grow = malloc(((size_t)lr + 1) * sizeof(long));
  long* gcol = malloc(((size_t)lc + 1) * sizeof(long));
  for (int il = 0; il < lr; ++il) {
    grow[il] = global_index(il, nb, g->myrow, g->nprow);
    if (grow[il] < off) continue;
    long const i = grow[il] - off;
    for (int l = 0; l < k; ++l)
      opa[(size_t)il * k + l] = ta == 'N' ? entry(kMatrixA, off + i, off + l, seed) : entry(kMatrixA, off + l, off + i, seed);
  }
  for (int jl = 0; jl < lc; ++jl) {
    gcol[jl] = global_index(jl, nb, g->mycol, g->npcol);
    if (gcol[jl] < off) continue;
    long const j = gcol[jl] - off;
    for (int l = 0; l < k; ++l)
      opb[(size_t)jl * k + l] = tb == 'N' ? entry(kMatrixB, off + l, off + j, seed) : entry(kMatrixB, off + j, off + l, seed);
  }
  double worst = 0.0;
  for (int jl = 0; jl < lc; ++jl) {
    for (int il = 0; il < lr; ++il) {
      double const got = c.data[(size_t)jl * c.lld + il];
      double const c0 = entry(kMatrixC, grow[il], gcol[jl], seed);
      double err;
      if (grow[il] < off || gcol[jl] < off) {
        err = got == c0 ? 0.0 : INFINITY;  // outside sub(C): untouched
      } else {
        long double dot = 0.0L, magnitude = 0.0L;
        double const* x = opa + (size_t)il * k;
        double const* y = opb + (size_t)jl * k;
        for (int l = 0; l < k; ++l) {
          dot += (long double)x[l] * y[l];
          magnitude += fabsl((long double)x[l] * y[l]);
        }
        // beta = 0 means C is not read (it may hold NaN, --nan-c).
        long double const cterm = o->beta == 0.0 ? 0.0L : (long double)o->beta * c0;
        long double const want = (long double)o->alpha * dot + cterm;
        long double const scale = fabsl((long double)o->alpha) * magnitude + fabsl(cterm) + LDBL_MIN;
        err = (double)(fabsl((long double)got - want) / scale);
        if (isnan(got) || isnan(err)) err = INFINITY;
      }
      if (err > worst) worst = err;
    }
  }
  free(opa), free(opb), free(grow), free(gcol);
  free(a.data), free(b.data), free(c.data);
  return worst;
}

static int current_panel(Grid const* g) {
  return pilaenv_(&g->context, "D");
}

static int run_checks(Grid const* g, Options const* o) {
  char list[64];
  snprintf(list, sizeof list, "%s", strcmp(o->trans, "all") ? o->trans : "NN,NT,TN,TT");
  double const tol = 2.0 * (o->k + 2) * DBL_EPSILON;
  int failures = 0, cases = 0;
  for (char* t = strtok(list, ","); t; t = strtok(NULL, ",")) {
    if (strlen(t) != 2 || !strchr("NT", t[0]) || !strchr("NT", t[1])) usage_exit(t);
    double const local = check_case(g, o, t[0], t[1]);
    double worst = 0.0;
    MPI_Allreduce(&local, &worst, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    int const ok = worst <= tol;
    failures += !ok;
    ++cases;
    if (g->rank == 0)
      printf("pdgemm %s m=%d n=%d k=%d nb=%d panel=%d offset=%d grid=%dx%d alpha=%g beta=%g%s: max_err=%.3e tol=%.3e %s\n",
             t, o->m, o->n, o->k, o->nb, current_panel(g), o->offset, g->nprow, g->npcol, o->alpha, o->beta,
             o->nan_c ? " nan-c" : "", worst, tol, ok ? "ok" : "FAILED");
  }
  if (g->rank == 0) printf("pdgemm_check: %d of %d cases passed\n", cases - failures, cases);
  return failures ? 1 : 0;
}

static double pdgemm_seconds(Grid const* g, Options const* o, int n, Local* a, Local* b, Local* c) {
  int const one = 1;
  char const ta = o->trans[0], tb = o->trans[1];
  (void)g;
  MPI_Barrier(MPI_COMM_WORLD);
  double const start = MPI_Wtime();
  pdgemm_(&ta, &tb, &n, &n, &n, &o->alpha, a->data, &one, &one, a->desc, b->data, &one, &one, b->desc, &o->beta,
          c->data, &one, &one, c->desc);
  MPI_Barrier(MPI_COMM_WORLD);
  return MPI_Wtime() - start;
}

static int run_bench(Grid const* g, Options const* o) {
  int const n = o->n;
  if (o->m != n || o->k != n) usage_exit("--bench runs square sizes: give --n");
  if (strlen(o->trans) != 2) usage_exit(o->trans);
  // Start-up: one PDGEMM spanning every rank (library initialization, the GPU context).
  int const warm_n = 2 * o->nb * (g->nprow > g->npcol ? g->nprow : g->npcol);
  Local a = {0}, b = {0}, c = {0};
  if (make_local(g, warm_n, warm_n, o->nb, 0, &a) || make_local(g, warm_n, warm_n, o->nb, 0, &b) ||
      make_local(g, warm_n, warm_n, o->nb, 0, &c))
    MPI_Abort(MPI_COMM_WORLD, 2);
  fill(g, kMatrixA, o->nb, o->seed, 0, &a);
  fill(g, kMatrixB, o->nb, o->seed, 0, &b);
  fill(g, kMatrixC, o->nb, o->seed, 0, &c);
  double const warm_seconds = pdgemm_seconds(g, o, warm_n, &a, &b, &c);
  free(a.data), free(b.data), free(c.data);

  if (make_local(g, n, n, o->nb, 0, &a) || make_local(g, n, n, o->nb, 0, &b) || make_local(g, n, n, o->nb, 0, &c)) {
    fprintf(stderr, "pdgemm_check: rank %d cannot allocate its pieces of three %dx%d matrices\n", g->rank, n, n);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  fill(g, kMatrixA, o->nb, o->seed, 0, &a);
  fill(g, kMatrixB, o->nb, o->seed, 0, &b);
  fill(g, kMatrixC, o->nb, o->seed, 0, &c);
  double best = INFINITY, total = 0.0;
  for (int r = 0; r < o->reps; ++r) {
    double const s = pdgemm_seconds(g, o, n, &a, &b, &c);
    total += s;
    if (s < best) best = s;
  }
  // A cheap sanity value: C(0,0) against its dot product, normalized like the check mode (rank 0
  // owns global (0,0)).
  double sample_err = 0.0;
  if (g->rank == 0 && n > 0) {
    long double dot = 0.0L, magnitude = 0.0L;
    for (int l = 0; l < n; ++l) {
      long double const t = (long double)entry(kMatrixA, 0, l, o->seed) * entry(kMatrixB, l, 0, o->seed);
      dot += t;
      magnitude += fabsl(t);
    }
    sample_err = (double)(fabsl((long double)c.data[0] - dot) / (magnitude + LDBL_MIN));
  }
  free(a.data), free(b.data), free(c.data);
  if (g->rank == 0) {
    double const flops = 2.0 * (double)n * (double)n * (double)n;
    printf("{\"n\": %d, \"ranks\": %d, \"grid\": \"%dx%d\", \"nb\": %d, \"panel\": %d, \"trans\": \"%s\", \"reps\": %d, "
           "\"seconds\": %.6f, \"mean_seconds\": %.6f, \"gflops\": %.3f, \"warmup_seconds\": %.6f, "
           "\"c00_err\": %.3e}\n",
           n, g->size, g->nprow, g->npcol, o->nb, current_panel(g), o->trans, o->reps, best, total / o->reps,
           best > 0 ? flops / best * 1e-9 : 0.0, warm_seconds, sample_err);
    fflush(stdout);
  }
  return 0;
}

int main(int argc, char** argv) {
  MPI_Init(&argc, &argv);
  Options o;
  parse(argc, argv, &o);
  Grid g = {0};
  Cblacs_pinfo(&g.rank, &g.size);
  int p = o.grid_p, q = o.grid_q;
  if (p == 0) default_grid(g.size, &p, &q);
  if (p * q != g.size) {
    if (g.rank == 0) fprintf(stderr, "pdgemm_check: grid %dx%d does not match %d ranks\n", p, q, g.size);
    MPI_Abort(MPI_COMM_WORLD, 2);
  }
  Cblacs_get(-1, 0, &g.context);
  Cblacs_gridinit(&g.context, "Row-major", p, q);
  Cblacs_gridinfo(g.context, &g.nprow, &g.npcol, &g.myrow, &g.mycol);
  int const status = o.bench ? run_bench(&g, &o) : run_checks(&g, &o);
  Cblacs_gridexit(g.context);
  Cblacs_exit(1);  // MPI stays up for MPI_Finalize
  MPI_Finalize();
  return status;
}
