/*! \file
    \brief What the commands of gemmkit-bench take (cli.cpp turns the command line into it): sizes
    (ranges and lists), filters, timing knobs; the parsers of its list values; shapes files.
*/
#pragma once

#include "bench_problem.hpp"

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace gemmkit::bench {

using TransPair = std::pair<gk_op, gk_op>;

/// One line of a --shapes file: sizes and, optionally, its own transposes and leading-dimension form.
struct ShapeSpec {
  std::int64_t m = 0, n = 0, k = 0;
  std::optional<TransPair> trans;
  LeadingForm leading = LeadingForm::kTight;
};

struct Options {
  std::vector<std::int64_t> m, n, k;   ///< --m/--n/--k; only --m given means squares
  std::string shapes_file;             ///< --shapes
  std::string shapes_dir;              ///< --shapes-dir: where the built-in suites' shape files are
  std::vector<TransPair> trans;        ///< --trans; empty means nn
  std::vector<Dtype> dtypes;           ///< --dtype; empty means the command's default
  std::string variants;                ///< --variants GLOB; empty means the selection table
  std::string peer = "auto";           ///< cublas | openblas | none | auto
  std::optional<bool> verify;          ///< --verify / --no-verify; default on
  int warmup = -1;                     ///< untimed calls per side before timing; -1 = default
  int reps = -1;                       ///< timed repetitions (batches) per side; -1 = default
  int calls = -1;                      ///< overhead: calls per timed rep; -1 = default
  double target_ms = -1;               ///< length of one timed batch; -1 = default
  double energy_seconds = -1;          ///< micro --energy-seconds X: each energy row's run; 0 skips them; -1 = default
  std::string json_file;
  bool force_cpu = false;
  std::string suite;
  double alpha = 1.0;
  std::optional<double> beta;          ///< timing uses beta = 0 unless given
  std::optional<double> peak_gflops;
  bool graph = true;                   ///< CUDA-graph timing for small sizes
  int device = 0;
  int verbosity = 0;
  bool emulate = false;                ///< gemm --emulate: FP64 emulation beside native and cuBLAS
  std::vector<double> phi;             ///< gemm --phi: exponent spreads of the emulation's operands
  bool split_inputs = false;           ///< gemm --split: also the emulation's adversarial operands

  // batched
  std::vector<int> threads;            ///< --threads; 0 stands for "all" (OpenMP's default count)
  std::int64_t bytes = 0;              ///< --bytes: A+B+C per case; 0 = the command's default
  std::string peers = "all";           ///< --peers: comma list of peer names, "all" or "none"
  double max_pass_ms = -1;             ///< --max-pass-ms: longest pass a slow peer runs on the whole batch
  bool force_gpu = false;              ///< --gpu: the GPU form of batched (its default when --cpu is not given)
  bool plan = false;                   ///< ooc --plan: print the host-resident planner's plan
  std::int64_t budget = 0;             ///< --budget: device bytes the ooc plan may use; 0 = a quarter of the operands
  bool tune = false;                   ///< batched --tune: time the small GPU kernel's candidate shapes
  std::string tune_out;                ///< --tune-out PATH: where the tuner writes its table
  bool grouped = false;                ///< batched --grouped: the grouped case (GPU)
  std::vector<std::int64_t> group_mix; ///< batched --group-mix: which of the grouped case's groups (1-based)

  // micro and model
  std::string machine_out;             ///< micro --machine-out FILE: the measured machine description
  std::string machine_file;            ///< model --machine FILE: the description the model reads
  std::string measured_file;           ///< model --measured FILE: sweep rows to hold the ranking against
  std::string kernels_file;            ///< model --kernels FILE: compiled kernels' resources (bench/sass_spills.py)
};

/// The trimmed items of a comma-separated list.
std::vector<std::string> split_list(std::string_view text);

/// "256:8192:256" (first:last:step, last included), "1,2,3", or a comma list mixing both.
std::string parse_size_list(std::string_view text, std::vector<std::int64_t>* out);

/// "0,8192,16384": integers >= 0 (0 usually meaning "the default").
std::string parse_count_list(std::string_view text, std::vector<std::int64_t>* out);

/// "nn,nt,tn,tt".
std::string parse_trans_list(std::string_view text, std::vector<TransPair>* out);

/// "1,all,4": thread counts, "all" stored as 0.
std::string parse_thread_list(std::string_view text, std::vector<int>* out);

/// "1073741824", "64M", "1G", "512K" (binary multiples).
std::string parse_bytes(std::string_view text, std::int64_t* out);

/// Inline shapes "4,8,4;8,4,16" or "4x8x4,8x4x16" (m, n, k each).
std::string parse_shape_list(std::string_view text, std::vector<ShapeSpec>* out);

/// --shapes of `batched`: a shapes file when one exists at that path, else an inline list.
std::string read_shapes_argument(std::string const& argument, std::vector<ShapeSpec>* out);

/// Lines "m n k [transA transB]"; '#' starts a comment.
std::string read_shapes_file(std::string const& path, std::vector<ShapeSpec>* out);

/// A built-in suite's shapes: the shapes file `name` (e.g. "dgemm-suite.txt") from `shapes_dir` when
/// given, else from bench/shapes in the source tree gemmkit-bench was built from, else from where
/// `cmake --install` put them (share/gemmkit/shapes beside bin/).
std::string read_builtin_shapes(std::string const& name, std::string const& shapes_dir, std::vector<ShapeSpec>* out);

/// The sizes the options ask for: the --shapes file, else --m/--n/--k (only --m: squares; a missing
/// --n or --k follows m). Empty when neither was given.
std::string shapes_from_options(Options const& options, std::vector<ShapeSpec>* out);

}  // namespace gemmkit::bench
