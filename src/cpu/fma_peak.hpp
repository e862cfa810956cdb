/*! \file
    \brief The FMA throughput of this CPU, measured: what no kernel on these cores can exceed, so a
           benchmark can tell a bound it cannot reach (a bandwidth bound above the arithmetic peak)
           from a kernel that falls short.
*/
#pragma once

#include <cstdint>

namespace gemmkit::cpu {

/// GFLOP/s of `threads` threads (one OpenMP region of that many, the global thread count left as
/// it is) each running independent FMA chains on this CPU's widest vectors for about 50 ms:
/// flops of all threads over the slowest thread's time, best of 3. element_bytes is 8 (f64) or 4
/// (f32). 0 when the CPU has neither AVX-512 (F, VL, DQ) nor AVX2 with FMA, or the arguments are
/// not one of these.
double fma_peak_gflops(int element_bytes, int threads);

/// The vectors fma_peak_gflops runs on: "zmm (AVX-512)", "ymm (AVX2)", or "" where it returns 0.
char const* fma_peak_vectors();

// --- one thread's loop, one per ISA and type, each compiled for its ISA only ---------------------

/// Chains, i.e. FMAs per iteration. Latency 4 to 5 cycles x 2 pipes needs 8 to 10 in flight; AVX-512's
/// 32 registers hold 16, AVX2's 16 hold 14 beside the two constants (more would spill to memory).
inline constexpr int kFmaChainsAvx512 = 16;
inline constexpr int kFmaChainsAvx2 = 14;

/// `iterations` x that ISA's chains FMAs on independent accumulators that stay in registers; returns
/// their sum, which the caller keeps so the loop cannot be removed. Flops: 2 per lane per FMA.
double fma_chains_avx512_f64(std::int64_t iterations);
double fma_chains_avx512_f32(std::int64_t iterations);
double fma_chains_avx2_f64(std::int64_t iterations);
double fma_chains_avx2_f32(std::int64_t iterations);

}  // namespace gemmkit::cpu
