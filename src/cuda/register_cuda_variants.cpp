/*! \file
    \brief Registers every CUDA variant this build has: the ladder steps and the cuBLAS peer.
*/
#include "core/device.hpp"
#include "cuda/ladder/ladder.hpp"
#include "cuda/peers/cublas_gemm.hpp"
#include "registry/function_variant.hpp"
#include "registry/registry.hpp"

namespace gemmkit {

namespace {

/// Adds one ladder step for T: the launcher gets Params built from the arguments.
template <typename T>
void add_ladder_step(Registry& registry, std::string id, std::string summary,
                     cudaError_t (*launch)(ladder::Params<T> const&, cudaStream_t)) {
  constexpr Dtype dtype = sizeof(T) == 8 ? Dtype::kF64 : Dtype::kF32;
  constexpr int kMinSm = 80;  // the build carries sm_80 and sm_90a machine code
  registry.add(std::make_unique<FunctionVariant>(
      VariantInfo{std::move(id), dtype, Backend::kCuda, VariantKind::kLadder, kMinSm, std::move(summary)},
      FunctionVariant::CanImplement{},
      [launch](GemmArguments const& args, void*, ExecutionContext const& exec) {
        return launch(make_params<T>(args), static_cast<cudaStream_t>(exec.stream)) == cudaSuccess
                   ? GK_SUCCESS
                   : GK_CUDA_ERROR;
      },
      [](ExecutionContext const& exec) {
        return compute_capability(exec.device) >= kMinSm ? GK_SUCCESS : GK_NOT_SUPPORTED;
      }));
}

}  // namespace

void register_cuda_variants(Registry& registry) {
  using ladder::TiledConfig;
  add_ladder_step<double>(registry, "dgemm_ladder01_naive", "one thread per C element", ladder::launch_naive<double>);
  add_ladder_step<float>(registry, "sgemm_ladder01_naive", "one thread per C element", ladder::launch_naive<float>);
  add_ladder_step<double>(registry, "dgemm_ladder02_tiled16", "seed 002 shared-memory tiles 16x16",
                          ladder::launch_tiled<double, TiledConfig<16>>);
  add_ladder_step<float>(registry, "sgemm_ladder02_tiled16", "seed 002 shared-memory tiles 16x16",
                         ladder::launch_tiled<float, TiledConfig<16>>);
  register_cublas_variants(registry);
}

}  // namespace gemmkit
