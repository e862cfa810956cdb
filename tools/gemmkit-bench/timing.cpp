/*! \file
    \brief Timing: the host clock for CPU work, CUDA events and CUDA graphs for GPU work.
*/
#include "timing.hpp"

#include <algorithm>
#include <chrono>

namespace gemmkit::bench {

Stats summarize(std::vector<double> values) {
  Stats s;
  if (values.empty()) return s;
  std::sort(values.begin(), values.end());
  std::size_t const n = values.size();
  s.median = n % 2 == 1 ? values[n / 2] : 0.5 * (values[n / 2 - 1] + values[n / 2]);
  s.min = values.front();
  s.max = values.back();
  return s;
}

gk_status time_host_batch(Call const& call, int calls, double* per_call_ms) {
  auto const start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) {
    if (gk_status const s = call(); s != GK_SUCCESS) return s;
  }
  auto const stop = std::chrono::steady_clock::now();
  *per_call_ms = std::chrono::duration<double, std::milli>(stop - start).count() / calls;
  return GK_SUCCESS;
}

#if GEMMKIT_WITH_CUDA

EventTimer::~EventTimer() {
  if (start_ != nullptr) cudaEventDestroy(start_);
  if (stop_ != nullptr) cudaEventDestroy(stop_);
}

std::string EventTimer::init(cudaStream_t stream) {
  stream_ = stream;
  if (std::string e = cuda_error_text(cudaEventCreate(&start_), "cudaEventCreate"); !e.empty()) return e;
  return cuda_error_text(cudaEventCreate(&stop_), "cudaEventCreate");
}

gk_status EventTimer::time_batch(Call const& call, int calls, double* per_call_ms, std::string* error) {
  if (*error = cuda_error_text(cudaEventRecord(start_, stream_), "cudaEventRecord"); !error->empty()) {
    return GK_CUDA_ERROR;
  }
  for (int i = 0; i < calls; ++i) {
    if (gk_status const s = call(); s != GK_SUCCESS) {
      cudaStreamSynchronize(stream_);  // leave nothing of this batch in flight
      return s;
    }
  }
  *error = cuda_error_text(cudaEventRecord(stop_, stream_), "cudaEventRecord");
  if (error->empty()) *error = cuda_error_text(cudaEventSynchronize(stop_), "kernel execution");
  float ms = 0;
  if (error->empty()) *error = cuda_error_text(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
  if (!error->empty()) return GK_CUDA_ERROR;
  *per_call_ms = double(ms) / calls;
  return GK_SUCCESS;
}

std::string EventTimer::time_graph(cudaGraphExec_t graph, int calls_in_graph, double* per_call_ms) {
  std::string e = cuda_error_text(cudaEventRecord(start_, stream_), "cudaEventRecord");
  if (e.empty()) e = cuda_error_text(cudaGraphLaunch(graph, stream_), "cudaGraphLaunch");
  if (e.empty()) e = cuda_error_text(cudaEventRecord(stop_, stream_), "cudaEventRecord");
  if (e.empty()) e = cuda_error_text(cudaEventSynchronize(stop_), "graph execution");
  float ms = 0;
  if (e.empty()) e = cuda_error_text(cudaEventElapsedTime(&ms, start_, stop_), "cudaEventElapsedTime");
  if (e.empty()) *per_call_ms = double(ms) / calls_in_graph;
  return e;
}

CapturedGraph::~CapturedGraph() {
  if (exec_ != nullptr) cudaGraphExecDestroy(exec_);
  if (graph_ != nullptr) cudaGraphDestroy(graph_);
}

std::string CapturedGraph::capture(cudaStream_t stream, Call const& call, int calls, cudaStreamCaptureMode mode) {
  if (std::string e = cuda_error_text(cudaStreamBeginCapture(stream, mode), "cudaStreamBeginCapture"); !e.empty()) {
    return e;
  }
  std::string failure;
  for (int i = 0; i < calls && failure.empty(); ++i) {
    if (gk_status const s = call(); s != GK_SUCCESS) {
      failure = std::string("call ") + std::to_string(i) + " during capture returned " + gk_status_string(s);
    }
  }
  // End the capture whatever happened, so the stream is usable again.
  cudaError_t const end = cudaStreamEndCapture(stream, &graph_);
  if (failure.empty()) failure = cuda_error_text(end, "cudaStreamEndCapture");
  if (failure.empty() && graph_ == nullptr) failure = "capture produced no graph";
  if (failure.empty()) {
    failure = cuda_error_text(cudaGraphInstantiate(&exec_, graph_, 0), "cudaGraphInstantiate");
  }
  if (!failure.empty()) cudaGetLastError();  // capture errors are not sticky; clear the record
  return failure;
}

#endif  // GEMMKIT_WITH_CUDA

}  // namespace gemmkit::bench
