/*! \file
    \brief The command line of gemmkit-bench (CLI11): one subcommand per command, each with its own
    options and `--help`; `--version`. An option the command does not take is an error, and so is an
    option or a command that needs CUDA in a build without it.
*/
#include "cli.hpp"

#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <set>
#include <string>
#include <vector>

namespace gemmkit::bench {

namespace {

#if GEMMKIT_WITH_CUDA
constexpr bool kWithCuda = true;
#else
constexpr bool kWithCuda = false;
#endif

constexpr char const* kProgram = "gemmkit-bench";
constexpr char const* kNoCuda = "gemmkit was built without CUDA";
/// Where the options that need CUDA are listed in a build without it.
constexpr char const* kCudaGroup = "Options that need CUDA (this build has none)";

std::string version_text() {
  return std::string(kProgram) + " " + GEMMKIT_BENCH_VERSION + (kWithCuda ? " (built with CUDA)" : " (built without CUDA)");
}

/// A command that runs on the GPU only, described for the command list.
std::string gpu_only(std::string const& description) {
  return kWithCuda ? description : description + " (needs CUDA; this build has none)";
}

/// Turns a value into its field; "" or what is wrong with it.
using Parser = std::function<std::string(std::string const&)>;

/// Builds the commands: each option is bound to a field of CommandLine, and the options that need
/// CUDA are remembered so that a build without it refuses them.
class Builder {
 public:
  explicit Builder(CommandLine* out) : o_(out->options), ooc_(out->ooc) {}

  Options& o() { return o_; }
  OocOptions& ooc() { return ooc_; }
  std::vector<CLI::Option*> const& cuda_only() const { return cuda_only_; }

  /// Marks an option as one that needs CUDA.
  CLI::Option* cuda(CLI::Option* option) {
    cuda_only_.push_back(option);
    if (!kWithCuda) option->group(kCudaGroup);
    return option;
  }

  static CLI::Option* parsed(CLI::App* cmd, std::string const& name, std::string const& type, std::string const& help,
                             Parser parse) {
    std::string const key = name.substr(0, name.find(','));
    return cmd
        ->add_option_function<std::string>(
            name,
            [key, parse](std::string const& value) {
              if (std::string e = parse(value); !e.empty()) throw CLI::ValidationError(key, e);
            },
            help)
        ->type_name(type);
  }

  static CLI::Option* text(CLI::App* cmd, std::string const& name, std::string* field, std::string const& type,
                           std::string const& help) {
    return cmd->add_option(name, *field, help)->type_name(type);
  }

  /// An integer >= `min`.
  static CLI::Option* integer(CLI::App* cmd, std::string const& name, int* field, int min, std::string const& help) {
    return parsed(cmd, name, "N", help, [field, min](std::string const& value) -> std::string {
      std::vector<std::int64_t> v;
      if (!parse_count_list(value, &v).empty() || v.size() != 1 || v[0] < min || v[0] > 1000000) {
        return "'" + value + "' is not an integer from " + std::to_string(min) + " to 1000000";
      }
      *field = int(v[0]);
      return {};
    });
  }

  /// A number; with `positive`, > 0, else >= `min` when `bounded`.
  static CLI::Option* number(CLI::App* cmd, std::string const& name, std::function<void(double)> set, std::string const& help,
                             bool bounded = false, double min = 0, bool strict = false) {
    return parsed(cmd, name, "X", help, [=](std::string const& value) -> std::string {
      double x = 0;
      try {
        std::size_t used = 0;
        x = std::stod(value, &used);
        if (used != value.size()) return "'" + value + "' is not a number";
      } catch (std::exception const&) {
        return "'" + value + "' is not a number";
      }
      if (bounded && (strict ? !(x > min) : !(x >= min))) {
        return "must be " + std::string(strict ? "above " : "at least ") + format_number(min) + " (got " + value + ")";
      }
      set(x);
      return {};
    });
  }

  static CLI::Option* sizes(CLI::App* cmd, std::string const& name, std::vector<std::int64_t>* field,
                            std::string const& help) {
    return parsed(cmd, name, "LIST", help, [field](std::string const& v) { return parse_size_list(v, field); });
  }

  static CLI::Option* bytes(CLI::App* cmd, std::string const& name, std::int64_t* field, std::string const& help) {
    return parsed(cmd, name, "BYTES", help, [field](std::string const& v) { return parse_bytes(v, field); });
  }

  // --- options several commands share --------------------------------------------------------

  CLI::Option* dtype(CLI::App* cmd, std::string const& help, bool both = true) {
    return parsed(cmd, "--dtype", both ? "f64|f32|both" : "f64|f32", help, [this, both](std::string const& t) {
      if (t == "f64" || t == "d" || t == "double") o_.dtypes = {Dtype::kF64};
      else if (t == "f32" || t == "s" || t == "float") o_.dtypes = {Dtype::kF32};
      else if (both && t == "both") o_.dtypes = {Dtype::kF64, Dtype::kF32};
      else return std::string(both ? "must be f64, f32 or both" : "must be f64 or f32");
      return std::string();
    });
  }

  CLI::Option* peer(CLI::App* cmd) {
    std::string const help = kWithCuda ? "the peer each case runs beside: default auto, cuBLAS on the GPU and OpenBLAS on the CPU"
                                       : "the peer each case runs beside: default auto, OpenBLAS (cublas needs CUDA)";
    return parsed(cmd, "--peer", kWithCuda ? "cublas|openblas|none|auto" : "openblas|none|auto", help,
                  [this](std::string const& p) -> std::string {
                    if (p == "cublas" && !kWithCuda) return "cublas needs CUDA: " + std::string(kNoCuda);
                    if (p != "auto" && p != "cublas" && p != "openblas" && p != "none") {
                      return kWithCuda ? "must be cublas, openblas, none or auto" : "must be openblas, none or auto";
                    }
                    o_.peer = p;
                    return {};
                  });
  }

  void verify(CLI::App* cmd, std::string const& what) {
    cmd->add_flag_callback("--verify", [this] { o_.verify = true; }, "check " + what + " (the default)");
    cmd->add_flag_callback("--no-verify", [this] { o_.verify = false; }, "skip the check");
  }

  void verbose(CLI::App* cmd, int* field) {
    cmd->add_flag_function("-v,--verbose", [field](std::int64_t count) { *field = int(count); },
                           "gemmkit's verbosity (repeat for more)");
  }

  CLI::Option* device(CLI::App* cmd) { return cuda(integer(cmd, "--device", &o_.device, 0, "CUDA device (default 0)")); }

  CLI::Option* json(CLI::App* cmd, std::string const& what) {
    return text(cmd, "--json", &o_.json_file, "FILE", "append " + what + " to FILE as JSON lines");
  }

  CLI::Option* suite(CLI::App* cmd, std::string const& fallback) {
    return text(cmd, "--suite", &o_.suite, "NAME", "the `suite` key of the JSON rows (default " + fallback + ")");
  }

  CLI::Option* peak(CLI::App* cmd) {
    return number(
        cmd, "--peak-gflops", [this](double x) { o_.peak_gflops = x; },
        "bound of the %peak column (default: the measured peaks on an H100 SXM; none elsewhere)", true, 0, true);
  }

  CLI::Option* shapes_dir(CLI::App* cmd, std::string const& files) {
    return text(cmd, "--shapes-dir", &o_.shapes_dir, "DIR",
                "folder of the built-in suite's shapes file (" + files + "; default: bench/shapes of the source tree)");
  }

  /// --warmup, --reps, --target-ms, --alpha, --beta, --no-graph: how `gemm`-like commands time a case.
  void timing(CLI::App* cmd, std::string const& warmup, std::string const& reps, std::string const& target_ms,
              bool scalars) {
    integer(cmd, "--warmup", &o_.warmup, 0, "untimed calls per side (default " + warmup + ")");
    integer(cmd, "--reps", &o_.reps, 1, "timed batches per side; median, min and max over them (default " + reps + ")");
    number(
        cmd, "--target-ms", [this](double x) { o_.target_ms = x; },
        "a timed batch repeats the call until it lasts about X ms (default " + target_ms + ")", true, 0, true);
    if (scalars) {
      number(cmd, "--alpha", [this](double x) { o_.alpha = x; }, "alpha (default 1)");
      number(cmd, "--beta", [this](double x) { o_.beta = x; },
             "beta (default 0: C is filled with NaN, which beta = 0 must not read)");
    }
    cuda(cmd->add_flag_callback("--no-graph", [this] { o_.graph = false; },
                                "skip the CUDA-graph replay timing of sizes <= 1024"));
  }

 private:
  static std::string format_number(double x) {
    char text[32];
    std::snprintf(text, sizeof text, "%g", x);
    return text;
  }

  Options& o_;
  OocOptions& ooc_;
  std::vector<CLI::Option*> cuda_only_;
};

constexpr char const* kListHelp = "LIST: first:last:step (last included), a,b,c, or both mixed";
constexpr char const* kRowsFooter =
    "Rows record the commit from $GEMMKIT_COMMIT when set, else git at run time, else the value CMake saw.\n"
    "Exit status: 0 ok, 1 a verification failed or a case errored, 2 usage error.";

void add_tour(Builder& b, CLI::App* cmd) {
  Options& o = b.o();
  cmd->add_flag("--cpu", o.force_cpu, "the CPU sections only, even when a GPU is present");
  b.device(cmd);
  b.peer(cmd);
  b.timing(cmd, "2 on the GPU, 1 on the CPU", "5 on the GPU, 3 on the CPU", "10", false);
  b.verify(cmd, "every result against the higher-precision host reference");
  b.peak(cmd);
  b.json(cmd, "one object per case");
  b.verbose(cmd, &o.verbosity);
  cmd->footer(std::string("The tour runs what this machine can, in a few minutes: on a GPU, gemm beside cuBLAS at "
                          "1024, 2048, 4096 and 4097, each ladder step at 1024 and batched small GEMM beside cuBLAS; on "
                          "the CPU, gemm beside OpenBLAS and batched small GEMM beside the CPU libraries.\n") +
              kRowsFooter);
}

void add_gemm(Builder& b, CLI::App* cmd) {
  Options& o = b.o();
  Builder::sizes(cmd, "--m", &o.m, "m of the cases (only --m given: squares)");
  Builder::sizes(cmd, "--n", &o.n, "n of the cases (default: m)");
  Builder::sizes(cmd, "--k", &o.k, "k of the cases (default: m)");
  Builder::text(cmd, "--shapes", &o.shapes_file, "FILE",
                "the cases from a shapes file: lines 'm n k [transA transB]', '#' starts a comment");
  Builder::parsed(cmd, "--trans", "LIST", "transposes of the cases: nn,nt,tn,tt (default nn)",
                  [&o](std::string const& v) { return parse_trans_list(v, &o.trans); });
  b.dtype(cmd, "precision (default f64; f32 with --suite sgemm)");
  b.suite(cmd, "gemm");
  b.shapes_dir(cmd, "dgemm-suite.txt, cpu-suite.txt");
  Builder::text(cmd, "--variants", &o.variants, "GLOBS",
                "force the registered variants whose id matches a glob (fnmatch, comma list); default: what "
                "gemmkit's selection table picks");
  b.peer(cmd);
  cmd->add_flag("--emulate", o.emulate,
                "FP64 emulated on the INT8 tensor cores beside native gemmkit, cuBLAS and cuBLAS's emulation "
                "(GPU; default sizes 4096, 8192, 16384; --variants adds forced variants as further sides)");
  Builder::parsed(cmd, "--phi", "LIST", "with --emulate: exponent spreads phi of the operands (default 0)",
                  [&o](std::string const& v) {
                    for (std::string const& item : split_list(v)) {
                      char* end = nullptr;
                      double const phi = std::strtod(item.c_str(), &end);
                      if (end == item.c_str() || *end != 0 || !(phi >= 0)) return "not a spread: '" + item + "'";
                      o.phi.push_back(phi);
                    }
                    return std::string();
                  });
  cmd->add_flag("--split", o.split_inputs,
                "with --emulate: also a case whose rows of A are large (up to 1/2) in the first half of k and "
                "2^-30 times that in the second, the columns of B the other way round: each element of |A||B| "
                "far below what the rows' and columns' largest suggest (the fast scaling's blind spot)");
  cmd->add_flag("--cpu", o.force_cpu, "host pointers and the CPU path even when a GPU is present");
  b.device(cmd);
  b.timing(cmd, "3 on the GPU, 1 on the CPU", "10 on the GPU, 5 on the CPU", "20", true);
  b.verify(cmd, "every result against the higher-precision host reference");
  b.json(cmd, "one object per case");
  b.peak(cmd);
  b.verbose(cmd, &o.verbosity);
  cmd->footer(std::string(kListHelp) +
              ". Without sizes, gemm runs the built-in suite: bench/shapes/dgemm-suite.txt on the GPU, "
              "bench/shapes/cpu-suite.txt on the CPU.\n" +
              kRowsFooter);
}

void add_batched(Builder& b, CLI::App* cmd) {
  Options& o = b.o();
  Builder::sizes(cmd, "--n", &o.n, "square sizes (default: the built-in suite, batched-suite.txt)");
  Builder::text(cmd, "--shapes", &o.shapes_file, "SHAPES",
                "non-square shapes: 'm,n,k;m,n,k', MxNxK,MxNxK or a shapes file");
  b.dtype(cmd, "precision (default both)");
  cmd->add_flag("--cpu", o.force_cpu, "the CPU form: gemmkit beside LIBXSMM, OpenBLAS, BLIS, Eigen and a plain loop");
  b.cuda(cmd->add_flag("--gpu", o.force_gpu,
                       "the GPU form (the default): gemmkit strided and pointer-array beside cuBLAS"));
  Builder::parsed(cmd, "--threads", "LIST", "CPU form: OpenMP thread counts, 'all' = OpenMP's default (default 1,all)",
                  [&o](std::string const& v) { return parse_thread_list(v, &o.threads); });
  Builder::bytes(cmd, "--bytes", &o.bytes, "A+B+C of each case, at least (default 1G; K, M, G suffixes)");
  Builder::number(cmd, "--alpha", [&o](double x) { o.alpha = x; }, "GPU form: alpha (default 1; the CPU form runs 1)");
  Builder::number(cmd, "--beta", [&o](double x) { o.beta = x; }, "beta (default 1: C read and written; 0: C written only)");
  Builder::text(cmd, "--peers", &o.peers, "LIST",
                "the peers to run, or all or none (default all); CPU form: libxsmm,openblas,blis,eigen,loop; GPU "
                "form: gemmkit_ptr,gemmkit_ptr_host,cublas_strided,cublas_ptr,cublas_grouped");
  Builder::text(cmd, "--variants", &o.variants, "GLOBS",
                "force gemmkit's variant: the first registered id matching a glob, per dtype");
  Builder::number(
      cmd, "--max-pass-ms", [&o](double x) { o.max_pass_ms = x; },
      "a peer whose pass over the batch would last longer runs on rotating windows of it (default CPU 500, GPU 200)",
      true, 0, true);
  Builder::integer(cmd, "--reps", &o.reps, 1, "timed passes (default CPU 3, GPU 10; --tune CPU 11, GPU 7)");
  Builder::integer(cmd, "--warmup", &o.warmup, 0, "untimed passes after the checked one (default CPU 0, GPU 1)");
  b.verify(cmd, "sampled problems of each implementation against the higher-precision host reference");
  b.cuda(cmd->add_flag("--grouped", o.grouped,
                       "the grouped case: one gk_?gemm_grouped call over 7 groups of shapes, beside "
                       "cublas?gemmGroupedBatched (alone, or with the cases of --n/--shapes)"));
  b.cuda(Builder::sizes(cmd, "--group-mix", &o.group_mix, "only these groups of the grouped case (1..7)"));
  b.device(cmd);
  cmd->add_flag("--tune", o.tune,
                "time every candidate shape of the small kernels per size and print the tuning table");
  Builder::text(cmd, "--tune-out", &o.tune_out, "PATH", "--tune: write the table to PATH");
  b.json(cmd, "one object per case");
  b.suite(cmd, "batched-cpu or batched-gpu");
  b.shapes_dir(cmd, "batched-suite.txt");
  b.verbose(cmd, &o.verbosity);
  cmd->footer(
      std::string(
          "Strided batches (column-major, packed, nn) of at least --bytes per case, timed against the bandwidth "
          "bound measured in the same run. Without --n and --shapes, batched runs the built-in suite "
          "(bench/shapes/batched-suite.txt: squares 2..32 and four other shapes), and on the GPU the grouped case.\n"
          "--tune takes --n, --dtype, --bytes, --reps, --tune-out and --cpu, --gpu or --device: on the CPU it times "
          "every blocking and prefetch of the small kernels on one thread and prints src/cpu/small/small_blocking.csv "
          "with this CPU vendor's rows replaced; on the GPU it prints this GPU's rows of src/cuda/batched/small_tuning.csv "
          "(all buckets, or with --n those square sizes), merged into the table at --tune-out, whose other GPUs' rows "
          "stay.\n") +
      kRowsFooter);
}

void add_overhead(Builder& b, CLI::App* cmd) {
  Options& o = b.o();
  Builder::sizes(cmd, "--n", &o.n, "m = n = k of the GEMM rows (default 8,64,256,512)");
  Builder::integer(cmd, "--calls", &o.calls, 1, "back-to-back calls per timed rep (default 200)");
  Builder::integer(cmd, "--reps", &o.reps, 1, "timed reps, median reported (default 30)");
  Builder::integer(cmd, "--warmup", &o.warmup, 0, "untimed calls per row (default 20)");
  b.device(cmd);
  b.json(cmd, "one object per row");
  b.suite(cmd, "overhead");
  b.verbose(cmd, &o.verbosity);
  cmd->footer("Device pointers, f64, nn, alpha = 1, beta = 0: gk_dgemm and cuBLAS at small sizes, and the CUDA "
              "calls a gemmkit call is made of (pointer queries, a launch, stream-ordered allocation).");
}

void add_model(Builder& b, CLI::App* cmd) {
  Options& o = b.o();
  auto one = [](std::vector<std::int64_t>* field) {
    return [field](std::string const& v) -> std::string {
      if (std::string e = parse_size_list(v, field); !e.empty()) return e;
      return field->size() == 1 ? std::string() : "the model takes one size";
    };
  };
  Builder::parsed(cmd, "--m", "N", "m (default 8192)", one(&o.m));
  Builder::parsed(cmd, "--n", "N", "n (default: m)", one(&o.n));
  Builder::parsed(cmd, "--k", "N", "k (default: m)", one(&o.k));
  Builder::text(cmd, "--machine", &o.machine_file, "FILE",
                "the machine description to model (written by `micro --machine-out`; default: the H100 SXM's "
                "measured figures)");
  b.cuda(Builder::text(cmd, "--measured", &o.measured_file, "FILE",
                       "a sweep's JSON lines: the model's ranking of the configs against the measured one"));
  b.cuda(Builder::text(cmd, "--kernels", &o.kernels_file, "FILE",
                       "compiled kernels' registers and spills (bench/sass_spills.py's rows), charged to shared "
                       "memory"));
}

void add_micro(Builder& b, CLI::App* cmd) {
  Options& o = b.o();
  b.json(cmd, "one object per measurement");
  Builder::text(cmd, "--machine-out", &o.machine_out, "FILE",
                "write the measured machine description to FILE (`model --machine FILE` reads it)");
  Builder::integer(cmd, "--reps", &o.reps, 1, "timed reps per measurement, median reported");
  Builder::bytes(cmd, "--bytes", &o.bytes, "copy buffers (default 512M; K, M, G suffixes)");
  Builder::number(
      cmd, "--target-ms", [&o](double x) { o.target_ms = x; }, "length of a rate kernel's run (default 20)", true, 0,
      true);
  Builder::number(
      cmd, "--energy-seconds", [&o](double x) { o.energy_seconds = x; },
      "length of each energy row's sustained run (default 1.5; 0 leaves them out)", true, 0, false);
  b.device(cmd);
  cmd->footer("Peak FMA and FP64 tensor-core rates per mma shape, launch latency, copy bandwidth by width and offset, "
              "memcpy, L2, host<->device copies, shared-memory and instruction latencies, each beside the measured "
              "H100 SXM figure where the device is one.");
}

void add_ladder(Builder& b, CLI::App* cmd) {
  Options& o = b.o();
  Builder::sizes(cmd, "--n", &o.n, "square sizes (default 1024,2048,4096)");
  b.dtype(cmd, "precision (default both)");
  Builder::text(cmd, "--machine", &o.machine_file, "FILE",
                "the machine description the bounds come from (default: the H100 SXM's measured figures)");
  Builder::text(cmd, "--kernels", &o.kernels_file, "FILE",
                "compiled kernels' registers and spills (bench/sass_spills.py's rows)");
  b.peer(cmd);
  b.timing(cmd, "3", "10", "20", true);
  b.verify(cmd, "every result against the higher-precision host reference");
  b.device(cmd);
  b.json(cmd, "one object per case");
  b.suite(cmd, "ladder");
  b.peak(cmd);
  b.verbose(cmd, &o.verbosity);
  cmd->footer(std::string("Every ladder step (from the naive kernel up) and the production pick beside cuBLAS, "
                          "verified, with the performance model's bound per step.\n") +
              kRowsFooter);
}

void add_ooc(Builder& b, CLI::App* cmd) {
  OocOptions& o = b.ooc();
  auto names = [](std::vector<std::string>* field, std::set<std::string> known, std::string what) {
    return [=](std::string const& v) -> std::string {
      std::vector<std::string> items = split_list(v);
      for (std::string const& item : items) {
        if (known.count(item) == 0) return what;
      }
      *field = items;
      return {};
    };
  };
  cmd->add_flag("--plan", o.plan, "print the planner's plan only (no GPU needed)");
  Builder::sizes(cmd, "--n", &o.sizes, "m = n = k of the measured cases (default 16384,32768); --plan: n");
  Builder::sizes(cmd, "--m", &o.plan_m, "--plan: m (default 32768; n and k follow it)");
  Builder::sizes(cmd, "--k", &o.plan_k, "--plan: k");
  Builder::parsed(cmd, "--dtype", "f64|f32", "precision (default f64)", [&o](std::string const& t) -> std::string {
    if (t == "f64") o.dtype = Dtype::kF64;
    else if (t == "f32") o.dtype = Dtype::kF32;
    else return "must be f64 or f32";
    return {};
  });
  Builder::parsed(cmd, "--memory", "LIST", "pinned,pageable (default both; pinned = the bench page-locks its buffers)",
                  names(&o.memory, {"pinned", "pageable"}, "takes pinned and/or pageable"));
  Builder::parsed(cmd, "--pipeline", "LIST", "pipeline levels 1..4 (default 1,2,3,4)", [&o](std::string const& v) {
    if (std::string e = parse_size_list(v, &o.levels); !e.empty()) return e;
    for (std::int64_t l : o.levels) {
      if (l < 1 || l > 4) return std::string("levels are 1..4");
    }
    return std::string();
  });
  Builder::sizes(cmd, "--gpus", &o.gpus, "GPU counts, devices 0..g-1 (default 1..all); --plan: the workers (default 1)");
  Builder::parsed(cmd, "--devices", "LIST", "one explicit device list instead of --gpus (may repeat a device)",
                  [&o](std::string const& v) {
                    std::vector<std::int64_t> list;
                    if (std::string e = parse_count_list(v, &list); !e.empty()) return e;
                    o.devices.assign(list.begin(), list.end());
                    return std::string();
                  });
  Builder::parsed(cmd, "--budget-fraction", "LIST",
                  "device budget as a fraction of the operands' bytes; 0 = the device's free memory (default 0,0.25)",
                  [&o](std::string const& v) {
                    o.budget_fractions.clear();
                    for (std::string const& f : split_list(v)) {
                      char* end = nullptr;
                      double const x = std::strtod(f.c_str(), &end);
                      if (end == f.c_str() || *end != '\0' || x < 0) return std::string("takes numbers >= 0");
                      o.budget_fractions.push_back(x);
                    }
                    return std::string();
                  });
  Builder::bytes(cmd, "--budget", &o.budget,
                 "one device budget for the runs instead of --budget-fraction; --plan: default a quarter of the "
                 "operands");
  Builder::parsed(cmd, "--cpu-share", "LIST",
                  "off,on (default both): on = the CPU computes a share of C's columns through OpenBLAS (rows at the "
                  "highest --pipeline level)",
                  names(&o.cpu_share, {"off", "on"}, "takes off and/or on"));
  Builder::parsed(cmd, "--cpu-threads", "LIST",
                  "the CPU share's OpenBLAS threads, one 'on' row each (default 0: the cores the pipeline leaves)",
                  [&o](std::string const& v) { return parse_count_list(v, &o.cpu_threads); });
  Builder::parsed(cmd, "--peers", "LIST", "cublasxt,cublas or none (default both)", [&o](std::string const& v) {
    std::vector<std::string> const items = v == "none" ? std::vector<std::string>{} : split_list(v);
    for (std::string const& p : items) {
      if (p != "cublasxt" && p != "cublas") return std::string("takes cublasxt, cublas or none");
    }
    o.peers = items;
    return std::string();
  });
  Builder::parsed(cmd, "--xt-blocks", "LIST", "cuBLASXt block sizes, 0 = its default (default 8192,0)",
                  [&o](std::string const& v) { return parse_count_list(v, &o.xt_blocks); });
  Builder::parsed(cmd, "--tile", "LIST",
                  "square tile sides forced on gemmkit's rows (full K; default 0: the planner's choice)",
                  [&o](std::string const& v) { return parse_count_list(v, &o.tiles); });
  Builder::parsed(cmd, "--emulate", "LIST",
                  "off,fast,accurate (default off): gemmkit's rows with the blocks native, or FP64-emulated on the "
                  "INT8 tensor cores with that scaling (f64)",
                  names(&o.emulation, {"off", "fast", "accurate"}, "takes off, fast and/or accurate"));
  Builder::integer(cmd, "--reps", &o.reps, 1, "timed calls per case, median reported (default 3)");
  Builder::integer(cmd, "--warmup", &o.warmup, 0, "untimed calls per case (default 1)");
  Builder::number(
      cmd, "--beta", [&o](double x) { o.beta = x, o.beta_given = true; },
      "beta (default 0: C not read; --plan: default != 0, C loaded)");
  cmd->add_flag_callback("--no-verify", [&o] { o.verify = false; },
                         "skip the sampled-column check against the host reference");
  Builder::text(cmd, "--json", &o.json_file, "FILE", "append one object per row to FILE as JSON lines");
  Builder::text(cmd, "--timeline", &o.timeline_file, "FILE",
                "every copy and compute of one run (the first case at the highest level, per GPU count and --emulate "
                "mode) as JSON lines");
  b.verbose(cmd, &o.verbosity);
  cmd->footer(std::string(kListHelp) +
              ". --plan takes --m, --n, --k, --budget, --dtype, --beta, --gpus, --memory and --pipeline. Rows at the "
              "highest level carry each GPU's copy rates, from one more, untimed call whose copies are timed one by "
              "one.\n" +
              kRowsFooter);
}

/// The options of `cmd` given on the command line, by name.
std::vector<std::string> given_options(CLI::App const* cmd) {
  std::vector<std::string> names;
  for (CLI::Option const* option : cmd->get_options()) {
    if (option->count() > 0) names.push_back(option->get_name());
  }
  return names;
}

bool given(CLI::App const* cmd, std::string const& name) {
  CLI::Option const* option = cmd->get_option_no_throw(name);
  return option != nullptr && option->count() > 0;
}

/// Of the options given, the first that is not in `allowed`; "" when none.
std::string first_not_in(CLI::App const* cmd, std::set<std::string> const& allowed) {
  for (std::string const& name : given_options(cmd)) {
    if (allowed.count(name) == 0) return name;
  }
  return {};
}

/// What the options of one command ask for that it cannot do; "" when nothing.
std::string check_command(CLI::App const* cmd, CommandLine const& line) {
  std::string const& name = cmd->get_name();
  Options const& o = line.options;
  bool const gpu_command = name == "overhead" || name == "micro" || name == "ladder";
  if (!kWithCuda && gpu_command) return name + " runs on the GPU: " + kNoCuda;
  if (given(cmd, "--verify") && given(cmd, "--no-verify")) return "--verify or --no-verify, not both";
  if (name == "gemm" || name == "batched") {
    bool const sizes = !o.m.empty() || !o.n.empty() || !o.k.empty() || !o.shapes_file.empty();
    if (given(cmd, "--shapes-dir") && sizes) {
      return "--shapes-dir names where the built-in suite's shapes are; with --m, --n or --shapes there is no suite";
    }
  }
  if (name == "batched") {
    bool const cpu = o.force_cpu;
    if (cpu && o.force_gpu) return "batched takes --cpu or --gpu, not both";
    if (!kWithCuda && !cpu) {
      return std::string("the GPU form of batched (its default without --cpu) needs CUDA: ") + kNoCuda +
             "; `gemmkit-bench batched --cpu` runs the CPU form";
    }
    if (o.tune) {
      std::string const extra =
          first_not_in(cmd, {"--tune", "--n", "--dtype", "--bytes", "--reps", "--tune-out", "--cpu", "--gpu", "--device"});
      if (!extra.empty()) return "batched --tune takes --n, --dtype, --bytes, --reps and --tune-out, not " + extra;
    } else if (given(cmd, "--tune-out")) {
      return "--tune-out is where --tune writes its table: give --tune too";
    }
    if (cpu) {
      for (char const* option : {"--device", "--grouped", "--group-mix"}) {
        if (given(cmd, option)) return std::string(option) + " is for the GPU form of batched, not --cpu";
      }
    }
  }
  if (name == "ooc") {
    OocOptions const& q = line.ooc;
    if (q.plan) {
      std::string const extra = first_not_in(
          cmd, {"--plan", "--m", "--n", "--k", "--budget", "--dtype", "--beta", "--gpus", "--memory", "--pipeline"});
      if (!extra.empty()) {
        return "ooc --plan takes --m, --n, --k, --budget, --dtype, --beta, --gpus, --memory and --pipeline, not " +
               extra;
      }
    } else {
      if (!kWithCuda) return std::string("ooc runs on the GPU: ") + kNoCuda + " (`gemmkit-bench ooc --plan` prints the plan)";
      if (given(cmd, "--k")) return "--k is for ooc --plan: the measured cases are squares (--n)";
    }
  }
  return {};
}

/// The message for arguments a command did not take: which one, and which command takes it.
std::string extras_message(CLI::App& app, CLI::App* cmd, std::vector<std::string> const& extras) {
  std::string const command = cmd == &app ? std::string() : cmd->get_name();
  for (std::string const& arg : extras) {
    if (arg.empty() || arg[0] != '-') continue;
    std::string const option = arg.substr(0, arg.find('='));
    std::vector<std::string> takers;
    for (CLI::App const* other : app.get_subcommands({})) {
      if (other != cmd && other->get_option_no_throw(option) != nullptr) takers.push_back(other->get_name());
    }
    std::string taken;
    for (std::size_t i = 0; i < takers.size(); ++i) {
      taken += (i == 0 ? "" : (i + 1 == takers.size() ? " and " : ", ")) + takers[i];
    }
    if (command.empty()) {
      return option + " is no option of " + kProgram + " itself: options follow the command (`" + kProgram +
             " <command> --help` lists a command's options)";
    }
    if (takers.empty()) return "unknown option " + option + " (`" + kProgram + " " + command + " --help` lists " +
                               command + "'s options)";
    return command + " does not take " + option + " (" + taken + (takers.size() == 1 ? " takes it" : " take it") +
           "; `" + kProgram + " " + command + " --help` lists " + command + "'s options)";
  }
  if (command.empty()) {
    return "unknown command '" + extras.front() + "' (`" + kProgram + " --help` lists the commands)";
  }
  return command + " takes no argument '" + extras.front() + "' (`" + kProgram + " " + command +
         " --help` lists its options)";
}

}  // namespace

int parse_command_line(int argc, char** argv, CommandLine* out) {
  CLI::App app("gemmkit-bench: gemmkit measured side by side with its peer (cuBLAS on the GPU, OpenBLAS on the CPU)",
               kProgram);
  app.set_version_flag("--version", version_text(), "print the version and exit");
  app.set_help_flag("-h,--help", "print this help and exit");
  app.require_subcommand(0, 1);
  app.option_defaults()->multi_option_policy(CLI::MultiOptionPolicy::TakeLast);
  app.get_formatter()->column_width(32);
  app.get_formatter()->label("SUBCOMMAND", "COMMAND");
  app.footer(std::string("Without a command, gemmkit-bench runs the tour. `gemmkit-bench <command> --help` lists a "
                         "command's options.\n") +
             kRowsFooter);

  Builder b(out);
  struct Command {
    char const* name;
    std::string description;
    void (*add)(Builder&, CLI::App*);
  };
  std::vector<Command> const commands = {
      {"tour", "(the default) a short run of everything this machine can run", add_tour},
      {"gemm", "GEMM sweep: gemmkit beside its peer, verified; a table, and JSON lines with --json", add_gemm},
      {"batched",
       "batched small GEMM against the bandwidth bound measured in the same run and the peers: on the GPU "
       "(default) or the CPU (--cpu)",
       add_batched},
      {"overhead", gpu_only("host cost per call on the GPU path: gk_dgemm and cuBLAS at small sizes"), add_overhead},
      {"model", "the performance model's bound for each tile config at one size", add_model},
      {"micro", gpu_only("device micro-benchmarks and the measured machine description"), add_micro},
      {"ladder", gpu_only("every ladder step and the production pick beside cuBLAS, with the model's bound"),
       add_ladder},
      {"ooc",
       std::string("host-resident GEMM (operands in host memory) on 1..N GPUs beside cuBLASXt and in-core cuBLAS; "
                   "--plan prints the planner's plan") +
           (kWithCuda ? "" : " (all but --plan need CUDA; this build has none)"),
       add_ooc},
      {"list", "every registered variant and the selection table", nullptr},
  };
  for (Command const& c : commands) {
    CLI::App* cmd = app.add_subcommand(c.name, c.description)->group("Commands");
    if (c.add != nullptr) c.add(b, cmd);
  }
  std::string help_topic;
  CLI::App* help = app.add_subcommand("help", "this help, or with a command's name that command's")->group("Commands");
  help->add_option("command", help_topic, "a command")->type_name("COMMAND");

  auto usage_error = [](std::string const& command, std::string const& message) {
    std::fprintf(stderr, "%s%s%s: %s\n", kProgram, command.empty() ? "" : " ", command.c_str(), message.c_str());
    return 2;
  };
  try {
    app.parse(argc, argv);
  } catch (CLI::CallForHelp const& e) {
    return app.exit(e);
  } catch (CLI::CallForAllHelp const& e) {
    return app.exit(e);
  } catch (CLI::CallForVersion const& e) {
    return app.exit(e);
  } catch (CLI::ExtrasError const& e) {
    CLI::App* cmd = &app;
    for (CLI::App* sub : app.get_subcommands({})) {
      if (sub->get_name() == e.get_name()) cmd = sub;
    }
    return usage_error(cmd == &app ? "" : cmd->get_name(), extras_message(app, cmd, cmd->remaining(false)));
  } catch (CLI::ParseError const& e) {
    std::vector<CLI::App*> const selected = app.get_subcommands();
    std::string const command = selected.empty() ? std::string() : selected.front()->get_name();
    return usage_error(command, std::string(e.what()) + " (`" + kProgram + (command.empty() ? "" : " ") + command +
                                    " --help` lists the options)");
  }

  std::vector<CLI::App*> const selected = app.get_subcommands();
  if (selected.empty()) return -1;  // the tour, with its defaults
  CLI::App* cmd = selected.front();
  out->command = cmd->get_name();
  if (cmd == help) {
    if (help_topic.empty()) {
      std::cout << app.help();
      return 0;
    }
    CLI::App* topic = nullptr;
    for (CLI::App* sub : app.get_subcommands({})) {
      if (sub->get_name() == help_topic && sub != help) topic = sub;
    }
    if (topic == nullptr) {
      return usage_error("help", "unknown command '" + help_topic + "' (`" + kProgram + " --help` lists the commands)");
    }
    std::cout << topic->help(kProgram);
    return 0;
  }
  if (!kWithCuda) {
    for (CLI::Option const* option : b.cuda_only()) {
      if (option->count() > 0) return usage_error(out->command, option->get_name() + " needs CUDA: " + kNoCuda);
    }
  }
  if (std::string e = check_command(cmd, *out); !e.empty()) return usage_error(out->command, e);
  return -1;
}

}  // namespace gemmkit::bench
