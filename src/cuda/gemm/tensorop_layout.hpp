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

    Tiles are unpadded; the 16-byte chunk index is XOR-swizzled so that each quarter-warp (the
    eight lanes one 128-bit shared access serves at a time) reads eight distinct bank groups:
      - K-contiguous (mn, k): chunk k/2 of row mn is stored at (k/2) ^ ((mn/2) % 2);
      - MN-contiguous (mn, k): chunk mn/2 of row k is stored at (mn/2) ^ (2 * ((k/4) % 4)).
*/
#pragma once

#if defined(__CUDACC__)
#define GEMMKIT_HOST_DEVICE __host__ __device__
#else
#define GEMMKIT_HOST_DEVICE
#endif

namespace gemmkit::gemm {

/// One operand's kRows x kDepth tile (kRows along M for A, N for B; kDepth along K) in one stage.
template <int kRows, int kDepth, bool kKContiguous>
struct SwizzledTile {
  static_assert(kRows % 16 == 0 && kDepth % 16 == 0, "the swizzles permute within 16-element groups");
  static constexpr int kElements = kRows * kDepth;

  /// Element offset of (mn, k) within the stage.
  static constexpr GEMMKIT_HOST_DEVICE int offset(int mn, int k) {
    if constexpr (kKContiguous) {
      return mn * kDepth + 2 * ((k / 2) ^ ((mn / 2) % 2)) + k % 2;
    } else {
      return k * kRows + 2 * ((mn / 2) ^ (2 * ((k / 4) % 4))) + mn % 2;
    }
  }

  /// A lane's fragment loads of one 16-wide group: load `l` (0..3) reads the two adjacent doubles
  /// at lane_offset(g, t, l) + group_offset(group, k_step, l) into values v[h][c] listed by
  /// value_slot(l, 0) and value_slot(l, 1), each encoded as 4 * h + c. The lane part is fixed for
  /// the whole kernel; the group part is a compile-time constant (k_step is a multiple of 16).
  static constexpr GEMMKIT_HOST_DEVICE int lane_offset(int g, int t, int l) {
    // K-contiguous: loads 0,1 read row 2g and 2,3 row 2g+1, k pairs (4t, 4t+1) and (4t+2, 4t+3);
    // MN-contiguous: load l reads rows 2g, 2g+1 at k = 4t + l.
    return kKContiguous ? offset(2 * g, 4 * t + 2 * (l % 2)) : offset(2 * g, 4 * t);
  }
  static constexpr GEMMKIT_HOST_DEVICE int group_offset(int group, int k_step, int l) {
    return kKContiguous ? offset(16 * group + l / 2, k_step) : offset(16 * group, k_step + l);
  }
  static constexpr GEMMKIT_HOST_DEVICE int value_slot(int l, int which) {
    return kKContiguous ? 4 * (l / 2) + 2 * (l % 2) + which : 4 * which + l;
  }
};

/// Which element of the 16-wide group and the 16-deep k step value v[h][c] of lane (g, t) is.
struct FragmentMap {
  static constexpr GEMMKIT_HOST_DEVICE int mn(int g, int h) { return 2 * g + h; }
  static constexpr GEMMKIT_HOST_DEVICE int k(int t, int c) { return 4 * t + c; }
  /// A fragment register e of m16n8k16 (MMA row g + 8*(e%2), MMA k t + 4*(e/2)) holds v[e%2][e/2].
  static constexpr GEMMKIT_HOST_DEVICE int a_register(int h, int c) { return 2 * c + h; }
  /// C register e of the B-pair member h: row 2g + e/2, column 4t + 2*(e%2) + h of the group.
  static constexpr GEMMKIT_HOST_DEVICE int c_row(int g, int e) { return 2 * g + e / 2; }
  static constexpr GEMMKIT_HOST_DEVICE int c_column(int t, int e, int h) { return 4 * t + 2 * (e % 2) + h; }
};

}  // namespace gemmkit::gemm
