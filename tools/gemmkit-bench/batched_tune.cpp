/*! \file
    \brief `batched --tune`: the device tuner of the small batched GPU kernel. For each precision
           and bucket, a packed batch of fresh random operands of the bucket's sizes (beta = 1, the
           bandwidth-bound case) runs every candidate shape; the median of the launches picks the
           table's row.
*/
#include "batched_tune.hpp"

#include "machine_info.hpp"
#include "timing.hpp"

#include <algorithm>
#include <cstdio>
#include <fstream>
#include <sstream>
#include <utility>
#include <string>
#include <vector>

#if GEMMKIT_WITH_CUDA
#include "batched_gpu_kernels.hpp"
#include "cuda/batched/small_batched.hpp"
#include "cuda/batched/small_batched_config.hpp"
#include "cuda/batched/small_tuning.hpp"

#include <cuda_runtime.h>
#endif

namespace gemmkit::bench {

int print_and_write_table(std::string const& table, std::string const& path, std::string const& text) {
  std::printf("\n%s", table.c_str());
  if (path.empty()) return 0;
  std::ofstream out(path);
  out << text;
  if (!out) {
    std::fprintf(stderr, "gemmkit-bench: cannot write %s\n", path.c_str());
    return 2;
  }
  std::printf("written to %s\n", path.c_str());
  return 0;
}

#if GEMMKIT_WITH_CUDA

namespace {

std::string cuda_text(cudaError_t e, char const* what) {
  return e == cudaSuccess ? std::string() : std::string(what) + ": " + cudaGetErrorString(e);
}

/// Device buffers of one bucket's batch, freed on scope exit.
template <typename T>
struct TuneBatch {
  T* a = nullptr;
  T* b = nullptr;
  T* c = nullptr;
  std::int64_t batch = 0;
  ~TuneBatch() {
    cudaFree(a);
    cudaFree(b);
    cudaFree(c);
  }
};

/// The key of a table row ("h200,f32,7,7,7"), or "" for a comment or the header.
std::string row_key(std::string const& line) {
  if (line.empty() || line[0] == '#' || line.rfind("gpu,", 0) == 0) return {};
  std::size_t end = std::string::npos;
  for (int comma = 0; comma < 5; ++comma) {  // the fifth comma ends gpu, dtype, m, n, k
    end = line.find(',', end == std::string::npos ? 0 : end + 1);
    if (end == std::string::npos) return line;
  }
  return line.substr(0, end);
}

/// The table at `path` with the rows of `fresh` (this GPU's, all buckets or the square sizes `sizes`)
/// in place of its rows of the same GPU and buckets, the other GPUs' rows kept, plus a comment naming
/// what was tuned; `fresh` alone where `path` cannot be read.
std::string merge_tuning_rows(std::string const& path, std::string const& fresh, std::vector<std::int64_t> const& sizes) {
  std::ifstream in(path);
  if (!in) return fresh;
  std::vector<std::string> fresh_rows, fresh_comments;
  std::istringstream fresh_lines(fresh);
  for (std::string line; std::getline(fresh_lines, line);) {
    if (!row_key(line).empty()) fresh_rows.push_back(line);
    else if (line.rfind("# ", 0) == 0) fresh_comments.push_back(line);
  }
  std::ostringstream out;
  std::vector<bool> used(fresh_rows.size(), false);
  std::string sizes_text;
  for (std::int64_t n : sizes) {
    if (!sizes_text.empty()) sizes_text += ',';
    sizes_text += std::to_string(n);
  }
  for (std::string line; std::getline(in, line);) {
    std::string const key = row_key(line);
    if (line.rfind("gpu,", 0) == 0) {
      out << (sizes.empty() ? std::string("# Tuned (`--tune`):\n")
                            : "# Rows of square sizes " + sizes_text + " re-tuned (`--tune --n " + sizes_text + "`):\n");
      for (std::string const& comment : fresh_comments) {
        if (comment.find("# (fastest") == 0 || comment.find(", driver") != std::string::npos) {  // how, and where
          out << comment << '\n';
        }
      }
    }
    bool replaced = false;
    for (std::size_t i = 0; i < fresh_rows.size() && !key.empty(); ++i) {
      if (row_key(fresh_rows[i]) == key) {
        out << fresh_rows[i] << '\n';
        used[i] = replaced = true;
      }
    }
    if (!replaced) out << line << '\n';
  }
  for (std::size_t i = 0; i < fresh_rows.size(); ++i) {
    if (!used[i]) out << fresh_rows[i] << '\n';
  }
  return out.str();
}

struct CandidateTime {
  small::SmallCandidateInfo candidate;
  Stats ms;
  std::string error;
};

/// Times every candidate of `bucket` on ~`bytes` of packed operands of its sizes; returns the rows.
template <typename T>
std::vector<CandidateTime> time_bucket(small::SmallBucket bucket, std::int64_t bytes, int reps, cudaStream_t stream,
                                       std::int64_t* batch, std::string* error) {
  std::vector<CandidateTime> rows;
  int const m = bucket.m, n = bucket.n, k = bucket.k;
  std::int64_t const per_a = std::int64_t(m) * k, per_b = std::int64_t(k) * n, per_c = std::int64_t(m) * n;
  TuneBatch<T> data;
  data.batch = std::max<std::int64_t>(1, bytes / ((per_a + per_b + per_c) * std::int64_t(sizeof(T))));
  *batch = data.batch;
  std::uint64_t seed = 20261121;
  for (auto [p, per_problem] : {std::pair{&data.a, per_a}, std::pair{&data.b, per_b}, std::pair{&data.c, per_c}}) {
    std::int64_t const count = data.batch * per_problem;
    std::string e = cuda_text(cudaMalloc(reinterpret_cast<void**>(p), count * sizeof(T)), "cudaMalloc");
    if (e.empty()) e = cuda_text(fill_random_device(*p, count, ++seed, stream), "fill");
    if (!e.empty()) {
      *error = e;
      return rows;
    }
  }
  small::SmallBatchParams<T> params{KernelParams<T>{m, n, k, T(1), T(1), data.a, m, per_a, data.b, k, per_b, data.c, m,
                                                    per_c, data.batch, false, false}};
  cudaEvent_t start = nullptr, stop = nullptr;
  cudaEventCreate(&start);
  cudaEventCreate(&stop);
  for (small::SmallCandidateInfo const& cand : small::small_candidates()) {
    if (!(cand.bucket == bucket)) continue;
    CandidateTime row{cand, {}, {}};
    std::vector<double> ms;
    for (int rep = 0; rep <= reps && row.error.empty(); ++rep) {  // rep 0 warms up
      cudaEventRecord(start, stream);
      cudaError_t const launched = small::launch_small_batched<T>(params, stream, {.candidate = cand.index});
      cudaEventRecord(stop, stream);
      if (std::string e = cuda_text(launched, "launch"); !e.empty()) row.error = e;
      else if (std::string s = cuda_text(cudaEventSynchronize(stop), "run"); !s.empty()) row.error = s;
      float elapsed = 0;
      cudaEventElapsedTime(&elapsed, start, stop);
      if (rep > 0) ms.push_back(elapsed);
    }
    row.ms = summarize(ms);
    rows.push_back(row);
  }
  cudaEventDestroy(start);
  cudaEventDestroy(stop);
  return rows;
}

}  // namespace

int run_batched_tune(Options const& o) {
  MachineInfo const machine = collect_machine_info(o.device, true);
  if (!machine.gpu) {
    std::printf("gemmkit-bench batched --tune: needs a GPU (%s)\n", machine.no_gpu_reason.c_str());
    return 0;
  }
  cudaSetDevice(o.device);
  cudaStream_t stream = nullptr;
  cudaStreamCreate(&stream);
  std::int64_t const bytes = o.bytes > 0 ? o.bytes : (std::int64_t(1) << 30);
  int const reps = o.reps > 0 ? o.reps : 7;
  // --n: only the square buckets of those sizes; their rows replace those of the table already at
  // --tune-out, whose other rows are kept.
  auto tuned = [&](small::SmallBucket const& bucket) {
    return o.n.empty() || (bucket.m == bucket.n && bucket.n == bucket.k &&
                           std::find(o.n.begin(), o.n.end(), std::int64_t(bucket.m)) != o.n.end());
  };
  std::string const gpu = small::gpu_tuning_key(machine.gpu->name);
  std::ostringstream table;
  table << "# Which candidate shape (small_batched_config.hpp) each bucket (m x n x k) of the small batched GPU\n"
        << "# kernel runs, per GPU (small_tuning.csv says how a GPU finds its rows). Written by\n"
        << "# `gemmkit-bench batched --tune`\n"
        << "# (fastest median of " << reps << " launches over " << (bytes >> 20) << " MiB of packed operands, beta = 1) on\n"
        << "# " << machine.gpu->name << " (" << gpu << "), driver " << machine.driver << ", "
        << iso_utc_now().substr(0, 10) << ".\n"
        << "gpu,dtype,m,n,k,rows_per_thread,cols_per_thread,problems_per_block,registers,stages\n";
  int failures = 0;
  std::printf("%-5s %-8s %4s %4s %5s %4s %6s %7s %10s %9s  %s\n", "dtype", "bucket", "rows", "cols", "probs", "regs",
              "stages", "threads", "ms median", "GB/s", "");
  for (char const* dtype : {"f64", "f32"}) {
    bool const f64 = dtype[1] == '6';
    Dtype const type = f64 ? Dtype::kF64 : Dtype::kF32;
    if (!o.dtypes.empty() && std::find(o.dtypes.begin(), o.dtypes.end(), type) == o.dtypes.end()) continue;
    for (small::SmallBucket const& bucket : small::small_buckets()) {
      if (!tuned(bucket)) continue;
      std::string const name =
          std::to_string(bucket.m) + "x" + std::to_string(bucket.n) + "x" + std::to_string(bucket.k);
      std::string error;
      std::int64_t batch = 0;
      std::vector<CandidateTime> const rows = f64 ? time_bucket<double>(bucket, bytes, reps, stream, &batch, &error)
                                                  : time_bucket<float>(bucket, bytes, reps, stream, &batch, &error);
      if (!error.empty()) {
        std::printf("%-5s %-8s  %s\n", dtype, name.c_str(), error.c_str());
        ++failures;
        continue;
      }
      // Bytes moved: A and B read, C read and written.
      double const moved = double(f64 ? 8 : 4) * double(batch) *
                           (double(bucket.m) * bucket.k + double(bucket.k) * bucket.n + 2.0 * bucket.m * bucket.n);
      CandidateTime const* best = nullptr;
      for (CandidateTime const& r : rows) {
        std::printf("%-5s %-8s %4d %4d %5d %4d %6d %7d %10.4f %9.1f  %s\n", dtype, name.c_str(),
                    r.candidate.rows_per_thread, r.candidate.cols_per_thread, r.candidate.problems_per_block,
                    r.candidate.register_budget, r.candidate.stages, r.candidate.threads, r.ms.median,
                    moved / (r.ms.median * 1e6), r.error.c_str());
        if (r.error.empty() && (best == nullptr || r.ms.median < best->ms.median)) best = &r;
      }
      if (best == nullptr) {
        ++failures;
        continue;
      }
      table << gpu << ',' << dtype << ',' << bucket.m << ',' << bucket.n << ',' << bucket.k << ',' << best->candidate.rows_per_thread
            << ',' << best->candidate.cols_per_thread << ',' << best->candidate.problems_per_block << ','
            << best->candidate.register_budget << ',' << best->candidate.stages << '\n';
    }
  }
  cudaStreamDestroy(stream);
  std::string const text = o.tune_out.empty() ? table.str() : merge_tuning_rows(o.tune_out, table.str(), o.n);
  if (int const written = print_and_write_table(table.str(), o.tune_out, text); written != 0) return written;
  return failures == 0 ? 0 : 1;
}

#else

int run_batched_tune(Options const&) {
  std::printf("gemmkit-bench batched --tune: this build has no CUDA\n");
  return 0;
}

#endif

}  // namespace gemmkit::bench
