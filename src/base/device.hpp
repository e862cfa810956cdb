/*! \file
    \brief What the core needs from the GPU runtime: availability, pointer location, scaling C,
    workspaces. Built against CUDA when present, else as a CPU-only stub that reports no device.
*/
#pragma once

#include "base/problem.hpp"

#include <cstddef>
#include <string>
#include <thread>

namespace gemmkit {

enum class MemoryLocation { kHost, kDevice };

/// Number of usable CUDA devices (0 without CUDA or without a driver).
int device_count();
/// Compute capability major*10+minor of a device, or 0. Read once per process: it never changes.
int compute_capability(int device);
/// Streaming multiprocessors of a device, or 0; read once per process like the capability.
int multiprocessor_count(int device);

/// The name the CUDA runtime reports for a device ("NVIDIA H200"), or "".
std::string device_name(int device);

/// Whether the CUDA driver is loaded in this process (by gemmkit or by the application): until it is,
/// no pointer can be device memory. Asks nothing of CUDA.
bool cuda_driver_loaded();

/// Where a pointer lives; managed memory counts as device. Host for a non-CUDA build, and while
/// the CUDA driver is not loaded.
MemoryLocation locate(void const* pointer);

/// Makes `device` current for the calling thread and clears a non-sticky error the caller's earlier
/// CUDA calls left pending (a gemmkit call reports its own); on error returns a message, else "".
std::string use_device(int device);

/// Copies `bytes` from device memory to host memory in order on exec.stream and waits for the
/// stream (the copy sees all work queued before it). Returns "" or an error message.
std::string copy_to_host(void* host, void const* device, std::size_t bytes, ExecutionContext const& exec);

/// Device memory for workspaces, stream-ordered on exec.stream (so a call stays asynchronous and
/// graph-capturable): allocate / free on the current device ("" or an error message).
std::string device_allocate(void** pointer, std::size_t bytes, ExecutionContext const& exec);
void device_free(void* pointer, ExecutionContext const& exec);

/// A device workspace a context keeps between calls, so back-to-back calls that need one (split-K)
/// do not allocate and free each time. Reusing it is safe because every use is queued on the one
/// stream it belongs to; it is released when the context's stream or device changes, and when the
/// context is destroyed.
struct DeviceWorkspace {
  void* pointer = nullptr;
  std::size_t bytes = 0;
  int device = 0;
  void* stream = nullptr;
  std::thread::id thread;  ///< the thread whose per-thread default stream `stream` means, if it is one
};

/// Where a call's workspace comes from.
struct WorkspaceLease {
  void* pointer = nullptr;
  bool per_call = false;  ///< a graph allocation of this call (stream capture): return_workspace frees it
};

/// At least `bytes` of device workspace on the current device, ordered on exec.stream: the kept one
/// when it is large enough (no CUDA call beyond a capture check), else a larger one that replaces
/// it, never above `budget` (0 = none). While exec.stream is being captured the workspace is a
/// per-call graph allocation instead, so the graph owns all its memory. "" or an error message.
std::string acquire_workspace(DeviceWorkspace& kept, std::size_t bytes, std::size_t budget,
                              ExecutionContext const& exec, WorkspaceLease* lease);
/// Ends a call's use of its lease (frees a per-call allocation; the kept workspace stays).
void return_workspace(WorkspaceLease const& lease, ExecutionContext const& exec);

/// Frees the kept workspace stream-ordered on its stream, for a change of the context's stream or
/// device: that stream must still exist (gk_set_stream documents it).
void release_workspace(DeviceWorkspace& kept);
/// Frees the kept workspace when its stream may no longer be usable (a destroyed context's stream
/// may be gone; another thread's per-thread stream cannot be named): on the legacy default stream
/// without waiting, else after the device finished all its work.
void release_workspace_without_stream(DeviceWorkspace& kept);

}  // namespace gemmkit
