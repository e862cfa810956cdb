/*! \file
    \brief Registers every CUDA variant this build has: the ladder steps, the FP64 tensor-core and
    FP32 SIMT kernels, the small batched kernels, and the cuBLAS peer.
*/
#include "base/device.hpp"
#include "cuda/gemm/dgemm_tensorop.hpp"
#include "cuda/gemm/sgemm_simt.hpp"
#include "cuda/gemm/sgemm_tensorop.hpp"
#include "cuda/ladder/ladder.hpp"
#include "variants/cublas_peer.hpp"
#include "cuda/batched/small_batched.hpp"
#include "cuda/batched/small_batched_config.hpp"
#include "registry/function_variant.hpp"
#include "registry/registry.hpp"
#include "variants/variants.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace gemmkit {

namespace {

constexpr int kMinSm = 80;  // the build carries sm_80 and sm_90a machine code

/// Adds one kernel for T: the launcher gets KernelParams built from the arguments.
template <typename T>
void add_kernel(Registry& registry, std::string id, VariantKind kind, std::string summary,
                cudaError_t (*launch)(KernelParams<T> const&, cudaStream_t),
                FunctionVariant::CanImplement can_implement = {}, TileGeometry tiles = {}) {
  constexpr Dtype dtype = sizeof(T) == 8 ? Dtype::kF64 : Dtype::kF32;
  registry.add(std::make_unique<FunctionVariant>(
      VariantInfo{std::move(id), dtype, Platform::kCuda, kind, kMinSm, std::move(summary), false, tiles},
      std::move(can_implement),
      [launch](GemmArguments const& args, void*, ExecutionContext const& exec) {
        return launch(make_params<T>(args), static_cast<cudaStream_t>(exec.stream)) == cudaSuccess
                   ? GK_SUCCESS
                   : GK_CUDA_ERROR;
      },
      [](ExecutionContext const& exec) {
        return compute_capability(exec.device) >= kMinSm ? GK_SUCCESS : GK_NOT_SUPPORTED;
      }));
}

template <typename Cfg>
void add_dgemm_tensorop(Registry& registry) {
  add_kernel<double>(registry, std::string("dgemm_tensorop_") + Cfg::kName, VariantKind::kProduction,
                     Cfg::kMmaK == 8 ? "FP64 tensor cores (m16n8k8 on sm_90, m8n8k4 on sm_80), cp.async ring, "
                                       "fragments double-buffered per k step"
                                     : "FP64 tensor cores (m16n8k16 on sm_90, m8n8k4 on sm_80), cp.async ring",
                     gemm::launch_dgemm_tensorop<Cfg>, gemm::dgemm_tensorop_can_implement<Cfg>,
                     TileGeometry{Cfg::kBM, Cfg::kBN, Cfg::kBlocksPerSm});
}

template <typename Cfg>
void add_sgemm_simt(Registry& registry) {
  add_kernel<float>(registry, std::string("sgemm_simt_") + Cfg::kName, VariantKind::kProduction,
                    "FP32 FFMA (exact single precision), cp.async ring, 128-bit fragments double-buffered",
                    gemm::launch_sgemm_simt<Cfg>, gemm::sgemm_simt_can_implement<Cfg>,
                    TileGeometry{Cfg::kBM, Cfg::kBN, Cfg::kBlocksPerSm});
}

/// A tiled kernel's form that runs with a device workspace: split K (one partial m x n result per
/// slice; batch entries run in turn and reuse it) or a packed operand.
template <typename T>
void add_with_workspace(Registry& registry, std::string id, std::string summary,
                        FunctionVariant::CanImplement can_implement,
                        cudaError_t (*launch)(KernelParams<T> const&, T*, cudaStream_t),
                        std::size_t (*workspace_bytes)(GemmProblem const&)) {
  constexpr Dtype dtype = sizeof(T) == 8 ? Dtype::kF64 : Dtype::kF32;
  registry.add(std::make_unique<FunctionVariant>(
      VariantInfo{std::move(id), dtype, Platform::kCuda, VariantKind::kProduction, kMinSm, std::move(summary)},
      std::move(can_implement),
      [launch](GemmArguments const& args, void* workspace, ExecutionContext const& exec) {
        return launch(make_params<T>(args), static_cast<T*>(workspace), static_cast<cudaStream_t>(exec.stream)) ==
                       cudaSuccess
                   ? GK_SUCCESS
                   : GK_CUDA_ERROR;
      },
      [](ExecutionContext const& exec) {
        return compute_capability(exec.device) >= kMinSm ? GK_SUCCESS : GK_NOT_SUPPORTED;
      },
      workspace_bytes));
}

template <typename Cfg>
void add_sgemm_tensorop(Registry& registry) {
  add_kernel<float>(registry, std::string("sgemm_tensorop_") + Cfg::kName, VariantKind::kProduction,
                    "FP64 tensor cores on FP32 data (m16n8k8 on sm_90, m8n8k4 on sm_80): floats converted exactly "
                    "in shared memory, exact products, FP64 sums, C rounded once",
                    gemm::launch_sgemm_tensorop<Cfg>, gemm::sgemm_tensorop_can_implement<Cfg>,
                    TileGeometry{Cfg::kBM, Cfg::kBN, Cfg::kBlocksPerSm});
}

template <typename Cfg>
void add_sgemm_tensorop_packed(Registry& registry) {
  add_with_workspace<float>(registry, std::string("sgemm_tensorop_") + Cfg::kName + "_packed",
                            "FP64 tensor cores on FP32 data, NT and TN transposed and odd leading dimensions copied "
                            "aligned first",
                            gemm::sgemm_tensorop_can_implement<Cfg>, gemm::launch_sgemm_tensorop_packed<Cfg>,
                            gemm::sgemm_tensorop_packed_workspace<Cfg>);
}

template <typename Cfg>
void add_sgemm_tensorop_split_k(Registry& registry) {
  add_with_workspace<float>(registry, std::string("sgemm_tensorop_") + Cfg::kName + "_splitk",
                            "FP64 tensor cores on FP32 data, K split across blocks, float partials reduced in order "
                            "(deterministic)",
                            gemm::sgemm_tensorop_can_implement<Cfg>, gemm::launch_sgemm_tensorop_split_k<Cfg>,
                            gemm::sgemm_tensorop_split_k_workspace<Cfg>);
}

template <typename Cfg>
void add_dgemm_tensorop_split_k(Registry& registry) {
  add_with_workspace<double>(registry, std::string("dgemm_tensorop_") + Cfg::kName + "_splitk",
                             "FP64 tensor cores, K split across blocks, deterministic two-pass reduction",
                             gemm::dgemm_tensorop_can_implement<Cfg>, gemm::launch_dgemm_tensorop_split_k<Cfg>,
                             gemm::dgemm_tensorop_split_k_workspace<Cfg>);
}

/// A tiled kernel's form with K split in 2, 3 and 4 in one launch, the fixup in the kernel (id
/// suffix _splitk_xN): for tiles that leave their last wave mostly empty or fill too little of one.
/// Each slice count is its own variant, so the config sweep measures them side by side and the
/// selection table picks. kLaunch / kWorkspace take the slice count after the problem.
template <typename T, auto kLaunch, auto kWorkspace>
void add_split_fixups(Registry& registry, std::string const& id, std::string const& what,
                      FunctionVariant::CanImplement can_implement) {
  [&]<int... kSlices>(std::integer_sequence<int, kSlices...>) {
    (add_with_workspace<T>(
         registry, id + "_splitk_x" + std::to_string(kSlices),
         what + ", K split in " + std::to_string(kSlices) +
             " across blocks, partial tiles summed in order by the tile's last slice in the same launch "
             "(deterministic)",
         can_implement,
         [](KernelParams<T> const& p, T* workspace, cudaStream_t stream) {
           return kLaunch(p, kSlices, workspace, stream);
         },
         [](GemmProblem const& problem) { return kWorkspace(problem, kSlices); }),
     ...);
  }(std::integer_sequence<int, 2, 3, 4>{});
}

template <typename Cfg>
void add_dgemm_tensorop_split_fixups(Registry& registry) {
  static_assert(gemm::kDgemmSplitFixup<Cfg>, "the fixup instances of this config are not built");
  add_split_fixups<double, gemm::launch_dgemm_tensorop_split_fixup<Cfg>, gemm::dgemm_tensorop_split_fixup_workspace<Cfg>>(
      registry, std::string("dgemm_tensorop_") + Cfg::kName, "FP64 tensor cores", gemm::dgemm_tensorop_can_implement<Cfg>);
}

template <typename Cfg>
void add_dgemm_tensorop_stream_k(Registry& registry) {
  static_assert(gemm::kDgemmStreamK<Cfg>, "the stream-K instances of this config are not built");
  add_with_workspace<double>(registry, std::string("dgemm_tensorop_") + Cfg::kName + "_streamk",
                             "FP64 tensor cores, stream-K: the last one to two waves of tiles shared k-tile by k-tile "
                             "by one wave of blocks, partial tiles summed in order by the block ending the tile "
                             "(deterministic)",
                             gemm::dgemm_tensorop_can_implement<Cfg>, gemm::launch_dgemm_tensorop_stream_k<Cfg>,
                             gemm::dgemm_tensorop_stream_k_workspace<Cfg>);
}

template <typename Cfg>
void add_sgemm_simt_split_fixups(Registry& registry) {
  static_assert(gemm::kSgemmSplitFixup<Cfg>, "the fixup instances of this config are not built");
  add_split_fixups<float, gemm::launch_sgemm_simt_split_fixup<Cfg>, gemm::sgemm_simt_split_fixup_workspace<Cfg>>(
      registry, std::string("sgemm_simt_") + Cfg::kName, "FP32 FFMA", gemm::sgemm_simt_can_implement<Cfg>);
}

template <typename Cfg>
void add_dgemm_tensorop_packed(Registry& registry) {
  add_with_workspace<double>(registry, std::string("dgemm_tensorop_") + Cfg::kName + "_packed",
                             "FP64 tensor cores; NT and TN copy the transposed operand into NN's layout first, "
                             "odd leading dimensions are copied into whole 128-byte lines",
                             gemm::dgemm_tensorop_can_implement<Cfg>, gemm::launch_dgemm_tensorop_packed<Cfg>,
                             gemm::dgemm_tensorop_packed_workspace<Cfg>);
}

template <typename Cfg>
void add_dgemm_tensorop_packed_stream_k(Registry& registry) {
  static_assert(gemm::kDgemmStreamK<Cfg>, "the stream-K instances of this config are not built");
  add_with_workspace<double>(registry, std::string("dgemm_tensorop_") + Cfg::kName + "_packed_streamk",
                             "FP64 tensor cores; the packed form's copies, then stream-K on them",
                             gemm::dgemm_tensorop_can_implement<Cfg>, gemm::launch_dgemm_tensorop_packed_stream_k<Cfg>,
                             gemm::dgemm_tensorop_packed_stream_k_workspace<Cfg>);
}

template <typename Cfg>
void add_dgemm_tensorop_resident_b(Registry& registry) {
  static_assert(gemm::kDgemmResidentB<Cfg>, "the B-resident instances of this config are not built");
  add_kernel<double>(registry, std::string("dgemm_tensorop_") + Cfg::kName + "_residentb", VariantKind::kProduction,
                     "FP64 tensor cores, persistent blocks each keeping a column panel of B (all of K) in shared "
                     "memory and streaming row tiles of A through a ring that runs across tiles (tall and skinny "
                     "shapes); the plain kernel where the panel does not fit",
                     gemm::launch_dgemm_tensorop_resident_b<Cfg>, gemm::dgemm_tensorop_can_implement<Cfg>);
}

template <typename Cfg>
void add_sgemm_tensorop_stream_k(Registry& registry) {
  static_assert(gemm::kSgemmTensorOpStreamK<Cfg>, "the stream-K instances of this config are not built");
  add_with_workspace<float>(registry, std::string("sgemm_tensorop_") + Cfg::kName + "_streamk",
                            "FP64 tensor cores on FP32 data, stream-K: the last one to two waves of tiles shared "
                            "k-tile by k-tile by one wave of blocks, double partial tiles summed in order by the "
                            "block ending the tile (deterministic, C rounded once)",
                            gemm::sgemm_tensorop_can_implement<Cfg>, gemm::launch_sgemm_tensorop_stream_k<Cfg>,
                            gemm::sgemm_tensorop_stream_k_workspace<Cfg>);
}

template <typename Cfg>
void add_sgemm_tensorop_packed_stream_k(Registry& registry) {
  static_assert(gemm::kSgemmTensorOpStreamK<Cfg>, "the stream-K instances of this config are not built");
  add_with_workspace<float>(registry, std::string("sgemm_tensorop_") + Cfg::kName + "_packed_streamk",
                            "FP64 tensor cores on FP32 data; the packed form's copies, then stream-K on them",
                            gemm::sgemm_tensorop_can_implement<Cfg>, gemm::launch_sgemm_tensorop_packed_stream_k<Cfg>,
                            gemm::sgemm_tensorop_packed_stream_k_workspace<Cfg>);
}

template <typename Cfg>
void add_sgemm_simt_stream_k(Registry& registry) {
  static_assert(gemm::kSgemmStreamK<Cfg>, "the stream-K instances of this config are not built");
  add_with_workspace<float>(registry, std::string("sgemm_simt_") + Cfg::kName + "_streamk",
                            "FP32 FFMA, stream-K: the last one to two waves of tiles shared k-tile by k-tile by one "
                            "wave of blocks, partial tiles summed in order by the block ending the tile (deterministic)",
                            gemm::sgemm_simt_can_implement<Cfg>, gemm::launch_sgemm_simt_stream_k<Cfg>,
                            gemm::sgemm_simt_stream_k_workspace<Cfg>);
}

template <typename Cfg>
void add_sgemm_simt_packed_stream_k(Registry& registry) {
  static_assert(gemm::kSgemmStreamK<Cfg>, "the stream-K instances of this config are not built");
  add_with_workspace<float>(registry, std::string("sgemm_simt_") + Cfg::kName + "_packed_streamk",
                            "FP32 FFMA; the packed form's copies, then stream-K on them",
                            gemm::sgemm_simt_can_implement<Cfg>, gemm::launch_sgemm_simt_packed_stream_k<Cfg>,
                            gemm::sgemm_simt_packed_stream_k_workspace<Cfg>);
}

template <typename Cfg>
void add_sgemm_simt_packed(Registry& registry) {
  add_with_workspace<float>(registry, std::string("sgemm_simt_") + Cfg::kName + "_packed",
                            "FP32 FFMA; K-contiguous operands (B in NN, A and B in TN, A in TT) are transposed "
                            "and odd leading dimensions aligned first, so both copy 16 bytes at a time",
                            gemm::sgemm_simt_can_implement<Cfg>, gemm::launch_sgemm_simt_packed<Cfg>,
                            gemm::sgemm_simt_packed_workspace<Cfg>);
}

template <typename Cfg>
void add_sgemm_simt_split_k(Registry& registry) {
  add_with_workspace<float>(registry, std::string("sgemm_simt_") + Cfg::kName + "_splitk",
                            "FP32 FFMA, K split across blocks, deterministic two-pass reduction",
                            gemm::sgemm_simt_can_implement<Cfg>, gemm::launch_sgemm_simt_split_k<Cfg>,
                            gemm::sgemm_simt_split_k_workspace<Cfg>);
}

/// A named config's plain kernel, then each form its config names (config_forms.hpp).
template <typename Cfg>
void add_dgemm_tensorop_config(Registry& registry) {
  using gemm::has_form;
  add_dgemm_tensorop<Cfg>(registry);
  if constexpr (has_form<Cfg>(gemm::kSplitK)) add_dgemm_tensorop_split_k<Cfg>(registry);
  if constexpr (has_form<Cfg>(gemm::kPacked)) add_dgemm_tensorop_packed<Cfg>(registry);
  if constexpr (has_form<Cfg>(gemm::kSplitFixup)) add_dgemm_tensorop_split_fixups<Cfg>(registry);
  if constexpr (has_form<Cfg>(gemm::kStreamK)) add_dgemm_tensorop_stream_k<Cfg>(registry);
  if constexpr (has_form<Cfg>(gemm::kPackedStreamK)) add_dgemm_tensorop_packed_stream_k<Cfg>(registry);
  if constexpr (has_form<Cfg>(gemm::kResidentB)) add_dgemm_tensorop_resident_b<Cfg>(registry);
}

template <typename Cfg>
void add_sgemm_simt_config(Registry& registry) {
  using gemm::has_form;
  static_assert(!has_form<Cfg>(gemm::kResidentB), "the FP32 SIMT kernel has no B-resident form");
  add_sgemm_simt<Cfg>(registry);
  if constexpr (has_form<Cfg>(gemm::kSplitK)) add_sgemm_simt_split_k<Cfg>(registry);
  if constexpr (has_form<Cfg>(gemm::kPacked)) add_sgemm_simt_packed<Cfg>(registry);
  if constexpr (has_form<Cfg>(gemm::kSplitFixup)) add_sgemm_simt_split_fixups<Cfg>(registry);
  if constexpr (has_form<Cfg>(gemm::kStreamK)) add_sgemm_simt_stream_k<Cfg>(registry);
  if constexpr (has_form<Cfg>(gemm::kPackedStreamK)) add_sgemm_simt_packed_stream_k<Cfg>(registry);
}

template <typename Cfg>
void add_sgemm_tensorop_config(Registry& registry) {
  using gemm::has_form;
  static_assert(!has_form<Cfg>(gemm::kSplitFixup) && !has_form<Cfg>(gemm::kResidentB),
                "the FP32 tensor-core kernel has no split-fixup or B-resident form");
  add_sgemm_tensorop<Cfg>(registry);
  if constexpr (has_form<Cfg>(gemm::kPacked)) add_sgemm_tensorop_packed<Cfg>(registry);
  if constexpr (has_form<Cfg>(gemm::kSplitK)) add_sgemm_tensorop_split_k<Cfg>(registry);
  if constexpr (has_form<Cfg>(gemm::kStreamK)) add_sgemm_tensorop_stream_k<Cfg>(registry);
  if constexpr (has_form<Cfg>(gemm::kPackedStreamK)) add_sgemm_tensorop_packed_stream_k<Cfg>(registry);
}

/// The small batched kernels (m, n, k <= 32): strided batches and pointer arrays in one launch.
/// Pointer arrays in device memory go to the kernel as they are; host arrays are copied into the
/// workspace first. kAuto is the library's choice (the selection table's row); kFlat and kBuckets
/// force one kernel family, for comparison.
template <typename T>
void add_small_batched(Registry& registry, small::SmallKernelFamily family) {
  constexpr Dtype dtype = sizeof(T) == 8 ? Dtype::kF64 : Dtype::kF32;
  using small::SmallKernelFamily;
  std::string const id = std::string(sizeof(T) == 8 ? "dgemm_gpu_small" : "sgemm_gpu_small") +
                         (family == SmallKernelFamily::kFlat ? "_flat" : family == SmallKernelFamily::kBuckets ? "_buckets" : "");
  char const* const summary =
      family == SmallKernelFamily::kFlat ? "batched m, n, k <= 32: the flat kernel only (run-time sizes, operands staged as stored)"
      : family == SmallKernelFamily::kBuckets
          ? "batched m, n, k <= 32: the size-templated buckets only (padded where no bucket fits exactly)"
          : "batched m, n, k <= 32 (seed 003): size-templated, problems aggregated per block; the flat kernel "
            "where no bucket fits exactly";
  registry.add(std::make_unique<FunctionVariant>(
      VariantInfo{id, dtype, Platform::kCuda, VariantKind::kProduction, kMinSm, summary, true},
      [](GemmProblem const& p) {
        return p.m <= small::kSmallMaxSize && p.n <= small::kSmallMaxSize && p.k <= small::kSmallMaxSize;
      },
      [family](GemmArguments const& args, void* workspace, ExecutionContext const& exec) {
        GemmProblem const& p = args.problem;
        auto const stream = static_cast<cudaStream_t>(exec.stream);
        small::SmallBatchParams<T> params{make_params<T>(args)};
        if (p.pointer_array && p.arrays_on_device) {
          params.A_array = static_cast<T const* const*>(args.A);
          params.B_array = static_cast<T const* const*>(args.B);
          params.C_array = static_cast<T* const*>(args.C);
        } else if (p.pointer_array) {
          // One copy of the three host arrays: (A pointers, B pointers, C pointers).
          std::size_t const count = std::size_t(p.batch);
          std::vector<void const*> pointers(3 * count);
          std::copy_n(static_cast<void const* const*>(args.A), count, pointers.begin());
          std::copy_n(static_cast<void const* const*>(args.B), count, pointers.begin() + count);
          std::copy_n(static_cast<void const* const*>(args.C), count, pointers.begin() + 2 * count);
          if (cudaMemcpyAsync(workspace, pointers.data(), pointers.size() * sizeof(void*), cudaMemcpyHostToDevice,
                              stream) != cudaSuccess) {
            return GK_CUDA_ERROR;
          }
          auto* device_pointers = static_cast<void**>(workspace);
          params.A_array = reinterpret_cast<T const* const*>(device_pointers);
          params.B_array = reinterpret_cast<T const* const*>(device_pointers + count);
          params.C_array = reinterpret_cast<T* const*>(device_pointers + 2 * count);
        }
        small::SmallLaunchOptions options;
        options.family = family;
        options.overlaps_previous_kernel = exec.overlaps_previous_kernel;
        return small::launch_small_batched<T>(params, stream, options) == cudaSuccess ? GK_SUCCESS : GK_CUDA_ERROR;
      },
      [](ExecutionContext const& exec) {
        return compute_capability(exec.device) >= kMinSm ? GK_SUCCESS : GK_NOT_SUPPORTED;
      },
      [](GemmProblem const& p) {
        return p.pointer_array && !p.arrays_on_device ? 3 * std::size_t(p.batch) * sizeof(void*) : std::size_t(0);
      }));
}

}  // namespace

void register_cuda_variants(Registry& registry) {
  using ladder::TiledConfig;
  constexpr auto kLadder = VariantKind::kLadder;
  add_kernel<double>(registry, "dgemm_ladder01_naive", kLadder, "one thread per C element", ladder::launch_naive<double>);
  add_kernel<float>(registry, "sgemm_ladder01_naive", kLadder, "one thread per C element", ladder::launch_naive<float>);
  add_kernel<double>(registry, "dgemm_ladder02_tiled16", kLadder, "seed 002 shared-memory tiles 16x16",
                     ladder::launch_tiled<double, TiledConfig<16>>);
  add_kernel<float>(registry, "sgemm_ladder02_tiled16", kLadder, "seed 002 shared-memory tiles 16x16",
                    ladder::launch_tiled<float, TiledConfig<16>>);
  struct Step {
    char const* name;
    char const* summary;
    cudaError_t (*launch_d)(KernelParams<double> const&, cudaStream_t);
    cudaError_t (*launch_s)(KernelParams<float> const&, cudaStream_t);
  };
  Step const steps[] = {
      {"ladder03_regblock8x8", "64x64 tiles, 8x8 register blocks, global prefetch into registers",
       ladder::launch_register_blocked<ladder::Step03Config, double>,
       ladder::launch_register_blocked<ladder::Step03Config, float>},
      {"ladder03b_wide128", "step 03 + 128-bit shared-memory loads, one buffer (seed 000 unroll+128b)",
       ladder::launch_register_blocked<ladder::Step03bConfig, double>,
       ladder::launch_register_blocked<ladder::Step03bConfig, float>},
      {"ladder03c_wide128_smemprefetch", "step 03b + shared-memory prefetch, one buffer (seed 000 unroll+128b+prefsmem)",
       ladder::launch_register_blocked<ladder::Step03cConfig, double>,
       ladder::launch_register_blocked<ladder::Step03cConfig, float>},
      {"ladder04_doublebuffer", "step 03 + double-buffered shared memory",
       ladder::launch_register_blocked<ladder::Step04Config, double>,
       ladder::launch_register_blocked<ladder::Step04Config, float>},
      {"ladder05_wide128", "step 04 + 128-bit shared-memory loads",
       ladder::launch_register_blocked<ladder::Step05Config, double>,
       ladder::launch_register_blocked<ladder::Step05Config, float>},
      {"ladder06_smemprefetch", "step 05 + shared-memory prefetch (two-level prefetch)",
       ladder::launch_register_blocked<ladder::Step06Config, double>,
       ladder::launch_register_blocked<ladder::Step06Config, float>},
  };
  for (Step const& step : steps) {
    add_kernel<double>(registry, std::string("dgemm_") + step.name, kLadder, step.summary, step.launch_d);
    add_kernel<float>(registry, std::string("sgemm_") + step.name, kLadder, step.summary, step.launch_s);
  }
  // The tile configs this build compiled (CMake writes the list from cuda/gemm/*_configs.def), each
  // with the forms its config names.
#define GEMMKIT_BUILT_DGEMM_TENSOROP(name) add_dgemm_tensorop_config<gemm::DgemmTensorOp_##name>(registry);
#define GEMMKIT_BUILT_SGEMM_SIMT(name) add_sgemm_simt_config<gemm::SgemmSimt_##name>(registry);
#define GEMMKIT_BUILT_SGEMM_TENSOROP(name) add_sgemm_tensorop_config<gemm::SgemmTensorOp_##name>(registry);
#include "cuda/gemm/built_configs.def"
#undef GEMMKIT_BUILT_DGEMM_TENSOROP
#undef GEMMKIT_BUILT_SGEMM_SIMT
#undef GEMMKIT_BUILT_SGEMM_TENSOROP
  add_small_batched<double>(registry, small::SmallKernelFamily::kAuto);
  add_small_batched<float>(registry, small::SmallKernelFamily::kAuto);
  add_small_batched<double>(registry, small::SmallKernelFamily::kFlat);
  add_small_batched<float>(registry, small::SmallKernelFamily::kFlat);
  add_small_batched<double>(registry, small::SmallKernelFamily::kBuckets);
  add_small_batched<float>(registry, small::SmallKernelFamily::kBuckets);
  register_cublas_variants(registry);
  register_emulation_variants(registry);
}

}  // namespace gemmkit
