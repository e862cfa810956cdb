"""gemmkit.matmul against numpy.matmul on host arrays: shapes, dtypes, orders and strides, transposes, stacks and
broadcasting, alpha and beta with out, out overlapping an input, bad arguments, contexts, DLPack producers;
device arrays (gemmkit's own device buffers through __cuda_array_interface__, and a DLPack producer made
with ctypes) where a GPU is usable."""

import ctypes
import subprocess
import sys

import numpy as np
import pytest

import gemmkit
from gemmkit import _cuda

RNG = np.random.default_rng(53)
TOLERANCE = {np.float64: 1e-12, np.float32: 2e-5}


def operand(shape, dtype, order="C", step=1):
    """Fresh random data (-1..1) in the given order; step > 1 gives a view with gaps between rows and columns."""
    big = [s * step for s in shape]
    data = RNG.uniform(-1, 1, size=big).astype(dtype)
    data = np.asfortranarray(data) if order == "F" else data
    return data[tuple(slice(None, None, step) for _ in shape)]


def reference(a, b, transa=False, transb=False):
    a64, b64 = a.astype(np.float64), b.astype(np.float64)
    return np.matmul(np.swapaxes(a64, -1, -2) if transa else a64, np.swapaxes(b64, -1, -2) if transb else b64)


def close(got, want, dtype, k):
    scale = max(1.0, float(np.abs(want).max(initial=0.0)))
    return np.allclose(got, want, rtol=0, atol=TOLERANCE[dtype] * scale * max(1, k) ** 0.5)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("order_a,order_b", [("C", "C"), ("F", "C"), ("C", "F"), ("F", "F")])
@pytest.mark.parametrize("transa,transb", [(False, False), (True, False), (False, True), (True, True)])
def test_random_matrices_match_numpy(dtype, order_a, order_b, transa, transb):
    for _ in range(3):
        m, n, k = (int(x) for x in RNG.integers(1, 70, size=3))
        a = operand((k, m) if transa else (m, k), dtype, order_a)
        b = operand((n, k) if transb else (k, n), dtype, order_b)
        c = gemmkit.matmul(a, b, transa=transa, transb=transb)
        assert type(c) is np.ndarray and c.dtype == dtype and c.shape == (m, n)
        assert close(c, reference(a, b, transa, transb), dtype, k)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_strided_views_and_strided_out(dtype):
    a = operand((33, 20), dtype, step=2)           # gaps between elements: copied
    b = operand((20, 17), dtype, "F")[:, ::3]       # every third column of a Fortran array: leading dimension 60
    out = np.full((66, 12), np.nan, dtype=dtype)[::2, :6]  # out with a row step: computed through a copy
    assert out.shape == (33, 6)
    got = gemmkit.matmul(a, b, out)
    assert got is out
    assert close(out, reference(a, b), dtype, 20)
    full = out.base
    assert np.isnan(full[1::2]).all() and np.isnan(full[:, 6:]).all()  # nothing outside out written


def test_alpha_beta_with_out_in_both_orders():
    for order in ("C", "F"):
        a, b = operand((40, 30), np.float64), operand((30, 50), np.float64)
        c0 = operand((40, 50), np.float64, order)
        out = c0.copy(order=order)
        gemmkit.matmul(a, b, out, alpha=-1.5, beta=0.25)
        assert close(out, -1.5 * reference(a, b) + 0.25 * c0, np.float64, 30)


def test_beta_zero_does_not_read_out():
    a, b = operand((16, 8), np.float64), operand((8, 12), np.float64)
    out = np.full((16, 12), np.nan)
    gemmkit.matmul(a, b, out, beta=0.0)
    assert close(out, reference(a, b), np.float64, 8)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_stacks_and_broadcasting(dtype):
    a, b = operand((7, 5, 4), dtype), operand((7, 4, 6), dtype)
    assert close(gemmkit.matmul(a, b), reference(a, b), dtype, 4)
    single = operand((5, 4), dtype)
    assert close(gemmkit.matmul(single, b), np.matmul(single.astype(np.float64), b.astype(np.float64)), dtype, 4)
    one = operand((1, 4, 6), dtype)
    assert close(gemmkit.matmul(a, one), reference(a, one), dtype, 4)
    transposed = np.swapaxes(operand((7, 6, 4), dtype), 1, 2)  # a stack of F-order matrices
    assert close(gemmkit.matmul(a, transposed), reference(a, transposed), dtype, 4)
    stored_transposed = operand((7, 6, 4), dtype)
    assert close(gemmkit.matmul(a, stored_transposed, transb=True), reference(a, stored_transposed, transb=True),
                 dtype, 4)
    small = operand((1000, 2, 2), dtype)
    out = np.empty((1000, 2, 2), dtype=dtype)
    assert gemmkit.matmul(small, small, out) is out
    assert close(out, reference(small, small), dtype, 2)


def test_out_overlapping_an_input_gives_the_product_of_the_inputs():
    a, b = operand((20, 20), np.float64), operand((20, 20), np.float64)
    want = reference(a, b)
    gemmkit.matmul(a, b, a)
    assert close(a, want, np.float64, 20)


def test_empty_and_degenerate_shapes():
    assert gemmkit.matmul(np.zeros((0, 3)), np.zeros((3, 4))).shape == (0, 4)
    out = np.full((2, 3), 7.0)
    gemmkit.matmul(np.zeros((2, 0)), np.zeros((0, 3)), out, beta=0.5)
    assert (out == 3.5).all()  # k = 0: C = beta C
    row, col = operand((1, 9), np.float64), operand((9, 1), np.float64)
    assert close(gemmkit.matmul(row, col), reference(row, col), np.float64, 9)
    assert close(gemmkit.matmul(col, row), reference(col, row), np.float64, 1)


@pytest.mark.parametrize("call,error,words", [
    (lambda: gemmkit.matmul(np.ones((3, 4)), np.ones((5, 6))), ValueError, "inner dimensions"),
    (lambda: gemmkit.matmul(np.ones(4), np.ones((4, 2))), ValueError, "a must be a matrix"),
    (lambda: gemmkit.matmul(np.ones((2, 2, 2, 2)), np.ones((2, 2))), ValueError, "a must be a matrix"),
    (lambda: gemmkit.matmul(np.ones((2, 2)), np.ones((2, 2), np.float32)), TypeError, "float64 or both float32"),
    (lambda: gemmkit.matmul(np.ones((2, 2), int), np.ones((2, 2), int)), TypeError, "float64 or both float32"),
    (lambda: gemmkit.matmul(np.ones((2, 3)), np.ones((3, 2)), np.empty((3, 3))), ValueError, "wrong shape"),
    (lambda: gemmkit.matmul(np.ones((2, 3)), np.ones((3, 2)), np.empty((2, 2), np.float32)), TypeError, "dtype"),
    (lambda: gemmkit.matmul(np.ones((2, 2)), np.ones((2, 2)), beta=1.0), ValueError, "needs out"),
    (lambda: gemmkit.matmul(np.ones((3, 2, 2)), np.ones((4, 2, 2))), ValueError, "do not broadcast"),
    (lambda: gemmkit.matmul(np.ones((2, 2)), np.ones((2, 2)), context="x"), TypeError, "gemmkit.Context"),
])
def test_bad_arguments_raise_and_write_nothing(call, error, words):
    with pytest.raises(error, match=words):
        call()


def test_read_only_out_is_refused():
    out = np.zeros((2, 2))
    out.setflags(write=False)
    with pytest.raises(ValueError, match="read-only"):
        gemmkit.matmul(np.ones((2, 2)), np.ones((2, 2)), out)
    assert (out == 0).all()


def test_context_settings_and_manager():
    with pytest.raises(ValueError, match="backend must be one of"):
        gemmkit.Context(backend="tpu")
    with pytest.raises(ValueError, match="fp64_emulation must be one of"):
        gemmkit.Context(fp64_emulation="sometimes")
    ctx = gemmkit.Context(backend="cpu", fp64_emulation="auto", fp64_emulation_scaling="accurate", verbosity=0)
    assert ctx.backend == "cpu" and ctx.fp64_emulation == "auto" and ctx.fp64_emulation_scaling == "accurate"
    a, b = operand((30, 20), np.float64), operand((20, 10), np.float64)
    with ctx as entered:
        assert entered is ctx
        c = gemmkit.matmul(a, b)
    assert ctx.last_variant() != ""
    assert close(c, reference(a, b), np.float64, 20)
    explicit = gemmkit.Context()
    gemmkit.matmul(a, b, context=explicit)
    assert explicit.last_variant() != ""


def test_a_failing_gemmkit_call_names_its_parameter():
    with pytest.raises((ValueError, RuntimeError), match="set_device"):
        gemmkit.Context(device=10_000)


class HostDlpack:
    """A minimal CPU producer of DLPack (no numpy type): what torch CPU tensors look like to gemmkit."""

    def __init__(self, array):
        self.array = array

    def __dlpack__(self, stream=None):
        return self.array.__dlpack__()

    def __dlpack_device__(self):
        return self.array.__dlpack_device__()


def test_dlpack_producers_on_the_host():
    a, b = operand((12, 9), np.float64), operand((9, 5), np.float64)
    c = gemmkit.matmul(HostDlpack(a), HostDlpack(b))
    assert close(np.asarray(c), reference(a, b), np.float64, 9)


def test_torch_cpu_tensors_come_back_as_tensors():
    torch = pytest.importorskip("torch")
    a, b = torch.rand(6, 4, dtype=torch.float64), torch.rand(4, 3, dtype=torch.float64)
    c = gemmkit.matmul(a, b)
    assert isinstance(c, torch.Tensor)
    assert torch.allclose(c, a @ b, atol=1e-12)
    out = torch.ones(6, 3, dtype=torch.float64)
    assert gemmkit.matmul(a, b, out, alpha=2.0, beta=-1.0) is out
    assert torch.allclose(out, 2.0 * (a @ b) - 1.0, atol=1e-12)


@pytest.mark.parametrize("view", ["c", "f", "sliced", "stack"])
def test_dlpack_tensors_are_read_with_their_strides(view):
    base = np.arange(4 * 6 * 5, dtype=np.float64).reshape(4, 6, 5)
    x = {"c": base[0], "f": np.asfortranarray(base[0]), "sliced": base[0][::2, 1:4], "stack": base}[view]
    described = gemmkit._gemmkit.DeviceOperand()
    gemmkit._gemmkit.describe_dlpack(x.__dlpack__(), described)
    assert described.dtype == "f8" and list(described.shape) == list(x.shape)
    assert list(described.strides) == [s // 8 for s in x.strides]
    assert described.data == x.ctypes.data


def test_info_version_and_the_module_entry_point():
    description = gemmkit.info()
    assert description["version"] == gemmkit.__version__
    assert any(v[2] == "cpu" for v in description["variants"])
    run = subprocess.run([sys.executable, "-m", "gemmkit"], capture_output=True, text=True, check=True)
    assert "registered variants" in run.stdout


@pytest.fixture(name="runtime")
def cuda_runtime():
    """The CUDA runtime gemmkit's own device buffers (gemmkit._cuda) use, or a skip without a GPU."""
    if not gemmkit.gpu_available():
        pytest.skip("no usable GPU")
    runtime = _cuda.Runtime()
    if runtime.cudart is None:
        pytest.skip("no CUDA runtime library to allocate device memory with")
    return runtime


class DLDevice(ctypes.Structure):
    _fields_ = [("device_type", ctypes.c_int32), ("device_id", ctypes.c_int32)]


class DLDataType(ctypes.Structure):
    _fields_ = [("code", ctypes.c_uint8), ("bits", ctypes.c_uint8), ("lanes", ctypes.c_uint16)]


class DLTensor(ctypes.Structure):
    _fields_ = [("data", ctypes.c_void_p), ("device", DLDevice), ("ndim", ctypes.c_int32), ("dtype", DLDataType),
                ("shape", ctypes.POINTER(ctypes.c_int64)), ("strides", ctypes.POINTER(ctypes.c_int64)),
                ("byte_offset", ctypes.c_uint64)]


DELETER = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


class DLManagedTensor(ctypes.Structure):
    _fields_ = [("dl_tensor", DLTensor), ("manager_ctx", ctypes.c_void_p), ("deleter", DELETER)]


class DeviceDlpack:
    """The same device memory offered through DLPack only (a CUDA device, C order): a producer whose
    capsule gemmkit reads and releases."""

    def __init__(self, device_array):
        self.device_array = device_array
        self.shape = (ctypes.c_int64 * len(device_array.shape))(*device_array.shape)
        self.released = 0

        def release(_):
            self.released += 1
        self.deleter = DELETER(release)

    def __dlpack_device__(self):
        return (2, 0)

    def __dlpack__(self, stream=None):
        self.stream_asked = stream
        array = self.device_array
        tensor = DLTensor(ctypes.c_void_p(array.pointer.value), DLDevice(2, 0), len(array.shape),
                          DLDataType(2, array.dtype.itemsize * 8, 1), self.shape, None, 0)
        self.managed = DLManagedTensor(tensor, None, self.deleter)
        capsule_new = ctypes.pythonapi.PyCapsule_New
        capsule_new.restype = ctypes.py_object
        capsule_new.argtypes = [ctypes.c_void_p, ctypes.c_char_p, ctypes.c_void_p]
        return capsule_new(ctypes.addressof(self.managed), b"dltensor", None)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_device_arrays_run_on_the_gpu(dtype, runtime):
    a, b = operand((4, 33, 17), dtype), operand((4, 17, 9), dtype)
    c0 = operand((4, 33, 9), dtype)
    da, db, dc = _cuda.DeviceArray(runtime, a), _cuda.DeviceArray(runtime, b), _cuda.DeviceArray(runtime, c0)
    assert gemmkit.matmul(da, db, dc, alpha=2.0, beta=-1.0) is dc
    assert close(dc.get(), 2.0 * reference(a, b) - c0.astype(np.float64), dtype, 17)
    single = _cuda.DeviceArray(runtime, a[0])
    out = _cuda.DeviceArray(runtime, np.zeros((4, 33, 9), dtype))
    gemmkit.matmul(single, db, out)  # one matrix against a stack
    assert close(out.get(), reference(a[0], b), dtype, 17)
    with pytest.raises(TypeError, match="device"):
        gemmkit.matmul(da, b, dc)  # a host array among device arrays


def test_device_dlpack_producers_run_on_the_gpu(runtime):
    a, b = operand((20, 30), np.float64), operand((30, 10), np.float64)
    da, db, dc = (DeviceDlpack(_cuda.DeviceArray(runtime, x)) for x in (a, b, np.zeros((20, 10))))
    assert gemmkit.matmul(da, db, dc) is dc
    assert close(dc.device_array.get(), reference(a, b), np.float64, 30)
    assert da.released == 1 and db.released == 1 and dc.released == 1
    assert da.stream_asked == 1  # the legacy default stream: the context names none


def test_an_empty_stack_broadcasts_to_an_empty_result():
    result = gemmkit.matmul(np.zeros((0, 3, 4)), np.ones((4, 5)))
    assert result.shape == (0, 3, 5)
    assert gemmkit.matmul(np.ones((3, 4)), np.zeros((0, 4, 5))).shape == (0, 3, 5)


def test_torch_cuda_tensors_stay_on_the_device():
    torch = pytest.importorskip("torch")
    if not gemmkit.gpu_available() or not torch.cuda.is_available():
        pytest.skip("no usable GPU for torch")
    a = torch.rand(5, 40, 30, dtype=torch.float64, device="cuda")
    b = torch.rand(5, 30, 20, dtype=torch.float64, device="cuda")
    c = gemmkit.matmul(a, b)  # allocated by torch on a's device
    assert isinstance(c, torch.Tensor) and c.is_cuda and c.shape == (5, 40, 20)
    assert torch.allclose(c, a @ b, atol=1e-12)
    out = torch.zeros(5, 20, 40, dtype=torch.float64, device="cuda").transpose(1, 2)  # a Fortran-order stack
    assert gemmkit.matmul(a, b, out) is out
    assert torch.allclose(out, a @ b, atol=1e-12)


def test_cupy_arrays_stay_on_the_device():
    cupy = pytest.importorskip("cupy")
    if not gemmkit.gpu_available():
        pytest.skip("no usable GPU")
    a, b = cupy.random.rand(64, 48), cupy.random.rand(48, 32)
    c = gemmkit.matmul(a, b, transa=False)
    assert isinstance(c, cupy.ndarray)
    assert cupy.allclose(c, a @ b, atol=1e-12)


def test_copies_are_said_at_verbosity_two(capfd):
    a = operand((10, 8), np.float64, step=2)  # element gaps BLAS cannot express
    b = operand((8, 6), np.float64)
    with gemmkit.Context(verbosity=2):
        c = gemmkit.matmul(a, b)
    assert close(c, reference(a, b), np.float64, 8)
    assert "copied a (strides BLAS cannot express)" in capfd.readouterr().err
    with gemmkit.Context(verbosity=0):
        gemmkit.matmul(a, b)
    assert "copied" not in capfd.readouterr().err
