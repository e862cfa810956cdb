/*! \file
    \brief The device interface on the CUDA runtime: device discovery, pointer location, allocation.
*/
#include "core/device.hpp"

#include "cuda/cuda_check.hpp"
#include "cuda/gemm/scale_c.hpp"

namespace gemmkit {

int device_count() {
  static int const count = [] {
    int n = 0;
    if (cudaGetDeviceCount(&n) != cudaSuccess) {
      cudaGetLastError();  // no driver or no device: clear the sticky-free error and report none
      return 0;
    }
    return n;
  }();
  return count;
}

int compute_capability(int device) {
  if (device < 0 || device >= device_count()) return 0;
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) != cudaSuccess ||
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) != cudaSuccess) {
    return 0;
  }
  return major * 10 + minor;
}

MemoryLocation locate(void const* pointer) {
  if (pointer == nullptr || device_count() == 0) return MemoryLocation::kHost;
  cudaPointerAttributes attributes{};
  if (cudaPointerGetAttributes(&attributes, pointer) != cudaSuccess) {
    cudaGetLastError();
    return MemoryLocation::kHost;
  }
  return attributes.type == cudaMemoryTypeDevice || attributes.type == cudaMemoryTypeManaged ? MemoryLocation::kDevice
                                                                                             : MemoryLocation::kHost;
}

std::string use_device(int device) {
  if (device_count() == 0) return "no usable CUDA device";
  return cuda_error_text(cudaSetDevice(device), "cudaSetDevice");
}

std::string scale_c_device(GemmProblem const& problem, double beta, void* C, ExecutionContext const& exec) {
  return cuda_error_text(launch_scale_c(problem, beta, C, static_cast<cudaStream_t>(exec.stream)), "scale_c kernel");
}

std::string device_allocate(void** pointer, std::size_t bytes, ExecutionContext const& exec) {
  return cuda_error_text(cudaMallocAsync(pointer, bytes, static_cast<cudaStream_t>(exec.stream)), "cudaMallocAsync");
}

void device_free(void* pointer, ExecutionContext const& exec) {
  cudaFreeAsync(pointer, static_cast<cudaStream_t>(exec.stream));
}

}  // namespace gemmkit
