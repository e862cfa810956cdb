/*! \file
    \brief cuBLAS registered as the GPU peer: cublas?gemm_64 and the strided-batched form.
*/
#include "variants/cublas_peer.hpp"

#include <cublas_v2.h>

#include <map>

namespace gemmkit {

namespace {

cublasOperation_t to_cublas(gk_op op) { return op == GK_OP_N ? CUBLAS_OP_N : (op == GK_OP_T ? CUBLAS_OP_T : CUBLAS_OP_C); }

/// One handle per (thread, device), created on first use and kept for the thread's life: handle
/// creation costs milliseconds and a handle must not be shared between threads unsynchronized.
cublasHandle_t handle_for(int device) {
  thread_local std::map<int, cublasHandle_t> handles;
  auto it = handles.find(device);
  if (it != handles.end()) return it->second;
  cublasHandle_t handle = nullptr;
  if (cublasCreate(&handle) != CUBLAS_STATUS_SUCCESS) return nullptr;
  handles.emplace(device, handle);
  return handle;
}

template <typename T>
gk_status run_cublas(GemmArguments const& args, ExecutionContext const& exec) {
  cublasHandle_t handle = handle_for(exec.device);
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

}  // namespace

void register_cublas_variants(Registry& registry) {
  auto add = [&](char const* id, Dtype dtype, auto run) {
    registry.add(std::make_unique<FunctionVariant>(
        VariantInfo{id, dtype, Platform::kCuda, VariantKind::kPeer, 50, "cuBLAS, default math mode (no TF32)"},
        FunctionVariant::CanImplement{}, [run](GemmArguments const& a, void*, ExecutionContext const& e) {
          return run(a, e);
        }));
  };
  add("cublas_dgemm", Dtype::kF64, run_cublas<double>);
  add("cublas_sgemm", Dtype::kF32, run_cublas<float>);
}

}  // namespace gemmkit
