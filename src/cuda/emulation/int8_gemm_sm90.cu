/*! \file
    \brief The sm_90a INT8 GEMM engine: a persistent, warp-specialised kernel. One producer thread streams
    128-byte swizzled k slices of the B and A tiles into a four-stage shared-memory ring with TMA; two
    consumer warpgroups each multiply 64 columns of C by 256 rows with wgmma.m64n256k32 and store their
    int32 tile straight from registers. Optionally clusters of two share (multicast) their A tile.
*/
#include "cuda/emulation/int8_gemm_sm90.hpp"

#include "base/cuda_check.hpp"
#include "base/driver_entry_point.hpp"

#include <cuda.h>
#include <cudaTypedefs.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>

namespace gemmkit::ozaki2 {

namespace {

// The tile of C one thread block computes, kTileM rows (the wgmma's N = 256, along m, so that each thread's
// accumulator pairs are adjacent in the column-major C) by kTileN columns (two consumer warpgroups x the
// wgmma's M = 64). Operands: B's kTileN columns are the wgmma's A, A's kTileM columns its B; both K-major.
constexpr int kTileM = 256;
constexpr int kTileN = 128;
constexpr int kTileK = 128;  // bytes of k per stage: exactly one 128-byte swizzle row
constexpr int kStages = 4;
constexpr int kConsumers = 2;                    // warpgroups
constexpr int kThreads = 128 * (1 + kConsumers);  // warpgroup 0 produces
constexpr int kBTileBytes = kTileN * kTileK;
constexpr int kATileBytes = kTileM * kTileK;
constexpr int kStageBytes = kBTileBytes + kATileBytes;
constexpr int kSwizzleAlign = 1024;  // the 128-byte swizzle repeats every 8 rows; wgmma assumes that alignment
constexpr int kDynamicSharedBytes = kStages * kStageBytes + kSwizzleAlign;

static_assert(kStageBytes % kSwizzleAlign == 0 && kBTileBytes % kSwizzleAlign == 0);
static_assert(kDynamicSharedBytes <= 227 * 1024);

struct KernelArgs {
  std::int32_t* C;
  std::int64_t ldc;
  std::int64_t c_plane;
  std::int64_t m;
  std::int64_t n;
  int k_tiles;
  std::int64_t tiles_m;
  std::int64_t tiles_n;
  std::int64_t units_n;  ///< n tiles / cluster size, rounded up: a unit is one cluster's tiles
  std::int64_t units_per_plane;
  std::int64_t units;
};

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)

constexpr int kWgmmaK = 32;
constexpr int kRasterGroup = 8;  // m tiles visited together, so that a wave's A and B slabs stay in L2

struct TileOrigin {
  int plane;
  std::int64_t m0;
  std::int64_t n0;
};

/// Unit -> tile: planes one after another; within a plane, groups of kRasterGroup m tiles walked m first.
template <int kCluster>
__device__ inline TileOrigin tile_origin(std::int64_t unit, int rank, KernelArgs const& args) {
  std::int64_t const plane = unit / args.units_per_plane;
  std::int64_t const in_plane = unit - plane * args.units_per_plane;
  std::int64_t const group_span = kRasterGroup * args.units_n;
  std::int64_t const group = in_plane / group_span;
  std::int64_t const first_m = group * kRasterGroup;
  std::int64_t const group_rows = args.tiles_m - first_m < kRasterGroup ? args.tiles_m - first_m : kRasterGroup;
  std::int64_t const in_group = in_plane - group * group_span;
  std::int64_t const m_tile = first_m + in_group % group_rows;
  std::int64_t const n_unit = in_group / group_rows;
  return {int(plane), m_tile * kTileM, (n_unit * kCluster + rank) * kTileN};
}

__device__ inline std::uint32_t shared_address(void const* pointer) {
  return static_cast<std::uint32_t>(__cvta_generic_to_shared(pointer));
}

__device__ inline void barrier_init(std::uint32_t barrier, std::uint32_t arrivals) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" ::"r"(barrier), "r"(arrivals) : "memory");
}

__device__ inline void barrier_arrive_expecting(std::uint32_t barrier, std::uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" ::"r"(barrier), "r"(bytes) : "memory");
}

__device__ inline void barrier_arrive(std::uint32_t barrier) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" ::"r"(barrier) : "memory");
}

/// Arrive on the barrier at the same shared offset in cluster block `rank`.
__device__ inline void barrier_arrive_in(std::uint32_t barrier, std::uint32_t rank) {
  asm volatile(
      "{\n"
      ".reg .b32 remote;\n"
      "mapa.shared::cluster.u32 remote, %0, %1;\n"
      "mbarrier.arrive.shared::cluster.b64 _, [remote];\n"
      "}" ::"r"(barrier),
      "r"(rank)
      : "memory");
}

/// Wait until the barrier's phase of parity `parity` has completed.
__device__ inline void barrier_wait(std::uint32_t barrier, std::uint32_t parity) {
  std::uint32_t done = 0;
  do {
    asm volatile(
        "{\n"
        ".reg .pred ready;\n"
        "mbarrier.try_wait.parity.shared::cta.b64 ready, [%1], %2;\n"
        "selp.u32 %0, 1, 0, ready;\n"
        "}"
        : "=r"(done)
        : "r"(barrier), "r"(parity)
        : "memory");
  } while (done == 0);
}

/// One box of the 3-d tensor map (k, rows, plane) into shared memory, completing bytes on `barrier`.
__device__ inline void tma_load(CUtensorMap const* map, std::uint32_t destination, std::uint32_t barrier, int k,
                                int row, int plane) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1, {%2, %3, %4}], [%5];" ::
          "r"(destination),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(k), "r"(row), "r"(plane), "r"(barrier)
      : "memory");
}

/// tma_load into the same shared offset (and barrier) of every cluster block in `blocks`.
__device__ inline void tma_load_multicast(CUtensorMap const* map, std::uint32_t destination, std::uint32_t barrier,
                                          int k, int row, int plane, std::uint16_t blocks) {
  asm volatile(
      "cp.async.bulk.tensor.3d.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1, {%2, %3, %4}], [%5], %6;" ::"r"(destination),
      "l"(reinterpret_cast<std::uint64_t>(map)), "r"(k), "r"(row), "r"(plane), "r"(barrier), "h"(blocks)
      : "memory");
}

/// wgmma shared-memory descriptor of a K-major tile in the 128-byte swizzle: rows of 128 bytes, 8-row groups
/// 1024 bytes apart (the leading offset is unused in this mode and set to 1, as the canonical layouts do).
__device__ inline std::uint64_t swizzled_tile_descriptor(std::uint32_t address) {
  return std::uint64_t((address & 0x3FFFF) >> 4) | (std::uint64_t(1) << 16) | (std::uint64_t(1024 >> 4) << 32) |
         (std::uint64_t(1) << 62);
}

__device__ inline void wgmma_fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ inline void wgmma_commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
template <int kPending>
__device__ inline void wgmma_wait() {
  asm volatile("wgmma.wait_group.sync.aligned %0;" ::"n"(kPending) : "memory");
}

/// Keeps the compiler from moving reads or writes of the accumulators across an asynchronous wgmma.
__device__ inline void fence_accumulators(std::int32_t (&d)[128]) {
#pragma unroll
  for (int i = 0; i < 128; ++i) asm volatile("" : "+r"(d[i])::"memory");
}

/// d (64 x 256, s32) += a (64 x 32, s8) b^T (256 x 32, s8), both from shared memory, K-major.
__device__ inline void wgmma_m64n256k32(std::int32_t (&d)[128], std::uint64_t a, std::uint64_t b) {
  asm volatile(
      "{\n"
      ".reg .pred accumulate;\n"
      "setp.ne.b32 accumulate, %130, 0;\n"
      "wgmma.mma_async.sync.aligned.m64n256k32.s32.s8.s8 {"
      "%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, "
      "%16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, "
      "%32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, "
      "%48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63, "
      "%64, %65, %66, %67, %68, %69, %70, %71, %72, %73, %74, %75, %76, %77, %78, %79, "
      "%80, %81, %82, %83, %84, %85, %86, %87, %88, %89, %90, %91, %92, %93, %94, %95, "
      "%96, %97, %98, %99, %100, %101, %102, %103, %104, %105, %106, %107, %108, %109, %110, %111, "
      "%112, %113, %114, %115, %116, %117, %118, %119, %120, %121, %122, %123, %124, %125, %126, %127}, "
      "%128, %129, accumulate;\n"
      "}"
      : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]), "+r"(d[4]), "+r"(d[5]), "+r"(d[6]), "+r"(d[7]),
        "+r"(d[8]), "+r"(d[9]), "+r"(d[10]), "+r"(d[11]), "+r"(d[12]), "+r"(d[13]), "+r"(d[14]), "+r"(d[15]),
        "+r"(d[16]), "+r"(d[17]), "+r"(d[18]), "+r"(d[19]), "+r"(d[20]), "+r"(d[21]), "+r"(d[22]), "+r"(d[23]),
        "+r"(d[24]), "+r"(d[25]), "+r"(d[26]), "+r"(d[27]), "+r"(d[28]), "+r"(d[29]), "+r"(d[30]), "+r"(d[31]),
        "+r"(d[32]), "+r"(d[33]), "+r"(d[34]), "+r"(d[35]), "+r"(d[36]), "+r"(d[37]), "+r"(d[38]), "+r"(d[39]),
        "+r"(d[40]), "+r"(d[41]), "+r"(d[42]), "+r"(d[43]), "+r"(d[44]), "+r"(d[45]), "+r"(d[46]), "+r"(d[47]),
        "+r"(d[48]), "+r"(d[49]), "+r"(d[50]), "+r"(d[51]), "+r"(d[52]), "+r"(d[53]), "+r"(d[54]), "+r"(d[55]),
        "+r"(d[56]), "+r"(d[57]), "+r"(d[58]), "+r"(d[59]), "+r"(d[60]), "+r"(d[61]), "+r"(d[62]), "+r"(d[63]),
        "+r"(d[64]), "+r"(d[65]), "+r"(d[66]), "+r"(d[67]), "+r"(d[68]), "+r"(d[69]), "+r"(d[70]), "+r"(d[71]),
        "+r"(d[72]), "+r"(d[73]), "+r"(d[74]), "+r"(d[75]), "+r"(d[76]), "+r"(d[77]), "+r"(d[78]), "+r"(d[79]),
        "+r"(d[80]), "+r"(d[81]), "+r"(d[82]), "+r"(d[83]), "+r"(d[84]), "+r"(d[85]), "+r"(d[86]), "+r"(d[87]),
        "+r"(d[88]), "+r"(d[89]), "+r"(d[90]), "+r"(d[91]), "+r"(d[92]), "+r"(d[93]), "+r"(d[94]), "+r"(d[95]),
        "+r"(d[96]), "+r"(d[97]), "+r"(d[98]), "+r"(d[99]), "+r"(d[100]), "+r"(d[101]), "+r"(d[102]), "+r"(d[103]),
        "+r"(d[104]), "+r"(d[105]), "+r"(d[106]), "+r"(d[107]), "+r"(d[108]), "+r"(d[109]), "+r"(d[110]), "+r"(d[111]),
        "+r"(d[112]), "+r"(d[113]), "+r"(d[114]), "+r"(d[115]), "+r"(d[116]), "+r"(d[117]), "+r"(d[118]), "+r"(d[119]),
        "+r"(d[120]), "+r"(d[121]), "+r"(d[122]), "+r"(d[123]), "+r"(d[124]), "+r"(d[125]), "+r"(d[126]), "+r"(d[127])
      : "l"(a), "l"(b), "r"(1));
}

#endif  // __CUDA_ARCH_FEAT_SM90_ALL

/// kCluster = 1: each block alone; 2: block pairs along n, each loading half of the shared A tile for both.
template <int kCluster>
__global__ void __launch_bounds__(kThreads, 1)
    int8_gemm_sm90_kernel(__grid_constant__ CUtensorMap const a_map, __grid_constant__ CUtensorMap const b_map,
                          KernelArgs const args) {
#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
  // Static, so that only this sm_90a body has static shared memory: int8_gemm_sm90_available reads that.
  __shared__ alignas(8) std::uint64_t barriers[2 * kStages];  // loaded[kStages], then consumed[kStages]
  extern __shared__ std::uint8_t dynamic_shared[];
  std::uint32_t const ring = (shared_address(dynamic_shared) + kSwizzleAlign - 1) & ~std::uint32_t(kSwizzleAlign - 1);
  std::uint32_t const loaded = shared_address(barriers);
  std::uint32_t const consumed = loaded + 8 * kStages;

  int rank = 0;
  std::int64_t cluster = blockIdx.x;
  std::int64_t clusters = gridDim.x;
  if constexpr (kCluster > 1) {
    std::uint32_t r;
    asm("mov.u32 %0, %%cluster_ctarank;" : "=r"(r));
    rank = int(r);
    cluster = blockIdx.x / kCluster;
    clusters = gridDim.x / kCluster;
  }

  if (threadIdx.x == 0) {
    for (int s = 0; s < kStages; ++s) {
      barrier_init(loaded + 8 * s, 1);
      barrier_init(consumed + 8 * s, kCluster * kConsumers * 4);  // every consumer warp of the cluster
    }
    asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
  }
  if constexpr (kCluster > 1) {
    // The partner's first multicast or arrival may only come once this block's barriers exist.
    asm volatile("barrier.cluster.arrive.release.aligned;\nbarrier.cluster.wait.acquire.aligned;" ::: "memory");
  } else {
    __syncthreads();
  }

  int const warpgroup = int(threadIdx.x) / 128;
  if (warpgroup == 0) {
    if (threadIdx.x == 0) {
      asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<std::uint64_t>(&a_map)) : "memory");
      asm volatile("prefetch.tensormap [%0];" ::"l"(reinterpret_cast<std::uint64_t>(&b_map)) : "memory");
      int stage = 0;
      std::uint32_t phase = 0;
      for (std::int64_t unit = cluster; unit < args.units; unit += clusters) {
        TileOrigin const tile = tile_origin<kCluster>(unit, rank, args);
        // A block past the last n tile (odd n tile count) still loads its half of A: it reads the last B tile
        // and stores nothing. Likewise a half of A wholly past m reads the first half again (rows C never gets).
        int const b_row = int(tile.n0 < args.n ? tile.n0 : (args.tiles_n - 1) * kTileN);
        constexpr int kARows = kTileM / kCluster;
        std::int64_t const a_first = tile.m0 + std::int64_t(rank) * kARows;
        int const a_row = int(a_first < args.m ? a_first : tile.m0);
        for (int kt = 0; kt < args.k_tiles; ++kt) {
          barrier_wait(consumed + 8 * stage, phase ^ 1);
          std::uint32_t const full = loaded + 8 * stage;
          std::uint32_t const slot = ring + std::uint32_t(stage) * kStageBytes;
          barrier_arrive_expecting(full, kStageBytes);
          tma_load(&b_map, slot, full, kt * kTileK, b_row, tile.plane);
          if constexpr (kCluster > 1) {
            tma_load_multicast(&a_map, slot + kBTileBytes + std::uint32_t(rank) * (kATileBytes / kCluster), full,
                               kt * kTileK, a_row, tile.plane, std::uint16_t((1u << kCluster) - 1));
          } else {
            tma_load(&a_map, slot + kBTileBytes, full, kt * kTileK, a_row, tile.plane);
          }
          if (++stage == kStages) stage = 0, phase ^= 1;
        }
      }
    }
  } else {
    int const consumer = warpgroup - 1;
    int const warp = (int(threadIdx.x) / 32) % 4;
    int const lane = int(threadIdx.x) % 32;
    int stage = 0;
    std::uint32_t phase = 0;
    std::int32_t acc[128];
    for (std::int64_t unit = cluster; unit < args.units; unit += clusters) {
      TileOrigin const tile = tile_origin<kCluster>(unit, rank, args);
#pragma unroll
      for (int i = 0; i < 128; ++i) acc[i] = 0;
      int previous = 0;
      for (int kt = 0; kt < args.k_tiles; ++kt) {
        barrier_wait(loaded + 8 * stage, phase);
        std::uint32_t const slot = ring + std::uint32_t(stage) * kStageBytes;
        std::uint64_t const b_descriptor = swizzled_tile_descriptor(slot + consumer * 64 * kTileK);
        std::uint64_t const a_descriptor = swizzled_tile_descriptor(slot + kBTileBytes);
        wgmma_fence();
#pragma unroll
        for (int kk = 0; kk < kTileK / kWgmmaK; ++kk) {
          // One k step = 32 bytes along the swizzled row: the descriptor's address field counts 16 bytes.
          wgmma_m64n256k32(acc, b_descriptor + 2 * kk, a_descriptor + 2 * kk);
        }
        wgmma_commit();
        wgmma_wait<1>();  // the previous slice's products are done: its stage may be refilled
        if (kt > 0 && lane == 0) {
          if constexpr (kCluster > 1) {
            for (int r = 0; r < kCluster; ++r) barrier_arrive_in(consumed + 8 * previous, std::uint32_t(r));
          } else {
            barrier_arrive(consumed + 8 * previous);
          }
        }
        previous = stage;
        if (++stage == kStages) stage = 0, phase ^= 1;
      }
      wgmma_wait<0>();
      fence_accumulators(acc);
      if (args.k_tiles > 0 && lane == 0) {
        if constexpr (kCluster > 1) {
          for (int r = 0; r < kCluster; ++r) barrier_arrive_in(consumed + 8 * previous, std::uint32_t(r));
        } else {
          barrier_arrive(consumed + 8 * previous);
        }
      }

      // Thread (warp w, lane) holds rows 8j + 2(lane % 4) + {0, 1} of C's columns 16w + lane / 4 + {0, 8} of
      // its warpgroup's 64: acc[4j + 2h + e] = C(m0 + 8j + 2(lane % 4) + e, n0 + 64 consumer + 16w + lane/4 + 8h).
      std::int64_t const column0 = tile.n0 + consumer * 64 + warp * 16 + lane / 4;
      std::int64_t const row0 = tile.m0 + 2 * (lane % 4);
      std::int32_t* const plane = args.C + std::int64_t(tile.plane) * args.c_plane;
      bool const whole_tile = tile.m0 + kTileM <= args.m && tile.n0 + kTileN <= args.n;
#pragma unroll
      for (int h = 0; h < 2; ++h) {
        std::int64_t const column = column0 + 8 * h;
        std::int32_t* const out = plane + column * args.ldc + row0;
        if (whole_tile) {
#pragma unroll
          for (int j = 0; j < kTileM / 8; ++j) {
            *reinterpret_cast<int2*>(out + 8 * j) = make_int2(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
          }
        } else if (column < args.n) {
#pragma unroll
          for (int j = 0; j < kTileM / 8; ++j) {
            std::int64_t const row = row0 + 8 * j;
            if (row + 1 < args.m) {
              *reinterpret_cast<int2*>(out + 8 * j) = make_int2(acc[4 * j + 2 * h], acc[4 * j + 2 * h + 1]);
            } else if (row < args.m) {
              out[8 * j] = acc[4 * j + 2 * h];
            }
          }
        }
      }
    }
  }
  if constexpr (kCluster > 1) {
    // No block may leave while its partner can still arrive on its barriers or multicast into it.
    asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
  }
#endif  // __CUDA_ARCH_FEAT_SM90_ALL
}

using EncodeTiled = PFN_cuTensorMapEncodeTiled_v12000;

/// The driver's cuTensorMapEncodeTiled, so that nothing links libcuda; null if missing.
EncodeTiled encode_tiled() {
  static EncodeTiled const function = reinterpret_cast<EncodeTiled>(driver_entry_point("cuTensorMapEncodeTiled"));
  return function;
}

/// The operand (k x rows per plane, leading dimension k) as a 3-d tensor map of boxes kTileK x box_rows x 1;
/// TMA fills the parts of a box past k or rows with zeros.
std::string describe_operand(CUtensorMap* map, std::int8_t const* base, std::int64_t k, std::int64_t rows,
                             std::size_t plane, int batch, int box_rows, char const* name) {
  EncodeTiled const encode = encode_tiled();
  if (encode == nullptr) return "int8_gemm_sm90: the driver has no cuTensorMapEncodeTiled";
  // A single plane's stride is never used; any legal value does.
  std::uint64_t const plane_stride = batch > 1 ? plane : std::uint64_t(k) * std::uint64_t(rows);
  cuuint64_t dims[3] = {cuuint64_t(k), cuuint64_t(rows), cuuint64_t(batch)};
  cuuint64_t strides[2] = {cuuint64_t(k), cuuint64_t(plane_stride)};
  cuuint32_t box[3] = {cuuint32_t(kTileK), cuuint32_t(box_rows), 1};
  cuuint32_t element_strides[3] = {1, 1, 1};
  CUresult const result = encode(map, CU_TENSOR_MAP_DATA_TYPE_UINT8, 3, const_cast<std::int8_t*>(base), dims, strides,
                                 box, element_strides, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B,
                                 CU_TENSOR_MAP_L2_PROMOTION_L2_256B, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  if (result != CUDA_SUCCESS) {
    return std::string("int8_gemm_sm90: cuTensorMapEncodeTiled failed for ") + name + " (CUresult " +
           std::to_string(int(result)) + ")";
  }
  return {};
}

/// Per device, the blocks (kCluster = 1) or clusters that are resident at once, found on the first launch there
/// together with the shared-memory opt-in; 0 before. Later launches then cost only the launch itself.
template <int kCluster>
std::array<std::atomic<int>, 64> resident_per_device{};

template <int kCluster>
std::string launch(CUtensorMap const& a_map, CUtensorMap const& b_map, KernelArgs const& args, int device,
                   cudaStream_t stream) {
  auto* const kernel = &int8_gemm_sm90_kernel<kCluster>;
  cudaLaunchConfig_t config{};
  config.blockDim = dim3(kThreads);
  config.dynamicSmemBytes = kDynamicSharedBytes;
  config.stream = stream;
  cudaLaunchAttribute attribute{};
  attribute.id = cudaLaunchAttributeClusterDimension;
  attribute.val.clusterDim.x = kCluster;
  attribute.val.clusterDim.y = 1;
  attribute.val.clusterDim.z = 1;
  config.attrs = &attribute;
  config.numAttrs = kCluster > 1 ? 1 : 0;

  std::atomic<int>* const known =
      device < int(resident_per_device<kCluster>.size()) ? &resident_per_device<kCluster>[device] : nullptr;
  int resident = known != nullptr ? known->load() : 0;
  if (resident == 0) {
    if (std::string e = cuda_error_text(
            cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, kDynamicSharedBytes),
            "int8_gemm_sm90: cudaFuncSetAttribute");
        !e.empty()) {
      return e;
    }
    // Persistent: one block per SM (the stage ring takes most of its shared memory), or as many pairs as fit.
    if constexpr (kCluster == 1) {
      if (std::string e = cuda_error_text(cudaDeviceGetAttribute(&resident, cudaDevAttrMultiProcessorCount, device),
                                          "int8_gemm_sm90: cudaDeviceGetAttribute");
          !e.empty()) {
        return e;
      }
    } else {
      config.gridDim = dim3(kCluster);
      if (std::string e = cuda_error_text(cudaOccupancyMaxActiveClusters(&resident, kernel, &config),
                                          "int8_gemm_sm90: cudaOccupancyMaxActiveClusters");
          !e.empty()) {
        return e;
      }
    }
    if (resident <= 0) return "int8_gemm_sm90: no thread block of the kernel fits this device";
    if (known != nullptr) known->store(resident);
  }
  config.gridDim = dim3(unsigned(std::min(args.units, std::int64_t(resident)) * kCluster));
  return cuda_error_text(cudaLaunchKernelEx(&config, kernel, a_map, b_map, args), "int8_gemm_sm90: launch");
}

}  // namespace

bool int8_gemm_sm90_available(int device) {
  // Per device: 0 not yet asked, 1 available, 2 not.
  static std::array<std::atomic<int>, 64> answers{};
  if (device < 0) return false;
  std::atomic<int>* const known = device < int(answers.size()) ? &answers[device] : nullptr;
  if (known != nullptr && known->load() != 0) return known->load() == 1;
  bool available = false;
  int major = 0, minor = 0;
  if (cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, device) == cudaSuccess &&
      cudaDeviceGetAttribute(&minor, cudaDevAttrComputeCapabilityMinor, device) == cudaSuccess && major == 9 &&
      minor == 0) {
    int current = 0;
    if (cudaGetDevice(&current) == cudaSuccess && (current == device || cudaSetDevice(device) == cudaSuccess)) {
      // The machine code this device runs must be the sm_90a body (a build without the sm_90a gencode would run
      // the empty sm_80 one): only that body has static shared memory.
      cudaFuncAttributes attributes{};
      available = cudaFuncGetAttributes(&attributes, &int8_gemm_sm90_kernel<1>) == cudaSuccess &&
                  attributes.binaryVersion == 90 && attributes.sharedSizeBytes > 0 &&
                  encode_tiled() != nullptr;
      if (current != device) cudaSetDevice(current);
    }
  }
  cudaGetLastError();
  if (known != nullptr) known->store(available ? 1 : 2);
  return available;
}

std::string int8_gemm_sm90(std::int64_t m, std::int64_t n, std::int64_t k, std::int8_t const* A, std::size_t a_plane,
                           std::int8_t const* B, std::size_t b_plane, std::int32_t* C, std::int64_t ldc,
                           std::size_t c_plane, int batch, void* stream) {
  return int8_gemm_sm90_scheduled(m, n, k, A, a_plane, B, b_plane, C, ldc, c_plane, batch, stream,
                                  Int8Sm90Schedule::kAuto);
}

std::string int8_gemm_sm90_scheduled(std::int64_t m, std::int64_t n, std::int64_t k, std::int8_t const* A,
                                     std::size_t a_plane, std::int8_t const* B, std::size_t b_plane, std::int32_t* C,
                                     std::int64_t ldc, std::size_t c_plane, int batch, void* stream,
                                     Int8Sm90Schedule schedule) {
  constexpr std::int64_t kMaxExtent = (std::int64_t(1) << 31) - 1;  // TMA coordinates are int32
  constexpr std::int64_t kMaxK = std::int64_t(1) << 17;              // |sum| < 2^31 for int8 products
  if (m < 0 || n < 0 || k < 0 || batch < 0) return "int8_gemm_sm90: negative size";
  if (m > kMaxExtent || n > kMaxExtent) return "int8_gemm_sm90: m and n must be below 2^31";
  if (k % 16 != 0 || k > kMaxK) return "int8_gemm_sm90: k must be a multiple of 16 and at most 2^17";
  if (ldc < std::max<std::int64_t>(m, 1) || ldc % 2 != 0) return "int8_gemm_sm90: ldc must be even and at least m";
  if (m == 0 || n == 0 || batch == 0) return {};
  if (A == nullptr || B == nullptr || C == nullptr) return "int8_gemm_sm90: null operand";
  // TMA wants 16-byte aligned bases and plane strides; the epilogue stores pairs of int32.
  if (reinterpret_cast<std::uintptr_t>(A) % 16 != 0 || reinterpret_cast<std::uintptr_t>(B) % 16 != 0 ||
      reinterpret_cast<std::uintptr_t>(C) % 8 != 0) {
    return "int8_gemm_sm90: A and B must be 16-byte aligned, C 8-byte aligned";
  }
  if (batch > 1 && (a_plane % 16 != 0 || b_plane % 16 != 0 || c_plane % 2 != 0 || a_plane >= (std::size_t(1) << 40) ||
                    b_plane >= (std::size_t(1) << 40))) {
    return "int8_gemm_sm90: a_plane and b_plane must be multiples of 16 below 2^40, c_plane even";
  }
  int device = 0;
  if (std::string e = cuda_error_text(cudaGetDevice(&device), "int8_gemm_sm90: cudaGetDevice"); !e.empty()) return e;
  if (!int8_gemm_sm90_available(device)) return "int8_gemm_sm90: needs a compute capability 9.0 GPU and sm_90a code";
  auto const cuda_stream = static_cast<cudaStream_t>(stream);

  if (k == 0) {  // C = 0; no tensor map can describe an empty k
    for (int l = 0; l < batch; ++l) {
      if (std::string e = cuda_error_text(cudaMemset2DAsync(C + std::size_t(l) * c_plane, std::size_t(ldc) * 4, 0,
                                                            std::size_t(m) * 4, std::size_t(n), cuda_stream),
                                          "int8_gemm_sm90: cudaMemset2DAsync");
          !e.empty()) {
        return e;
      }
    }
    return {};
  }

  // kAuto runs pairs: on the H200 they were as fast or faster at n = 4096 and 8192 and with batches, 1.4x at
  // k = 5008 (rows not 128-byte aligned, where single blocks' extra L2 traffic shows), ~4% behind at 16384.
  bool const pair = schedule != Int8Sm90Schedule::kSingle;
  int const cluster = pair ? 2 : 1;
  KernelArgs args{};
  args.C = C;
  args.ldc = ldc;
  args.c_plane = std::int64_t(c_plane);
  args.m = m;
  args.n = n;
  args.k_tiles = int((k + kTileK - 1) / kTileK);
  args.tiles_m = (m + kTileM - 1) / kTileM;
  args.tiles_n = (n + kTileN - 1) / kTileN;
  args.units_n = (args.tiles_n + cluster - 1) / cluster;
  args.units_per_plane = args.tiles_m * args.units_n;
  args.units = args.units_per_plane * batch;

  CUtensorMap a_map{}, b_map{};
  if (std::string e = describe_operand(&a_map, A, k, m, a_plane, batch, kTileM / cluster, "A"); !e.empty()) return e;
  if (std::string e = describe_operand(&b_map, B, k, n, b_plane, batch, kTileN, "B"); !e.empty()) return e;
  return pair ? launch<2>(a_map, b_map, args, device, cuda_stream)
              : launch<1>(a_map, b_map, args, device, cuda_stream);
}

}  // namespace gemmkit::ozaki2
