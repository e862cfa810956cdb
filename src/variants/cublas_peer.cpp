/*! \file
    \brief cuBLAS registered as the GPU peer: cublas?gemm_64 and the strided-batched form, and
    cublas?gemmBatched on device pointer arrays.
*/
#include "variants/cublas_peer.hpp"

#include <cublas_v2.h>

#include <climits>
#include <map>
#include <utility>

namespace gemmkit {

namespace {

cublasOperation_t to_cublas(gk_op op) { return op == GK_OP_N ? CUBLAS_OP_N : (op == GK_OP_T ? CUBLAS_OP_T : CUBLAS_OP_C); }

enum class MathMode { kDefault, kFp64Emulated };

/// One handle per (thread, device, math mode), created on first use and kept for the thread's life:
/// handle creation costs milliseconds and a handle must not be shared between threads unsynchronized.
/// The emulated mode is cuBLAS's FP64 emulation on fixed-point (integer) tensor cores, asked for
/// wherever it applies (the eager strategy), its accuracy left at cuBLAS's default.
cublasHandle_t handle_for(int device, MathMode mode = MathMode::kDefault) {
  thread_local std::map<std::pair<int, MathMode>, cublasHandle_t> handles;
  auto it = handles.find({device, mode});
  if (it != handles.end()) return it->second;
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return nullptr;
  if (mode == MathMode::kFp64Emulated &&
      (cublasSetMathMode(handle, CUBLAS_FP64_EMULATED_FIXEDPOINT_MATH) != CUBLAS_STATUS_SUCCESS ||
       cublasSetEmulationStrategy(handle, CUBLAS_EMULATION_STRATEGY_EAGER) != CUBLAS_STATUS_SUCCESS)) {
    cublasDestroy(handle);
    return nullptr;
  }
  handles.emplace(std::pair{device, mode}, handle);
  return handle;
}

template <typename T, MathMode kMode = MathMode::kDefault>
gk_status run_cublas(GemmArguments const& args, ExecutionContext const& exec) {
  cublasHandle_t handle = handle_for(exec.device, kMode);
  if (handle == nullptr) return GK_CUDA_ERROR;
  if (cublasSetStream(handle, static_cast<cudaStream_t>(exec.stream)) != CUBLAS_STATUS_SUCCESS) return GK_CUDA_ERROR;
  GemmProblem const& p = args.problem;
  T const alpha = T(args.alpha), beta = T(args.beta);
  auto const* A = static_cast<T const*>(args.A);
  auto const* B = static_cast<T const*>(args.B);
  auto* C = static_cast<T*>(args.C);
  cublasStatus_t status;
  if constexpr (sizeof(T) == 8) {
    status = p.batch == 1
                 ? cublasDgemm_64(handle, to_cublas(p.trans_a), to_cublas(p.trans_b), p.m, p.n, p.k, &alpha, A, p.lda,
                                  B, p.ldb, &beta, C, p.ldc)
                 : cublasDgemmStridedBatched_64(handle, to_cublas(p.trans_a), to_cublas(p.trans_b), p.m, p.n, p.k,
                                                &alpha, A, p.lda, p.stride_a, B, p.ldb, p.stride_b, &beta, C, p.ldc,
                                                p.stride_c, p.batch);
  } else {
    status = p.batch == 1
                 ? cublasSgemm_64(handle, to_cublas(p.trans_a), to_cublas(p.trans_b), p.m, p.n, p.k, &alpha, A, p.lda,
                                  B, p.ldb, &beta, C, p.ldc)
                 : cublasSgemmStridedBatched_64(handle, to_cublas(p.trans_a), to_cublas(p.trans_b), p.m, p.n, p.k,
                                                &alpha, A, p.lda, p.stride_a, B, p.ldb, p.stride_b, &beta, C, p.ldc,
                                                p.stride_c, p.batch);
  }
  return status == CUBLAS_STATUS_SUCCESS ? GK_SUCCESS : GK_CUDA_ERROR;
}

/// cublas?gemmBatched over device pointer arrays, with int sizes as `gemmkit-bench batched` has
/// always called it; a problem that is not a pointer-array batch (one of a host-array batch) runs
/// as run_cublas does.
template <typename T>
gk_status run_cublas_pointer_array(GemmArguments const& args, ExecutionContext const& exec) {
  if (!args.problem.pointer_array) return run_cublas<T>(args, exec);
  cublasHandle_t handle = handle_for(exec.device);
  if (handle == nullptr) return GK_CUDA_ERROR;
  if (cublasSetStream(handle, static_cast<cudaStream_t>(exec.stream)) != CUBLAS_STATUS_SUCCESS) return GK_CUDA_ERROR;
  GemmProblem const& p = args.problem;
  T const alpha = T(args.alpha), beta = T(args.beta);
  auto const* A = static_cast<T const* const*>(args.A);
  auto const* B = static_cast<T const* const*>(args.B);
  auto* const* C = static_cast<T* const*>(args.C);
  cublasStatus_t status;
  if constexpr (sizeof(T) == 8) {
    status = cublasDgemmBatched(handle, to_cublas(p.trans_a), to_cublas(p.trans_b), int(p.m), int(p.n), int(p.k), &alpha,
                                A, int(p.lda), B, int(p.ldb), &beta, C, int(p.ldc), int(p.batch));
  } else {
    status = cublasSgemmBatched(handle, to_cublas(p.trans_a), to_cublas(p.trans_b), int(p.m), int(p.n), int(p.k), &alpha,
                                A, int(p.lda), B, int(p.ldb), &beta, C, int(p.ldc), int(p.batch));
  }
  return status == CUBLAS_STATUS_SUCCESS ? GK_SUCCESS : GK_CUDA_ERROR;
}

/// Device pointer arrays whose counts and sizes fit cuBLAS's int arguments, or any other problem.
bool fits_pointer_array_call(GemmProblem const& p) {
  constexpr std::int64_t kMax = INT_MAX;
  if (!p.pointer_array) return true;
  return p.arrays_on_device && p.batch <= kMax && p.m <= kMax && p.n <= kMax && p.k <= kMax &&
         p.lda <= kMax && p.ldb <= kMax && p.ldc <= kMax;
}

}  // namespace

void register_cublas_variants(Registry& registry) {
  auto add = [&](char const* id, Dtype dtype, char const* summary, auto run) {
    registry.add(std::make_unique<FunctionVariant>(
        VariantInfo{id, dtype, Platform::kCuda, VariantKind::kPeer, 50, summary},
        FunctionVariant::CanImplement{}, [run](GemmArguments const& a, void*, ExecutionContext const& e) {
          return run(a, e);
        }));
  };
  char const* const default_mode = "cuBLAS, default math mode (no TF32)";
  add("cublas_dgemm", Dtype::kF64, default_mode, run_cublas<double>);
  add("cublas_sgemm", Dtype::kF32, default_mode, run_cublas<float>);
  add("cublas_dgemm_emulated", Dtype::kF64,
      "cuBLAS DGEMM in its FP64 emulation math mode (fixed point on the integer tensor cores, eager)",
      run_cublas<double, MathMode::kFp64Emulated>);
  auto add_pointer_array = [&](char const* id, Dtype dtype, auto run) {
    VariantInfo info{id, dtype, Platform::kCuda, VariantKind::kPeer, 50, "cuBLAS cublas?gemmBatched on device pointer arrays"};
    info.pointer_array = true;
    registry.add(std::make_unique<FunctionVariant>(
        std::move(info), fits_pointer_array_call,
        [run](GemmArguments const& a, void*, ExecutionContext const& e) { return run(a, e); }));
  };
  add_pointer_array("cublas_dgemm_pointer_array", Dtype::kF64, run_cublas_pointer_array<double>);
  add_pointer_array("cublas_sgemm_pointer_array", Dtype::kF32, run_cublas_pointer_array<float>);
}

void* cublas_handle(int device) { return handle_for(device); }

}  // namespace gemmkit
