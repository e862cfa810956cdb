/*! \file
    \brief gemmkit introspection C API, for tools: the registered variants, the selection table, the
    performance model's bounds and rankings, the machine descriptions, and the CPU facts gemmkit runs on.

    A variant is run by forcing its id on a context (gk_set_variant in gemmkit.h) and making the
    normal gk_* call; this header only says which ids exist and what is known about them. Every
    string it hands out is owned by the library and lives as long as the process.
*/
#pragma once

#include <gemmkit/gemmkit.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef GK_ENUM(gk_dtype) { GK_DTYPE_F32 = 0, GK_DTYPE_F64 = 1 } gk_dtype;

/// What a registered variant is. (The tuners' candidates are not registered yet: a kind for them
/// comes with them.)
typedef GK_ENUM(gk_variant_kind) {
  GK_VARIANT_GEMM = 0,       ///< a gemmkit kernel (plain, batched or grouped GEMM)
  GK_VARIANT_LADDER = 1,     ///< a step of the seeds' optimisation ladder, kept as a regression baseline
  GK_VARIANT_PEER = 2,       ///< another library registered as a baseline (cuBLAS, OpenBLAS, ...)
  GK_VARIANT_REFERENCE = 3   ///< the higher-precision host reference, for checks
} gk_variant_kind;

/// One registered variant.
typedef struct gk_variant_info {
  const char* id;           ///< spells the config, e.g. "dgemm_ladder02_tiled16"; the name gk_set_variant takes
  const char* summary;      ///< one line for listings
  gk_dtype dtype;
  gk_backend backend;       ///< GK_BACKEND_CPU or GK_BACKEND_GPU
  gk_variant_kind kind;
  int min_sm;               ///< lowest compute capability (major*10+minor) of a GPU variant, 0 for CPU ones
  int selectable;           ///< 1 when a row of the selection table names it (it runs unforced), else 0
  int pointer_array;        ///< 1 when it runs pointer-array (gk_?gemm_batched) problems in one call
} gk_variant_info;

/// How many variants this build registered (at least the CPU ones).
int64_t gk_variant_count(void);

/// The variant at `index` (0 <= index < gk_variant_count(), in registration order), else
/// GK_INVALID_ARGUMENT.
gk_status gk_variant_at(int64_t index, gk_variant_info* info);

/// The variant named `id`, else GK_INVALID_ARGUMENT.
gk_status gk_variant_find(const char* id, gk_variant_info* info);

/// GK_SUCCESS when variant `id` can run the column-major problem (m, n, k, leading dimensions,
/// transposes, a strided batch of `batch`), GK_NOT_SUPPORTED when it cannot, GK_INVALID_ARGUMENT for
/// an unknown id. The gk_* call with the variant forced answers the same, after the argument checks.
gk_status gk_variant_can_implement(const char* id, gk_op transa, gk_op transb, int64_t m, int64_t n, int64_t k,
                                   int64_t lda, int64_t ldb, int64_t ldc, int64_t batch);

/// Which leading dimensions a selection rule admits.
typedef GK_ENUM(gk_alignment) {
  GK_ALIGNMENT_ANY = 0,
  GK_ALIGNMENT_ALIGNED = 1,    ///< leading dimensions and strides in whole 16-byte units
  GK_ALIGNMENT_MISALIGNED = 2  ///< at least one not
} gk_alignment;

/// One row of the selection table (src/variants/selection_table.csv). A bound of 0 means none.
typedef struct gk_selection_rule_info {
  gk_backend backend;       ///< GK_BACKEND_CPU or GK_BACKEND_GPU
  gk_dtype dtype;
  double min_work, max_work;  ///< m*n*k*batch at least / at most
  int min_work_from_machine;  ///< 1: the bound is the GPU's crossover (gk_machine host_gemm_min_work, _min_k); min_work reads 0
  double max_mn;            ///< m*n at most
  double min_k, max_k;      ///< k at least / at most
  double min_side;          ///< min(m, n) at least
  double min_wave_eff;      ///< the variant's wave efficiency on the selecting GPU at least
  gk_alignment alignment;
  const char* trans;        ///< "nn", "nt", "tn", "tt" (A then B) or "*"
  const char* variant_id;   ///< may name a variant this build did not register: the row is then skipped
} gk_selection_rule_info;

/// Where a gk_dgemm (dtype GK_DTYPE_F64) or gk_sgemm call would run on this context.
typedef struct gk_gemm_plan_info {
  const char* variant;  ///< the variant's id; "" when nothing runs (m or n = 0), "scale_c" for C = beta*C alone
  int on_gpu;           ///< 1 when it computes on a GPU: device operands, or host ones through the pipeline
  int host_resident;    ///< 1 for host operands through the host-resident GPU pipeline
} gk_gemm_plan_info;

/// Finds what gk_dgemm / gk_sgemm would do with these arguments on this context, as the call finds
/// it (argument checks with gk_dgemm's parameter indices, pointer locations, backend policy, the forced
/// variant or the selection table), without reading or writing any matrix. alpha only tells
/// whether A and B would be read.
gk_status gk_gemm_plan(gk_context ctx, gk_dtype dtype, gk_layout layout, gk_op transa, gk_op transb, int64_t m,
                       int64_t n, int64_t k, double alpha, const void* A, int64_t lda, const void* B, int64_t ldb,
                       const void* C, int64_t ldc, gk_gemm_plan_info* plan);

/// How many rows the selection table has.
int64_t gk_selection_rule_count(void);

/// The row at `index` (0 <= index < gk_selection_rule_count(), in the order rows are tried: the
/// first that admits a problem wins), else GK_INVALID_ARGUMENT.
gk_status gk_selection_rule(int64_t index, gk_selection_rule_info* info);

/// What the performance model knows of a GPU: the measured or built-in rates it bounds kernels with.
typedef struct gk_machine {
  char name[128];
  char source[256];                  ///< where the numbers come from (anchors, or a micro-benchmark run)
  int sm_count;
  double sm_clock_hz;
  double fp64_gemm_flops;            ///< the best DGEMM measured (cuBLAS or gemmkit): the %-of-peak reference
  double fp32_gemm_flops;
  double fp64_tensor_flops;          ///< mma.sync m16n8k16 .f64, whole device
  double fp64_fma_flops, fp32_fma_flops;
  double dram_bytes_per_s;           ///< device copy bandwidth (read + write)
  double l2_bytes_per_s;
  double h2d_pinned_bytes_per_s, d2h_pinned_bytes_per_s, bidirectional_pinned_bytes_per_s;
  double h2d_pageable_bytes_per_s, d2h_pageable_bytes_per_s;
  double host_h2d_bytes_per_s, host_d2h_bytes_per_s;  ///< host memory read / written by the copies
  double smem_bytes_per_s;           ///< shared memory, whole device
  /// Latencies (cycles) the model's terms use; 0 = not in the description (no such term).
  double lds64_latency_cycles, dmma_latency_cycles, l2_load_latency_cycles, barrier_latency_cycles;
  /// Energy above the idle draw and the board's power limit; 0 = not measured (no power ceiling).
  double dmma_energy_j_per_flop, l2_energy_j_per_byte, smem_energy_j_per_byte;
  double power_limit_w, idle_power_w;
  /// Host operands from this much work (m*n*k) on, with k at least host_gemm_min_k, go to
  /// the host-resident GPU pipeline: the crossover against the host's CPU BLAS measured on that
  /// machine (0 = not measured).
  double host_gemm_min_work, host_gemm_min_k;
} gk_machine;

/// The description the model uses when given none: the built-in H100 SXM anchors.
gk_status gk_machine_default(gk_machine* machine);

/// The built-in description of a GPU gemmkit has measured, by the name the CUDA runtime reports and
/// its multiprocessor count; GK_NOT_SUPPORTED for a GPU it has none for.
gk_status gk_machine_builtin(const char* gpu_name, int sm_count, gk_machine* machine);

/// A description measured by `gemmkit-bench micro --machine-out` (a flat JSON object) from `path`;
/// GK_INVALID_ARGUMENT when it cannot be read (gk_introspect_error() says why).
gk_status gk_machine_load(const char* path, gk_machine* machine);

/// The model's bound for variant `id` at m x n x k on `machine`: flop/s in `flops`, and in `limiter`
/// (may be NULL; valid until the next call on this thread) the ceiling that sets it. The model also
/// reads what gk_machine leaves out (latencies, limits): `machine` is NULL (the built-in H100 SXM),
/// one gk_machine_builtin filled, or the one gk_machine_load last filled on this thread, whose whole
/// description is used. GK_NOT_SUPPORTED for a variant the model has no form of (CPU variants,
/// peers, the ladder's SIMT steps), GK_INVALID_ARGUMENT for an unknown id.
gk_status gk_variant_bound(const char* id, const gk_machine* machine, int64_t m, int64_t n, int64_t k,
                           double* flops, const char** limiter);

/// The compiled kernels' resources (registers, spills, main-loop instructions per instance) read
/// from a bench/sass_spills.py file; opaque, freed by gk_kernel_resources_free.
typedef struct gk_kernel_resources gk_kernel_resources;

/// Reads the resources file at `path` into `*resources`; GK_INVALID_ARGUMENT when it cannot be
/// read (gk_introspect_error() says why).
gk_status gk_kernel_resources_load(const char* path, gk_kernel_resources** resources);

/// Frees what gk_kernel_resources_load made; NULL is ignored.
void gk_kernel_resources_free(gk_kernel_resources* resources);

/// The model's view of one registered tile config (plain form, dense NN instance) at one shape.
typedef struct gk_model_bound {
  const char* id;                 ///< its registry id; registered only when built (see GEMMKIT_BUILD_ALL_CONFIGS)
  int simt;                       ///< 1: an FP32 SIMT config (the SIMT model); 0: a tensor-core config
  int compiled;                   ///< 1 when the resources had this config's instance
  int registers;                  ///< per thread: compiled, else 0 (tensor-core) or the SIMT model's estimate
  int registers_estimated;        ///< 1 when `registers` is the SIMT model's estimate
  int loop_fma, loop_instructions;  ///< SIMT: the compiled main loop's FMAs and instructions, 0 when unknown
  int warps_per_sm;
  int copy_bytes;                 ///< bytes per copy of A in the instance modelled (16, or one element)
  double spill_bytes_per_k_tile;  ///< tensor-core: local-memory traffic per k-tile
  double l2_bytes_per_flop;
  double l2_flops, smem_flops;    ///< the L2 and shared-memory ceilings
  double power_flops;             ///< tensor-core: the power ceiling, reported only; 0 without energies
  double wave_efficiency, latency_efficiency;  ///< tensor-core
  double flops;                   ///< the bound
  const char* limiter;            ///< the ceiling that sets it; valid until the next gk_model_rank on this thread
} gk_model_bound;

/// The model's bounds for the registered tile configs of `dtype` at m x n x k: for GK_DTYPE_F64
/// the FP64 tensor-core configs, best first (ties in registration order); for GK_DTYPE_F32 the FP32
/// tensor-core configs best first, then the SIMT configs in registration order. `machine` is read as
/// gk_variant_bound reads it; `resources` (may be NULL) sets each instance's registers and spills.
/// Writes the first `capacity` into `bounds` (may be NULL when capacity is 0) and how many there
/// are into `count`. GK_NOT_SUPPORTED in a build without CUDA.
gk_status gk_model_rank(gk_dtype dtype, const gk_machine* machine, const gk_kernel_resources* resources, int64_t m,
                        int64_t n, int64_t k, gk_model_bound* bounds, int64_t capacity, int64_t* count);

/// The CPU facts the CPU path depends on.
typedef struct gk_cpu_info {
  const char* tuning_key;   ///< whose rows of the CPU tuning tables run here ("zen4", "generic", ...)
  const char* blas;         ///< the CPU BLAS behind the large-GEMM path: "OpenBLAS <core> (<config>)"
  const char* blas_hint;    ///< "" or how to make that BLAS use this CPU's vector units
  const char* fma_vectors;  ///< what gk_cpu_fma_peak runs on: "zmm (AVX-512)", "ymm (AVX2)" or ""
  int avx2_fma;
  int avx512;
} gk_cpu_info;

gk_status gk_cpu_info_get(gk_cpu_info* info);

/// This CPU's FMA throughput, measured (about 0.2 s): flop/s of `threads` threads, each running
/// independent FMA chains on the vectors gk_cpu_info's fma_vectors names. No kernel on these
/// threads exceeds it. GK_NOT_SUPPORTED on a CPU with neither AVX-512 nor AVX2 with FMA.
gk_status gk_cpu_fma_peak(gk_dtype dtype, int threads, double* flops);

/// The current SM clock (MHz) of the GPU at `pci_bus_id` (cudaDeviceGetPCIBusId's form), read
/// through NVML when it is installed; GK_NOT_SUPPORTED when it cannot be read.
gk_status gk_gpu_sm_clock_mhz(const char* pci_bus_id, int* mhz);

/// Why the last failing call of this header on this thread failed ("" after a success).
const char* gk_introspect_error(void);

#ifdef __cplusplus
}
#endif
