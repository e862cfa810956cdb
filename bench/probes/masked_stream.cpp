/*! \file
    \brief Probe (not part of the build): how fast one core streams through memory with partly
    masked AVX-512 loads and stores, against unmasked ones, at a column length of 5 doubles (the
    small kernels' masked tail) and at cache-line-aligned addresses. Found on AMD Zen 5 (family
    1Ah): a partly masked load or store whose range crosses a cache line and misses the cache runs
    at about half the rate; aligned, or with the line prefetched into L1, it does not.
        g++ -O2 -march=native -std=c++20 bench/probes/masked_stream.cpp -o masked_stream && ./masked_stream
*/
#include <immintrin.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>

int main() {
  std::size_t const n = (768ull << 20) / sizeof(double);  // 768 MiB per array: far past the caches
  auto* a = static_cast<double*>(std::aligned_alloc(64, n * sizeof(double) + 4096));
  auto* c = static_cast<double*>(std::aligned_alloc(64, n * sizeof(double) + 4096));
  for (std::size_t i = 0; i < n + 512; ++i) a[i] = c[i] = 1.0 + double(i & 7);
  auto time = [&](char const* name, auto body) {
    double best = 1e30;
    for (int rep = 0; rep < 3; ++rep) {
      auto const start = std::chrono::steady_clock::now();
      body();
      best = std::min(best, std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
    }
    std::printf("%-56s %6.1f GB/s\n", name, double(n * sizeof(double)) / best * 1e-9);
  };
  __m512d acc0 = _mm512_setzero_pd(), acc1 = acc0, acc2 = acc0, acc3 = acc0;
  __m512d const two = _mm512_set1_pd(2.0);
  std::size_t const lines = n / 8 - 1, columns = n / 5 - 32;
  time("read, line-aligned, unmasked zmm", [&] {
    for (std::size_t j = 0; j < lines; j += 2) {
      acc0 = _mm512_add_pd(acc0, _mm512_load_pd(a + 8 * j));
      acc1 = _mm512_add_pd(acc1, _mm512_load_pd(a + 8 * j + 8));
    }
  });
  time("read, line-aligned, zmm masked to 5 lanes", [&] {
    for (std::size_t j = 0; j < lines; j += 2) {
      acc0 = _mm512_add_pd(acc0, _mm512_maskz_load_pd(0x1F, a + 8 * j));
      acc1 = _mm512_add_pd(acc1, _mm512_maskz_load_pd(0x1F, a + 8 * j + 8));
    }
  });
  time("read, columns of 5, unmasked zmm", [&] {
    for (std::size_t j = 0; j < columns; j += 4) {
      acc0 = _mm512_add_pd(acc0, _mm512_loadu_pd(a + 5 * j));
      acc1 = _mm512_add_pd(acc1, _mm512_loadu_pd(a + 5 * j + 5));
      acc2 = _mm512_add_pd(acc2, _mm512_loadu_pd(a + 5 * j + 10));
      acc3 = _mm512_add_pd(acc3, _mm512_loadu_pd(a + 5 * j + 15));
    }
  });
  time("read, columns of 5, zmm masked to 5 lanes", [&] {
    for (std::size_t j = 0; j < columns; j += 4) {
      acc0 = _mm512_add_pd(acc0, _mm512_maskz_loadu_pd(0x1F, a + 5 * j));
      acc1 = _mm512_add_pd(acc1, _mm512_maskz_loadu_pd(0x1F, a + 5 * j + 5));
      acc2 = _mm512_add_pd(acc2, _mm512_maskz_loadu_pd(0x1F, a + 5 * j + 10));
      acc3 = _mm512_add_pd(acc3, _mm512_maskz_loadu_pd(0x1F, a + 5 * j + 15));
    }
  });
  time("read, columns of 5, masked, prefetcht0 1 KiB ahead", [&] {
    for (std::size_t j = 0; j < columns; j += 4) {
      for (int line = 0; line < 3; ++line) _mm_prefetch(reinterpret_cast<char const*>(a + 5 * j + 128 + 8 * line), _MM_HINT_T0);
      acc0 = _mm512_add_pd(acc0, _mm512_maskz_loadu_pd(0x1F, a + 5 * j));
      acc1 = _mm512_add_pd(acc1, _mm512_maskz_loadu_pd(0x1F, a + 5 * j + 5));
      acc2 = _mm512_add_pd(acc2, _mm512_maskz_loadu_pd(0x1F, a + 5 * j + 10));
      acc3 = _mm512_add_pd(acc3, _mm512_maskz_loadu_pd(0x1F, a + 5 * j + 15));
    }
  });
  time("read, columns of 5, ymm + xmm masked to 1 lane", [&] {
    for (std::size_t j = 0; j < columns; j += 2) {
      acc0 = _mm512_add_pd(acc0, _mm512_castpd256_pd512(_mm256_loadu_pd(a + 5 * j)));
      acc1 = _mm512_add_pd(acc1, _mm512_castpd128_pd512(_mm_maskz_loadu_pd(1, a + 5 * j + 4)));
      acc2 = _mm512_add_pd(acc2, _mm512_castpd256_pd512(_mm256_loadu_pd(a + 5 * j + 5)));
      acc3 = _mm512_add_pd(acc3, _mm512_castpd128_pd512(_mm_maskz_loadu_pd(1, a + 5 * j + 9)));
    }
  });
  time("read, columns of 5, ymm masked to 3 lanes", [&] {
    for (std::size_t j = 0; j < columns; j += 2) {
      acc0 = _mm512_add_pd(acc0, _mm512_castpd256_pd512(_mm256_maskz_loadu_pd(0x7, a + 5 * j)));
      acc2 = _mm512_add_pd(acc2, _mm512_castpd256_pd512(_mm256_maskz_loadu_pd(0x7, a + 5 * j + 5)));
    }
  });
  time("write, line-aligned, unmasked zmm", [&] {
    for (std::size_t j = 0; j < lines; ++j) _mm512_store_pd(c + 8 * j, two);
  });
  time("write, line-aligned, zmm masked to 5 lanes", [&] {
    for (std::size_t j = 0; j < lines; ++j) _mm512_mask_store_pd(c + 8 * j, 0x1F, two);
  });
  time("write, columns of 5, zmm masked to 5 lanes", [&] {
    for (std::size_t j = 0; j < columns; ++j) _mm512_mask_storeu_pd(c + 5 * j, 0x1F, two);
  });
  time("write, columns of 5, ymm + one double (unmasked)", [&] {
    for (std::size_t j = 0; j < columns; ++j) {
      _mm256_storeu_pd(c + 5 * j, _mm512_castpd512_pd256(two));
      _mm_store_sd(c + 5 * j + 4, _mm512_castpd512_pd128(two));
    }
  });
  double lanes[8];
  _mm512_storeu_pd(lanes, _mm512_add_pd(_mm512_add_pd(acc0, acc1), _mm512_add_pd(acc2, acc3)));
  std::printf("(sums, so nothing is optimized away: %g %g)\n", lanes[0], c[12345]);
  std::free(a);
  std::free(c);
}
