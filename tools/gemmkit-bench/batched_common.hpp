/*! \file
    \brief What the CPU and GPU forms of `batched` share: the settings and their command line, the case
           list, how a batch is sized, sampled problems, windows of slow peers, the verdict over the
           samples, the head of a JSON row and the run summary.

    Both forms run packed column-major strided batches (lda = m, stride_a = m*k, ...; nn) of at least
    --bytes of A+B+C per case, time the bound's pass alternating rep by rep with the implementations
    (on the GPU with one implementation at a time), and check each implementation once on sampled
    problems (first and last among them) against the higher-precision host reference.
*/
#pragma once

#include "batched_impls.hpp"
#include "json_writer.hpp"
#include "options.hpp"
#include "timing.hpp"
#include "verify.hpp"

#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gemmkit::bench {

inline constexpr double kMiB = 1 << 20;

struct FreeDeleter {
  void operator()(void* p) const { std::free(p); }
};
/// Host memory of the CPU form's operands.
using Buffer = std::unique_ptr<void, FreeDeleter>;

/// 64-byte aligned, no pages touched yet (first touch decides where they live); null when out of memory.
Buffer allocate_aligned(std::size_t bytes);

enum class BatchedForm { kCpu, kGpu };

struct BatchedSettings {
  BatchedForm form = BatchedForm::kCpu;
  std::vector<ShapeSpec> shapes;       ///< m, n, k of each case
  std::vector<Dtype> dtypes;
  std::vector<int> threads;            ///< CPU: OpenMP thread counts, each > 0
  std::int64_t bytes = std::int64_t(1) << 30;  ///< A+B+C of one case, at least
  double alpha = 1.0;
  double beta = 1.0;
  int reps = 3;
  int warmup = 0;                      ///< untimed passes after the checked pass
  double max_pass_ms = 500;
  bool verify = true;
  int samples = 64;                    ///< problems checked per implementation
  std::vector<std::string> peers;      ///< peer names to run, in table order
  bool grouped = false;                ///< GPU: also the grouped case, one gk_?gemm_grouped call over a mix of shapes
  std::vector<std::int64_t> group_mix; ///< GPU: the grouped case's groups, 1-based in the mix; empty: all
  int device = 0;                      ///< GPU: CUDA device
  std::string variants;                ///< --variants GLOB: gemmkit's variant, forced; "" = the table's
  int verbosity = 0;
};

/// What the GPU form runs besides gemmkit's strided call, in table order: gemmkit's pointer-array
/// call on device arrays and on host arrays, cuBLAS strided-batched and pointer-array batched, and
/// cuBLAS's grouped call (the grouped case's peer).
std::vector<std::string> const& batched_gpu_peer_names();

/// Turns the command line into settings for one form (tour = the short form); "" or a usage error.
std::string batched_settings_from_options(Options const& options, BatchedForm form, bool tour, BatchedSettings* out);

/// OpenMP's thread count before anything changed it: what "all" means.
int all_threads();

struct BatchedSummary {
  int rows = 0, skipped = 0, errors = 0;
  int verify_passed = 0, verify_failed = 0, verify_skipped = 0;
  int peer_verify_failed = 0;
  bool failed() const { return errors > 0 || verify_failed > 0; }
};

/// The closing line of a batched run; `label` names what it is of (the tour has two).
void print_batched_summary(BatchedSummary const& summary, std::string const& label = "");

// --- pieces of a run -------------------------------------------------------------------------------

std::uint64_t mix64(std::uint64_t z);

/// "4x8x4": the `case` key.
std::string case_name(std::int64_t m, std::int64_t n, std::int64_t k);

/// Problems in a batch whose A+B+C is at least `bytes` (at least 1).
std::int64_t batch_for_bytes(std::int64_t m, std::int64_t n, std::int64_t k, std::size_t element_size,
                             std::int64_t bytes);

/// One case's packed batch (no storage yet): shape, dtype, scalars, and a batch of at least
/// settings.bytes of A+B+C.
BatchedOperands batched_case(ShapeSpec const& shape, Dtype dtype, BatchedSettings const& settings);

/// The variant id settings.variants forces for this dtype (the first registered match), "" for none.
std::string forced_variant(BatchedSettings const& settings, Dtype dtype);

/// Bytes a pass over the batch moves: read A and B, read C unless beta = 0, write C.
double pass_bytes(BatchedOperands const& ops);

/// 2*m*n*k: flops of one problem.
double problem_flops(BatchedOperands const& ops);

/// First problem of pass `w` of an implementation running `count` problems per pass: disjoint
/// windows in turn while they fit, so no pass finds the previous pass's data in cache.
std::int64_t window_first(std::int64_t batch, std::int64_t count, int w);

/// Problems to check: `samples` spread over [first, first + count), the first and last among them.
std::vector<std::int64_t> pick_samples(std::int64_t first, std::int64_t count, int samples, std::uint64_t seed);

/// Adds one sampled problem's check to the verdict over all samples: any failure fails (the first
/// one named in the note), the largest error is kept and NaN sticks. Start `total` with
/// start_sampled_check.
void start_sampled_check(Verification* total, std::size_t samples);
void merge_sampled_check(Verification* total, Verification const& one, std::int64_t problem);

/// Times problems [first, first + count) of an implementation on the host clock; "" or the error.
using TimedWindow = std::function<std::string(std::int64_t first, std::int64_t count, double* ms)>;

/// Problems one pass gets: all of them, unless probes at the end of the batch say a full pass would
/// outlast max_pass_ms. The first probe (1/128 of the batch) is short and noisy; when it says "too
/// slow", a second one lasting about a quarter of max_pass_ms decides. A probe's error goes to *error.
std::int64_t problems_per_pass(std::int64_t batch, double max_pass_ms, TimedWindow const& timed, std::string* error);

/// How one implementation fared on one case.
enum class RunStatus { kOk, kSkipped, kError };

struct ImplResult {
  std::string name;
  RunStatus status = RunStatus::kOk;
  std::string note;           ///< why skipped, or the error
  std::string variant;
  std::int64_t count = 0;     ///< problems per pass (the batch, or a window of it)
  Stats time;                 ///< ms per pass
  Verification check;
  double gflops = kNotMeasured;
  bool measured() const { return status == RunStatus::kOk && std::isfinite(gflops); }
  bool usable_as_peer() const { return measured() && check.verdict != Verdict::kFailed; }
};

/// Adds one reported case to `summary`: gemmkit's result first in `results`, then the peers';
/// `error` counts the row as an error besides gemmkit's own (the GPU bound's pass failing).
void count_outcome(BatchedSummary* summary, std::vector<ImplResult> const& results, bool error = false);

/// One implementation a run measures.
struct Contender {
  std::unique_ptr<BatchedImpl> impl;
  std::string name;
  std::string unavailable;    ///< set when the library is missing: every row shows it skipped
  bool whole_batch = false;   ///< gemmkit: always the whole batch
};

/// What setting a contender up needs from the CPU or GPU run: a timed window, the checked pass,
/// one warm-up pass (the GPU waits for it), and what to clear after an error.
struct ContenderSetup {
  TimedWindow timed;
  std::function<Verification(std::int64_t first, std::int64_t count, std::string* error)> checked_pass;
  std::function<std::string(std::int64_t first, std::int64_t count)> warm_pass;
  std::function<void()> after_error;  ///< may be empty
};

/// Before the timed reps, the same on CPU and GPU: skip what is unavailable or cannot prepare,
/// size the pass (the whole batch for gemmkit, else problems_per_pass), run the checked pass on
/// window 0 and `warmup` passes on the next windows, and record the variant.
void setup_contender(Contender& c, ImplResult& r, BatchedOperands const& ops, double max_pass_ms, int warmup,
                     ContenderSetup const& steps);

/// gemmkit's keys of a batched row after its head: variant, backend, threads (when > 0), time,
/// reps, scalars, data and pass bytes, then the peer (best, or null).
void add_gemmkit_keys(JsonObject& row, ImplResult const& gemmkit, BatchedOperands const& ops,
                      BatchedSettings const& settings, char const* backend, int threads, double pass_bytes,
                      ImplResult const* best_peer);
/// The same for a row that is no single strided case (the grouped call): its scalars and data bytes
/// given.
void add_gemmkit_keys(JsonObject& row, ImplResult const& gemmkit, BatchedSettings const& settings, char const* backend,
                      int threads, double alpha, double beta, std::int64_t data_bytes, double pass_bytes,
                      ImplResult const* best_peer);

/// gemmkit's verification keys, then for every other implementation (results[1..]) its rate, % of
/// the bound, time, pass size, verification, variant and note, prefixed with its name.
void add_implementation_keys(JsonObject& row, std::vector<ImplResult> const& results, double bound_gflops);

/// The keys every batched row starts with: suite, section (when set), case, dtype, m, n, k, batch, trans.
JsonObject batched_row_head(std::string const& suite, std::string const& section, BatchedOperands const& ops);

}  // namespace gemmkit::bench
