/*! \file
    \brief What the core needs from the GPU runtime: availability, pointer location, scaling C.
    Built against CUDA when present, else as a CPU-only stub that reports no device.
*/
#pragma once

#include "core/problem.hpp"

#include <string>

namespace gemmkit {

enum class MemoryLocation { kHost, kDevice };

/// Number of usable CUDA devices (0 without CUDA or without a driver).
int device_count();
/// Compute capability major*10+minor of a device, or 0.
int compute_capability(int device);

/// Where a pointer lives; managed memory counts as device. Host for a non-CUDA build.
MemoryLocation locate(void const* pointer);

/// Makes `device` current for the calling thread; on error returns a message, else "".
std::string use_device(int device);

/// C := beta * C over the m x n window (batch of them at stride_c), never reading C when beta = 0.
/// Queued on exec.stream for device memory. Returns "" or an error message.
std::string scale_c_device(GemmProblem const& problem, double beta, void* C, ExecutionContext const& exec);

/// Device memory for workspaces, stream-ordered on exec.stream (so a call stays asynchronous and
/// graph-capturable): allocate / free on the current device ("" or an error message).
std::string device_allocate(void** pointer, std::size_t bytes, ExecutionContext const& exec);
void device_free(void* pointer, ExecutionContext const& exec);

}  // namespace gemmkit
