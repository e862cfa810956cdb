/*! \file
    \brief The `gemmkit._gemmkit` extension: contexts and matmul of numpy arrays (host) and of raw device
    matrices over gemmkit's public C API. Shapes, strides and broadcasting become BLAS arguments here, in C++,
    so a call on small matrices costs about a microsecond above the C call; the GIL is released while gemmkit
    computes. Device arrays are described by the Python layer (DLPack, __cuda_array_interface__).
*/
#include <gemmkit/gemmkit.h>
#include <gemmkit/introspect.h>

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <new>
#include <optional>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

namespace py = pybind11;

namespace {

[[noreturn]] void raise_python(PyObject* type, std::string const& message) {
  PyErr_SetString(type, message.c_str());
  throw py::error_already_set();
}

/// gemmkit's error as a Python exception naming the failing argument: ValueError for a bad argument,
/// MemoryError, NotImplementedError for what no variant runs, RuntimeError otherwise.
[[noreturn]] void raise_status(gk_context ctx, gk_status status, char const* call) {
  std::string message = std::string(call) + ": " + gk_status_string(status);
  char const* detail = gk_last_error(ctx);
  if (detail != nullptr && *detail != '\0') message += ": " + std::string(detail);
  int const parameter = gk_error_parameter(ctx);
  if (parameter > 0) message += " (BLAS parameter " + std::to_string(parameter) + ")";
  switch (status) {
    case GK_INVALID_ARGUMENT: raise_python(PyExc_ValueError, message);
    case GK_ALLOCATION_FAILED: raise_python(PyExc_MemoryError, message);
    case GK_NOT_SUPPORTED: raise_python(PyExc_NotImplementedError, message);
    default: raise_python(PyExc_RuntimeError, message);
  }
}

void check(gk_context ctx, gk_status status, char const* call) {
  if (status != GK_SUCCESS) raise_status(ctx, status, call);
}

/// A gemmkit context owned by a Python object.
class Context {
 public:
  Context() { check(nullptr, gk_create(&ctx_), "gk_create"); }
  ~Context() { gk_destroy(ctx_); }
  Context(Context const&) = delete;
  Context& operator=(Context const&) = delete;

  gk_context get() const { return ctx_; }
  std::uintptr_t handle() const { return reinterpret_cast<std::uintptr_t>(ctx_); }

  void set_device(int device) { check(ctx_, gk_set_device(ctx_, device), "set_device"); }
  int device() const {
    int device = 0;
    check(ctx_, gk_get_device(ctx_, &device), "get_device");
    return device;
  }
  void set_memory_budget(std::size_t bytes) {
    check(ctx_, gk_set_device_memory_budget(ctx_, bytes), "set_memory_budget");
  }
  std::size_t memory_budget() const {
    std::size_t bytes = 0;
    check(ctx_, gk_get_device_memory_budget(ctx_, &bytes), "get_memory_budget");
    return bytes;
  }
  void set_backend(int backend) { check(ctx_, gk_set_backend(ctx_, gk_backend(backend)), "set_backend"); }
  void set_fp64_emulation(int mode) {
    check(ctx_, gk_set_fp64_emulation(ctx_, gk_fp64_emulation(mode)), "set_fp64_emulation");
  }
  int fp64_emulation() const {
    gk_fp64_emulation mode{};
    check(ctx_, gk_get_fp64_emulation(ctx_, &mode), "get_fp64_emulation");
    return int(mode);
  }
  void set_fp64_emulation_scaling(int scaling) {
    check(ctx_, gk_set_fp64_emulation_scaling(ctx_, gk_fp64_emulation_scaling(scaling)), "set_fp64_emulation_scaling");
  }
  void set_verbosity(int level) { check(ctx_, gk_set_verbosity(ctx_, level), "set_verbosity"); }
  void set_stream(std::uintptr_t stream) {
    check(ctx_, gk_set_stream(ctx_, reinterpret_cast<void*>(stream)), "set_stream");
  }
  std::uintptr_t stream() const {
    void* stream = nullptr;
    check(ctx_, gk_get_stream(ctx_, &stream), "get_stream");
    return reinterpret_cast<std::uintptr_t>(stream);
  }
  void set_variant(std::string const& id) { check(ctx_, gk_set_variant(ctx_, id.c_str()), "set_variant"); }
  std::string last_variant() const { return gk_last_variant(ctx_); }
  std::string last_report() const { return gk_last_call_report(ctx_); }

 private:
  gk_context ctx_ = nullptr;
};

/// One operand as BLAS sees it: column-major `rows` x `cols` at `data` with leading dimension `ld`, transposed
/// when its memory holds it row-major, and `batch_stride` elements between the matrices of a stack.
struct BlasMatrix {
  char* data = nullptr;
  std::int64_t ld = 1;
  bool transposed = false;
  std::int64_t batch_stride = 0;
};

/// The form BLAS can take a rows x cols matrix in from its element strides, or false: column-major
/// (unit row stride) first, then row-major (unit column stride, seen as a transposed column-major matrix).
/// Dimensions of extent 1 take any stride; an empty matrix, any form.
bool blas_form(std::int64_t rows, std::int64_t cols, std::int64_t row_stride, std::int64_t col_stride,
               std::int64_t* ld, bool* transposed) {
  if (rows == 0 || cols == 0) {  // nothing is read: any leading dimension BLAS accepts
    *ld = std::max<std::int64_t>(1, rows);
    *transposed = false;
    return true;
  }
  if ((row_stride == 1 || rows <= 1) && (cols <= 1 || col_stride >= std::max<std::int64_t>(1, rows))) {
    *ld = cols <= 1 ? std::max<std::int64_t>(1, rows) : col_stride;
    *transposed = false;
    return true;
  }
  if ((col_stride == 1 || cols <= 1) && (rows <= 1 || row_stride >= std::max<std::int64_t>(1, cols))) {
    *ld = rows <= 1 ? std::max<std::int64_t>(1, cols) : row_stride;
    *transposed = true;
    return true;
  }
  return false;
}

/// The last two dimensions' element strides of an array (0 where the byte stride is not a whole number of
/// elements or negative: not expressible).
std::pair<std::int64_t, std::int64_t> element_strides(py::array const& x) {
  auto const item = x.itemsize();
  py::ssize_t const nd = x.ndim();
  auto const stride = [&](py::ssize_t axis) -> std::int64_t {
    py::ssize_t const s = x.strides(axis);
    return s >= 0 && s % item == 0 ? std::int64_t(s / item) : -1;
  };
  return {stride(nd - 2), stride(nd - 1)};
}

/// The memory an array's elements span, for the overlap test between out and the inputs.
std::pair<char const*, char const*> extent(py::array const& x) {
  char const* low = static_cast<char const*>(x.data());
  char const* high = low;
  for (py::ssize_t axis = 0; axis < x.ndim(); ++axis) {
    if (x.shape(axis) == 0) return {low, low};
    py::ssize_t const reach = (x.shape(axis) - 1) * x.strides(axis);
    if (reach < 0) low += reach; else high += reach;
  }
  return {low, high + x.itemsize()};
}

bool overlaps(py::array const& x, py::array const& y) {
  auto const [a0, a1] = extent(x);
  auto const [b0, b1] = extent(y);
  return a0 < b1 && b0 < a1;
}

void note(int verbosity, std::string const& text) {
  if (verbosity >= 2) std::fprintf(stderr, "gemmkit: matmul: %s\n", text.c_str());
}

/// x as a BLAS operand (its last two dimensions rows x cols); a copy (C order) where its strides are not
/// expressible or it overlaps `out`; what it reads is held in `keep`.
BlasMatrix operand(py::array x, char const* name, py::array const* out, int verbosity, py::array* keep) {
  py::ssize_t const nd = x.ndim();
  std::int64_t const rows = x.shape(nd - 2), cols = x.shape(nd - 1);
  auto [rs, cs] = element_strides(x);
  std::int64_t batch_stride = 0;
  bool batch_ok = true;
  if (nd == 3 && x.shape(0) > 1) {
    py::ssize_t const s = x.strides(0);
    batch_ok = s >= 0 && s % x.itemsize() == 0;
    batch_stride = batch_ok ? std::int64_t(s / x.itemsize()) : 0;
  }
  BlasMatrix m;
  bool const aliased = out != nullptr && overlaps(x, *out);
  if (!batch_ok || aliased || rs < 0 || cs < 0 || !blas_form(rows, cols, rs, cs, &m.ld, &m.transposed)) {
    note(verbosity, std::string("copied ") + name + (aliased ? " (it overlaps out)" : " (strides BLAS cannot express)"));
    x = py::module_::import("numpy").attr("array")(x, py::arg("copy") = true, py::arg("order") = "C");
    std::tie(rs, cs) = element_strides(x);
    batch_stride = nd == 3 && x.shape(0) > 1 ? std::int64_t(x.strides(0) / x.itemsize()) : 0;
    blas_form(rows, cols, rs, cs, &m.ld, &m.transposed);
  }
  m.data = const_cast<char*>(static_cast<char const*>(x.data()));  // read only: inputs may be read-only views
  m.batch_stride = batch_stride;
  *keep = std::move(x);
  return m;
}

py::ssize_t batch_of(py::array const& x) { return x.ndim() == 3 ? x.shape(0) : 1; }

/// 'd' for native float64, 'f' for native float32, else 0 (reads the descriptor: no dtype objects made).
char real_kind(py::array const& x) {
  py::dtype const d = x.dtype();
  if (d.kind() != 'f' || d.byteorder() == '>') return 0;
  return d.itemsize() == 8 ? 'd' : d.itemsize() == 4 ? 'f' : 0;
}

/// Below this much work (m n k over the batch) the GIL is kept: releasing it costs more than the product.
constexpr double kReleaseGilWork = 32.0 * 32.0 * 32.0;

/// C = alpha op(A) op(B) + beta C in gemmkit's column-major terms: op(X) is the user's transpose, flipped where X
/// is stored row-major, and a row-major C is computed as C^T = op(B)^T op(A)^T. `batch` 0 for one product,
/// else the strided batched call over it.
gk_status run_gemm(gk_context ctx, bool f64, bool transa, bool transb, BlasMatrix const& A, BlasMatrix const& B,
                   std::int64_t m, std::int64_t n, std::int64_t k, double alpha, double beta, char* c_data,
                   std::int64_t ldc, std::int64_t c_stride, std::int64_t batch, bool c_transposed, bool release_gil) {
  bool op_a = transa != A.transposed, op_b = transb != B.transposed;
  std::int64_t rows = m, cols = n;
  BlasMatrix first = A, second = B;
  if (c_transposed) {
    std::swap(first, second);
    std::swap(rows, cols);
    bool const t = op_a;
    op_a = !op_b;
    op_b = !t;
  }
  gk_op const ta = op_a ? GK_OP_T : GK_OP_N, tb = op_b ? GK_OP_T : GK_OP_N;
  std::optional<py::gil_scoped_release> release;
  if (release_gil) release.emplace();
  if (f64) {
    auto const* x = reinterpret_cast<double const*>(first.data);
    auto const* y = reinterpret_cast<double const*>(second.data);
    auto* z = reinterpret_cast<double*>(c_data);
    return batch == 0 ? gk_dgemm(ctx, GK_COL_MAJOR, ta, tb, rows, cols, k, alpha, x, first.ld, y, second.ld, beta, z, ldc)
                      : gk_dgemm_strided_batched(ctx, GK_COL_MAJOR, ta, tb, rows, cols, k, alpha, x, first.ld,
                                                 first.batch_stride, y, second.ld, second.batch_stride, beta, z, ldc,
                                                 c_stride, batch);
  }
  auto const* x = reinterpret_cast<float const*>(first.data);
  auto const* y = reinterpret_cast<float const*>(second.data);
  auto* z = reinterpret_cast<float*>(c_data);
  return batch == 0 ? gk_sgemm(ctx, GK_COL_MAJOR, ta, tb, rows, cols, k, float(alpha), x, first.ld, y, second.ld,
                               float(beta), z, ldc)
                    : gk_sgemm_strided_batched(ctx, GK_COL_MAJOR, ta, tb, rows, cols, k, float(alpha), x, first.ld,
                                               first.batch_stride, y, second.ld, second.batch_stride, float(beta), z,
                                               ldc, c_stride, batch);
}

/// matmul of numpy arrays: op(a) @ op(b) * alpha + beta * out over the last two dimensions, stacks of 3-D
/// arrays batched (a single matrix or a stack of one broadcast against the other's stack).
py::array matmul_host(py::array a, py::array b, py::object out_object, double alpha, double beta, bool transa,
                      bool transb, Context* context, int verbosity) {
  gk_context ctx = context != nullptr ? context->get() : nullptr;
  for (auto [x, name] : {std::pair{&a, "a"}, std::pair{&b, "b"}}) {
    if (x->ndim() != 2 && x->ndim() != 3) {
      throw py::value_error(std::string(name) + " must be a matrix or a stack of matrices (2 or 3 dimensions), not " +
                            std::to_string(x->ndim()));
    }
  }
  char const kind = real_kind(a);
  bool const f64 = kind == 'd' && real_kind(b) == 'd';
  bool const f32 = kind == 'f' && real_kind(b) == 'f';
  if (!f64 && !f32) {
    throw py::type_error("a and b must both be float64 or both float32, not " + std::string(py::str(a.dtype())) +
                         " and " + std::string(py::str(b.dtype())));
  }
  // op(a) is m x k, op(b) is k x n.
  std::int64_t const m = transa ? a.shape(a.ndim() - 1) : a.shape(a.ndim() - 2);
  std::int64_t const ka = transa ? a.shape(a.ndim() - 2) : a.shape(a.ndim() - 1);
  std::int64_t const kb = transb ? b.shape(b.ndim() - 1) : b.shape(b.ndim() - 2);
  std::int64_t const n = transb ? b.shape(b.ndim() - 2) : b.shape(b.ndim() - 1);
  if (ka != kb) {
    throw py::value_error("inner dimensions differ: op(a) is " + std::to_string(m) + " x " + std::to_string(ka) +
                          ", op(b) is " + std::to_string(kb) + " x " + std::to_string(n));
  }
  py::ssize_t const batch_a = batch_of(a), batch_b = batch_of(b);
  if (batch_a != batch_b && batch_a != 1 && batch_b != 1) {
    throw py::value_error("stacks of " + std::to_string(batch_a) + " and " + std::to_string(batch_b) +
                          " matrices do not broadcast");
  }
  py::ssize_t const batch = batch_a == 1 ? batch_b : batch_a;  // a stack of 0 stays empty
  bool const stacked = a.ndim() == 3 || b.ndim() == 3;
  std::array<py::ssize_t, 3> const full{batch, m, n};
  std::size_t const dims = stacked ? 3 : 2;
  py::ssize_t const* const shape = full.data() + (3 - dims);
  auto const shape_vector = [&] { return std::vector<py::ssize_t>(shape, shape + dims); };

  py::array out;
  if (out_object.is_none()) {
    if (beta != 0.0) throw py::value_error("beta != 0 needs out (the C it scales)");
    out = py::array(a.dtype(), shape_vector());
  } else {
    if (!py::isinstance<py::array>(out_object)) throw py::type_error("out must be a numpy array like a and b");
    out = py::reinterpret_borrow<py::array>(out_object);
    if (real_kind(out) != kind) {
      throw py::type_error("out must have a's dtype, " + std::string(py::str(a.dtype())));
    }
    if (!out.writeable()) throw py::value_error("out is read-only");
    if (out.ndim() != py::ssize_t(dims) || !std::equal(shape, shape + dims, out.shape())) {
      throw py::value_error("out has the wrong shape for op(a) @ op(b)");
    }
  }
  if (m == 0 || n == 0 || batch == 0) return out;

  py::array keep[2];  // the operands (or their copies) while gemmkit reads them
  py::array const* out_ref = out_object.is_none() ? nullptr : &out;
  BlasMatrix A = operand(a, "a", out_ref, verbosity, &keep[0]);
  BlasMatrix B = operand(b, "b", out_ref, verbosity, &keep[1]);
  if (batch_a == 1) A.batch_stride = 0;
  if (batch_b == 1) B.batch_stride = 0;

  // C: column-major C directly; a row-major C as C^T = op(B)^T op(A)^T, column-major.
  auto [crs, ccs] = element_strides(out);
  std::int64_t ldc = 1;
  bool c_transposed = false;
  std::int64_t c_batch = stacked && batch > 1 ? std::int64_t(out.strides(0) / out.itemsize()) : 0;
  bool const c_ok = crs >= 0 && ccs >= 0 && blas_form(m, n, crs, ccs, &ldc, &c_transposed) &&
                    (!stacked || batch <= 1 || (out.strides(0) > 0 && out.strides(0) % out.itemsize() == 0));
  py::array target = out;
  if (!c_ok) {  // compute into a C-order copy (holding out's values when beta reads them), then copy back
    note(verbosity, "computed into a copy of out (strides BLAS cannot express)");
    target = py::array(out.dtype(), shape_vector());
    if (beta != 0.0) py::module_::import("numpy").attr("copyto")(target, out);
    std::tie(crs, ccs) = element_strides(target);
    blas_form(m, n, crs, ccs, &ldc, &c_transposed);
    c_batch = stacked && batch > 1 ? std::int64_t(target.strides(0) / target.itemsize()) : 0;
  }
  char* const c_data = static_cast<char*>(target.mutable_data());

  bool const release_gil = double(m) * double(n) * double(ka) * double(batch) >= kReleaseGilWork;
  gk_status const status = run_gemm(ctx, f64, transa, transb, A, B, m, n, ka, alpha, beta, c_data, ldc, c_batch,
                                    stacked ? std::int64_t(batch) : 0, c_transposed, release_gil);
  if (status != GK_SUCCESS) raise_status(ctx, status, "matmul");
  if (!c_ok) py::module_::import("numpy").attr("copyto")(out, target);
  return out;
}

/// A device matrix or stack as the Python layer read it from DLPack or __cuda_array_interface__: the data
/// pointer, dtype ("f8" or "f4"), shape and element strides (2 or 3 dimensions).
struct DeviceOperand {
  std::uintptr_t data = 0;
  std::string dtype;
  std::vector<std::int64_t> shape, strides;
};

/// matmul_host(a, b, out, alpha, beta, transa, transb, context, verbosity) as a CPython fast call: gemmkit.matmul's
/// numpy path without pybind11's argument dispatch, which took about half the Python layer's cost per call on
/// 8 x 8 matrices (a None context alone took 0.4 us, its converting pass).
PyObject* matmul_host_call(PyObject*, PyObject* const* args, Py_ssize_t nargs) {
  try {
    if (nargs != 9) throw py::type_error("matmul_host takes 9 arguments");
    for (Py_ssize_t i : {0, 1}) {
      if (!py::isinstance<py::array>(args[i])) throw py::type_error(i == 0 ? "a must be a numpy array" : "b must be a numpy array");
    }
    auto const number = [&](Py_ssize_t i) {
      double const x = PyFloat_AsDouble(args[i]);
      if (x == -1.0 && PyErr_Occurred() != nullptr) throw py::error_already_set();
      return x;
    };
    auto const flag = [&](Py_ssize_t i) {
      int const x = PyObject_IsTrue(args[i]);
      if (x < 0) throw py::error_already_set();
      return x != 0;
    };
    Context* const context = args[7] == Py_None ? nullptr : py::cast<Context*>(py::handle(args[7]));
    long const verbosity = PyLong_AsLong(args[8]);
    if (verbosity == -1 && PyErr_Occurred() != nullptr) throw py::error_already_set();
    return matmul_host(py::reinterpret_borrow<py::array>(args[0]), py::reinterpret_borrow<py::array>(args[1]),
                       py::reinterpret_borrow<py::object>(args[2]), number(3), number(4), flag(5), flag(6), context,
                       int(verbosity))
        .release()
        .ptr();
  } catch (py::error_already_set& e) {
    e.restore();
  } catch (py::builtin_exception& e) {
    e.set_error();
  } catch (std::bad_alloc const&) {
    PyErr_NoMemory();
  } catch (std::exception const& e) {
    PyErr_SetString(PyExc_RuntimeError, e.what());
  }
  return nullptr;
}

/// matmul of device operands (the same rules as matmul_host, with no copies: strides BLAS cannot express
/// are an error), queued on the context's stream.
void matmul_device(DeviceOperand const& a, DeviceOperand const& b, DeviceOperand const& c, double alpha,
                   double beta, bool transa, bool transb, Context* context) {
  gk_context ctx = context != nullptr ? context->get() : nullptr;
  for (auto [x, name] : {std::pair{&a, "a"}, std::pair{&b, "b"}, std::pair{&c, "out"}}) {
    if ((x->shape.size() != 2 && x->shape.size() != 3) || x->strides.size() != x->shape.size()) {
      throw py::value_error(std::string(name) + " must be a matrix or a stack of matrices (2 or 3 dimensions)");
    }
    if (x->dtype != a.dtype) throw py::type_error("a, b and out must have one dtype");
  }
  if (a.dtype != "f8" && a.dtype != "f4") throw py::type_error("device operands must be float64 or float32");
  auto const dims = [](DeviceOperand const& x) {
    std::size_t const nd = x.shape.size();
    return std::tuple{x.shape[nd - 2], x.shape[nd - 1], x.strides[nd - 2], x.strides[nd - 1],
                      nd == 3 ? x.shape[0] : std::int64_t(1), nd == 3 && x.shape[0] > 1 ? x.strides[0] : 0};
  };
  auto const [ar, ac, ars, acs, a_batch, a_bs] = dims(a);
  auto const [br, bc, brs, bcs, b_batch, b_bs] = dims(b);
  auto const [cr, cc, crs, ccs, c_batch, c_bs] = dims(c);
  std::int64_t const m = transa ? ac : ar, k = transa ? ar : ac;
  std::int64_t const kb = transb ? bc : br, n = transb ? br : bc;
  if (k != kb) throw py::value_error("inner dimensions differ");
  if (cr != m || cc != n) throw py::value_error("out has the wrong shape for op(a) @ op(b)");
  if ((a_batch != c_batch && a_batch != 1) || (b_batch != c_batch && b_batch != 1)) {
    throw py::value_error("the stacks do not broadcast to out's");
  }
  BlasMatrix A{reinterpret_cast<char*>(a.data), 1, false, a_batch == 1 ? 0 : a_bs};
  BlasMatrix B{reinterpret_cast<char*>(b.data), 1, false, b_batch == 1 ? 0 : b_bs};
  std::int64_t ldc = 1;
  bool c_transposed = false;
  if (!blas_form(ar, ac, ars, acs, &A.ld, &A.transposed)) throw py::value_error("a: strides BLAS cannot express");
  if (!blas_form(br, bc, brs, bcs, &B.ld, &B.transposed)) throw py::value_error("b: strides BLAS cannot express");
  if (!blas_form(cr, cc, crs, ccs, &ldc, &c_transposed) || c_bs < 0) {
    throw py::value_error("out: strides BLAS cannot express");
  }
  if (m == 0 || n == 0 || c_batch == 0) return;
  bool const stacked = a.shape.size() == 3 || b.shape.size() == 3;
  gk_status const status = run_gemm(ctx, a.dtype == "f8", transa, transb, A, B, m, n, k, alpha, beta,
                                    reinterpret_cast<char*>(c.data), ldc, c_bs, stacked ? c_batch : 0, c_transposed,
                                    true);
  if (status != GK_SUCCESS) raise_status(ctx, status, "matmul");
}

/// DLPack's C structures (the protocol's stable ABI, version 0.x), as far as reading a tensor needs.
struct DLDevice {
  std::int32_t device_type, device_id;
};
struct DLDataType {
  std::uint8_t code, bits;
  std::uint16_t lanes;
};
struct DLTensor {
  void* data;
  DLDevice device;
  std::int32_t ndim;
  DLDataType dtype;
  std::int64_t* shape;
  std::int64_t* strides;  ///< in elements; NULL: C order
  std::uint64_t byte_offset;
};
struct DLManagedTensor {
  DLTensor dl_tensor;
  void* manager_ctx;
  void (*deleter)(DLManagedTensor*);
};
constexpr std::uint8_t kDLFloat = 2;

/// The device operand a DLPack capsule holds, into `out`; the capsule is marked used and its tensor released
/// (the producer, which the caller still holds, keeps the memory).
void describe_dlpack(py::capsule capsule, DeviceOperand& out) {
  if (std::string(capsule.name() != nullptr ? capsule.name() : "") != "dltensor") {
    throw py::value_error("not an unused DLPack capsule");
  }
  auto* managed = static_cast<DLManagedTensor*>(capsule.get_pointer());
  DLTensor const& t = managed->dl_tensor;
  bool const floating = t.dtype.code == kDLFloat && t.dtype.lanes == 1 && (t.dtype.bits == 64 || t.dtype.bits == 32);
  if (floating) {
    out.data = reinterpret_cast<std::uintptr_t>(t.data) + t.byte_offset;
    out.dtype = t.dtype.bits == 64 ? "f8" : "f4";
    out.shape.assign(t.shape, t.shape + t.ndim);
    out.strides.assign(t.ndim, 1);
    for (std::int32_t axis = t.ndim - 1; axis >= 0; --axis) {
      if (t.strides != nullptr) {
        out.strides[std::size_t(axis)] = t.strides[axis];
      } else if (axis + 1 < t.ndim) {
        out.strides[std::size_t(axis)] = out.strides[std::size_t(axis) + 1] * std::max<std::int64_t>(1, t.shape[axis + 1]);
      }
    }
  }
  PyCapsule_SetName(capsule.ptr(), "used_dltensor");
  if (managed->deleter != nullptr) managed->deleter(managed);
  if (!floating) throw py::type_error("device arrays must be float64 or float32");
}

/// The registered variants: (id, dtype, "cpu" or "gpu", summary).
std::vector<std::tuple<std::string, std::string, std::string, std::string>> variants() {
  std::vector<std::tuple<std::string, std::string, std::string, std::string>> out;
  for (std::int64_t i = 0; i < gk_variant_count(); ++i) {
    gk_variant_info info{};
    if (gk_variant_at(i, &info) != GK_SUCCESS) continue;
    out.emplace_back(info.id, info.dtype == GK_DTYPE_F64 ? "float64" : "float32",
                     info.backend == GK_BACKEND_GPU ? "gpu" : "cpu", info.summary);
  }
  return out;
}

/// Seconds per gk_dgemm call on a's, b's and out's memory (C-order float64 matrices, C = A B), over `calls`
/// calls made from C++: the C call's cost, which python -m gemmkit.bench subtracts from gemmkit.matmul's.
double time_c_calls(py::array_t<double, py::array::c_style> a, py::array_t<double, py::array::c_style> b,
                    py::array_t<double, py::array::c_style> out, int calls) {
  if (a.ndim() != 2 || b.ndim() != 2 || out.ndim() != 2 || a.shape(1) != b.shape(0) || out.shape(0) != a.shape(0) ||
      out.shape(1) != b.shape(1) || calls < 1) {
    throw py::value_error("time_c_calls takes C-order matrices out = a @ b and calls >= 1");
  }
  std::int64_t const m = a.shape(0), k = a.shape(1), n = b.shape(1);
  double const* x = a.data();
  double const* y = b.data();
  double* z = out.mutable_data();
  py::gil_scoped_release release;
  auto const start = std::chrono::steady_clock::now();
  for (int i = 0; i < calls; ++i) {  // row-major C = A B as column-major C^T = B^T A^T
    if (gk_dgemm(nullptr, GK_COL_MAJOR, GK_OP_N, GK_OP_N, n, m, k, 1.0, y, n, x, k, 0.0, z, n) != GK_SUCCESS) break;
  }
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count() / calls;
}

}  // namespace

PYBIND11_MODULE(_gemmkit, module) {
  module.doc() = "gemmkit's C API for Python (use the gemmkit package, not this module)";
  py::class_<Context>(module, "Context")
      .def(py::init<>())
      .def_property_readonly("handle", &Context::handle)
      .def("set_device", &Context::set_device)
      .def("device", &Context::device)
      .def("set_memory_budget", &Context::set_memory_budget)
      .def("memory_budget", &Context::memory_budget)
      .def("set_backend", &Context::set_backend)
      .def("set_fp64_emulation", &Context::set_fp64_emulation)
      .def("fp64_emulation", &Context::fp64_emulation)
      .def("set_fp64_emulation_scaling", &Context::set_fp64_emulation_scaling)
      .def("set_verbosity", &Context::set_verbosity)
      .def("set_stream", &Context::set_stream)
      .def("stream", &Context::stream)
      .def("set_variant", &Context::set_variant)
      .def("last_variant", &Context::last_variant)
      .def("last_report", &Context::last_report);
  py::class_<DeviceOperand>(module, "DeviceOperand")
      .def(py::init<>())
      .def_readwrite("data", &DeviceOperand::data)
      .def_readwrite("dtype", &DeviceOperand::dtype)
      .def_readwrite("shape", &DeviceOperand::shape)
      .def_readwrite("strides", &DeviceOperand::strides);
  static PyMethodDef matmul_host_method{"matmul_host", reinterpret_cast<PyCFunction>(reinterpret_cast<void (*)()>(&matmul_host_call)),
                                        METH_FASTCALL,
                                        "matmul_host(a, b, out, alpha, beta, transa, transb, context, verbosity)"};
  module.add_object("matmul_host", py::reinterpret_steal<py::object>(PyCFunction_NewEx(&matmul_host_method, nullptr, module.ptr())));
  module.def("matmul_device", &matmul_device, py::arg("a"), py::arg("b"), py::arg("out"), py::arg("alpha"),
             py::arg("beta"), py::arg("transa"), py::arg("transb"), py::arg("context"));
  module.def("describe_dlpack", &describe_dlpack, py::arg("capsule"), py::arg("out"));
  module.def("gpu_available", [] { return gk_gpu_available() != 0; });
  module.attr("__version__") = GEMMKIT_VERSION;
  module.def("variants", &variants);
  module.def("time_c_calls", &time_c_calls, py::arg("a"), py::arg("b"), py::arg("out"), py::arg("calls"));
  module.attr("BACKEND_AUTO") = int(GK_BACKEND_AUTO);
  module.attr("BACKEND_CPU") = int(GK_BACKEND_CPU);
  module.attr("BACKEND_GPU") = int(GK_BACKEND_GPU);
}
