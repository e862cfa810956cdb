/*! \file
    \brief gemmkit C API: dense GEMM with BLAS semantics on host or device pointers.

    C := alpha * op(A) * op(B) + beta * C, op(X) in {X, X^T, X^H}. All sizes, leading
    dimensions and strides are 64-bit. Every call returns a status; on GK_INVALID_ARGUMENT
    the context records the BLAS parameter index (CBLAS numbering: 1 = layout, 2 = transa,
    3 = transb, 4 = m, 5 = n, 6 = k, 9 = lda, 11 = ldb, 14 = ldc) and a message, and nothing
    is written.
*/
#pragma once

#include <stddef.h>
#include <stdint.h>

/* C++ sees the enums with int as their fixed underlying type, so a C caller's out-of-range value
   (which the argument checks must be able to reject) is a valid value to hold, not undefined. */
#ifdef __cplusplus
#define GK_ENUM(name) enum name : int
#else
#define GK_ENUM(name) enum name
#endif

#ifdef __cplusplus
extern "C" {
#endif

typedef GK_ENUM(gk_status) {
  GK_SUCCESS = 0,
  GK_INVALID_ARGUMENT = 1,   ///< a BLAS argument rule is broken; see gk_error_parameter()
  GK_NOT_SUPPORTED = 2,      ///< valid call the selected backend cannot run (e.g. mixed pointers)
  GK_NO_DEVICE = 3,          ///< a GPU was required but none is usable
  GK_CUDA_ERROR = 4,         ///< the CUDA runtime reported an error; see gk_last_error()
  GK_ALLOCATION_FAILED = 5,  ///< host or device memory could not be obtained
  GK_INTERNAL_ERROR = 6,
  GK_NOT_IMPLEMENTED = 7     ///< declared API whose implementation lands with a later issue
} gk_status;

typedef GK_ENUM(gk_layout) { GK_COL_MAJOR = 0, GK_ROW_MAJOR = 1 } gk_layout;

typedef GK_ENUM(gk_op) {
  GK_OP_N = 0,  ///< op(X) = X
  GK_OP_T = 1,  ///< op(X) = X^T
  GK_OP_C = 2   ///< op(X) = X^H (equals X^T for real data)
} gk_op;

typedef GK_ENUM(gk_backend) {
  GK_BACKEND_AUTO = 0,  ///< by pointer location: device pointers -> GPU, host pointers -> CPU
  GK_BACKEND_CPU = 1,   ///< host pointers only, computed on the CPU
  GK_BACKEND_GPU = 2    ///< on the GPU only: device pointers in place, host pointers through the host-resident pipeline
} gk_backend;

/// What the host-resident GEMM may assume about host operands (gk_set_host_memory).
typedef GK_ENUM(gk_host_memory) {
  GK_HOST_MEMORY_AUTO = 0,     ///< ask the CUDA runtime, per operand, whether it is page-locked
  GK_HOST_MEMORY_PINNED = 1,   ///< the caller promises page-locked operands: no query per call
  GK_HOST_MEMORY_PAGEABLE = 2  ///< stage every operand through gemmkit's pinned buffers (even pinned ones)
} gk_host_memory;

/// FP64 GEMM on the INT8 tensor cores (the Ozaki scheme II, docs/emulation.md), for double-precision
/// GEMMs on device pointers and the host-resident pipeline's blocks. Off by default.
typedef GK_ENUM(gk_fp64_emulation) {
  GK_FP64_EMULATION_OFF = 0,  ///< native FP64 only
  GK_FP64_EMULATION_ON = 1,   ///< emulated wherever the scheme applies (finite inputs, k < 2^17)
  GK_FP64_EMULATION_AUTO = 2  ///< emulated only where the GPU's machine description measured it faster,
                              ///< with the accurate scaling's per-element bound (else native)
} gk_fp64_emulation;

/// How the emulation scales the operands and proves its accuracy (docs/emulation.md).
typedef GK_ENUM(gk_fp64_emulation_scaling) {
  GK_FP64_EMULATION_SCALING_DEFAULT = 0,  ///< fast under GK_FP64_EMULATION_ON, accurate under _AUTO
  GK_FP64_EMULATION_SCALING_FAST = 1,     ///< bits from each row's and column's largest magnitude and spread
  /// One more INT8 GEMM, of the magnitudes quantized to 7 bits, bounds every element of |A||B|: the bits
  /// are those that keep each element within 2^-49 (|A||B|)_ij, and the moduli those the bound needs
  /// (fewer for long k and spread inputs). Inputs no plan carries run natively.
  GK_FP64_EMULATION_SCALING_ACCURATE = 2
} gk_fp64_emulation_scaling;

/// Every call takes a context; NULL stands for the calling thread's default context (created on the
/// thread's first use with gk_create's defaults, freed when the thread ends), settings and errors included.
typedef struct gk_context_st* gk_context;

/// Creates a context on the current CUDA device (or a CPU-only context when no GPU exists).
gk_status gk_create(gk_context* ctx);
/// Frees the context. When it holds a device workspace on a stream other than the legacy default
/// stream, it first waits for the device (the stream may be gone already), as cublasDestroy does.
gk_status gk_destroy(gk_context ctx);

/// The CUDA stream (cudaStream_t) GPU work is queued on; NULL is the legacy default stream.
/// Calls that need a device workspace (split-K) keep it on the context for the next call on the same
/// stream; changing the stream (or device) frees it stream-ordered on the previous stream, so set the
/// new stream before destroying the previous one.
gk_status gk_set_stream(gk_context ctx, void* stream);
gk_status gk_get_stream(gk_context ctx, void** stream);
gk_status gk_set_device(gk_context ctx, int device);
gk_status gk_get_device(gk_context ctx, int* device);
/// Upper bound on device memory gemmkit may allocate for workspaces and staging (0 = no limit). For
/// the host-resident GEMM it bounds the panels and C blocks held on each device it uses (0: 90% of
/// the device's free memory); a smaller budget means smaller tiles and more traffic.
gk_status gk_set_device_memory_budget(gk_context ctx, size_t bytes);
gk_status gk_get_device_memory_budget(gk_context ctx, size_t* bytes);
gk_status gk_set_backend(gk_context ctx, gk_backend backend);
/// 0 = silent, 1 = notes (e.g. "no device: CPU path"), 2 = every dispatch decision. Printed to stderr.
gk_status gk_set_verbosity(gk_context ctx, int level);
/// Forces a registered variant by id (NULL or "" restores table-driven selection).
gk_status gk_set_variant(gk_context ctx, const char* variant_id);
/// Id of the variant that ran the last successful call on this context ("" if none).
const char* gk_last_variant(gk_context ctx);
/// What the variant of the last successful call reported at verbosity 2 ("" when nothing): for an FP64
/// emulation its moduli, bits, the inputs' spread and milliseconds per phase. Never NULL.
const char* gk_last_call_report(gk_context ctx);

/* Host-resident GEMM (seed 004). gk_dgemm / gk_sgemm with A, B and C in host memory run on the
   GPU(s) when a GPU is usable and m*n*k reaches the crossover (gk_set_host_gemm_min_work), or for
   any size when the backend is GK_BACKEND_GPU; smaller calls (and the GK_BACKEND_CPU policy) stay
   on the CPU, and host calls below the lowest crossover gemmkit knows start no CUDA. C is cut into
   blocks that fit the device-memory budget; panels of A and B stream to the devices while earlier
   blocks compute and finished blocks stream back. The call is synchronous and its result is the
   same bit for bit on every run with the same options. The context keeps its device buffers and
   pinned staging buffers between calls; gk_destroy frees them. Strided and pointer-array batches
   of host matrices are not sent to the GPU. */

/// From how much work (m*n*k) host operands go to the host-resident GEMM under GK_BACKEND_AUTO. A
/// negative value (the default) means the crossover measured for the context's GPU against its
/// host's CPU BLAS, kept in its machine description (introspect.h, gk_machine: host_gemm_min_work,
/// and host_gemm_min_k, the smallest k for which the GPU wins; the default description's for a GPU
/// gemmkit has not measured). A value set here is the whole rule (no k bound); 0 sends every host
/// call to the GPU.
gk_status gk_set_host_gemm_min_work(gk_context ctx, double work);
/// The crossover in force: the context's setting, else its GPU's (GK_NO_DEVICE without a usable GPU).
gk_status gk_get_host_gemm_min_work(gk_context ctx, double* work);
/// GPUs the host-resident GEMM uses: count entries of devices (an entry may repeat: two workers
/// share that device). count = 0 (devices may be NULL) restores the default, the context's device.
/// Each device takes blocks of C from a shared queue with its own streams and buffers.
gk_status gk_set_host_gemm_devices(gk_context ctx, const int* devices, int count);
/// Pipeline level 1..4 (default 4), the seed's algorithms: 1 serial (load, compute, copy back); 2
/// C blocks double-buffered, copy-back overlapping the next block; 3 panels of A and B reused
/// between consecutive blocks and loaded while the previous block computes; 4 the last K chunk of a
/// block computed in column sub-blocks, each copied back while the next computes.
gk_status gk_set_host_gemm_pipeline(gk_context ctx, int level);
/// How host operands are moved (default GK_HOST_MEMORY_AUTO). Pageable memory is copied by CPU
/// threads through a ring of pinned buffers while the DMA engines move the previous ones; gemmkit
/// never page-locks the caller's matrices.
gk_status gk_set_host_memory(gk_context ctx, gk_host_memory hint);
/// 1: the CPU computes the last columns of C through the CPU BLAS while the GPUs run the rest (the
/// seed's hybrid); the split follows the rates measured on this context's earlier calls and is kept
/// once both sides finish within 5% of each other, so results settle to the same bits. 0 (default):
/// GPUs only, the same bits on every call.
gk_status gk_set_cpu_share(gk_context ctx, int enabled);

/// Whether double-precision GEMMs may run emulated on the INT8 tensor cores: on device pointers, and on
/// host operands the blocks of the host-resident GEMM. A new context takes GEMMKIT_FP64_EMULATION from
/// the environment (off, on or auto), else off. Inputs holding Inf or NaN always run natively (verbosity 2
/// says so); a forced variant wins over this.
gk_status gk_set_fp64_emulation(gk_context ctx, gk_fp64_emulation mode);
gk_status gk_get_fp64_emulation(gk_context ctx, gk_fp64_emulation* mode);
/// Bits each scaled operand element keeps under emulation: 0 (default) for as many as the inputs need
/// to be as accurate as FP64 GEMM (measured per call from their spread; inputs that would need more
/// than the scheme carries run natively, verbosity 2 says why), or 8..62 for that error bound
/// (docs/emulation.md) whatever the inputs. Fewer bits need fewer INT8 GEMMs.
gk_status gk_set_fp64_emulation_bits(gk_context ctx, int bits);
/// The emulation's scaling (default GK_FP64_EMULATION_SCALING_DEFAULT).
gk_status gk_set_fp64_emulation_scaling(gk_context ctx, gk_fp64_emulation_scaling scaling);

/// Message of the last failed call on this context ("" after a success). Never NULL.
const char* gk_last_error(gk_context ctx);
/// BLAS parameter index of the last GK_INVALID_ARGUMENT (0 if none).
int gk_error_parameter(gk_context ctx);
const char* gk_status_string(gk_status status);

/// 1 when gemmkit was built with CUDA and a device is usable, else 0.
int gk_gpu_available(void);

gk_status gk_dgemm(gk_context ctx, gk_layout layout, gk_op transa, gk_op transb, int64_t m, int64_t n,
                   int64_t k, double alpha, const double* A, int64_t lda, const double* B, int64_t ldb,
                   double beta, double* C, int64_t ldc);

gk_status gk_sgemm(gk_context ctx, gk_layout layout, gk_op transa, gk_op transb, int64_t m, int64_t n,
                   int64_t k, float alpha, const float* A, int64_t lda, const float* B, int64_t ldb,
                   float beta, float* C, int64_t ldc);

/// Strided batch: problem i uses A + i*stride_a, B + i*stride_b, C + i*stride_c. A stride of 0 for
/// A or B broadcasts that operand; stride_c must keep the C windows disjoint: one after another, or
/// interleaved within ldc ((batch-1)*stride_c + a line's length <= ldc); empty windows (m or n = 0)
/// take any stride. Sizes, leading dimensions and strides are 64-bit everywhere; an operand whose end
/// would lie past 2^59 elements (a product that leaves 64 bits) is an argument error.
/// Parameter indices follow the argument order: 9 = lda, 10 = stride_a, 12 = ldb, 13 = stride_b,
/// 16 = ldc, 17 = stride_c, 18 = batch.
gk_status gk_dgemm_strided_batched(gk_context ctx, gk_layout layout, gk_op transa, gk_op transb,
                                   int64_t m, int64_t n, int64_t k, double alpha, const double* A,
                                   int64_t lda, int64_t stride_a, const double* B, int64_t ldb,
                                   int64_t stride_b, double beta, double* C, int64_t ldc,
                                   int64_t stride_c, int64_t batch);
gk_status gk_sgemm_strided_batched(gk_context ctx, gk_layout layout, gk_op transa, gk_op transb,
                                   int64_t m, int64_t n, int64_t k, float alpha, const float* A,
                                   int64_t lda, int64_t stride_a, const float* B, int64_t ldb,
                                   int64_t stride_b, float beta, float* C, int64_t ldc,
                                   int64_t stride_c, int64_t batch);

/// Pointer-array batch: problem i uses A_array[i], B_array[i], C_array[i]. The three arrays live
/// all in host memory or all in device memory (mixed: GK_NOT_SUPPORTED, nothing written).
///  - Host arrays: the matrices they point to are all on the host or all on one device; every entry
///    is checked before any problem runs (a NULL entry fails, naming its problem, and no C is written). The small batched GPU kernel gets a copy
///    of the arrays on the device, made per call.
///  - Device arrays (what cublas?gemmBatched takes): the matrices are device matrices on the
///    context's device. The host cannot read the entries, so they are not checked: each must be a
///    valid device pointer, as in cuBLAS. With m, n, k <= 32 the small batched GPU kernel reads the
///    arrays in place (one launch on the context's stream, no copy, no workspace); k = 0 or alpha = 0
///    is one C = beta*C launch. Any other batch (a size above 32, or a forced variant that takes no
///    arrays) copies the arrays to the host, waiting for the stream, and runs problem by problem:
///    correct but slow (verbosity 2 says so).
/// Parameter indices: 8 = A_array, 10 = B_array, 13 = C_array, 15 = batch.
gk_status gk_dgemm_batched(gk_context ctx, gk_layout layout, gk_op transa, gk_op transb, int64_t m,
                           int64_t n, int64_t k, double alpha, const double* const* A_array,
                           int64_t lda, const double* const* B_array, int64_t ldb, double beta,
                           double* const* C_array, int64_t ldc, int64_t batch);
gk_status gk_sgemm_batched(gk_context ctx, gk_layout layout, gk_op transa, gk_op transb, int64_t m,
                           int64_t n, int64_t k, float alpha, const float* const* A_array,
                           int64_t lda, const float* const* B_array, int64_t ldb, float beta,
                           float* const* C_array, int64_t ldc, int64_t batch);

/// Grouped (Batched-BLAS style): group g has group_size[g] problems sharing transa[g] ... ldc[g];
/// problems are numbered consecutively across groups and use A_array[p], B_array[p], C_array[p].
/// The per-group arrays (transa ... ldc, alpha, beta, group_size) and info are host memory; A_array,
/// B_array and C_array are host or device memory as for gk_?gemm_batched. The layout is checked
/// first (reference CBLAS order), then every group's arguments and, with host arrays, every entry and
/// each group's matrices' location, before any group runs: a rejected call writes no C and sets every
/// problem's info to its status. Each group then runs as one pointer-array batch. info (may be NULL)
/// receives one status per problem, its group's; filling it is one host store per problem. The call
/// returns the first failure. As in every
/// batch, the problems are independent and may run concurrently (a group's kernel may start while
/// the previous group's drains): no problem's C may overlap another problem's A, B or C.
gk_status gk_dgemm_grouped(gk_context ctx, gk_layout layout, const gk_op* transa, const gk_op* transb,
                           const int64_t* m, const int64_t* n, const int64_t* k, const double* alpha,
                           const double* const* A_array, const int64_t* lda,
                           const double* const* B_array, const int64_t* ldb, const double* beta,
                           double* const* C_array, const int64_t* ldc, int64_t group_count,
                           const int64_t* group_size, gk_status* info);
gk_status gk_sgemm_grouped(gk_context ctx, gk_layout layout, const gk_op* transa, const gk_op* transb,
                           const int64_t* m, const int64_t* n, const int64_t* k, const float* alpha,
                           const float* const* A_array, const int64_t* lda,
                           const float* const* B_array, const int64_t* ldb, const float* beta,
                           float* const* C_array, const int64_t* ldc, int64_t group_count,
                           const int64_t* group_size, gk_status* info);

/// Zero-fills a strided batch in host memory (problem b at data + b*stride_bytes, bytes_per_problem
/// each) with the thread partition the batched CPU kernels use (OpenMP static schedule, the current
/// thread count), so each problem's pages are first touched, and placed, on the NUMA node of the
/// thread that will compute it. Call it on freshly allocated batches before filling them.
gk_status gk_first_touch_batch(void* data, int64_t bytes_per_problem, int64_t stride_bytes, int64_t batch);

#ifdef __cplusplus
}  // extern "C"
#endif
