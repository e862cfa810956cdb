/*! \file
    \brief GPU-binary test support: the CUDA DeviceMemory behind check_variant() and a typed
    device buffer for the device-pointer API tests. Compiled into gemmkit_gpu_tests only.
*/
#pragma once

#include "support/gemm_check.hpp"

#include <cuda_runtime.h>

#include <string>
#include <vector>

namespace gemmkit::test {

/// "" for cudaSuccess, else "what: name (text)".
std::string cuda_text(cudaError_t error, char const* what);

/// n elements of T in device memory, freed on scope exit.
template <typename T>
class DeviceBuffer {
 public:
  explicit DeviceBuffer(std::size_t count) : count_(count) {
    error_ = cuda_text(cudaMalloc(reinterpret_cast<void**>(&data_), bytes() > 0 ? bytes() : 1), "cudaMalloc");
  }
  explicit DeviceBuffer(std::vector<T> const& host) : DeviceBuffer(host.size()) { upload(host); }
  ~DeviceBuffer() {
    if (data_ != nullptr) cudaFree(data_);
  }
  DeviceBuffer(DeviceBuffer const&) = delete;
  DeviceBuffer& operator=(DeviceBuffer const&) = delete;

  T* get() const { return data_; }
  std::size_t bytes() const { return count_ * sizeof(T); }
  /// The first error of any operation on this buffer ("" while all succeeded).
  std::string const& error() const { return error_; }

  void upload(std::vector<T> const& host) {
    record(cudaMemcpy(data_, host.data(), bytes(), cudaMemcpyHostToDevice), "cudaMemcpy H2D");
  }
  std::vector<T> download() {
    std::vector<T> host(count_);
    record(cudaMemcpy(host.data(), data_, bytes(), cudaMemcpyDeviceToHost), "cudaMemcpy D2H");
    return host;
  }

 private:
  void record(cudaError_t e, char const* what) {
    if (error_.empty()) error_ = cuda_text(e, what);
  }
  std::size_t count_;
  T* data_ = nullptr;
  std::string error_;
};

}  // namespace gemmkit::test
