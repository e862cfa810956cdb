/*! \file
    \brief Timing: the host clock for CPU work, CUDA events and CUDA graphs for GPU work.

    Every measurement is the per-call time of a batch of back-to-back calls, which is what a caller
    issuing many GEMMs sees: for the GPU the batch is queued on one stream between two events, so
    host time to queue a call is included whenever it exceeds the kernel's time.
*/
#pragma once

#include <gemmkit/gemmkit.h>

#include <functional>
#include <limits>
#include <string>
#include <vector>

#if GEMMKIT_WITH_CUDA
#include <cuda_runtime.h>
#endif

namespace gemmkit::bench {

#if GEMMKIT_WITH_CUDA
/// "" for cudaSuccess, else "what: cudaErrorName (description)".
inline std::string cuda_error_text(cudaError_t error, char const* what) {
  if (error == cudaSuccess) return {};
  return std::string(what) + ": " + cudaGetErrorName(error) + " (" + cudaGetErrorString(error) + ")";
}
#endif

/// One GEMM, issued the way the side being timed issues it; returns the call's status.
using Call = std::function<gk_status()>;

inline constexpr double kNotMeasured = std::numeric_limits<double>::quiet_NaN();

/// Median, minimum and maximum of repeated per-call times; NaN when nothing was measured.
struct Stats {
  double median = kNotMeasured;
  double min = kNotMeasured;
  double max = kNotMeasured;
};

Stats summarize(std::vector<double> values);

/// Per-call milliseconds of `calls` back-to-back calls on the host steady clock. Stops at the
/// first failing call and returns its status.
gk_status time_host_batch(Call const& call, int calls, double* per_call_ms);

#if GEMMKIT_WITH_CUDA

/// A start/stop event pair on one stream.
class EventTimer {
 public:
  EventTimer() = default;
  ~EventTimer();
  EventTimer(EventTimer const&) = delete;
  EventTimer& operator=(EventTimer const&) = delete;

  /// Creates the events; "" or an error message.
  std::string init(cudaStream_t stream);

  /// Per-call milliseconds of `calls` calls queued back to back between the two events. A call
  /// that fails returns its status; a CUDA error found at the stop event sets `error`.
  gk_status time_batch(Call const& call, int calls, double* per_call_ms, std::string* error);

  /// Per-call milliseconds of one launch of a graph that holds `calls_in_graph` calls.
  std::string time_graph(cudaGraphExec_t graph, int calls_in_graph, double* per_call_ms);

 private:
  cudaStream_t stream_ = nullptr;
  cudaEvent_t start_ = nullptr;
  cudaEvent_t stop_ = nullptr;
};

/// A CUDA graph captured from `calls` back-to-back calls on a (non-default) stream.
class CapturedGraph {
 public:
  CapturedGraph() = default;
  ~CapturedGraph();
  CapturedGraph(CapturedGraph const&) = delete;
  CapturedGraph& operator=(CapturedGraph const&) = delete;

  /// Captures and instantiates; "" or why the calls could not be captured (the stream is left
  /// out of capture mode either way).
  std::string capture(cudaStream_t stream, Call const& call, int calls, cudaStreamCaptureMode mode);
  cudaGraphExec_t exec() const { return exec_; }

 private:
  cudaGraph_t graph_ = nullptr;
  cudaGraphExec_t exec_ = nullptr;
};

#endif  // GEMMKIT_WITH_CUDA

}  // namespace gemmkit::bench
