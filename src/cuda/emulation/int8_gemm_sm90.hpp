/*! \file
    \brief gemmkit's INT8 tensor-core GEMM for Hopper (sm_90a), the engine of the Ozaki scheme II: batched
    int8 x int8 -> int32 "TN" products (wgmma from TMA-loaded, 128-byte swizzled shared memory, warp
    specialised, persistent).
*/
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace gemmkit::ozaki2 {

/// True when this build has the sm_90a kernel and `device` is a compute capability 9.0 GPU.
bool int8_gemm_sm90_available(int device);

/// For l in [0, batch): C_l (int32, column-major m x n, leading dimension ldc) = A_l^T B_l, where A_l is
/// k x m and B_l is k x n, both column-major with leading dimension k (k a multiple of 16; "TN": each
/// row of op(A) and each column of op(B) is contiguous along k), planes a_plane / b_plane / c_plane
/// elements apart. Exact int32 accumulation. Returns "" or an error message (nothing launched on error).
std::string int8_gemm_sm90(std::int64_t m, std::int64_t n, std::int64_t k, std::int8_t const* A, std::size_t a_plane,
                           std::int8_t const* B, std::size_t b_plane, std::int32_t* C, std::int64_t ldc,
                           std::size_t c_plane, int batch, void* stream);

/// How the kernel's thread blocks load their operands: each alone, or in clusters of two neighbours along n
/// that share their A tile (each loads half and multicasts it to both), a third less L2 traffic.
enum class Int8Sm90Schedule { kAuto, kSingle, kPair };

/// int8_gemm_sm90 with the schedule chosen (kAuto is what int8_gemm_sm90 runs); for tests and tuning.
std::string int8_gemm_sm90_scheduled(std::int64_t m, std::int64_t n, std::int64_t k, std::int8_t const* A,
                                     std::size_t a_plane, std::int8_t const* B, std::size_t b_plane, std::int32_t* C,
                                     std::int64_t ldc, std::size_t c_plane, int batch, void* stream,
                                     Int8Sm90Schedule schedule);

}  // namespace gemmkit::ozaki2
