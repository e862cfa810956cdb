/*! \file
    \brief Where the FP64 tensor-core GEMM keeps operand tiles in shared memory, and which
    elements each lane's fragments hold: index maps only, usable on host and device, so a CPU test
    can replay a warp's loads and check the product and the bank pattern.

    The MMA m16n8k16 sums over k in any order, and its rows and columns may be renamed as long as
    the accumulator is renamed the same way. Three renamings turn every fragment load into a
    128-bit one (half the shared-load instructions of 64-bit loads):
      - k:  MMA k index t + 4c (lane t, slot c) reads k = 4t + c, so a lane's four k are adjacent;
      - m:  MMA row g (+8) of a 16-row fragment reads row 2g (+1), so a lane's two rows are adjacent;
      - n:  column g of the B fragment pair (2p, 2p+1) reads column 16p + 2g (+1), likewise.
    A lane therefore owns, per 16-row (A) or 16-column (B) group, a 2 x 4 block of values
    v[h][c] = X(mn = 2g + h, k = 4t + c), and C rows 2g, 2g+1 (adjacent in memory: 16-byte stores).
    The m16n8k8 form renames the same way with k = 2t + c: a 2 x 2 block per group and k step.

    Tiles are unpadded; the 16-byte chunk index is XOR-swizzled so that each quarter-warp (the
    eight lanes one 128-bit shared access serves at a time) reads eight distinct bank groups:
      - K-contiguous (mn, k): chunk k/2 of row mn is stored at (k/2) ^ ((mn/2) % 2) (k16) or
        (k/2) ^ (4 * ((mn/2) % 2)) (k8);
      - MN-contiguous (mn, k): chunk mn/2 of row k is stored at (mn/2) ^ (2 * ((k/4) % 4)) (k16)
        or (mn/2) ^ (2 * ((k/2) % 4)) (k8).
*/
#pragma once

#if defined(__CUDACC__)
#define GEMMKIT_HOST_DEVICE __host__ __device__
#else
#define GEMMKIT_HOST_DEVICE
#endif

namespace gemmkit::gemm {

/// One operand's kRows x kDepth tile (kRows along M for A, N for B; kDepth along K) in one stage,
/// laid out for kMmaK-deep MMAs (16: m16n8k16; 8: m16n8k8, whose lane holds k = 2t + c instead
/// of 4t + c, so the XOR moves to the bit that then tells the quarter-warp's two rows apart).
template <int kRows, int kDepth, bool kKContiguous, int kMmaK = 16>
struct SwizzledTile {
  static_assert(kRows % 16 == 0 && kDepth % 16 == 0, "the swizzles permute within 16-element groups");
  static_assert(kMmaK == 16 || kMmaK == 8);
  static constexpr int kElements = kRows * kDepth;
  static constexpr int kPerRow = kMmaK / 4;       ///< values a lane holds per row of a group: v[h][0..kPerRow)
  static constexpr int kValues = 2 * kPerRow;     ///< values a lane holds per group and k step
  static constexpr int kLoads = kValues / 2;      ///< 128-bit loads per group and k step

  /// Element offset of (mn, k) within the stage.
  static constexpr GEMMKIT_HOST_DEVICE int offset(int mn, int k) {
    constexpr int kKFlip = kMmaK == 16 ? 1 : 4;   // K-contiguous: chunk bit flipped by (mn/2) % 2
    constexpr int kKShift = kMmaK == 16 ? 4 : 2;  // MN-contiguous: k per swizzle step
    if constexpr (kKContiguous) {
      return mn * kDepth + 2 * ((k / 2) ^ (kKFlip * ((mn / 2) % 2))) + k % 2;
    } else {
      return k * kRows + 2 * ((mn / 2) ^ (2 * ((k / kKShift) % 4))) + mn % 2;
    }
  }

  /// A lane's fragment loads of one 16-wide group: load `l` (0..kLoads) reads the two adjacent
  /// doubles at lane_offset(g, t, base_of(k_step, l)) + group_offset(group, k_step, l) into values
  /// v[h][c] listed by value_slot(l, 0) and value_slot(l, 1), each encoded as kPerRow * h + c.
  /// The two lane bases are fixed for the whole kernel; the group part is a compile-time constant.
  static constexpr GEMMKIT_HOST_DEVICE int lane_offset(int g, int t, int base) {
    if constexpr (kMmaK == 16) {
      // K-contiguous: loads 0,1 read row 2g and 2,3 row 2g+1, k pairs (4t, 4t+1) and (4t+2, 4t+3);
      // MN-contiguous: load l reads rows 2g, 2g+1 at k = 4t + l.
      return kKContiguous ? offset(2 * g, 4 * t + 2 * base) : offset(2 * g, 4 * t);
    } else {
      // K-contiguous: load h reads row 2g + h at k = 2t, 2t+1 of the step; odd 8-steps of a
      // 16-deep slice take the second base (the swizzle flips the chunk bit they differ in).
      // MN-contiguous: load c reads rows 2g, 2g+1 at k = 2t + c.
      return kKContiguous ? offset(2 * g, 8 * base + 2 * t) : offset(2 * g, 2 * t);
    }
  }
  static constexpr GEMMKIT_HOST_DEVICE int base_of(int k_step, int l) {
    if constexpr (kMmaK == 16) return l % 2;
    return kKContiguous ? (k_step / 8) % 2 : 0;
  }
  static constexpr GEMMKIT_HOST_DEVICE int group_offset(int group, int k_step, int l) {
    if constexpr (kMmaK == 16) {
      return kKContiguous ? offset(16 * group + l / 2, k_step) : offset(16 * group, k_step + l);
    } else {
      return kKContiguous ? offset(16 * group + l, k_step - k_step % 16) : offset(16 * group, k_step + l);
    }
  }
  static constexpr GEMMKIT_HOST_DEVICE int value_slot(int l, int which) {
    if constexpr (kMmaK == 16) return kKContiguous ? 4 * (l / 2) + 2 * (l % 2) + which : 4 * which + l;
    return kKContiguous ? 2 * l + which : 2 * which + l;
  }
};

/// Which element of the 16-wide group and the 16-deep k step value v[h][c] of lane (g, t) is.
struct FragmentMap {
  static constexpr GEMMKIT_HOST_DEVICE int mn(int g, int h) { return 2 * g + h; }
  static constexpr GEMMKIT_HOST_DEVICE int k(int t, int c, int mma_k = 16) { return (mma_k / 4) * t + c; }
  /// A fragment register e of m16n8k16 or m16n8k8 (MMA row g + 8*(e%2), MMA k t + 4*(e/2)) holds
  /// v[e%2][e/2].
  static constexpr GEMMKIT_HOST_DEVICE int a_register(int h, int c) { return 2 * c + h; }
  /// C register e of the B-pair member h: row 2g + e/2, column 4t + 2*(e%2) + h of the group.
  static constexpr GEMMKIT_HOST_DEVICE int c_row(int g, int e) { return 2 * g + e / 2; }
  static constexpr GEMMKIT_HOST_DEVICE int c_column(int t, int e, int h) { return 4 * t + 2 * (e % 2) + h; }
};

}  // namespace gemmkit::gemm
