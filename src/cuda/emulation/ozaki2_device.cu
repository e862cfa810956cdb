/*! \file
    \brief The Ozaki scheme II's GPU kernels: operand maxima and sums, scaled int8 residues and quantized
    magnitudes (a shared-memory tile turns the strided operand around so reads and writes are both
    coalesced), the accurate scaling's per-element bounds, and the reconstruction of each element from its
    int32 products.
*/
#include "cuda/emulation/ozaki2_device.hpp"

#include "base/cuda_check.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstring>
#include <utility>

namespace gemmkit::ozaki2 {

namespace {

/// What the residue kernels need per modulus.
struct ResidueConstants {
  int count;
  int bits;
  int p[kMaxModuli];
  double inverse_p[kMaxModuli];
};

/// The reconstruction's constants. With M the moduli's product and y_l = (M/p_l)^-1 mod p_l, the
/// Chinese remainder theorem gives C'/M = sum_l r_l y_l / p_l (mod 1) for the residues r_l of C'.
/// Each fraction y_l/p_l is split as f1 + f2 + f3: f1 a multiple of 2^-40 and f2 of 2^-80, so that
/// with |r_l| <= 128 and up to 20 moduli the sums of r_l f1 and of r_l f2 are exact in a double; f3
/// holds the rest. M is held as a double-double.
struct CrtConstants {
  int count;
  int p[kMaxModuli];
  double inverse_p[kMaxModuli];
  double f1[kMaxModuli], f2[kMaxModuli], f3[kMaxModuli];
  double m_hi, m_lo;
};

ResidueConstants residue_constants(Plan const& plan) {
  ResidueConstants c{};
  c.count = plan.moduli;
  c.bits = plan.bits;
  for (int l = 0; l < kMaxModuli; ++l) {
    c.p[l] = moduli()[std::size_t(l)];
    c.inverse_p[l] = 1.0 / c.p[l];
  }
  return c;
}

CrtConstants crt_constants(Plan const& plan) {
  CrtConstants c{};
  c.count = plan.moduli;
  auto const& p = moduli();
  double m_hi = 1, m_lo = 0;
  for (int l = 0; l < plan.moduli; ++l) {
    double const pl = p[std::size_t(l)];
    double const hi = m_hi * pl;
    m_lo = std::fma(m_hi, pl, -hi) + m_lo * pl;
    m_hi = hi + m_lo;
    m_lo -= m_hi - hi;
  }
  c.m_hi = m_hi, c.m_lo = m_lo;
  for (int l = 0; l < kMaxModuli; ++l) {
    int const pl = p[std::size_t(l)];
    c.p[l] = pl;
    c.inverse_p[l] = 1.0 / pl;
    if (l >= plan.moduli) continue;
    int cofactor = 1;  // (M / p_l) mod p_l
    for (int d = 0; d < plan.moduli; ++d) {
      if (d != l) cofactor = cofactor * (p[std::size_t(d)] % pl) % pl;
    }
    std::int64_t const y = inverse_mod(cofactor, pl);
    // y / p = (n1 + (n2 + rest) 2^-40) 2^-40, each step in exact integers: |rest| <= 1/2.
    std::int64_t const n1 = ((y << 40) + pl / 2) / pl;
    std::int64_t const rem1 = (y << 40) - n1 * pl;  // |rem1| <= p/2
    std::int64_t const n2 = std::llround(std::ldexp(double(rem1), 40) / pl);
    double const rest = (std::ldexp(double(rem1), 40) - double(n2) * pl) / pl;  // exact numerator
    c.f1[l] = std::ldexp(double(n1), -40);
    c.f2[l] = std::ldexp(double(n2), -80);
    c.f3[l] = std::ldexp(rest, -80);
  }
  return c;
}

__device__ inline int shift_for(double largest, int bits) { return largest == 0 ? 0 : bits - ilogb(largest) - 1; }

/// The accurate scaling's quantization of a line of `count` elements whose magnitudes have this largest and
/// sum: |x| 2^shift rounded down, at most 127. Seven bits below the largest, or, for a line whose mean is far
/// below its largest, the mean at 16..31 (the few elements above 127 are clamped): either way a lower bound
/// that keeps most of the line's magnitude.
__device__ inline int magnitude_shift(double largest, double sum, std::int64_t count) {
  if (largest == 0) return 0;
  return max(shift_for(largest, 7), 4 - ilogb(sum / double(count)));
}

/// What the bounds need of a line (a row of op(A) or a column of op(B)): with s = shift_for(largest, 0) and
/// q = magnitude_shift(...), u = 2^s sum, alpha = 2^s largest (in [1/2, 1), 0 for a zero line), d = 2^(s - q),
/// and whether the quantization clamped (then (q + 1) 2^-q bounds no element from above).
struct LineFactors {
  double u, alpha, d;
  bool clamped;
};

__device__ inline LineFactors line_factors(double largest, double sum, std::int64_t count) {
  if (largest == 0) return {0, 0, 0, false};
  int const s = shift_for(largest, 0), q = magnitude_shift(largest, sum, count);
  return {ldexp(sum, s), ldexp(largest, s), ldexp(1.0, s - q), q > s + 7};
}

/// A row's or column's spread, k max|x| / sum |x| (1 for equal magnitudes), into a running maximum: the
/// bit patterns of non-negative doubles order as the values do, so an integer maximum is exact and
/// independent of the order.
__device__ inline void note_spread(double largest, double sum, std::int64_t count, unsigned long long* spread) {
  if (sum > 0) atomicMax(spread, static_cast<unsigned long long>(__double_as_longlong(largest * double(count) / sum)));
}

constexpr int kMaxColumnsGroups = 16;

/// Max and sum of |x| along the strided index of a column-major rows x cols matrix: 32 rows per block,
/// the columns split over 16 thread rows and combined in shared memory in a fixed order.
__global__ void max_along_rows(double const* __restrict__ x, std::int64_t ld, std::int64_t rows, std::int64_t cols,
                               double* __restrict__ out, double* __restrict__ sums, Summary* __restrict__ summary,
                               int side) {
  __shared__ double largest_part[kMaxColumnsGroups][32], sum_part[kMaxColumnsGroups][32];
  std::int64_t const r = std::int64_t(blockIdx.x) * 32 + threadIdx.x;
  double largest = 0, sum = 0;
  bool finite = true;
  if (r < rows) {
    for (std::int64_t c = threadIdx.y; c < cols; c += kMaxColumnsGroups) {
      double const v = fabs(x[r + c * ld]);
      finite = finite && isfinite(v);
      largest = fmax(largest, v);
      sum += v;
    }
  }
  largest_part[threadIdx.y][threadIdx.x] = largest;
  sum_part[threadIdx.y][threadIdx.x] = sum;
  if (!__syncthreads_and(finite) && threadIdx.x == 0 && threadIdx.y == 0) atomicOr(&summary->nonfinite, 1);
  if (threadIdx.y != 0 || r >= rows) return;
  for (int g = 1; g < kMaxColumnsGroups; ++g) {
    largest = fmax(largest, largest_part[g][threadIdx.x]);
    sum += sum_part[g][threadIdx.x];
  }
  out[r] = largest;
  sums[r] = sum;
  note_spread(largest, sum, cols, &summary->spread_bits[side]);
}

/// Max and sum of |x| down each column (the contiguous index): one warp per column.
__global__ void max_down_columns(double const* __restrict__ x, std::int64_t ld, std::int64_t rows, std::int64_t cols,
                                 double* __restrict__ out, double* __restrict__ sums, Summary* __restrict__ summary,
                                 int side) {
  std::int64_t const c = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  int const lane = threadIdx.x % 32;
  if (c >= cols) return;
  double largest = 0, sum = 0;
  bool finite = true;
  for (std::int64_t r = lane; r < rows; r += 32) {
    double const v = fabs(x[r + c * ld]);
    finite = finite && isfinite(v);
    largest = fmax(largest, v);
    sum += v;
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    largest = fmax(largest, __shfl_down_sync(0xffffffffu, largest, offset));
    sum += __shfl_down_sync(0xffffffffu, sum, offset);
  }
  finite = __all_sync(0xffffffffu, finite);
  if (lane == 0) {
    out[c] = largest;
    sums[c] = sum;
    if (!finite) atomicOr(&summary->nonfinite, 1);
    note_spread(largest, sum, rows, &summary->spread_bits[side]);
  }
}

constexpr int kLines = 32;   // lines (rows of op(A) / columns of op(B)) per residue tile
constexpr int kDepth = 64;   // elements along k per residue tile
constexpr int kResidueThreads = 256;

/// 1.5 * 2^52: adding it rounds a double below 2^51 in magnitude to an integer, held in the low bits.
constexpr double kRoundingConstant = 6755399441055744.0;

/// The symmetric residue of the integer-valued double x (|x| < 2^63) modulo p, in [-(p/2), (p-1)/2].
__device__ inline int symmetric_residue(double x, int p, double inverse_p) {
  double const q1 = rint(x * inverse_p);                                      // within a few units of x / p
  double const r1 = fma(-q1, double(p), x);                                   // exact: a small integer
  double const q2 = (r1 * inverse_p + kRoundingConstant) - kRoundingConstant;
  int r = __double2loint(fma(-q2, double(p), r1) + kRoundingConstant);        // exact, |r| <= p
  if (r > (p - 1) / 2) r -= p;
  if (r < -(p / 2)) r += p;
  return r;
}

/// Residues of one operand seen as `lines` x k (a line is a row of op(A) or a column of op(B)): element (line, h) is
/// x[h + line*ld] when along_k_contiguous, else x[line + h*ld]. Writes out[l*plane + line*k_padded + h] for every
/// modulus l, zeros for k <= h < k_padded. A shared-memory tile turns a strided operand around so that the reads
/// are coalesced; each thread then writes four residues of a line as one word per modulus. kMagnitudes: the
/// one plane of |x| 2^(7 - e) rounded down (0..127) instead, for the accurate scaling's bounds.
template <bool kMagnitudes>
__global__ void __launch_bounds__(kResidueThreads)
    residues_kernel(double const* __restrict__ x, std::int64_t ld, bool along_k_contiguous, std::int64_t lines,
                    std::int64_t k, std::int64_t k_padded, double const* __restrict__ line_max,
                    double const* __restrict__ line_sum, std::int8_t* __restrict__ out, std::size_t plane,
                    ResidueConstants c) {
  __shared__ double tile[kLines][kDepth + 1];
  __shared__ int shift[kLines];
  std::int64_t const h0 = std::int64_t(blockIdx.x) * kDepth, line0 = std::int64_t(blockIdx.y) * kLines;
  int const t = threadIdx.x;
  if (t < kLines && line0 + t < lines) {
    double const largest = line_max[line0 + t];
    shift[t] = kMagnitudes ? magnitude_shift(largest, line_sum[line0 + t], k) : shift_for(largest, c.bits);
  }
  if (along_k_contiguous) {  // consecutive threads walk h
    for (int e = t; e < kLines * kDepth; e += kResidueThreads) {
      int const y = e / kDepth, hh = e % kDepth;
      std::int64_t const line = line0 + y, h = h0 + hh;
      tile[y][hh] = line < lines && h < k ? x[h + line * ld] : 0.0;
    }
  } else {  // consecutive threads walk the lines
    for (int e = t; e < kLines * kDepth; e += kResidueThreads) {
      int const y = e % kLines, hh = e / kLines;
      std::int64_t const line = line0 + y, h = h0 + hh;
      tile[y][hh] = line < lines && h < k ? x[line + h * ld] : 0.0;
    }
  }
  __syncthreads();
  constexpr int kQuads = kDepth / 4;
  for (int e = t; e < kLines * kQuads; e += kResidueThreads) {
    int const y = e / kQuads, quad = e % kQuads;
    std::int64_t const line = line0 + y, h = h0 + 4 * quad;
    if (line >= lines || h >= k_padded) continue;
    auto* const at = reinterpret_cast<std::uint32_t*>(out + line * k_padded + h);
    if constexpr (kMagnitudes) {
      std::uint32_t word = 0;
#pragma unroll
      for (int q = 0; q < 4; ++q) {
        word |= std::uint32_t(fmin(127.0, floor(ldexp(fabs(tile[y][4 * quad + q]), shift[y])))) << (8 * q);
      }
      *at = word;
    } else {
      double scaled[4];
#pragma unroll
      for (int q = 0; q < 4; ++q) scaled[q] = rint(ldexp(tile[y][4 * quad + q], shift[y]));  // |.| <= 2^bits <= 2^62
      for (int l = 0; l < c.count; ++l) {
        std::uint32_t word = 0;
#pragma unroll
        for (int q = 0; q < 4; ++q) {
          word |= (std::uint32_t(symmetric_residue(scaled[q], c.p[l], c.inverse_p[l])) & 0xffu) << (8 * q);
        }
        at[std::size_t(l) * plane / 4] = word;
      }
    }
  }
}

/// More bits than any plan takes: an element whose bound no plan meets.
constexpr int kUnreachableBits = 99;
constexpr int kBoundThreads = 128;

/// LineFactors of columns first .. first + count - 1 of op(B), four doubles each (u, alpha, d, clamped as 0/1).
__global__ void column_factors_kernel(double const* __restrict__ b_max, double const* __restrict__ b_sum,
                                      std::int64_t count, std::int64_t k, double* __restrict__ out) {
  std::int64_t const j = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (j >= count) return;
  LineFactors const f = line_factors(b_max[j], b_sum[j], k);
  out[4 * j] = f.u, out[4 * j + 1] = f.alpha, out[4 * j + 2] = f.d, out[4 * j + 3] = f.clamped ? 1.0 : 0.0;
}

/// The accurate scaling's per-element bounds (bound_elements in the header), each thread a row of the block and
/// every gridDim.y-th column; block maxima into the Summary. In units of 2^-(s_i + t_j): the rounding term is
/// E = [row nonzero] u_j + [column nonzero] u_i, the lower bound on |A||B| is G d_i d_j, and the product bound
/// W the smaller of min(alpha_i u_j, alpha_j u_i) (largest times sum) and, where no quantization clamped,
/// d_i d_j (G + k) + d_j u_i + d_i u_j; V = u_i + u_j. An element is tested against the most bits found so far
/// first; only one that needs more computes its own.
__global__ void __launch_bounds__(kBoundThreads)
    bound_kernel(std::int32_t const* __restrict__ magnitudes, std::int64_t ldg, std::int64_t m, std::int64_t n,
                 double const* __restrict__ a_max, double const* __restrict__ a_sum,
                 double const* __restrict__ columns, std::int64_t k, Summary* __restrict__ summary) {
  std::int64_t const i = std::int64_t(blockIdx.x) * kBoundThreads + threadIdx.x;
  int need = 0;
  double w = 0, v = 0;
  if (i < m) {
    LineFactors const row = line_factors(a_max[i], a_sum[i], k);
    double const kd = double(k);
    double rounding = 0.5, square = 0.25;  // 2^-(need+1), 2^-(2 need+2)
    for (std::int64_t j = blockIdx.y; j < n; j += gridDim.y) {
      double const cu = columns[4 * j], calpha = columns[4 * j + 1], cd = columns[4 * j + 2];
      bool const cclamped = columns[4 * j + 3] != 0;
      double const g = magnitudes[i + j * ldg];
      double bound = fmin(row.alpha * cu, calpha * row.u);
      if (!row.clamped && !cclamped) bound = fmin(bound, row.d * cd * (g + kd) + cd * row.u + row.d * cu);
      w = fmax(w, bound);
      v = fmax(v, row.u + cu);
      double const e = (row.alpha > 0 ? cu : 0.0) + (calpha > 0 ? row.u : 0.0);
      double const target = kAccurateErrorBound * g * row.d * cd;
      if (e == 0 || e * rounding + kd * square <= target || need >= kUnreachableBits) continue;
      int b = kUnreachableBits;
      if (target > 0) {
        b = max(need + 1, int(ceil(log2(e / target))) - 1);
        while (b < kUnreachableBits && ldexp(e, -(b + 1)) + ldexp(kd, -(2 * b + 2)) > target) ++b;
      }
      need = b;
      rounding = ldexp(1.0, -(b + 1)), square = ldexp(1.0, -(2 * b + 2));
    }
  }
  for (int offset = 16; offset > 0; offset /= 2) {
    need = max(need, __shfl_down_sync(0xffffffffu, need, offset));
    w = fmax(w, __shfl_down_sync(0xffffffffu, w, offset));
    v = fmax(v, __shfl_down_sync(0xffffffffu, v, offset));
  }
  constexpr int kWarps = kBoundThreads / 32;
  __shared__ int warp_need[kWarps];
  __shared__ double warp_w[kWarps], warp_v[kWarps];
  int const warp = threadIdx.x / 32;
  if (threadIdx.x % 32 == 0) warp_need[warp] = need, warp_w[warp] = w, warp_v[warp] = v;
  __syncthreads();
  if (threadIdx.x != 0) return;
  for (int x = 1; x < kWarps; ++x) {
    need = max(need, warp_need[x]);
    w = fmax(w, warp_w[x]);
    v = fmax(v, warp_v[x]);
  }
  atomicMax(&summary->required_bits, need);
  atomicMax(&summary->product_bound_bits, static_cast<unsigned long long>(__double_as_longlong(w)));
  atomicMax(&summary->sum_bound_bits, static_cast<unsigned long long>(__double_as_longlong(v)));
}

/// One element per thread: the residues of its int32 products, the fractions of the Chinese remainder
/// theorem summed exactly (f1, f2) and nearly (f3), the integer part dropped, times M in double-double,
/// 2^-(s_i + t_j), and the BLAS epilogue. N moduli, unrolled.
template <int N>
__global__ void reconstruct_kernel(std::int32_t const* __restrict__ products, std::int64_t ldp, std::size_t plane,
                                   std::int64_t m, std::int64_t n, double const* __restrict__ a_max,
                                   double const* __restrict__ b_max, int bits, double alpha, double beta,
                                   double* __restrict__ C, std::int64_t ldc, CrtConstants c) {
  std::int64_t const i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m) return;
  int const a_shift = shift_for(a_max[i], bits);
  for (std::int64_t j = blockIdx.y; j < n; j += gridDim.y) {
    std::int32_t x[N];
#pragma unroll
    for (int l = 0; l < N; ++l) x[l] = products[std::size_t(l) * plane + i + j * ldp];
    double t1 = 0, t2 = 0, t3 = 0;
#pragma unroll
    for (int l = 0; l < N; ++l) {
      double const v = x[l];
      double const q = (v * c.inverse_p[l] + kRoundingConstant) - kRoundingConstant;
      double const r = fma(-q, double(c.p[l]), v);  // exact, |r| <= p/2 (an odd p never ties)
      t1 = fma(r, c.f1[l], t1);
      t2 = fma(r, c.f2[l], t2);
      t3 = fma(r, c.f3[l], t3);
    }
    // C'/M = t1 + t2 + t3 - (the nearest integer), |C'/M| < 1/2 with room to spare.
    double const whole = rint(t1 + (t2 + t3));
    double const head = t1 - whole;  // exact
    double const s = head + t2;
    double const s_error = (head - (s - (s - head))) + (t2 - (s - head));
    double const tail = s_error + t3;
    double const top = s * c.m_hi;
    double const value = top + (fma(s, c.m_hi, -top) + (s * c.m_lo + tail * c.m_hi));
    double const product = ldexp(value, -(a_shift + shift_for(b_max[j], bits)));
    double& out = C[i + j * ldc];
    out = beta == 0 ? alpha * product : alpha * product + beta * out;
  }
}

using ReconstructKernel = void (*)(std::int32_t const*, std::int64_t, std::size_t, std::int64_t, std::int64_t,
                                   double const*, double const*, int, double, double, double*, std::int64_t,
                                   CrtConstants);

/// reconstruct_kernel<N> for N = 1 .. kMaxModuli, indexed by N - 1.
template <std::size_t... I>
constexpr std::array<ReconstructKernel, sizeof...(I)> reconstruct_kernels(std::index_sequence<I...>) {
  return {&reconstruct_kernel<int(I) + 1>...};
}

std::string launch_error(char const* what) { return cuda_error_text(cudaGetLastError(), what); }

}  // namespace

DeviceLayout device_layout(GemmProblem const& p, Plan const& plan, std::int64_t block_rows, std::int64_t block_columns) {
  DeviceLayout d;
  auto const round_up = [](std::size_t x, std::size_t to) { return (x + to - 1) / to * to; };
  // 128-byte rows keep the INT8 engines' tile loads aligned; short rows pad to 16 only.
  std::size_t const k = std::size_t(std::max<std::int64_t>(p.k, 1));
  d.k_padded = std::int64_t(round_up(k, k >= 1024 ? 128 : 16));
  d.block_rows = std::max<std::int64_t>(1, std::min(block_rows, p.m));
  d.block_columns = std::max<std::int64_t>(1, std::min(block_columns, p.n));
  d.ldc = std::int64_t(round_up(std::size_t(d.block_rows), 4));
  std::size_t const count = std::size_t(plan.moduli);
  d.a_plane = std::size_t(d.block_rows) * std::size_t(d.k_padded);
  d.b_plane = std::size_t(d.block_columns) * std::size_t(d.k_padded);
  d.product_plane = std::size_t(d.ldc) * std::size_t(d.block_columns);
  std::size_t at = 0;
  auto const take = [&](std::size_t bytes) {
    std::size_t const offset = at;
    at = round_up(at + bytes, 256);
    return offset;
  };
  d.a_max = take(std::size_t(p.m) * sizeof(double));
  d.b_max = take(std::size_t(p.n) * sizeof(double));
  d.a_sum = take(std::size_t(p.m) * sizeof(double));
  d.b_sum = take(std::size_t(p.n) * sizeof(double));
  d.summary = take(sizeof(Summary));
  d.b_factors = take(std::size_t(d.block_columns) * 4 * sizeof(double));
  d.a_residues = take(count * d.a_plane);
  d.b_residues = take(count * d.b_plane);
  d.products = take(count * d.product_plane * sizeof(std::int32_t));
  d.bytes = at;
  return d;
}

std::string find_scales(GemmProblem const& p, double const* A, double const* B, void* workspace, DeviceLayout const& d,
                        void* stream) {
  auto* const base = static_cast<unsigned char*>(workspace);
  auto* const a_max = reinterpret_cast<double*>(base + d.a_max);
  auto* const b_max = reinterpret_cast<double*>(base + d.b_max);
  auto* const a_sum = reinterpret_cast<double*>(base + d.a_sum);
  auto* const b_sum = reinterpret_cast<double*>(base + d.b_sum);
  auto* const summary = reinterpret_cast<Summary*>(base + d.summary);
  auto const s = static_cast<cudaStream_t>(stream);
  constexpr int kWarpsPerBlock = 8;
  auto const strided = [&](double const* x, std::int64_t ld, std::int64_t rows, std::int64_t cols, double* out,
                           double* sums, int side) {
    max_along_rows<<<unsigned((rows + 31) / 32), dim3(32, kMaxColumnsGroups), 0, s>>>(x, ld, rows, cols, out, sums,
                                                                                     summary, side);
  };
  auto const contiguous = [&](double const* x, std::int64_t ld, std::int64_t rows, std::int64_t cols, double* out,
                              double* sums, int side) {
    max_down_columns<<<unsigned((cols + kWarpsPerBlock - 1) / kWarpsPerBlock), 32 * kWarpsPerBlock, 0, s>>>(
        x, ld, rows, cols, out, sums, summary, side);
  };
  // Rows of op(A): rows of A, or its columns when transposed; columns of op(B) likewise.
  if (!is_transposed(p.trans_a)) {
    strided(A, p.lda, p.m, p.k, a_max, a_sum, 0);
  } else {
    contiguous(A, p.lda, p.k, p.m, a_max, a_sum, 0);
  }
  if (!is_transposed(p.trans_b)) {
    contiguous(B, p.ldb, p.k, p.n, b_max, b_sum, 1);
  } else {
    strided(B, p.ldb, p.n, p.k, b_max, b_sum, 1);
  }
  return launch_error("ozaki2 maxima");
}

namespace {

__global__ void copy_summary_kernel(Summary const* __restrict__ from, Summary* __restrict__ to) { *to = *from; }

/// A calling thread's Summary in mapped pinned host memory, which a kernel writes over the bus: a copy engine
/// would queue the few bytes behind whatever transfer it is running (the pipeline's block stores of C).
class MappedSummary {
 public:
  MappedSummary() {
    void* p = nullptr;
    if (cudaHostAlloc(&p, sizeof(Summary), cudaHostAllocMapped | cudaHostAllocPortable) == cudaSuccess) {
      host_ = static_cast<Summary*>(p);
    } else {
      (void)cudaGetLastError();
    }
  }
  ~MappedSummary() {
    if (host_ != nullptr) (void)cudaFreeHost(host_);
  }
  MappedSummary(MappedSummary const&) = delete;
  MappedSummary& operator=(MappedSummary const&) = delete;
  Summary* get() const { return host_; }

 private:
  Summary* host_ = nullptr;
};

}  // namespace

std::string read_summary(void const* workspace, DeviceLayout const& d, Summary* out, void* stream) {
  auto const* const summary = reinterpret_cast<Summary const*>(static_cast<unsigned char const*>(workspace) + d.summary);
  auto const s = static_cast<cudaStream_t>(stream);
  thread_local MappedSummary const mapped;
  if (mapped.get() == nullptr) {  // no pinned page: through a copy engine
    if (auto e = cuda_error_text(cudaMemcpyAsync(out, summary, sizeof(Summary), cudaMemcpyDeviceToHost, s),
                                 "ozaki2 summary copy");
        !e.empty()) {
      return e;
    }
    return cuda_error_text(cudaStreamSynchronize(s), "ozaki2 summary");
  }
  copy_summary_kernel<<<1, 1, 0, s>>>(summary, mapped.get());
  if (auto e = launch_error("ozaki2 summary"); !e.empty()) return e;
  if (auto e = cuda_error_text(cudaStreamSynchronize(s), "ozaki2 summary"); !e.empty()) return e;
  std::memcpy(out, mapped.get(), sizeof(Summary));
  return {};
}

namespace {

/// A Summary's maxima are kept as the bit patterns of non-negative doubles (atomicMax on integers).
double from_bits(unsigned long long bits) {
  double value = 0;
  std::memcpy(&value, &bits, sizeof value);
  return value;
}

}  // namespace

double spread_of(Summary const& summary) {
  double spread = 1;
  for (unsigned long long bits : summary.spread_bits) spread = std::max(spread, from_bits(bits));
  return spread;
}

double product_bound_of(Summary const& summary) { return from_bits(summary.product_bound_bits); }

double sum_bound_of(Summary const& summary) { return from_bits(summary.sum_bound_bits); }

namespace {

/// residues_kernel<kMagnitudes> over lines first .. first + count - 1 of one operand.
template <bool kMagnitudes>
void launch_residues(GemmProblem const& p, Plan const& plan, Operand which, double const* X, std::int64_t first,
                     std::int64_t count, void* workspace, DeviceLayout const& d, cudaStream_t s) {
  auto* const base = static_cast<unsigned char*>(workspace);
  dim3 const grid(unsigned((d.k_padded + kDepth - 1) / kDepth), unsigned((count + kLines - 1) / kLines));
  // op(A)(i, h) is A[h + i*lda] when transposed (contiguous along k), else A[i + h*lda]; op(B)(h, j) is
  // B[h + j*ldb] unless transposed.
  bool const a = which == Operand::kA;
  bool const along_k = a ? is_transposed(p.trans_a) : !is_transposed(p.trans_b);
  std::int64_t const ld = a ? p.lda : p.ldb;
  residues_kernel<kMagnitudes><<<grid, kResidueThreads, 0, s>>>(
      X + (along_k ? first * ld : first), ld, along_k, count, p.k, d.k_padded,
      reinterpret_cast<double const*>(base + (a ? d.a_max : d.b_max)) + first,
      reinterpret_cast<double const*>(base + (a ? d.a_sum : d.b_sum)) + first, reinterpret_cast<std::int8_t*>(base + (a ? d.a_residues : d.b_residues)), a ? d.a_plane : d.b_plane,
      residue_constants(plan));
}

}  // namespace

std::string make_residues(GemmProblem const& p, Plan const& plan, Operand which, double const* X, std::int64_t first,
                          std::int64_t count, void* workspace, DeviceLayout const& d, void* stream) {
  launch_residues<false>(p, plan, which, X, first, count, workspace, d, static_cast<cudaStream_t>(stream));
  return launch_error("ozaki2 residues");
}

std::string make_magnitudes(GemmProblem const& p, Operand which, double const* X, std::int64_t first,
                            std::int64_t count, void* workspace, DeviceLayout const& d, void* stream) {
  launch_residues<true>(p, Plan{1, 7, 0}, which, X, first, count, workspace, d, static_cast<cudaStream_t>(stream));
  return launch_error("ozaki2 magnitudes");
}

std::string bound_elements(GemmProblem const& p, Block const& block, void* workspace, DeviceLayout const& d,
                           void* stream) {
  auto* const base = static_cast<unsigned char*>(workspace);
  std::int64_t const columns = block.columns;
  auto const* const b_max = reinterpret_cast<double const*>(base + d.b_max) + block.first_column;
  auto const* const b_sum = reinterpret_cast<double const*>(base + d.b_sum) + block.first_column;
  auto* const factors = reinterpret_cast<double*>(base + d.b_factors);
  auto const s = static_cast<cudaStream_t>(stream);
  std::int64_t const k = std::max<std::int64_t>(p.k, 1);
  column_factors_kernel<<<unsigned((columns + 255) / 256), 256, 0, s>>>(b_max, b_sum, columns, k, factors);
  dim3 const grid(unsigned((block.rows + kBoundThreads - 1) / kBoundThreads),
                  unsigned(std::min<std::int64_t>(columns, 128)));
  bound_kernel<<<grid, kBoundThreads, 0, s>>>(
      reinterpret_cast<std::int32_t const*>(base + d.products), d.ldc, block.rows, columns,
      reinterpret_cast<double const*>(base + d.a_max) + block.first_row,
      reinterpret_cast<double const*>(base + d.a_sum) + block.first_row, factors, k,
      reinterpret_cast<Summary*>(base + d.summary));
  return launch_error("ozaki2 bounds");
}

std::string reconstruct(GemmProblem const& p, Plan const& plan, double alpha, double beta, double* C,
                        Block const& block, void* workspace, DeviceLayout const& d, void* stream) {
  auto* const base = static_cast<unsigned char*>(workspace);
  constexpr int kThreads = 128;
  dim3 const grid(unsigned((block.rows + kThreads - 1) / kThreads), unsigned(std::min<std::int64_t>(block.columns, 65535)));
  static constexpr auto kernels = reconstruct_kernels(std::make_index_sequence<kMaxModuli>{});
  kernels[std::size_t(plan.moduli - 1)]<<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      reinterpret_cast<std::int32_t const*>(base + d.products), d.ldc, d.product_plane, block.rows, block.columns,
      reinterpret_cast<double const*>(base + d.a_max) + block.first_row,
      reinterpret_cast<double const*>(base + d.b_max) + block.first_column, plan.bits, alpha, beta,
      C + block.first_row + block.first_column * p.ldc, p.ldc, crt_constants(plan));
  return launch_error("ozaki2 reconstruction");
}

}  // namespace gemmkit::ozaki2
