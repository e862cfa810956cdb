/*! \file
    \brief Probe (not part of the build): can the aligned copies of odd-ld operands (the packed
    DGEMM forms, docs/dgemm.md "Odd leading dimensions copied aligned") hide behind a running GEMM?
    Times, for n x n doubles with ld n (odd) copied into ld rounded to 16 doubles: the copy of two
    operands by a kernel and by cudaMemcpy2DAsync (the copy engines), a cuBLAS DGEMM of the aligned
    size alone, and the GEMM with each copy on a second stream at once. Build and run on the device:
        nvcc -O3 -std=c++17 -gencode=arch=compute_90a,code=sm_90a bench/probes/pack_overlap.cu -lcublas \
          -o pack_overlap && ./pack_overlap 4097 8191
*/
#include <cublas_v2.h>
#include <cuda_runtime.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <vector>

namespace {

#define CHECK(x)                                                                         \
  do {                                                                                   \
    if (auto e_ = (x); e_ != 0) {                                                        \
      std::fprintf(stderr, "%s:%d: %s failed (%d)\n", __FILE__, __LINE__, #x, int(e_));  \
      std::exit(1);                                                                      \
    }                                                                                    \
  } while (0)

/// dst(:, j) = src(:, j) for an n x n matrix, one column strip per block row: plain 8-byte loads
/// (src columns are only 8-byte aligned), 4 in flight per thread.
__global__ void copy_columns(double const* __restrict__ src, long ld_src, double* __restrict__ dst, long ld_dst,
                             long n) {
  for (long j = blockIdx.y; j < n; j += gridDim.y) {
    double v[4];
    long const i0 = (long(blockIdx.x) * blockDim.x + threadIdx.x);
    long const step = long(gridDim.x) * blockDim.x;
#pragma unroll
    for (int u = 0; u < 4; ++u) v[u] = i0 + u * step < n ? src[i0 + u * step + j * ld_src] : 0.0;
#pragma unroll
    for (int u = 0; u < 4; ++u)
      if (i0 + u * step < n) dst[i0 + u * step + j * ld_dst] = v[u];
  }
}

struct Timer {
  cudaEvent_t start, stop;
  Timer() { CHECK(cudaEventCreate(&start)); CHECK(cudaEventCreate(&stop)); }
  float ms() { float t = 0; CHECK(cudaEventSynchronize(stop)); CHECK(cudaEventElapsedTime(&t, start, stop)); return t; }
};

float median(std::vector<float> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  std::vector<long> sizes;
  for (int i = 1; i < argc; ++i) sizes.push_back(std::atol(argv[i]));
  if (sizes.empty()) sizes = {4097, 8191};
  cublasHandle_t handle;
  CHECK(cublasCreate(&handle));
  cudaStream_t main_stream, side;
  CHECK(cudaStreamCreateWithFlags(&main_stream, cudaStreamNonBlocking));
  CHECK(cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking));
  CHECK(cublasSetStream(handle, main_stream));
  std::printf("n,form,median_ms,min_ms,copy_gbs\n");
  for (long n : sizes) {
    long const ld_packed = (n + 15) / 16 * 16;
    long const aligned = ld_packed;  // the GEMM runs on aligned operands of this size
    std::size_t const src_elems = std::size_t(n) * n, dst_elems = std::size_t(ld_packed) * n;
    double *a, *b, *pa, *pb, *ga, *gb, *gc;
    CHECK(cudaMalloc(&a, src_elems * 8));
    CHECK(cudaMalloc(&b, src_elems * 8));
    CHECK(cudaMalloc(&pa, dst_elems * 8));
    CHECK(cudaMalloc(&pb, dst_elems * 8));
    std::size_t const g_elems = std::size_t(aligned) * aligned;
    CHECK(cudaMalloc(&ga, g_elems * 8));
    CHECK(cudaMalloc(&gb, g_elems * 8));
    CHECK(cudaMalloc(&gc, g_elems * 8));
    CHECK(cudaMemset(a, 0, src_elems * 8));
    CHECK(cudaMemset(b, 0, src_elems * 8));
    CHECK(cudaMemset(ga, 0, g_elems * 8));
    CHECK(cudaMemset(gb, 0, g_elems * 8));
    double const copy_bytes = 2.0 * 2.0 * double(n) * double(n) * 8.0;  // two operands, read + write

    auto kernel_copy = [&](cudaStream_t s) {
      dim3 const grid(unsigned((n + 4 * 256 - 1) / (4 * 256)), 4096);
      copy_columns<<<grid, 256, 0, s>>>(a, n, pa, ld_packed, n);
      copy_columns<<<grid, 256, 0, s>>>(b, n, pb, ld_packed, n);
      CHECK(cudaGetLastError());
    };
    auto engine_copy = [&](cudaStream_t s) {
      CHECK(cudaMemcpy2DAsync(pa, ld_packed * 8, a, n * 8, n * 8, n, cudaMemcpyDeviceToDevice, s));
      CHECK(cudaMemcpy2DAsync(pb, ld_packed * 8, b, n * 8, n * 8, n, cudaMemcpyDeviceToDevice, s));
    };
    auto gemm = [&]() {
      double const one = 1.0, zero = 0.0;
      CHECK(cublasDgemm(handle, CUBLAS_OP_N, CUBLAS_OP_N, int(aligned), int(aligned), int(aligned), &one, ga,
                        int(aligned), gb, int(aligned), &zero, gc, int(aligned)));
    };
    Timer t_main;
    cudaEvent_t side_done;
    CHECK(cudaEventCreateWithFlags(&side_done, cudaEventDisableTiming));

    // form 0: kernel copy alone; 1: engine copy alone; 2: GEMM alone; 3: GEMM with the kernel copy
    // on the side stream; 4: GEMM with the engine copy on the side stream. Concurrent forms time
    // from the GEMM's start to the later of the two ends.
    char const* names[] = {"kernel_copy", "engine_copy", "gemm", "gemm+kernel_copy", "gemm+engine_copy"};
    for (int form = 0; form < 5; ++form) {
      std::vector<float> times;
      for (int rep = 0; rep < 13; ++rep) {
        CHECK(cudaDeviceSynchronize());
        CHECK(cudaEventRecord(t_main.start, main_stream));
        if (form == 0) kernel_copy(main_stream);
        if (form == 1) engine_copy(main_stream);
        if (form >= 2) gemm();
        if (form >= 3) {
          // The copy starts with the GEMM (both follow the start event); the GEMM is queued first.
          CHECK(cudaStreamWaitEvent(side, t_main.start, 0));
          if (form == 3) kernel_copy(side);
          if (form == 4) engine_copy(side);
          CHECK(cudaEventRecord(side_done, side));
          CHECK(cudaStreamWaitEvent(main_stream, side_done, 0));
        }
        CHECK(cudaEventRecord(t_main.stop, main_stream));
        float const ms = t_main.ms();
        if (rep >= 3) times.push_back(ms);
      }
      float const med = median(times), mn = *std::min_element(times.begin(), times.end());
      std::printf("%ld,%s,%.4f,%.4f,%.1f\n", n, names[form], med, mn, form < 2 ? copy_bytes / (med * 1e6) : 0.0);
      std::fflush(stdout);
    }
    for (double* p : {a, b, pa, pb, ga, gb, gc}) CHECK(cudaFree(p));
    CHECK(cudaEventDestroy(side_done));
  }
  CHECK(cublasDestroy(handle));
  return 0;
}
