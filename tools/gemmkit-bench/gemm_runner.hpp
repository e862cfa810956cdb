/*! \file
    \brief Runs one GEMM case: gemmkit and its peer on the same operands, checked, then timed side by side.
*/
#pragma once

#include "bench_problem.hpp"
#include "timing.hpp"
#include "verify.hpp"

#include <gemmkit/introspect.h>

#include <optional>
#include <string>

namespace gemmkit::bench {

/// One row of a sweep.
struct GemmCase {
  Dtype dtype = Dtype::kF64;
  Platform backend = Platform::kCpu;  ///< where gemmkit runs and its operands live
  gk_op trans_a = GK_OP_N;
  gk_op trans_b = GK_OP_N;
  std::int64_t m = 0, n = 0, k = 0;
  std::string forced_variant;       ///< "" = what gemmkit's selection table picks (the public API as is)
  LeadingForm leading = LeadingForm::kTight;

  /// "4096x4096x4096_nn": the `case` key of a result row.
  std::string name() const;
  std::string trans() const;
  double flops() const { return 2.0 * double(m) * double(n) * double(k); }
};

struct RunSettings {
  int warmup = 2;           ///< untimed calls per side before calibration
  int reps = 10;            ///< timed batches per side, interleaved gemmkit / peer
  double target_ms = 20;    ///< a timed batch repeats the call until it lasts about this long
  bool verify = true;
  double alpha = 1.0;
  double beta = 0.0;        ///< 0: C is poisoned with NaN (beta = 0 must not read it); else C is reset each rep
  std::string peer = "auto";
  bool graph = true;        ///< also time CUDA-graph replay for max(m, n, k) <= kGraphMaxSize
  int device = 0;
  int verbosity = 0;
};

inline constexpr std::int64_t kGraphMaxSize = 1024;

/// What was measured for one side (gemmkit or its peer).
struct SideResult {
  std::string variant;                 ///< the registry id that ran
  Stats time;                          ///< per-call milliseconds over the reps
  int calls_per_rep = 0;
  double graph_ms = kNotMeasured;      ///< per-call milliseconds replayed from a CUDA graph
  std::string graph_note;              ///< why there is no graph time, or how it was captured
  std::optional<int> sm_clock_mhz;     ///< read through NVML right after the timed batches
  bool measured() const { return time.median == time.median; }
};

enum class CaseStatus { kOk, kSkipped, kError };

struct CaseResult {
  GemmCase spec;
  CaseStatus status = CaseStatus::kOk;
  std::string message;        ///< for kSkipped / kError, or a note on the peer
  SideResult gemmkit;
  std::string peer_name;      ///< "cublas", "openblas", or "" when no peer ran
  SideResult peer;
  Verification verify;
};

class GemmRunner {
 public:
  explicit GemmRunner(RunSettings settings) : settings_(std::move(settings)) {}
  ~GemmRunner();
  GemmRunner(GemmRunner const&) = delete;
  GemmRunner& operator=(GemmRunner const&) = delete;

  /// Creates the gemmkit context and, with use_gpu, the stream and events on settings.device.
  std::string init(bool use_gpu);

  /// Never throws: failures come back as kError rows.
  CaseResult run(GemmCase const& spec);

  /// The registered peer variant --peer names for this dtype and backend, or none and why not.
  std::optional<gk_variant_info> peer_for(Dtype dtype, Platform backend, std::string* name, std::string* why) const;

  RunSettings const& settings() const { return settings_; }

 private:
  template <typename T>
  void run_typed(CaseResult& result);

  RunSettings settings_;
  gk_context ctx_ = nullptr;
  gk_context peer_ctx_ = nullptr;  ///< runs the peer's variant, forced by id
  bool gpu_ = false;
#if GEMMKIT_WITH_CUDA
  cudaStream_t stream_ = nullptr;
  EventTimer events_;
  std::string pci_bus_id_;  ///< for reading the SM clock through NVML
#endif
};

}  // namespace gemmkit::bench
