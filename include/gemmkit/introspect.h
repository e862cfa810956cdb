/*! \file
    \brief gemmkit introspection C API, for tools: the registered variants, the performance model's
    bound for one of them, the machine descriptions, and the CPU facts gemmkit runs on.

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
} gk_machine;

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
