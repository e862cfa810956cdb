/* dgemm_host: times the Fortran BLAS entry point dgemm_ (or sgemm_) on host arrays from malloc, as
   numpy.dot hands them to its BLAS: pageable, column-major, each operand stored densely (its leading
   dimension is its stored row count: lda = m for A untransposed, k transposed; ldb = k or n; ldc = m),
   alpha = 1, beta = 0.

   Links no BLAS. dgemm_ is looked up with dlsym(RTLD_DEFAULT), so the same binary measures whatever
   library the loader gives it: LD_PRELOAD=libopenblas.so.0, LD_PRELOAD=libgemmkit_blas.so.0,
   LD_PRELOAD=libnvblas.so (with NVBLAS_CONFIG_FILE), or --lib PATH (dlopen). bench/blas/blas_bench.py
   runs it once per contender; see docs' "BLAS drop-in benchmark" section.

   Problems: --sizes n,... (squares, m = n = k) and --shapes M:N:K,... (C is M x N, the inner
   dimension K), run in the order given. Per problem: A (m x k), B (k x n) and C (m x n) are malloc'd
   (C filled with NaN: beta = 0 must not read it) and A, B filled by all cores with uniform values in
   [-1, 1) (a counter-based hash of the element index, so any thread count gives the same matrices);
   --warmups W calls (default 1), then R timed calls (R from --reps, or as many as fit in
   --target-seconds at the last warm-up's rate, within --min-reps..--max-reps); then 64 sampled
   entries C(i,j) are recomputed in long double and held to the normalized-error bound of
   docs/kernel-contracts.md taken entry-wise: |C(i,j) - ref| / (sqrt(k+2) |A(i,:)| |B(:,j)|) < 8 eps.

   Output: one JSON object per line and per problem on stdout (progress on stderr):
     {"n":..., "m":..., "k":..., "status":"ok", "seconds_median":..., "seconds_min":...,
      "seconds_max":..., "gflops": 2 m n k / median, "verified":true, "max_rel_err":...,
      "provider":"<the .so that defined dgemm_>", ...}
   A problem whose operands cannot be allocated is reported with status "error"; one predicted to
   take longer than --max-call-seconds per call (at the rate of the problem done before) with
   "skipped". */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <errno.h>
#include <float.h>
#include <limits.h>
#include <link.h>
#include <math.h>
#include <pthread.h>
#include <sched.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The Fortran interface as gfortran calls it: the hidden lengths of the two character arguments
   come last (C BLAS implementations ignore them). */
typedef void dgemm_fn(char const* transa, char const* transb, int const* m, int const* n, int const* k,
                      double const* alpha, double const* a, int const* lda, double const* b, int const* ldb,
                      double const* beta, double* c, int const* ldc, size_t transa_len, size_t transb_len);
typedef void sgemm_fn(char const* transa, char const* transb, int const* m, int const* n, int const* k,
                      float const* alpha, float const* a, int const* lda, float const* b, int const* ldb,
                      float const* beta, float* c, int const* ldc, size_t transa_len, size_t transb_len);

enum { kMaxShapes = 256, kMaxLoaded = 16, kPathMax = PATH_MAX };

/* One problem: C (m x n) = A (m x k) * B (k x n), whatever the trans options store. */
typedef struct Shape {
  int m, n, k;
} Shape;

typedef struct Options {
  Shape shapes[kMaxShapes];
  int shape_count;
  int reps;                  /* 0: adaptive */
  int min_reps, max_reps;
  int warmups;               /* untimed calls before the timed ones (at least 1) */
  double target_seconds;     /* adaptive reps: about this much timed work per problem */
  double max_call_seconds;   /* 0: no limit */
  char dtype;                /* 'd' or 's' */
  char trans_a, trans_b;     /* 'N' or 'T' */
  int threads;               /* for filling (0: every CPU this process may run on) */
  int samples;
  int fresh_c;               /* a new, untouched C per call, as numpy.dot allocates its result */
  unsigned long long seed;
  char const* lib;
} Options;

typedef struct Blas {
  dgemm_fn* dgemm;
  sgemm_fn* sgemm;
  char provider[kPathMax];   /* the object that defines the routine */
} Blas;

static double now_seconds(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static size_t element_size(char dtype) { return dtype == 's' ? sizeof(float) : sizeof(double); }

/* ---- filling: all cores, first touch, a hash of the index per element ---------------------- */

/* splitmix64's finalizer of (index, salt): uniform 64-bit values, no state carried between
   elements, so each thread fills its own range. */
static inline double uniform_of(uint64_t index, uint64_t salt) {
  uint64_t x = (index + 1) * 0x9E3779B97F4A7C15ull ^ salt;
  x ^= x >> 30;
  x *= 0xBF58476D1CE4E5B9ull;
  x ^= x >> 27;
  x *= 0x94D049BB133111EBull;
  x ^= x >> 31;
  return (double)(x >> 11) * 0x1p-52 - 1.0; /* [-1, 1) */
}

typedef struct FillJob {
  void* data;
  char dtype;
  size_t begin, end;
  uint64_t salt; /* 0: NaN */
} FillJob;

static void* fill_range(void* arg) {
  FillJob const* job = arg;
  if (job->dtype == 's') {
    float* p = job->data;
    for (size_t i = job->begin; i < job->end; ++i) p[i] = job->salt ? (float)uniform_of(i, job->salt) : NAN;
  } else {
    double* p = job->data;
    for (size_t i = job->begin; i < job->end; ++i) p[i] = job->salt ? uniform_of(i, job->salt) : NAN;
  }
  return NULL;
}

static void fill(void* data, char dtype, size_t count, uint64_t salt, int threads) {
  enum { kMaxThreads = 512 };
  pthread_t ids[kMaxThreads];
  FillJob jobs[kMaxThreads];
  if (threads > kMaxThreads) threads = kMaxThreads;
  if (threads < 1 || count < (size_t)1 << 20) threads = 1;
  int started = 0;
  for (int t = 0; t < threads; ++t) {
    jobs[t] = (FillJob){data, dtype, count * (size_t)t / (size_t)threads, count * (size_t)(t + 1) / (size_t)threads, salt};
    if (t + 1 < threads && pthread_create(&ids[t], NULL, fill_range, &jobs[t]) == 0) {
      ++started;
    } else {
      fill_range(&jobs[t]);
    }
  }
  for (int t = 0; t < started; ++t) pthread_join(ids[t], NULL);
}

static int cpus_of_this_process(void) {
  cpu_set_t set;
  if (sched_getaffinity(0, sizeof(set), &set) == 0) return CPU_COUNT(&set);
  long const online = sysconf(_SC_NPROCESSORS_ONLN);
  return online > 0 ? (int)online : 1;
}

/* ---- the BLAS, its provider and the BLAS-like objects loaded -------------------------------- */

static int find_blas(Options const* opt, Blas* blas) {
  void* handle = RTLD_DEFAULT;
  if (opt->lib != NULL) {
    handle = dlopen(opt->lib, RTLD_NOW | RTLD_GLOBAL);
    if (handle == NULL) {
      fprintf(stderr, "dgemm_host: cannot load %s: %s\n", opt->lib, dlerror());
      return 0;
    }
  }
  char const* name = opt->dtype == 's' ? "sgemm_" : "dgemm_";
  void* fn = dlsym(handle, name);
  if (fn == NULL) {
    fprintf(stderr, "dgemm_host: no %s in %s: LD_PRELOAD a BLAS or pass --lib PATH\n", name,
            opt->lib ? opt->lib : "the process (nothing preloaded?)");
    return 0;
  }
  if (opt->dtype == 's') {
    memcpy(&blas->sgemm, &fn, sizeof(fn));
  } else {
    memcpy(&blas->dgemm, &fn, sizeof(fn));
  }
  Dl_info info;
  snprintf(blas->provider, sizeof(blas->provider), "%s",
           dladdr(fn, &info) != 0 && info.dli_fname != NULL ? info.dli_fname : "unknown");
  return 1;
}

typedef struct Loaded {
  char paths[kMaxLoaded][kPathMax];
  int count;
} Loaded;

/* Shared objects whose file name says blas, cublas or gemmkit: which libraries the call really
   went through (NVBLAS opens its CPU BLAS itself, after the process started). */
static int note_loaded(struct dl_phdr_info* info, size_t size, void* data) {
  (void)size;
  Loaded* loaded = data;
  char const* path = info->dlpi_name;
  if (path == NULL || *path == '\0') return 0;
  char const* base = strrchr(path, '/');
  base = base ? base + 1 : path;
  if ((strstr(base, "blas") || strstr(base, "gemmkit")) && loaded->count < kMaxLoaded) {
    char resolved[PATH_MAX];
    snprintf(loaded->paths[loaded->count++], kPathMax, "%s", realpath(path, resolved) ? resolved : path);
  }
  return 0;
}

/* OpenBLAS's core and build line, from whichever loaded object exports them. */
static void openblas_identity(Loaded const* loaded, char* core, size_t core_size, char* config, size_t config_size) {
  core[0] = config[0] = '\0';
  typedef char* text_fn(void);
  for (int i = -1; i < loaded->count && core[0] == '\0'; ++i) {
    void* handle = i < 0 ? RTLD_DEFAULT : dlopen(loaded->paths[i], RTLD_LAZY | RTLD_NOLOAD);
    if (handle == NULL) continue;
    void* corename = dlsym(handle, "openblas_get_corename");
    void* configname = dlsym(handle, "openblas_get_config");
    text_fn* fn;
    if (corename != NULL) {
      memcpy(&fn, &corename, sizeof(fn));
      snprintf(core, core_size, "%s", fn());
    }
    if (configname != NULL) {
      memcpy(&fn, &configname, sizeof(fn));
      snprintf(config, config_size, "%s", fn());
    }
    if (i >= 0) dlclose(handle);
  }
}

/* ---- JSON output ------------------------------------------------------------------------------ */

static void print_json_string(char const* s) {
  putchar('"');
  for (; *s; ++s) {
    unsigned char const c = (unsigned char)*s;
    if (c == '"' || c == '\\') printf("\\%c", c);
    else if (c < 0x20) printf("\\u%04x", c);
    else putchar(c);
  }
  putchar('"');
}

static void print_number(double x) {
  if (isfinite(x)) printf("%.7g", x);
  else printf("null");
}

static void print_common(Options const* opt, Blas const* blas, Shape s) {
  printf("{\"n\": %d, \"m\": %d, \"k\": %d, \"routine\": \"%cgemm_\", \"trans\": \"%c%c\", \"provider\": ", s.n, s.m,
         s.k, opt->dtype, opt->trans_a == 'N' ? 'n' : 't', opt->trans_b == 'N' ? 'n' : 't');
  print_json_string(blas->provider);
  printf(", \"fresh_c\": %s", opt->fresh_c ? "true" : "false");
}

static void print_loaded_and_close(Loaded const* loaded) {
  char core[128], config[512];
  openblas_identity(loaded, core, sizeof(core), config, sizeof(config));
  printf(", \"loaded_blas\": [");
  for (int i = 0; i < loaded->count; ++i) {
    if (i) printf(", ");
    print_json_string(loaded->paths[i]);
  }
  printf("], \"openblas_core\": ");
  if (core[0]) print_json_string(core);
  else printf("null");
  printf(", \"openblas_config\": ");
  if (config[0]) print_json_string(config);
  else printf("null");
  printf("}\n");
  fflush(stdout);
}

static void report_not_run(Options const* opt, Blas const* blas, Shape s, char const* status, char const* reason) {
  print_common(opt, blas, s);
  printf(", \"status\": \"%s\", \"reason\": ", status);
  print_json_string(reason);
  printf("}\n");
  fflush(stdout);
}

/* ---- the problem's storage, one call and the check ------------------------------------------ */

static int is_square(Shape s) { return s.m == s.n && s.n == s.k; }

/* "n=1024" for a square (as before shapes existed), else "8192x8192x32" (m x n x k). */
static char const* shape_label(Shape s, char* text, size_t size) {
  if (is_square(s)) snprintf(text, size, "n=%d", s.n);
  else snprintf(text, size, "%dx%dx%d", s.m, s.n, s.k);
  return text;
}

/* Dense column-major storage: A is m x k (lda = m), or k x m when transposed (lda = k); B is k x n
   (ldb = k), or n x k (ldb = n); C is m x n (ldc = m). */
typedef struct Storage {
  int lda, ldb, ldc;
  size_t count_a, count_b, count_c; /* elements */
} Storage;

static Storage storage_of(Options const* opt, Shape s) {
  Storage st;
  st.lda = opt->trans_a == 'N' ? s.m : s.k;
  st.ldb = opt->trans_b == 'N' ? s.k : s.n;
  st.ldc = s.m;
  st.count_a = (size_t)s.m * (size_t)s.k;
  st.count_b = (size_t)s.k * (size_t)s.n;
  st.count_c = (size_t)s.m * (size_t)s.n;
  return st;
}

static void call_gemm(Options const* opt, Blas const* blas, Shape s, Storage const* st, void const* a, void const* b,
                      void* c) {
  char const ta = opt->trans_a, tb = opt->trans_b;
  if (opt->dtype == 's') {
    float const alpha = 1.0f, beta = 0.0f;
    blas->sgemm(&ta, &tb, &s.m, &s.n, &s.k, &alpha, a, &st->lda, b, &st->ldb, &beta, c, &st->ldc, 1, 1);
  } else {
    double const alpha = 1.0, beta = 0.0;
    blas->dgemm(&ta, &tb, &s.m, &s.n, &s.k, &alpha, a, &st->lda, b, &st->ldb, &beta, c, &st->ldc, 1, 1);
  }
}

static inline long double element(void const* data, char dtype, size_t index) {
  return dtype == 's' ? (long double)((float const*)data)[index] : (long double)((double const*)data)[index];
}

/* Samples C(i,j) (the corners (0,0) and (m-1,n-1) first, then pseudo-random) and returns the largest
   normalized error, NaN when any sampled entry is not finite. */
static double max_sample_error(Options const* opt, Shape shape, Storage const* st, void const* a, void const* b,
                               void const* c) {
  size_t const lda = (size_t)st->lda, ldb = (size_t)st->ldb, ldc = (size_t)st->ldc, k = (size_t)shape.k;
  uint64_t state = opt->seed * 0x2545F4914F6CDD1Dull + 7;
  double worst = 0.0;
  for (int s = 0; s < opt->samples; ++s) {
    size_t i, j;
    if (s < 2) {
      i = s == 0 ? 0 : (size_t)shape.m - 1;
      j = s == 0 ? 0 : (size_t)shape.n - 1;
    } else {
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      i = (size_t)((state >> 33) % (uint64_t)shape.m);
      state = state * 6364136223846793005ull + 1442695040888963407ull;
      j = (size_t)((state >> 33) % (uint64_t)shape.n);
    }
    long double sum = 0, norm_a = 0, norm_b = 0;
    for (size_t l = 0; l < k; ++l) {
      /* A(i,l) and B(l,j) where op(A) and op(B) put them */
      long double const x = element(a, opt->dtype, opt->trans_a == 'N' ? i + l * lda : l + i * lda);
      long double const y = element(b, opt->dtype, opt->trans_b == 'N' ? l + j * ldb : j + l * ldb);
      sum += x * y;
      norm_a += x * x;
      norm_b += y * y;
    }
    long double const got = element(c, opt->dtype, i + j * ldc);
    if (!isfinite((double)got)) return NAN;
    long double const scale = sqrtl((long double)k + 2) * sqrtl(norm_a) * sqrtl(norm_b);
    double const err = (double)(fabsl(got - sum) / (scale > 0 ? scale : 1));
    if (err > worst) worst = err;
  }
  return worst;
}

static int compare_doubles(void const* x, void const* y) {
  double const a = *(double const*)x, b = *(double const*)y;
  return (a > b) - (a < b);
}

/* Runs one problem; returns its median seconds per call (0 when it did not run). rate is the flop/s
   of the problem done before (rate_of names it), 0 when none. */
static double run_problem(Options const* opt, Blas const* blas, Shape shape, Shape rate_of, double rate) {
  char label[64], rate_label[64];
  shape_label(shape, label, sizeof(label));
  double const flops = 2.0 * (double)shape.m * (double)shape.n * (double)shape.k;
  if (opt->max_call_seconds > 0 && rate > 0 && flops / rate > opt->max_call_seconds) {
    char reason[256];
    snprintf(reason, sizeof(reason), "predicted %.1f s per call at the %.1f GFLOP/s of %s (limit %g s, --max-call-seconds)",
             flops / rate, rate * 1e-9, shape_label(rate_of, rate_label, sizeof(rate_label)), opt->max_call_seconds);
    report_not_run(opt, blas, shape, "skipped", reason);
    fprintf(stderr, "dgemm_host: %s skipped: %s\n", label, reason);
    return 0;
  }
  Storage const st = storage_of(opt, shape);
  size_t const size = element_size(opt->dtype);
  size_t const bytes_a = st.count_a * size, bytes_b = st.count_b * size, bytes_c = st.count_c * size;
  void* a = malloc(bytes_a);
  void* b = malloc(bytes_b);
  void* c = opt->fresh_c ? NULL : malloc(bytes_c);
  if (a == NULL || b == NULL || (!opt->fresh_c && c == NULL)) {
    char reason[160];
    if (is_square(shape)) {
      snprintf(reason, sizeof(reason), "malloc of 3 x %.2f GB failed", (double)bytes_a * 1e-9);
    } else {
      snprintf(reason, sizeof(reason), "malloc of A, B, C (%.2f, %.2f, %.2f GB) failed", (double)bytes_a * 1e-9,
               (double)bytes_b * 1e-9, (double)bytes_c * 1e-9);
    }
    free(a), free(b), free(c);
    report_not_run(opt, blas, shape, "error", reason);
    return 0;
  }
  double const fill_start = now_seconds();
  fill(a, opt->dtype, st.count_a, opt->seed * 2 + 1, opt->threads);
  fill(b, opt->dtype, st.count_b, opt->seed * 2 + 2, opt->threads);
  if (c) fill(c, opt->dtype, st.count_c, 0, opt->threads);
  double const fill_seconds = now_seconds() - fill_start;

  /* Warm-ups: the library's first call at this problem (GPU context, pinning, workspaces), then any
     further ones; the last gives the rate the adaptive reps follow. */
  double warmup = 0, last_warmup = 0;
  for (int w = 0; w < opt->warmups; ++w) {
    void* warm_c = c ? c : malloc(bytes_c);
    if (warm_c == NULL) {
      free(a), free(b);
      report_not_run(opt, blas, shape, "error", "malloc of C failed");
      return 0;
    }
    double const warm_start = now_seconds();
    call_gemm(opt, blas, shape, &st, a, b, warm_c);
    last_warmup = now_seconds() - warm_start;
    if (w == 0) warmup = last_warmup;
    if (warm_c != c) free(warm_c);
  }

  int reps = opt->reps;
  if (reps <= 0) {
    double const fit = last_warmup > 0 ? opt->target_seconds / last_warmup : opt->max_reps;
    reps = fit >= opt->max_reps ? opt->max_reps : (int)fit;
    if (reps < opt->min_reps) reps = opt->min_reps;
  }
  double* times = malloc(sizeof(double) * (size_t)reps);
  int done = 0;
  while (times != NULL && done < reps) {
    if (opt->fresh_c) {
      free(c);
      c = malloc(bytes_c); /* untouched pages: the call pays their first touch, as under numpy */
      if (c == NULL) break;
    }
    double const start = now_seconds();
    call_gemm(opt, blas, shape, &st, a, b, c);
    times[done++] = now_seconds() - start;
  }
  if (done == 0 || c == NULL) {
    free(times), free(a), free(b), free(c);
    report_not_run(opt, blas, shape, "error", "malloc of C failed");
    return 0;
  }
  reps = done;
  double const err = c ? max_sample_error(opt, shape, &st, a, b, c) : NAN;
  double const threshold = 8.0 * (opt->dtype == 's' ? FLT_EPSILON : DBL_EPSILON);
  qsort(times, (size_t)reps, sizeof(double), compare_doubles);
  double const median = reps % 2 ? times[reps / 2] : 0.5 * (times[reps / 2 - 1] + times[reps / 2]);

  Loaded loaded = {.count = 0};
  dl_iterate_phdr(note_loaded, &loaded);
  print_common(opt, blas, shape);
  printf(", \"status\": \"ok\", \"seconds_median\": ");
  print_number(median);
  printf(", \"seconds_min\": ");
  print_number(times[0]);
  printf(", \"seconds_max\": ");
  print_number(times[reps - 1]);
  printf(", \"warmup_seconds\": ");
  print_number(warmup);
  printf(", \"warmups\": %d, \"reps\": %d, \"gflops\": ", opt->warmups, reps);
  print_number(flops / median * 1e-9);
  printf(", \"verified\": %s, \"max_rel_err\": ", isfinite(err) && err < threshold ? "true" : "false");
  print_number(err);
  printf(", \"err_threshold\": ");
  print_number(threshold);
  printf(", \"samples\": %d, \"fill_seconds\": ", opt->samples);
  print_number(fill_seconds);
  print_loaded_and_close(&loaded);
  fprintf(stderr, "dgemm_host: %s %.4g s median of %d (warm-up %.4g s), %.1f GFLOP/s, max err %.2g\n", label, median,
          reps, warmup, flops / median * 1e-9, err);
  free(times);
  free(a), free(b), free(c);
  return median;
}

/* ---- command line --------------------------------------------------------------------------- */

static void usage(FILE* to) {
  fprintf(to,
          "usage: dgemm_host [--sizes 1024,2048,...] [--shapes M:N:K,...] [--reps R] [--target-seconds S]\n"
          "                  [--min-reps R] [--max-reps R] [--warmups W] [--max-call-seconds S] [--dtype d|s]\n"
          "                  [--trans nn|nt|tn|tt] [--threads T] [--samples K] [--fresh-c] [--seed X] [--lib PATH]\n"
          "Times ?gemm_ of the BLAS the loader provides (LD_PRELOAD) or --lib PATH on malloc'd matrices; one JSON\n"
          "line per problem on stdout. --sizes n: squares (m = n = k); --shapes M:N:K: C is M x N, the inner\n"
          "dimension K; both may be given, repeatedly, and run in that order (default --sizes 1024,2048,4096).\n"
          "--reps 0 (default): as many as fit in --target-seconds (default 3) at the last warm-up's rate, at least\n"
          "--min-reps (2), at most --max-reps (10). --warmups (1): untimed calls first. --fresh-c: a new untouched\n"
          "C per call (numpy.dot).\n");
}

/* Each matrix's element count fits in an int (n <= 46340 for a square), as BLAS libraries with
   32-bit indexing need. */
static int add_shape(Options* opt, long m, long n, long k) {
  if (m <= 0 || n <= 0 || k <= 0 || m > INT_MAX || n > INT_MAX || k > INT_MAX) return 0;
  if (m * k > INT_MAX || k * n > INT_MAX || m * n > INT_MAX || opt->shape_count == kMaxShapes) return 0;
  opt->shapes[opt->shape_count++] = (Shape){(int)m, (int)n, (int)k};
  return 1;
}

/* "1024,2048": squares; "8192:8192:32,8192:64:8192" (shapes = 1): M:N:K triples. Appends. */
static int parse_problems(char const* text, Options* opt, int shapes) {
  char const* p = text;
  int added = 0;
  while (*p) {
    long dims[3];
    int const want = shapes ? 3 : 1;
    for (int d = 0; d < want; ++d) {
      char* end;
      dims[d] = strtol(p, &end, 10);
      if (end == p) return 0;
      p = end;
      if (d + 1 < want) {
        if (*p != ':') return 0;
        ++p;
      }
    }
    if (!shapes) dims[1] = dims[2] = dims[0];
    if (!add_shape(opt, dims[0], dims[1], dims[2])) return 0;
    ++added;
    if (*p != '\0' && *p != ',' && *p != ' ') return 0;
    while (*p == ',' || *p == ' ') ++p;
  }
  return added > 0;
}

static int parse_options(int argc, char** argv, Options* opt) {
  *opt = (Options){.shape_count = 0, .reps = 0, .min_reps = 2, .max_reps = 10, .warmups = 1, .target_seconds = 3.0,
                   .max_call_seconds = 0, .dtype = 'd', .trans_a = 'N', .trans_b = 'N', .threads = 0, .samples = 64,
                   .fresh_c = 0, .seed = 1, .lib = NULL};
  for (int i = 1; i < argc; ++i) {
    char const* arg = argv[i];
    char const* value = i + 1 < argc ? argv[i + 1] : NULL;
#define OPTION(name) (strcmp(arg, name) == 0 && value != NULL && ++i)
    if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
      usage(stdout);
      exit(0);
    } else if (strcmp(arg, "--fresh-c") == 0) {
      opt->fresh_c = 1;
    } else if (OPTION("--sizes")) {
      if (!parse_problems(value, opt, 0)) return 0;
    } else if (OPTION("--shapes")) {
      if (!parse_problems(value, opt, 1)) return 0;
    } else if (OPTION("--reps")) {
      opt->reps = atoi(value);
    } else if (OPTION("--min-reps")) {
      opt->min_reps = atoi(value);
    } else if (OPTION("--max-reps")) {
      opt->max_reps = atoi(value);
    } else if (OPTION("--warmups")) {
      opt->warmups = atoi(value);
    } else if (OPTION("--target-seconds")) {
      opt->target_seconds = atof(value);
    } else if (OPTION("--max-call-seconds")) {
      opt->max_call_seconds = atof(value);
    } else if (OPTION("--dtype")) {
      if (strcmp(value, "d") != 0 && strcmp(value, "s") != 0) return 0;
      opt->dtype = value[0];
    } else if (OPTION("--trans")) {
      if (strlen(value) != 2 || !strchr("nNtT", value[0]) || !strchr("nNtT", value[1])) return 0;
      opt->trans_a = (value[0] == 'n' || value[0] == 'N') ? 'N' : 'T';
      opt->trans_b = (value[1] == 'n' || value[1] == 'N') ? 'N' : 'T';
    } else if (OPTION("--threads")) {
      opt->threads = atoi(value);
    } else if (OPTION("--samples")) {
      opt->samples = atoi(value);
    } else if (OPTION("--seed")) {
      opt->seed = strtoull(value, NULL, 10);
    } else if (OPTION("--lib")) {
      opt->lib = value;
    } else {
      fprintf(stderr, "dgemm_host: unknown or incomplete option '%s'\n", arg);
      return 0;
    }
#undef OPTION
  }
  if (opt->shape_count == 0) parse_problems("1024,2048,4096", opt, 0);
  if (opt->min_reps < 1) opt->min_reps = 1;
  if (opt->warmups < 1) opt->warmups = 1;
  if (opt->max_reps < opt->min_reps) opt->max_reps = opt->min_reps;
  if (opt->samples < 2) opt->samples = 2;
  if (opt->threads <= 0) opt->threads = cpus_of_this_process();
  return 1;
}

int main(int argc, char** argv) {
  Options opt;
  if (!parse_options(argc, argv, &opt)) {
    usage(stderr);
    return 2;
  }
  Blas blas = {0};
  if (!find_blas(&opt, &blas)) return 1;
  fprintf(stderr, "dgemm_host: %cgemm_ from %s\n", opt.dtype, blas.provider);
  double rate = 0; /* flop/s of the last problem done */
  Shape rate_of = {0, 0, 0};
  for (int i = 0; i < opt.shape_count; ++i) {
    Shape const shape = opt.shapes[i];
    double const seconds = run_problem(&opt, &blas, shape, rate_of, rate);
    if (seconds > 0) rate = 2.0 * (double)shape.m * (double)shape.n * (double)shape.k / seconds, rate_of = shape;
  }
  return 0;
}
