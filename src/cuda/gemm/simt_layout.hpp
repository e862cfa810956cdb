/*! \file
    \brief Where the FP32 SIMT GEMM's copies put an operand slice in shared memory: index maps only,
    usable on the host, so a CPU test can replay every thread's copies of a config.

    A slice is kRows x kBK (rows along M for A, N for B), stored k-major with pitch kPitch. A run is a
    stretch contiguous in global memory: a k row of an MN-contiguous operand (A untransposed, B
    transposed), an mn row of a K-contiguous one. Each thread copies kPasses chunks of kVec elements
    along a run, at compile-time offsets from its first chunk.
*/
#pragma once

namespace gemmkit::gemm {

template <typename Cfg, int kRows, int kPitch, bool kKContiguous, int kVec>
struct SimtCopyMap {
  static_assert(!kKContiguous || kVec == 1, "K-contiguous operands are transposed element by element");
  static constexpr int kRunLength = kKContiguous ? Cfg::kBK : kRows;
  static constexpr int kRuns = kKContiguous ? kRows : Cfg::kBK;
  static constexpr int kChunksPerRun = kRunLength / kVec;
  static constexpr int kChunks = kRuns * kChunksPerRun;
  static_assert(kChunks % Cfg::kThreads == 0, "the slice must split evenly over the threads");
  static_assert(Cfg::kThreads % kChunksPerRun == 0 || kChunksPerRun % Cfg::kThreads == 0,
                "a pass covers whole runs or a whole number of passes covers a run");
  static constexpr int kPasses = kChunks / Cfg::kThreads;
  static constexpr bool kWholeRuns = Cfg::kThreads % kChunksPerRun == 0;

  /// The thread's first chunk: its run and its first element within the run.
  static constexpr int first_run(int thread) { return thread / kChunksPerRun; }
  static constexpr int first_along(int thread) { return (thread % kChunksPerRun) * kVec; }
  /// Run and in-run element offsets of pass p from the thread's first chunk.
  static constexpr int run_step(int p) {
    return kWholeRuns ? p * (Cfg::kThreads / kChunksPerRun) : p / (kChunksPerRun / Cfg::kThreads);
  }
  static constexpr int along_step(int p) {
    return kWholeRuns ? 0 : (p % (kChunksPerRun / Cfg::kThreads)) * Cfg::kThreads * kVec;
  }
  /// Shared offset of element `along` of run `run` within the stage, and of pass p from the first chunk.
  static constexpr int smem_offset(int run, int along) {
    return kKContiguous ? along * kPitch + run : run * kPitch + along;
  }
  static constexpr int smem_step(int p) {
    return kKContiguous ? along_step(p) * kPitch + run_step(p) : run_step(p) * kPitch + along_step(p);
  }
  /// The (mn, k) of element `along` of run `run`.
  static constexpr int mn_of(int run, int along) { return kKContiguous ? run : along; }
  static constexpr int k_of(int run, int along) { return kKContiguous ? along : run; }
};

}  // namespace gemmkit::gemm
