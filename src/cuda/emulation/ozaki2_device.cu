/*! \file
    \brief The Ozaki scheme II's GPU kernels: operand maxima, scaled int8 residues (a shared-memory
    tile turns the strided operand around so reads and writes are both coalesced), and the
    reconstruction of each element from its int32 products.
*/
#include "cuda/emulation/ozaki2_device.hpp"

#include "base/cuda_check.hpp"

#include <cuda_runtime.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <utility>

namespace gemmkit::ozaki2 {

namespace {

/// The moduli and the mixed-radix tables, passed by value to the kernels (under 2 KB). With P_d the
/// product of the first d moduli, the digit v_i of x = sum_d v_d P_d is
/// (x mod p_i - sum_{d<i} v_d (P_d mod p_i)) P_i^-1 mod p_i: two reductions per digit.
struct Constants {
  int count;
  int bits;
  int p[kMaxModuli];
  double inverse_p[kMaxModuli];
  int radix_mod[kMaxModuli][kMaxModuli];  ///< radix_mod[d][i] = P_d mod p_i for d < i
  int radix_inverse[kMaxModuli];          ///< P_i^-1 mod p_i
};

int inverse_mod(int a, int p) {
  int t = 0, next_t = 1, r = p, next_r = a % p;
  while (next_r != 0) {
    int const q = r / next_r;
    int const t2 = t - q * next_t;
    t = next_t, next_t = t2;
    int const r2 = r - q * next_r;
    r = next_r, next_r = r2;
  }
  return t < 0 ? t + p : t;
}

Constants constants_for(Plan const& plan) {
  Constants c{};
  c.count = plan.moduli;
  c.bits = plan.bits;
  auto const& p = moduli();
  for (int i = 0; i < kMaxModuli; ++i) {
    int const pi = p[std::size_t(i)];
    c.p[i] = pi;
    c.inverse_p[i] = 1.0 / pi;
    int radix = 1;  // P_d mod p_i
    for (int d = 0; d < i; ++d) {
      c.radix_mod[d][i] = radix;
      radix = radix * (p[std::size_t(d)] % pi) % pi;
    }
    c.radix_inverse[i] = inverse_mod(radix, pi);
  }
  return c;
}

__device__ inline int shift_for(double largest, int bits) { return largest == 0 ? 0 : bits - ilogb(largest) - 1; }

/// Max |x| along the strided index of a column-major rows x cols matrix: one thread per row.
__global__ void max_along_rows(double const* __restrict__ x, std::int64_t ld, std::int64_t rows, std::int64_t cols,
                               double* __restrict__ out, int* __restrict__ flag) {
  std::int64_t const r = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (r >= rows) return;
  double largest = 0;
  bool finite = true;
  for (std::int64_t c = 0; c < cols; ++c) {
    double const v = fabs(x[r + c * ld]);
    finite = finite && isfinite(v);
    largest = fmax(largest, v);
  }
  out[r] = largest;
  if (!finite) atomicOr(flag, 1);
}

/// Max |x| down each column (the contiguous index): one warp per column.
__global__ void max_down_columns(double const* __restrict__ x, std::int64_t ld, std::int64_t rows, std::int64_t cols,
                                 double* __restrict__ out, int* __restrict__ flag) {
  std::int64_t const c = (std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  int const lane = threadIdx.x % 32;
  if (c >= cols) return;
  double largest = 0;
  bool finite = true;
  for (std::int64_t r = lane; r < rows; r += 32) {
    double const v = fabs(x[r + c * ld]);
    finite = finite && isfinite(v);
    largest = fmax(largest, v);
  }
  for (int offset = 16; offset > 0; offset /= 2)
    largest = fmax(largest, __shfl_down_sync(0xffffffffu, largest, offset));
  finite = __all_sync(0xffffffffu, finite);
  if (lane == 0) {
    out[c] = largest;
    if (!finite) atomicOr(flag, 1);
  }
}

constexpr int kTile = 32;
constexpr int kTileRows = 8;

/// Residues of one operand seen as `lines` x k (a line is a row of op(A) or a column of op(B)): element (line, h) is
/// x[h + line*ld] when along_k_contiguous, else x[line + h*ld]. Writes out[l*plane + line*k_padded + h] for every
/// modulus l, zeros for k <= h < k_padded.
__global__ void residues_kernel(double const* __restrict__ x, std::int64_t ld, bool along_k_contiguous,
                                std::int64_t lines, std::int64_t k, std::int64_t k_padded,
                                double const* __restrict__ line_max, std::int8_t* __restrict__ out, std::size_t plane,
                                Constants c) {
  __shared__ double tile[kTile][kTile + 1];  // [line][h]
  std::int64_t const h0 = std::int64_t(blockIdx.x) * kTile, line0 = std::int64_t(blockIdx.y) * kTile;
  for (int y = threadIdx.y; y < kTile; y += kTileRows) {
    // Read along whatever index is contiguous in memory: threadIdx.x walks it.
    std::int64_t const line = along_k_contiguous ? line0 + y : line0 + threadIdx.x;
    std::int64_t const h = along_k_contiguous ? h0 + threadIdx.x : h0 + y;
    double v = 0;
    if (line < lines && h < k) v = along_k_contiguous ? x[h + line * ld] : x[line + h * ld];
    if (along_k_contiguous)
      tile[y][threadIdx.x] = v;
    else
      tile[threadIdx.x][y] = v;
  }
  __syncthreads();
  for (int y = threadIdx.y; y < kTile; y += kTileRows) {
    std::int64_t const line = line0 + y, h = h0 + threadIdx.x;
    if (line >= lines || h >= k_padded) continue;
    // An integer of at most `bits` <= 53 bits: exact in a double, and so are its residues below.
    double const scaled = rint(ldexp(tile[y][threadIdx.x], shift_for(line_max[line], c.bits)));
    std::int8_t* const at = out + line * k_padded + h;
    for (int l = 0; l < c.count; ++l) {
      int const p = c.p[l];
      double const q = rint(scaled * c.inverse_p[l]);  // within one of the nearest quotient
      int r = int(fma(-q, double(p), scaled));         // exact: a small integer
      if (r > (p - 1) / 2) r -= p;
      if (r < -(p / 2)) r += p;
      at[std::size_t(l) * plane] = std::int8_t(r);
    }
  }
}

/// x mod p in [0, p) for |x| < 2^31, by the double reciprocal: its quotient is off by at most one.
__device__ inline int reduce(int x, int p, double inverse_p) {
  int r = x - int(floor(double(x) * inverse_p)) * p;
  if (r < 0) r += p;
  if (r >= p) r -= p;
  return r;
}

/// One element per thread: residues of its int32 products, the symmetric mixed-radix digits, their
/// value in double-double, 2^-(s_i + t_j), and the BLAS epilogue. N moduli, unrolled: the digits stay in
/// registers.
template <int N>
__global__ void reconstruct_kernel(std::int32_t const* __restrict__ products, std::int64_t ldp, std::size_t plane,
                                   std::int64_t m, std::int64_t n, double const* __restrict__ a_max,
                                   double const* __restrict__ b_max, double alpha, double beta, double* __restrict__ C,
                                   std::int64_t ldc, Constants c) {
  std::int64_t const i = std::int64_t(blockIdx.x) * blockDim.x + threadIdx.x;
  if (i >= m) return;
  int const a_shift = shift_for(a_max[i], c.bits);
  for (std::int64_t j = blockIdx.y; j < n; j += gridDim.y) {
    int digits[N];
#pragma unroll
    for (int l = 0; l < N; ++l) {
      int const p = c.p[l];
      // |sum| <= 2^8 + 20 * 2^7 * 2^8: no overflow before the reduction.
      int sum = reduce(products[std::size_t(l) * plane + i + j * ldp], p, c.inverse_p[l]);
#pragma unroll
      for (int d = 0; d < l; ++d) sum -= digits[d] * c.radix_mod[d][l];
      int const t = reduce(reduce(sum, p, c.inverse_p[l]) * c.radix_inverse[l], p, c.inverse_p[l]);
      digits[l] = t > (p - 1) / 2 ? t - p : t;
    }
    double hi = digits[N - 1], lo = 0;
#pragma unroll
    for (int l = N - 2; l >= 0; --l) {
      double const p = c.p[l];
      double const scaled_hi = p * hi;
      double const scaled_lo = fma(p, hi, -scaled_hi) + p * lo;
      double const sum = scaled_hi + digits[l];
      double const sum_error = (scaled_hi - (sum - (sum - scaled_hi))) + (digits[l] - (sum - scaled_hi));
      hi = sum + (sum_error + scaled_lo);
      lo = (sum_error + scaled_lo) - (hi - sum);
    }
    double const product = ldexp(hi + lo, -(a_shift + shift_for(b_max[j], c.bits)));
    double& out = C[i + j * ldc];
    out = beta == 0 ? alpha * product : alpha * product + beta * out;
  }
}

using ReconstructKernel = void (*)(std::int32_t const*, std::int64_t, std::size_t, std::int64_t, std::int64_t,
                                   double const*, double const*, double, double, double*, std::int64_t, Constants);

/// reconstruct_kernel<N> for N = 1 .. kMaxModuli, indexed by N - 1.
template <std::size_t... I>
constexpr std::array<ReconstructKernel, sizeof...(I)> reconstruct_kernels(std::index_sequence<I...>) {
  return {&reconstruct_kernel<int(I) + 1>...};
}

std::string launch_error(char const* what) { return cuda_error_text(cudaGetLastError(), what); }

}  // namespace

DeviceLayout device_layout(GemmProblem const& p, Plan const& plan) {
  DeviceLayout d;
  auto const round_up = [](std::size_t x, std::size_t to) { return (x + to - 1) / to * to; };
  d.k_padded = std::int64_t(round_up(std::size_t(std::max<std::int64_t>(p.k, 1)), 16));
  d.ldc = std::int64_t(round_up(std::size_t(std::max<std::int64_t>(p.m, 1)), 4));
  std::size_t const count = std::size_t(plan.moduli);
  d.a_plane = std::size_t(p.m) * std::size_t(d.k_padded);
  d.b_plane = std::size_t(p.n) * std::size_t(d.k_padded);
  d.product_plane = std::size_t(d.ldc) * std::size_t(p.n);
  std::size_t at = 0;
  auto const take = [&](std::size_t bytes) {
    std::size_t const offset = at;
    at = round_up(at + bytes, 256);
    return offset;
  };
  d.a_max = take(std::size_t(p.m) * sizeof(double));
  d.b_max = take(std::size_t(p.n) * sizeof(double));
  d.flag = take(sizeof(int));
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
  auto* const flag = reinterpret_cast<int*>(base + d.flag);
  auto const s = static_cast<cudaStream_t>(stream);
  constexpr int kThreads = 256;
  auto const blocks = [](std::int64_t threads) { return unsigned((threads + kThreads - 1) / kThreads); };
  // Rows of op(A): rows of A, or its columns when transposed; columns of op(B) likewise.
  if (!is_transposed(p.trans_a)) {
    max_along_rows<<<blocks(p.m), kThreads, 0, s>>>(A, p.lda, p.m, p.k, a_max, flag);
  } else {
    max_down_columns<<<blocks(p.m * 32), kThreads, 0, s>>>(A, p.lda, p.k, p.m, a_max, flag);
  }
  if (!is_transposed(p.trans_b)) {
    max_down_columns<<<blocks(p.n * 32), kThreads, 0, s>>>(B, p.ldb, p.k, p.n, b_max, flag);
  } else {
    max_along_rows<<<blocks(p.n), kThreads, 0, s>>>(B, p.ldb, p.n, p.k, b_max, flag);
  }
  return launch_error("ozaki2 maxima");
}

std::string make_residues(GemmProblem const& p, Plan const& plan, double const* A, double const* B, void* workspace,
                          DeviceLayout const& d, void* stream) {
  auto* const base = static_cast<unsigned char*>(workspace);
  Constants const c = constants_for(plan);
  auto const s = static_cast<cudaStream_t>(stream);
  dim3 const threads(kTile, kTileRows);
  auto const grid = [&](std::int64_t lines) {
    return dim3(unsigned((d.k_padded + kTile - 1) / kTile), unsigned((lines + kTile - 1) / kTile));
  };
  // op(A)(i, h) is A[h + i*lda] when transposed (contiguous along k), else A[i + h*lda].
  residues_kernel<<<grid(p.m), threads, 0, s>>>(A, p.lda, is_transposed(p.trans_a), p.m, p.k, d.k_padded,
                                                reinterpret_cast<double const*>(base + d.a_max),
                                                reinterpret_cast<std::int8_t*>(base + d.a_residues), d.a_plane, c);
  // op(B)(h, j) is B[h + j*ldb] unless transposed.
  residues_kernel<<<grid(p.n), threads, 0, s>>>(B, p.ldb, !is_transposed(p.trans_b), p.n, p.k, d.k_padded,
                                                reinterpret_cast<double const*>(base + d.b_max),
                                                reinterpret_cast<std::int8_t*>(base + d.b_residues), d.b_plane, c);
  return launch_error("ozaki2 residues");
}

std::string reconstruct(GemmProblem const& p, Plan const& plan, double alpha, double beta, double* C, void* workspace,
                        DeviceLayout const& d, void* stream) {
  auto* const base = static_cast<unsigned char*>(workspace);
  constexpr int kThreads = 128;
  dim3 const grid(unsigned((p.m + kThreads - 1) / kThreads), unsigned(std::min<std::int64_t>(p.n, 65535)));
  static constexpr auto kernels = reconstruct_kernels(std::make_index_sequence<kMaxModuli>{});
  kernels[std::size_t(plan.moduli - 1)]<<<grid, kThreads, 0, static_cast<cudaStream_t>(stream)>>>(
      reinterpret_cast<std::int32_t const*>(base + d.products), d.ldc, d.product_plane, p.m, p.n,
      reinterpret_cast<double const*>(base + d.a_max), reinterpret_cast<double const*>(base + d.b_max), alpha, beta, C,
      p.ldc, constants_for(plan));
  return launch_error("ozaki2 reconstruction");
}

}  // namespace gemmkit::ozaki2
