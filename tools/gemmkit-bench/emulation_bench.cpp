/*! \file
    \brief `gemmkit-bench gemm --emulate`: FP64 GEMM emulated on the INT8 tensor cores beside native
    gemmkit, native cuBLAS and cuBLAS's own emulation, on the same device operands in one run, with
    each one's error against a long-double reference and the emulation's moduli and time split.

    Operands are (U(0,1) - 0.5) exp(phi N(0,1)) (the Ozaki papers' generator; phi = 0 is full-mantissa
    uniform data), fresh per case, or with --split the adversarial case of the accurate scaling.
    Sides: the emulation under GK_FP64_EMULATION_ON with the fast and with the accurate scaling, under
    _AUTO (accurate, and native below the machine's bound or where the bound cannot be met), native
    gemmkit, cuBLAS, cuBLAS's emulation, and forced variants. The error of a side is the largest, over a fixed sample of elements of
    C, of |c - ref| / (|A| |B|)_ij, ref and |A||B| accumulated in long double on the host.
*/
#include "emulation_bench.hpp"

#include "gemm_suite.hpp"
#include "json_writer.hpp"
#include "machine_info.hpp"
#include "table_printer.hpp"
#include "timing.hpp"

#include <gemmkit/gemmkit.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <random>
#include <string>
#include <utility>
#include <vector>

#if GEMMKIT_WITH_CUDA
#include <cuda_runtime.h>
#endif

namespace gemmkit::bench {

#if GEMMKIT_WITH_CUDA

namespace {

/// One contender: a context set up its way, its timings and its result's error.
struct Side {
  std::string name;
  std::string variant;           ///< forced registered variant, "" for the context's own choice
  gk_fp64_emulation emulation = GK_FP64_EMULATION_OFF;
  gk_context ctx = nullptr;
  std::vector<double> times_ms;
  double error = kNotMeasured;   ///< max |c - ref| / (|A||B|)_ij over the sample
  gk_fp64_emulation_scaling scaling = GK_FP64_EMULATION_SCALING_DEFAULT;
  std::string ran;               ///< the variant that ran
  std::string report;            ///< an emulation's moduli and time split
  std::string failure;
};

/// The operands of a case: phi's generator, or the split case (--split).
struct Inputs {
  double phi = 0;
  bool split = false;
};

/// Elements (U(0,1) - 0.5) exp(phi N(0,1)) from a counter-based generator: the same matrix for a seed
/// whatever the thread count.
void fill(std::vector<double>& x, double phi, std::uint64_t seed) {
  auto const mix = [](std::uint64_t z) {
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
  };
  auto const unit = [](std::uint64_t bits) { return double(bits >> 11) * 0x1.0p-53; };
  std::int64_t const count = std::int64_t(x.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < count; ++i) {
    std::uint64_t const base = seed * 0x9e3779b97f4a7c15ull + std::uint64_t(i) * 3;
    double value = unit(mix(base)) - 0.5;
    if (phi != 0) {  // Box-Muller
      double const u1 = std::max(unit(mix(base + 1)), 0x1.0p-60), u2 = unit(mix(base + 2));
      value *= std::exp(phi * std::sqrt(-2 * std::log(u1)) * std::cos(2 * M_PI * u2));
    }
    x[std::size_t(i)] = value;
  }
}

/// The split case: column h of A (rows of op(A) along k) keeps its values for h < k/2 and is scaled by
/// 2^-30 beyond; row h of B the other way round.
void split(std::vector<double>& A, std::vector<double>& B, std::int64_t m, std::int64_t n, std::int64_t k) {
  for (std::int64_t h = 0; h < k; ++h) {
    bool const first_half = h < k / 2;
    for (std::int64_t i = 0; i < m; ++i) A[std::size_t(i + h * m)] *= first_half ? 1.0 : 0x1p-30;
    for (std::int64_t j = 0; j < n; ++j) B[std::size_t(h + j * k)] *= first_half ? 0x1p-30 : 1.0;
  }
}

struct Sample {
  std::int64_t i, j;
  long double ref, magnitude;
};

std::vector<Sample> reference_sample(std::vector<double> const& A, std::vector<double> const& B, std::int64_t m,
                                     std::int64_t n, std::int64_t k, int count) {
  std::mt19937_64 rng(std::uint64_t(m * 131 + n * 7 + k));
  std::vector<Sample> out(static_cast<std::size_t>(count));
  for (int s = 0; s < count; ++s) {
    out[std::size_t(s)].i = s == 0 ? m - 1 : std::int64_t(rng() % std::uint64_t(m));
    out[std::size_t(s)].j = s == 0 ? n - 1 : std::int64_t(rng() % std::uint64_t(n));
  }
#pragma omp parallel for schedule(dynamic)
  for (int s = 0; s < count; ++s) {
    Sample& e = out[std::size_t(s)];
    long double sum = 0, magnitude = 0;
    for (std::int64_t h = 0; h < k; ++h) {
      long double const product = (long double)A[std::size_t(e.i + h * m)] * B[std::size_t(h + e.j * k)];
      sum += product;
      magnitude += std::fabs(product);
    }
    e.ref = sum, e.magnitude = magnitude;
  }
  return out;
}

/// "16 moduli, 53 bits, ...": the count, or -1.
int moduli_in(std::string const& report) {
  int moduli = -1;
  return std::sscanf(report.c_str(), "%d moduli", &moduli) == 1 ? moduli : -1;
}

}  // namespace

int run_emulation(Options const& o) {
  MachineInfo const machine = collect_machine_info(o.device, true);
  if (!machine.gpu) {
    std::fprintf(stderr, "gemmkit-bench gemm --emulate: needs a GPU (%s)\n", machine.no_gpu_reason.c_str());
    return 2;
  }
  std::vector<ShapeSpec> shapes;
  if (std::string e = shapes_from_options(o, &shapes); !e.empty()) {
    std::fprintf(stderr, "gemmkit-bench: %s\n", e.c_str());
    return 2;
  }
  if (shapes.empty()) {
    for (std::int64_t n : {4096, 8192, 16384}) shapes.push_back({n, n, n, std::nullopt});
  }
  std::vector<Inputs> inputs;
  for (double phi : o.phi.empty() ? std::vector<double>{0.0} : o.phi) inputs.push_back({phi, false});
  if (o.split_inputs) inputs.push_back({0.0, true});
  int const reps = o.reps > 0 ? o.reps : 5;
  int const warmup = o.warmup >= 0 ? o.warmup : 1;
  std::string const suite = o.suite.empty() ? "emulation" : o.suite;
  JsonLinesFile json;
  if (!o.json_file.empty()) {
    if (std::string e = json.open(o.json_file); !e.empty()) {
      std::fprintf(stderr, "gemmkit-bench: %s\n", e.c_str());
      return 2;
    }
  }

  auto const side = [](std::string name, std::string variant, gk_fp64_emulation emulation,
                       gk_fp64_emulation_scaling scaling = GK_FP64_EMULATION_SCALING_DEFAULT) {
    Side s;
    s.name = std::move(name), s.variant = std::move(variant), s.emulation = emulation, s.scaling = scaling;
    return s;
  };
  std::vector<Side> sides = {side("gemmkit emulated", "", GK_FP64_EMULATION_ON),
                             side("gemmkit accurate", "", GK_FP64_EMULATION_ON, GK_FP64_EMULATION_SCALING_ACCURATE),
                             side("gemmkit auto", "", GK_FP64_EMULATION_AUTO),
                             side("gemmkit native", "", GK_FP64_EMULATION_OFF),
                             side("cuBLAS", "cublas_dgemm", GK_FP64_EMULATION_OFF),
                             side("cuBLAS emulated", "cublas_dgemm_emulated", GK_FP64_EMULATION_OFF)};
  std::size_t const cublas_side = 4;
  if (!o.variants.empty()) {
    for (std::string const& id : match_variants(o.variants, Dtype::kF64, Platform::kCuda)) {
      sides.push_back(side(id, id, GK_FP64_EMULATION_OFF));
    }
  }
  cudaStream_t stream = nullptr;
  if (cudaSetDevice(o.device) != cudaSuccess || cudaStreamCreateWithFlags(&stream, cudaStreamNonBlocking) != cudaSuccess) {
    std::fprintf(stderr, "gemmkit-bench: cannot create a stream on device %d\n", o.device);
    return 1;
  }
  for (Side& s : sides) {
    if (gk_create(&s.ctx) != GK_SUCCESS || gk_set_device(s.ctx, o.device) != GK_SUCCESS ||
        gk_set_stream(s.ctx, stream) != GK_SUCCESS || gk_set_fp64_emulation(s.ctx, s.emulation) != GK_SUCCESS ||
        gk_set_fp64_emulation_scaling(s.ctx, s.scaling) != GK_SUCCESS ||
        (!s.variant.empty() && gk_set_variant(s.ctx, s.variant.c_str()) != GK_SUCCESS)) {
      std::fprintf(stderr, "gemmkit-bench: setting up %s: %s\n", s.name.c_str(), gk_last_error(s.ctx));
      return 1;
    }
  }
  std::printf("gemmkit-bench gemm --emulate  %s  commit %s\n", machine.gpu->name.c_str(), machine.commit.c_str());
  std::printf("f64 nn, alpha 1, beta 0, device pointers; %d timed reps per side after %d warm-up, sides interleaved; "
              "error: max |c - ref| / (|A||B|)_ij over 256 sampled elements (long-double reference)\n",
              reps, warmup);
  TablePrinter table({{"case", 18, true}, {"phi", 5}, {"side", 22, true}, {"ms", 9}, {"TFLOP/s", 8},
                      {"vs cuBLAS", 9}, {"error", 9}, {"err/cuBLAS", 10}, {"variant", 26, true}});
  table.print_header();
  int failed = 0;
  for (ShapeSpec const& shape : shapes) {
    std::int64_t const m = shape.m, n = shape.n, k = shape.k;
    for (Inputs const& in : inputs) {
      double const phi = in.phi;
      std::vector<double> A(std::size_t(m * k)), B(std::size_t(k * n));
      fill(A, phi, std::uint64_t(m * 3 + k) * 1000 + std::uint64_t(phi * 100));
      fill(B, phi, std::uint64_t(n * 5 + k) * 1000 + std::uint64_t(phi * 100) + 1);
      if (in.split) split(A, B, m, n, k);
      std::vector<Sample> const sample = reference_sample(A, B, m, n, k, 256);
      double *dA = nullptr, *dB = nullptr, *dC = nullptr;
      std::size_t const c_bytes = std::size_t(m * n) * sizeof(double);
      if (cudaMalloc(&dA, A.size() * sizeof(double)) != cudaSuccess ||
          cudaMalloc(&dB, B.size() * sizeof(double)) != cudaSuccess || cudaMalloc(&dC, c_bytes) != cudaSuccess ||
          cudaMemcpy(dA, A.data(), A.size() * sizeof(double), cudaMemcpyHostToDevice) != cudaSuccess ||
          cudaMemcpy(dB, B.data(), B.size() * sizeof(double), cudaMemcpyHostToDevice) != cudaSuccess) {
        std::fprintf(stderr, "gemmkit-bench: device memory for %lldx%lldx%lld\n", (long long)m, (long long)n,
                     (long long)k);
        return 1;
      }
      auto const call = [&](Side& s) {
        return gk_dgemm(s.ctx, GK_COL_MAJOR, GK_OP_N, GK_OP_N, m, n, k, 1.0, dA, m, dB, k, 0.0, dC, m);
      };
      // Correctness and error first, each side on a NaN-filled C (beta = 0 must not read it).
      std::vector<double> C(std::size_t(m * n));
      for (Side& s : sides) {
        s.times_ms.clear(), s.error = kNotMeasured, s.failure.clear(), s.ran.clear(), s.report.clear();
        cudaMemset(dC, 0xff, c_bytes);
        bool const emulated = s.emulation != GK_FP64_EMULATION_OFF;
        if (emulated) gk_set_verbosity(s.ctx, 2);  // its moduli and time split, into gk_last_call_report
        gk_status const status = call(s);
        if (emulated) gk_set_verbosity(s.ctx, 0);
        if (status != GK_SUCCESS || cudaStreamSynchronize(stream) != cudaSuccess ||
            cudaMemcpy(C.data(), dC, c_bytes, cudaMemcpyDeviceToHost) != cudaSuccess) {
          s.failure = gk_last_error(s.ctx);
          continue;
        }
        s.ran = gk_last_variant(s.ctx);
        if (emulated) s.report = gk_last_call_report(s.ctx);
        double worst = 0;
        for (Sample const& e : sample) {
          double const c = C[std::size_t(e.i + e.j * m)];
          double const scaled = double(std::fabs((long double)c - e.ref) / std::max(e.magnitude, 1e-300L));
          worst = std::isnan(c) ? INFINITY : std::max(worst, scaled);
        }
        s.error = worst;
      }
      // Timing: warm-up, then the sides rep by rep so they share clocks and temperature.
      EventTimer timer;
      if (std::string e = timer.init(stream); !e.empty()) {
        std::fprintf(stderr, "gemmkit-bench: %s\n", e.c_str());
        return 1;
      }
      for (Side& s : sides) {
        for (int w = 0; w < warmup && s.failure.empty(); ++w) {
          if (call(s) != GK_SUCCESS) s.failure = gk_last_error(s.ctx);
        }
      }
      for (int r = 0; r < reps; ++r) {
        for (Side& s : sides) {
          if (!s.failure.empty()) continue;
          double ms = 0;
          std::string error;
          if (timer.time_batch([&] { return call(s); }, 1, &ms, &error) != GK_SUCCESS || !error.empty()) {
            s.failure = error.empty() ? gk_last_error(s.ctx) : error;
            continue;
          }
          s.times_ms.push_back(ms);
        }
      }
      std::optional<int> const sm_mhz = sm_clock_mhz(machine.gpu->pci_bus_id);
      double const flops = 2.0 * double(m) * double(n) * double(k);
      Side const& cublas = sides[cublas_side];
      double const cublas_ms = summarize(cublas.times_ms).median;
      std::string const name = std::to_string(m) + "x" + std::to_string(n) + "x" + std::to_string(k) + "_nn";
      JsonObject row;
      row.add_string("suite", suite).add_string("case", name).add_int("m", m).add_int("n", n).add_int("k", k);
      row.add_number("phi", phi).add_string("inputs", in.split ? "split" : "spread");
      for (Side const& s : sides) {
        double const ms = summarize(s.times_ms).median;
        double const tflops = flops / ms * 1e-9;
        bool const bad = !s.failure.empty() || !(s.error == s.error) || std::isinf(s.error);
        if (bad && s.variant != "cublas_dgemm_emulated") ++failed;  // cuBLAS's emulation may be absent
        table.print_row({name, in.split ? "split" : format("%.1f", phi), s.name, bad && s.failure.size() ? "failed" : format("%.2f", ms),
                         format("%.1f", tflops), format("%.2fx", cublas_ms / ms), format("%.2e", s.error),
                         format("%.2f", s.error / cublas.error), s.failure.empty() ? s.ran : s.failure});
        JsonObject side;
        side.add_string("variant", s.ran).add_number("ms", ms).add_number("tflops", tflops);
        side.add_number("error", s.error).add_number("speedup_vs_cublas", cublas_ms / ms);
        if (!s.failure.empty()) side.add_string("failure", s.failure);
        if (!s.report.empty()) side.add_string("report", s.report);
        std::string key = s.name;
        std::replace(key.begin(), key.end(), ' ', '_');
        row.add_object(key, side);
      }
      std::string const& report = sides[0].report;
      row.add_string("emulation_report", report).add_int("moduli", moduli_in(report));
      row.add_int("accurate_moduli", moduli_in(sides[1].report));
      row.add_number("emulated_speedup_vs_cublas", cublas_ms / summarize(sides[0].times_ms).median);
      row.add_number("emulated_error_vs_cublas", sides[0].error / cublas.error);
      for (Side const& s : sides) {
        if (!s.report.empty()) std::printf("  %s: %s\n", s.name.c_str(), s.report.c_str());
      }
      add_gpu_device_keys(row, machine, sm_mhz);
      add_run_keys(row, machine);
      if (json.is_open()) json.write(row);
      cudaFree(dA), cudaFree(dB), cudaFree(dC);
    }
  }
  for (Side& s : sides) gk_destroy(s.ctx);
  cudaStreamDestroy(stream);
  if (json.is_open()) std::printf("JSON lines appended to %s\n", o.json_file.c_str());
  return failed == 0 ? 0 : 1;
}

#else

int run_emulation(Options const&) {
  std::fprintf(stderr, "gemmkit-bench gemm --emulate: this build has no CUDA\n");
  return 2;
}

#endif

}  // namespace gemmkit::bench
