/*! \file
    \brief The CUDA DeviceMemory for check_variant(), registered when the GPU test binary starts.
*/
#include "support/device_memory.hpp"

namespace gemmkit::test {

std::string cuda_text(cudaError_t error, char const* what) {
  if (error == cudaSuccess) return {};
  return std::string(what) + ": " + cudaGetErrorName(error) + " (" + cudaGetErrorString(error) + ")";
}

namespace {

class CudaMemory final : public DeviceMemory {
 public:
  std::string allocate(void** pointer, std::size_t bytes) const override {
    return cuda_text(cudaMalloc(pointer, bytes > 0 ? bytes : 1), "cudaMalloc");
  }
  void free(void* pointer) const override { cudaFree(pointer); }
  std::string to_device(void* dst, void const* src, std::size_t bytes) const override {
    return cuda_text(cudaMemcpy(dst, src, bytes, cudaMemcpyHostToDevice), "cudaMemcpy H2D");
  }
  std::string to_host(void* dst, void const* src, std::size_t bytes) const override {
    return cuda_text(cudaMemcpy(dst, src, bytes, cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
  }
  std::string synchronize() const override {
    if (std::string e = cuda_text(cudaDeviceSynchronize(), "cudaDeviceSynchronize"); !e.empty()) return e;
    return cuda_text(cudaGetLastError(), "cudaGetLastError");
  }
  int device() const override {
    int d = 0;
    cudaGetDevice(&d);
    return d;
  }
};

// Registered during static initialization: this object file is linked into the GPU binary directly.
CudaMemory const g_cuda_memory;
[[maybe_unused]] bool const g_registered = (set_device_memory(&g_cuda_memory), true);

}  // namespace

}  // namespace gemmkit::test
