/*! \file
    \brief The machine description the performance model and the planners read: measured by the
    micro-benchmarks (`gemmkit-bench micro --machine-out FILE` writes it, load_machine_description
    reads it back), or the H100 description that carries the measured anchors (docs/perf-micro.md
    states them) and the architecture's published limits.
*/
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>

namespace gemmkit::model {

struct MachineDescription {
  std::string name;
  std::string source;             ///< where the numbers come from (anchors, or a micro run: date, commit)
  int sm_count = 0;
  double sm_clock_hz = 0;
  // Rates, measured where docs/perf-micro.md lists an anchor.
  double fp64_tensor_flops = 0;   ///< mma.sync m16n8k16 .f64, whole device
  double fp64_tensor_m8n8k4_flops = 0;  ///< mma.sync m8n8k4 .f64 (the sm_80 shape), whole device
  double fp64_fma_flops = 0;
  double fp32_fma_flops = 0;
  double dram_bytes_per_s = 0;    ///< device copy bandwidth (read + write)
  double l2_bytes_per_s = 0;      ///< L2 to SM, whole device
  double smem_bytes_per_clock_per_sm = 0;
  double h2d_pinned_bytes_per_s = 0, d2h_pinned_bytes_per_s = 0, h2d_pageable_bytes_per_s = 0;
  double d2h_pageable_bytes_per_s = 0;
  double bidirectional_pinned_bytes_per_s = 0;  ///< H2D and D2H at once, both directions counted
  // What the host-resident pipeline plans with: the in-core rate of gemmkit's own large GEMM (not
  // a peak), what the host moves to and from all devices together (each device gets at most its
  // share), and the rate the host packs pageable operands into pinned staging buffers.
  double fp64_gemm_flops = 0, fp32_gemm_flops = 0;
  double host_h2d_bytes_per_s = 0, host_d2h_bytes_per_s = 0;
  double staged_copy_bytes_per_s = 0;
  /// Host operands run faster through the host-resident pipeline than on this GPU's host CPU (its
  /// CPU BLAS) from this much work (m*n*k) on, when k is at least host_gemm_min_k (an update of small
  /// k moves all of C over the host link for little work; small m or n do not hurt): the crossover
  /// measured on that machine.
  double host_gemm_min_work = 0;
  double host_gemm_min_k = 0;
  /// DGEMMs from this much work (m*n*k) on, with k at least fp64_emulation_min_k (the reconstruction costs
  /// per element of C, whatever k), run faster emulated on the INT8 tensor cores with the accurate scaling
  /// than natively (GK_FP64_EMULATION_AUTO); 0: measured faster nowhere.
  double fp64_emulation_min_work = 0;
  double fp64_emulation_min_k = 0;
  // Latencies in SM cycles: dependent chains in one warp (read-after-write, seed 001 Tables 2, 3).
  double lds32_latency_cycles = 0, lds64_latency_cycles = 0, lds128_latency_cycles = 0;
  double dfma_latency_cycles = 0, ffma_latency_cycles = 0, integer_latency_cycles = 0;
  double dmma_latency_cycles = 0;        ///< mma.sync m16n8k16 .f64, accumulator to accumulator
  double l2_load_latency_cycles = 0, dram_load_latency_cycles = 0;
  double barrier_latency_cycles = 0;     ///< bar.sync of one 4-warp block, back to back
  // Host side of a kernel launch.
  double launch_latency_s = 0;    ///< launch an empty kernel and wait for it (round trip)
  double launch_interval_s = 0;   ///< per launch of back-to-back empty kernels on one stream
  // Energy: the board's energy counter over sustained runs, at the clock they reached, above the idle
  // draw (0 = not measured: no power term).
  double power_limit_w = 0;           ///< the power limit the board enforces
  double idle_power_w = 0;            ///< its draw with nothing queued
  double dmma_energy_j_per_flop = 0;  ///< mma.sync m16n8k16 .f64
  double l2_energy_j_per_byte = 0;    ///< L2 reads
  double smem_energy_j_per_byte = 0;  ///< shared-memory reads
  // Per-SM resources (architecture limits).
  int registers_per_sm = 0;
  int max_registers_per_thread = 0;
  int shared_bytes_per_sm = 0;    ///< usable by blocks (opt-in maximum)
  int max_threads_per_sm = 0;
  int max_blocks_per_sm = 0;
  int schedulers_per_sm = 0;

  double smem_bytes_per_s() const { return smem_bytes_per_clock_per_sm * sm_clock_hz * sm_count; }
};

/// H100 80GB HBM3 SXM: the measured anchors (2026-11-21, docs/perf-micro.md) for the rates they
/// cover; the L2 rate is inferred from an Nsight Compute profile on the H100 (26.9 % of peak at
/// 2.75 TB/s of tile traffic), the rest are sm_90 limits.
inline MachineDescription h100_sxm() {
  MachineDescription m;
  m.name = "H100 80GB HBM3 (SXM)";
  m.source = "measured H100 SXM anchors (2026-11-21) and sm_90 limits";
  m.sm_count = 132;
  m.sm_clock_hz = 1.98e9;
  m.fp64_tensor_flops = 66.6e12;
  m.fp64_tensor_m8n8k4_flops = 33.1e12;
  m.fp64_fma_flops = 32.7e12;
  m.fp32_fma_flops = 64.5e12;
  m.dram_bytes_per_s = 3017e9;
  m.l2_bytes_per_s = 10.2e12;
  m.smem_bytes_per_clock_per_sm = 128;
  m.h2d_pinned_bytes_per_s = 49.4e9;
  m.d2h_pinned_bytes_per_s = 54.6e9;
  m.h2d_pageable_bytes_per_s = 8.6e9;
  m.bidirectional_pinned_bytes_per_s = 94.1e9;
  m.fp64_gemm_flops = 60e12;
  m.fp32_gemm_flops = 50e12;
  // Measured on the 4x H200 host (2026-11-27, n = 32768): 4 GPUs together 151 GB/s H2D and 133 D2H
  // while both ran, each link 53 and 45 alone; 2 GPUs kept their single-link rates.
  m.host_h2d_bytes_per_s = 150e9;
  m.host_d2h_bytes_per_s = 130e9;
  m.staged_copy_bytes_per_s = 25e9;  // a 16-core host packing pageable operands
  // Level 4, warm calls, against OpenBLAS on all 16 cores (AVX-512), 2026-11-23: at 1024^3 the GPU
  // takes 0.59 ms pinned, 2.23 ms pageable, the CPU 4.74 ms; at 512^3 staging pageable operands
  // costs more (1.60 ms) than the CPU takes (0.88 ms). The k bound was not measured on the H100
  // host: the H200 host's (the same PCIe generation and a 16-core Xeon of the same family).
  m.host_gemm_min_work = 1024.0 * 1024.0 * 1024.0;
  m.host_gemm_min_k = 512;
  m.registers_per_sm = 65536;
  m.max_registers_per_thread = 255;
  m.shared_bytes_per_sm = 227 * 1024;
  m.max_threads_per_sm = 2048;
  m.max_blocks_per_sm = 32;
  m.schedulers_per_sm = 4;
  return m;
}

/// H200 (SXM, 132 SMs): measured by `gemmkit-bench micro` on 2026-11-28
/// (bench/results/h200/machine.json, rounded); the planning rates (fp64_gemm_flops and after) from
/// the H200 suites and host-resident runs of 2026-11-28/29.
inline MachineDescription h200_sxm() {
  MachineDescription m;
  m.name = "NVIDIA H200";
  m.source = "gemmkit-bench micro on an H200 (2026-11-28), rounded";
  m.sm_count = 132;
  m.sm_clock_hz = 1.98e9;
  m.fp64_tensor_flops = 66.5e12;
  m.fp64_tensor_m8n8k4_flops = 33.4e12;
  m.fp64_fma_flops = 33.3e12;
  m.fp32_fma_flops = 65.2e12;
  m.dram_bytes_per_s = 4114e9;
  m.l2_bytes_per_s = 8.65e12;
  m.smem_bytes_per_clock_per_sm = 128;
  m.h2d_pinned_bytes_per_s = 55.4e9;
  m.d2h_pinned_bytes_per_s = 55.3e9;
  m.h2d_pageable_bytes_per_s = 6.3e9;
  m.d2h_pageable_bytes_per_s = 11.0e9;
  m.bidirectional_pinned_bytes_per_s = 101.6e9;
  m.fp64_gemm_flops = 55e12;  // the 700 W cap holds large DGEMMs at 52-56 TFLOP/s
  m.fp32_gemm_flops = 50e12;
  m.host_h2d_bytes_per_s = 150e9;
  m.host_d2h_bytes_per_s = 130e9;
  m.staged_copy_bytes_per_s = 25e9;
  // dgemm_ on malloc'd (pageable) operands through the pipeline against OpenBLAS on the 16 host cores
  // (bench/results/h200/blas-crossover.jsonl, 2026-11-29): squares from 768 (1.15x; 512: 0.49x);
  // updates of m = n = 8192 from k = 512 (4.2x; k = 256: 0.72x, k = 32: 0.28x); a thin C
  // (m = k = 8192) at every n from 32 (2.0x).
  m.host_gemm_min_work = 768.0 * 768.0 * 768.0;
  m.host_gemm_min_k = 512;
  // The accurate scaling's emulation against cuBLAS's DGEMM (bench/results/h200/emulation.jsonl).
  m.fp64_emulation_min_work = 6144.0 * 6144.0 * 6144.0;
  m.fp64_emulation_min_k = 3072;
  m.power_limit_w = 700;
  m.registers_per_sm = 65536;
  m.max_registers_per_thread = 255;
  m.shared_bytes_per_sm = 227 * 1024;
  m.max_threads_per_sm = 2048;
  m.max_blocks_per_sm = 32;
  m.schedulers_per_sm = 4;
  return m;
}

/// The built-in description of a GPU gemmkit has measured, by its name and multiprocessor count
/// (other forms of the same chip, an H100 PCIe with 114 SMs, say, get none rather than a wrong one).
inline std::optional<MachineDescription> builtin_machine(std::string const& gpu_name, int sm_count) {
  if (sm_count != 132) return std::nullopt;
  if (gpu_name.find("H100") != std::string::npos) return h100_sxm();
  if (gpu_name.find("H200") != std::string::npos) return h200_sxm();
  return std::nullopt;
}

/// The lowest crossover of the built-in descriptions (each bound the lowest of any): host operands
/// below it stay on the CPU whatever the GPU, so gemmkit need not start CUDA to route them.
double lowest_host_gemm_min_work();
double lowest_host_gemm_min_k();

/// `machine` as one flat JSON object (every field, rates in SI units: flop/s, bytes/s, s, Hz).
std::string machine_description_json(MachineDescription const& machine);

/// The top-level fields of one JSON object (a row of a benchmark's JSON lines): strings (and
/// true / false / null as words) and numbers; nested objects and arrays are skipped. Returns "" or
/// what is wrong.
std::string read_json_row(std::string const& line, std::map<std::string, std::string>* strings,
                          std::map<std::string, double>* numbers);

/// The fields of one row of a JSON-lines file: strings (and true / false / null as words), numbers.
struct JsonRow {
  std::map<std::string, std::string> text;
  std::map<std::string, double> number;
};

/// Calls `use` with each non-empty line of the JSON-lines file at `path`; stops at the first error
/// (no file, a malformed line, or what `use` returns) and returns it with the path and line, or "".
std::string read_json_rows(std::string const& path, std::function<std::string(JsonRow&)> const& use);

/// Reads a description written by machine_description_json (or by hand) from `path` into `out`;
/// returns "" or what is wrong (no file, not a flat JSON object, a field missing or of the wrong
/// type). Unknown keys are ignored; the fields the model reads are required, the rest default to 0.
std::string load_machine_description(std::string const& path, MachineDescription* out);

/// The same from the text of the file; `where` names it in messages.
std::string parse_machine_description(std::string const& text, std::string const& where, MachineDescription* out);

}  // namespace gemmkit::model
