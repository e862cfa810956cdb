/*! \file
    \brief The device interface on the CUDA runtime: device discovery, pointer location, allocation
    and the workspace a context keeps between calls.
*/
#include "base/device.hpp"

#include "base/cuda_check.hpp"
#include "base/driver_pointer_query.hpp"

#include <dlfcn.h>
#include <link.h>

#include <algorithm>
#include <atomic>
#include <cstring>
#include <vector>

namespace gemmkit {

namespace {

/// Makes a device current for a scope and gives the caller's device back after; no cudaSetDevice
/// when it already is current (the common case).
class DeviceScope {
 public:
  explicit DeviceScope(int device) {
    int current = -1;
    if (cudaGetDevice(&current) != cudaSuccess || current == device) return;
    if (cudaSetDevice(device) == cudaSuccess) restore_ = current;
  }
  ~DeviceScope() {
    if (restore_ >= 0) cudaSetDevice(restore_);
  }
  DeviceScope(DeviceScope const&) = delete;
  DeviceScope& operator=(DeviceScope const&) = delete;

 private:
  int restore_ = -1;
};

bool is_per_thread_stream(void* stream) { return static_cast<cudaStream_t>(stream) == cudaStreamPerThread; }

/// True when work queued for `exec` is ordered after every earlier use of `kept`: same device and
/// stream, and for the per-thread default stream also the same thread (each thread has its own).
bool ordered_after(DeviceWorkspace const& kept, ExecutionContext const& exec) {
  return kept.device == exec.device && kept.stream == exec.stream &&
         (!is_per_thread_stream(exec.stream) || kept.thread == std::this_thread::get_id());
}

bool capturing(cudaStream_t stream) {
  cudaStreamCaptureStatus status = cudaStreamCaptureStatusNone;
  if (cudaStreamIsCapturing(stream, &status) != cudaSuccess) {
    // The legacy stream while another stream captures: take the per-call path, which reports it.
    cudaGetLastError();
    return true;
  }
  return status != cudaStreamCaptureStatusNone;
}

/// Workspaces grow in whole MiB, so a run of slightly growing problems does not reallocate each call.
constexpr std::size_t kWorkspaceGranule = std::size_t(1) << 20;

}  // namespace

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

namespace {

struct DeviceTraits {
  int compute_capability = 0;
  int multiprocessors = 0;
  std::string name;
};

/// Asked on every GPU call (variants' initialize, selection); attribute queries each time cost more
/// than the whole table, read once.
DeviceTraits const& device_traits(int device) {
  static DeviceTraits const none;
  static std::vector<DeviceTraits> const traits = [] {
    std::vector<DeviceTraits> out(static_cast<std::size_t>(device_count()));
    for (int d = 0; d < int(out.size()); ++d) {
      int major = 0, minor = 0, multiprocessors = 0;
      if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, d) == cudaSuccess &&
          cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, d) == cudaSuccess) {
        out[std::size_t(d)].compute_capability = major * 10 + minor;
      }
      if (cudaDeviceGetAttribute(&multiprocessors, cudaDevAttrMultiProcessorCount, d) == cudaSuccess) {
        out[std::size_t(d)].multiprocessors = multiprocessors;
      }
      if (cudaDeviceProp properties{}; cudaGetDeviceProperties(&properties, d) == cudaSuccess) {
        out[std::size_t(d)].name = properties.name;
      }
    }
    cudaGetLastError();
    return out;
  }();
  return device >= 0 && device < int(traits.size()) ? traits[std::size_t(device)] : none;
}

}  // namespace

int compute_capability(int device) { return device_traits(device).compute_capability; }

int multiprocessor_count(int device) { return device_traits(device).multiprocessors; }

std::string device_name(int device) { return device_traits(device).name; }

bool cuda_driver_loaded() {
  static std::atomic<bool> loaded{false};
  // The loader's count of objects added when a scan last found no driver: until it moves, none was loaded since.
  static std::atomic<unsigned long long> scanned_adds{0};
  if (loaded.load(std::memory_order_relaxed)) return true;
  // The loaded objects' names, not dlopen(RTLD_NOLOAD): that searches the library path on every call while
  // the driver is not loaded (about 75 failed opens, some 35 us a host call, on a machine without one).
  struct Scan {
    unsigned long long last, adds = 0;
    bool found = false;
  } scan{scanned_adds.load(std::memory_order_relaxed)};
  dl_iterate_phdr(
      [](dl_phdr_info* info, std::size_t, void* data) {
        auto& s = *static_cast<Scan*>(data);
        if (s.adds == 0) {
          s.adds = info->dlpi_adds;
          if (s.adds == s.last) return 1;  // nothing loaded since the last scan
        }
        s.found = info->dlpi_name != nullptr && std::strstr(info->dlpi_name, "libcuda.so") != nullptr;
        return s.found ? 1 : 0;
      },
      &scan);
  if (!scan.found || dlopen("libcuda.so.1", RTLD_LAZY | RTLD_NOLOAD) == nullptr) {
    scanned_adds.store(scan.adds, std::memory_order_relaxed);
    return false;
  }
  loaded.store(true, std::memory_order_relaxed);  // a loaded driver stays loaded; the reference is kept
  return true;
}

MemoryLocation locate(void const* pointer) {
  // Device memory exists only once the driver is loaded: until then a pointer is host memory, and
  // asking would start CUDA for a call that never needs it.
  if (pointer == nullptr || !cuda_driver_loaded() || device_count() == 0) return MemoryLocation::kHost;
  // Asked once per distinct operand on every call: the driver's query costs half the runtime's.
  if (DriverPointerKind kind; driver_pointer_kind(pointer, &kind)) {
    return kind.managed || kind.memory_type == CU_MEMORYTYPE_DEVICE ? MemoryLocation::kDevice : MemoryLocation::kHost;
  }
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
  // An error the caller's earlier CUDA calls left pending (a failed cudaMalloc, say) is theirs: the
  // launch checks of this call must not read it and fail a call that ran. A sticky error still
  // fails this call's own CUDA calls.
  (void)cudaGetLastError();
  // cudaGetDevice only reads the thread's current device; cudaSetDevice costs more, so it runs on a change only.
  if (int current = -1; cudaGetDevice(&current) == cudaSuccess && current == device) return {};
  return cuda_error_text(cudaSetDevice(device), "cudaSetDevice");
}

std::string copy_to_host(void* host, void const* device, std::size_t bytes, ExecutionContext const& exec) {
  auto const stream = static_cast<cudaStream_t>(exec.stream);
  if (std::string e = cuda_error_text(cudaMemcpyAsync(host, device, bytes, cudaMemcpyDeviceToHost, stream),
                                      "cudaMemcpyAsync D2H");
      !e.empty()) {
    return e;
  }
  return cuda_error_text(cudaStreamSynchronize(stream), "cudaStreamSynchronize");
}

std::string device_allocate(void** pointer, std::size_t bytes, ExecutionContext const& exec) {
  cudaError_t const e = cudaMallocAsync(pointer, bytes, static_cast<cudaStream_t>(exec.stream));
  // An allocation failure is not sticky: clear it, so the next launch's error check does not read it
  // (the caller may go on without the memory).
  if (e != cudaSuccess) cudaGetLastError();
  return cuda_error_text(e, "cudaMallocAsync");
}

void device_free(void* pointer, ExecutionContext const& exec) {
  cudaFreeAsync(pointer, static_cast<cudaStream_t>(exec.stream));
}

std::string acquire_workspace(DeviceWorkspace& kept, std::size_t bytes, std::size_t budget,
                              ExecutionContext const& exec, WorkspaceLease* lease) {
  // A graph captured now must own its memory: the kept workspace could be regrown or freed while
  // the graph is still replayed.
  if (capturing(static_cast<cudaStream_t>(exec.stream))) {
    lease->per_call = true;
    return device_allocate(&lease->pointer, bytes, exec);
  }
  lease->per_call = false;
  if (kept.pointer != nullptr && !ordered_after(kept, exec)) release_workspace_without_stream(kept);
  bool const fits = kept.bytes >= bytes && (budget == 0 || kept.bytes <= budget);
  if (kept.pointer == nullptr || !fits) {
    release_workspace(kept);  // ordered on this stream, before the allocation that replaces it
    std::size_t size = (bytes + kWorkspaceGranule - 1) / kWorkspaceGranule * kWorkspaceGranule;
    if (budget != 0) size = std::max(bytes, std::min(size, budget));
    if (std::string e = device_allocate(&kept.pointer, size, exec); !e.empty()) {
      kept = {};
      return e;
    }
    kept.bytes = size;
    kept.device = exec.device;
    kept.stream = exec.stream;
    kept.thread = std::this_thread::get_id();
  }
  lease->pointer = kept.pointer;
  return {};
}

void return_workspace(WorkspaceLease const& lease, ExecutionContext const& exec) {
  if (lease.per_call && lease.pointer != nullptr) device_free(lease.pointer, exec);
}

void release_workspace(DeviceWorkspace& kept) {
  if (kept.pointer == nullptr) return;
  if (is_per_thread_stream(kept.stream) && kept.thread != std::this_thread::get_id()) {
    release_workspace_without_stream(kept);
    return;
  }
  DeviceScope const scope(kept.device);  // the legacy stream (NULL) means the current device's
  if (cudaFreeAsync(kept.pointer, static_cast<cudaStream_t>(kept.stream)) != cudaSuccess) cudaGetLastError();
  kept = {};
}

void release_workspace_without_stream(DeviceWorkspace& kept) {
  if (kept.pointer == nullptr) return;
  DeviceScope const scope(kept.device);
  cudaError_t freed = cudaSuccess;
  if (kept.stream == nullptr) {
    freed = cudaFreeAsync(kept.pointer, nullptr);  // the legacy stream lives as long as the device
  } else {
    // As cublasDestroy does: wait for the device, then free (cudaFree does not wait for memory
    // from cudaMallocAsync).
    cudaDeviceSynchronize();
    freed = cudaFree(kept.pointer);
  }
  // Nobody to report to (at process exit the runtime may already be unloading); leave no error behind.
  if (freed != cudaSuccess) cudaGetLastError();
  kept = {};
}

}  // namespace gemmkit
