/*! \file
    \brief The implementations `batched --cpu` measures: gemmkit (one strided-batched call) and its peers
           (LIBXSMM, OpenBLAS, BLIS, Eigen, a plain loop), each run over a range of one strided batch.
           The GPU form (batched_gpu.cpp) reuses the interface and gemmkit's strided call on the GPU.

    A peer is a registered variant forced by id and called the same way as gemmkit; inside, it runs
    one problem per call in `#pragma omp parallel for schedule(static)` over the range, on the thread
    count set with omp_set_num_threads. Every peer is optional: one this build did not register
    gives a reason instead of an implementation.
*/
#pragma once

#include "bench_problem.hpp"

#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace gemmkit::bench {

/// One strided batch as the suite allocates it: column-major, packed (lda = m, ldb = k, ldc = m,
/// strides m*k, k*n, m*n), no transposes.
struct BatchedOperands {
  Dtype dtype = Dtype::kF64;
  std::int64_t m = 0, n = 0, k = 0;
  std::int64_t batch = 0;
  double alpha = 1.0;
  double beta = 1.0;
  void const* A = nullptr;
  void const* B = nullptr;
  void* C = nullptr;
  std::string variant;  ///< gemmkit's variant, forced (--variants); "" = the selection table's

  std::int64_t stride_a() const { return m * k; }
  std::int64_t stride_b() const { return k * n; }
  std::int64_t stride_c() const { return m * n; }
  /// One problem as a GemmProblem (batch 1), for the reference check.
  GemmProblem problem() const;
  template <typename T>
  T const* a(std::int64_t i) const { return static_cast<T const*>(A) + i * stride_a(); }
  template <typename T>
  T const* b(std::int64_t i) const { return static_cast<T const*>(B) + i * stride_b(); }
  template <typename T>
  T* c(std::int64_t i) const { return static_cast<T*>(C) + i * stride_c(); }
};

class BatchedImpl {
 public:
  virtual ~BatchedImpl() = default;
  /// Short name, also the prefix of its JSON keys: "gemmkit", "libxsmm", "openblas", ...
  virtual std::string name() const = 0;
  /// Gets ready for these operands (kernel dispatch, size table look-up); "" or why it cannot run them.
  /// The default keeps them for run().
  virtual std::string prepare(BatchedOperands const& ops) {
    ops_ = ops;
    return {};
  }
  /// Runs problems [first, first + count) of the prepared batch; "" or an error.
  virtual std::string run(std::int64_t first, std::int64_t count) = 0;
  /// What ran: gemmkit's variant id, "fixed 8x8x8" for Eigen, the library's kernel.
  virtual std::string variant() const = 0;

 protected:
  BatchedOperands ops_;  ///< the operands of the last prepare()
};

/// Calls body.template operator()<T>() with T the operands' element type.
template <typename Body>
auto with_dtype(Dtype dtype, Body&& body) {
  if (dtype == Dtype::kF64) return body.template operator()<double>();
  return body.template operator()<float>();
}

/// gemmkit through its public C API: gk_?gemm_strided_batched on host pointers, CPU backend.
std::unique_ptr<BatchedImpl> make_gemmkit_batched(int verbosity, std::string* why);

/// A contender that is a registered variant forced by id (a peer), by the operands' dtype.
struct ForcedIds {
  std::string name;  ///< the contender's name; "" = gemmkit itself
  std::string f64, f32;
};

/// The same call on device pointers: GPU backend, on `stream` (a cudaStream_t) of `device`; with
/// `forced`, the peer those ids name (cuBLAS strided: cublas_?gemm).
std::unique_ptr<BatchedImpl> make_gemmkit_batched_gpu(int verbosity, void* stream, int device, std::string* why,
                                                      ForcedIds const& forced = {});

/// A peer by name, or nullptr with the reason it is not available in this build or on this machine.
struct PeerFactory {
  char const* name;
  char const* what;  ///< for --help and the banner
  std::function<std::unique_ptr<BatchedImpl>(std::string* why)> make;
};

/// Every peer `batched --cpu` knows, in the order of the table's columns: each runs its registered
/// variant batched_peer_id(name, dtype) through gk_?gemm_strided_batched.
std::vector<PeerFactory> const& batched_peer_factories();

/// "peer_<name>_dgemm_batched" or "..._sgemm_batched": the registry id of a `batched --cpu` peer.
std::string batched_peer_id(std::string const& name, Dtype dtype);

/// The compiler flags batched_native.cpp was built with ("-O3 -march=native").
char const* native_peer_flags();

/// The bound's kernel (batched_native.cpp, native flags): reads a[0, la) and b[0, lb), and reads and writes c[0, lc) in
/// place (writes only without read_c): a triad over the common length, then the rest of each array
/// alone. Returns a sum that keeps the reads alive.
template <typename T>
double stream_range(T const* a, std::int64_t la, T const* b, std::int64_t lb, T* c, std::int64_t lc, bool read_c);
extern template double stream_range<double>(double const*, std::int64_t, double const*, std::int64_t, double*,
                                            std::int64_t, bool);
extern template double stream_range<float>(float const*, std::int64_t, float const*, std::int64_t, float*,
                                           std::int64_t, bool);

/// Settles the peers' own threading before they are called inside parallel loops (OpenBLAS and
/// BLIS single-threaded); restore() puts OpenBLAS back the way it was.
class PeerThreading {
 public:
  PeerThreading();
  ~PeerThreading();
  PeerThreading(PeerThreading const&) = delete;
  PeerThreading& operator=(PeerThreading const&) = delete;

 private:
  int openblas_threads_ = 0;
};

/// Library facts for the banner and the JSON rows: OpenBLAS core, LIBXSMM target, BLIS library path.
std::string peer_library_notes();

}  // namespace gemmkit::bench
