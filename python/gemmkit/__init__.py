"""gemmkit for Python: ``gemmkit.matmul`` of numpy arrays and of device arrays on gemmkit's GEMMs.

Host arrays (numpy, or any CPU producer of DLPack such as torch tensors) take gemmkit's host routing: the
CPU, or the host-resident GPU pipeline when large. Device arrays (``__cuda_array_interface__`` or DLPack
with a CUDA device) run on the GPU on the producer's stream, with no copy to the host. The result has the
input's array type.

    import numpy as np, gemmkit
    a, b = np.random.rand(64, 8, 8), np.random.rand(64, 8, 8)
    c = gemmkit.matmul(a, b)                       # a stack of 64 products
    with gemmkit.Context(fp64_emulation="auto"):   # the settings of the calls inside
        d = gemmkit.matmul(a[0], b[0], transb=True)
"""

import sys
import threading

import numpy as np

from . import _gemmkit

__version__ = _gemmkit.__version__
__all__ = ["Context", "matmul", "info", "gpu_available", "__version__"]

_BACKENDS = {"auto": _gemmkit.BACKEND_AUTO, "cpu": _gemmkit.BACKEND_CPU, "gpu": _gemmkit.BACKEND_GPU}
_EMULATION = {"off": 0, "on": 1, "auto": 2}
_SCALING = {"default": 0, "fast": 1, "accurate": 2}
_KDL_CPU, _KDL_CUDA, _KDL_CUDA_HOST, _KDL_CUDA_MANAGED = 1, 2, 3, 13
_local = threading.local()


def _pick(table, value, name):
    try:
        return table[value]
    except (KeyError, TypeError):
        raise ValueError(f"{name} must be one of {', '.join(map(repr, table))}, not {value!r}") from None


def _named_setting(name, table, set_core, default):
    """A context setting given by name (a key of `table`): the C context gets its number, the name is kept."""
    attribute = "_" + name

    def get(self):
        return getattr(self, attribute, default)

    def put(self, value):
        set_core(self._core, _pick(table, value, name))
        setattr(self, attribute, value)

    return property(get, put)


class Context:
    """gemmkit's settings for the calls made with it: device, device-memory budget (bytes, 0 = the device's
    free memory), backend ("auto", "cpu", "gpu"), FP64 emulation ("off", "on", "auto") and its scaling
    ("default", "fast", "accurate"), verbosity (2: what each call ran, on stderr), CUDA stream (an integer
    handle, 0 = the default stream). Pass it as ``context=`` or use it as a context manager: inside
    ``with``, matmul uses it on this thread."""

    def __init__(self, device=None, memory_budget=None, backend=None, fp64_emulation=None,
                 fp64_emulation_scaling=None, verbosity=None, stream=None):
        self._core = _gemmkit.Context()
        self._verbosity = 0
        for name, value in (("device", device), ("memory_budget", memory_budget), ("backend", backend),
                            ("fp64_emulation", fp64_emulation), ("fp64_emulation_scaling", fp64_emulation_scaling),
                            ("verbosity", verbosity), ("stream", stream)):
            if value is not None:
                setattr(self, name, value)

    device = property(lambda self: self._core.device(), lambda self, d: self._core.set_device(int(d)))
    memory_budget = property(lambda self: self._core.memory_budget(),
                             lambda self, b: self._core.set_memory_budget(int(b)))
    stream = property(lambda self: self._core.stream(), lambda self, s: self._core.set_stream(int(s)))

    backend = _named_setting("backend", _BACKENDS, _gemmkit.Context.set_backend, "auto")

    @property
    def fp64_emulation(self):
        return {v: k for k, v in _EMULATION.items()}[self._core.fp64_emulation()]

    @fp64_emulation.setter
    def fp64_emulation(self, value):
        self._core.set_fp64_emulation(_pick(_EMULATION, value, "fp64_emulation"))

    fp64_emulation_scaling = _named_setting("fp64_emulation_scaling", _SCALING,
                                            _gemmkit.Context.set_fp64_emulation_scaling, "default")

    @property
    def verbosity(self):
        return self._verbosity

    @verbosity.setter
    def verbosity(self, level):
        self._core.set_verbosity(int(level))
        self._verbosity = int(level)

    def last_variant(self):
        """The registered variant that ran the last successful call with this context."""
        return self._core.last_variant()

    def last_report(self):
        """What that variant reported (an FP64 emulation: its moduli, bits and time split)."""
        return self._core.last_report()

    def __enter__(self):
        stack = getattr(_local, "stack", None)
        if stack is None:
            stack = _local.stack = []
        stack.append(self)
        return self

    def __exit__(self, *exc):
        _local.stack.pop()
        return False


def _current(context):
    if context is not None:
        if not isinstance(context, Context):
            raise TypeError(f"context must be a gemmkit.Context, not {type(context).__name__}")
        return context
    stack = getattr(_local, "stack", None)
    return stack[-1] if stack else None


_ndarray = np.ndarray
_matmul_host = _gemmkit.matmul_host


def matmul(a, b, out=None, *, alpha=1.0, beta=0.0, transa=False, transb=False, context=None):
    """``alpha * op(a) @ op(b) + beta * out`` over the last two dimensions (op: the transpose when transa /
    transb). 2-D operands or stacks of them (3-D), one matrix broadcast against a stack; float64 or
    float32; any strides BLAS can express (others are copied, said at verbosity 2). beta != 0 needs out,
    which receives the result. Returns out, or a new array of the input's type."""
    if context is None:  # the innermost `with` context of this thread, else the thread's default
        stack = getattr(_local, "stack", None)
        ctx = stack[-1] if stack else None
    else:
        ctx = _current(context)
    # numpy arrays: straight to the extension (a few hundred nanoseconds of Python).
    if type(a) is _ndarray and type(b) is _ndarray and (out is None or type(out) is _ndarray):
        if ctx is None:
            return _matmul_host(a, b, out, alpha, beta, transa, transb, None, 0)
        return _matmul_host(a, b, out, alpha, beta, transa, transb, ctx._core, ctx._verbosity)
    if any(_on_device(x) for x in (a, b, out) if x is not None):
        return _matmul_device(a, b, out, float(alpha), float(beta), bool(transa), bool(transb), ctx)
    host = [_as_numpy(x, name) for x, name in ((a, "a"), (b, "b"))]
    host_out = None if out is None else _as_numpy(out, "out")
    result = _gemmkit.matmul_host(host[0], host[1], host_out, float(alpha), float(beta), bool(transa),
                                  bool(transb), None if ctx is None else ctx._core,
                                  0 if ctx is None else ctx._verbosity)
    return out if out is not None else _like(a, result)


def _on_device(x):
    if hasattr(x, "__cuda_array_interface__"):
        return True
    device = getattr(x, "__dlpack_device__", None)
    return device is not None and device()[0] in (_KDL_CUDA, _KDL_CUDA_MANAGED)


def _as_numpy(x, name):
    """x's memory as a numpy array: through __array__ where it has one (torch CPU tensors: shared and writable),
    else DLPack (read-only in numpy before 2.1, enough for inputs)."""
    if isinstance(x, np.ndarray):
        return x
    if hasattr(x, "__array__"):
        try:
            return np.asarray(x)
        except Exception:  # noqa: BLE001 - DLPack below, or the error there
            pass
    if hasattr(x, "__dlpack__"):
        return np.from_dlpack(x)
    try:
        return np.asarray(x)
    except Exception as error:  # noqa: BLE001 - said as the argument's error
        raise TypeError(f"{name}: not an array gemmkit can read ({type(x).__name__})") from error


def _like(template, result):
    """result (a numpy array) as template's array type, sharing its memory (DLPack), where that type can."""
    if isinstance(template, np.ndarray) or not hasattr(template, "__dlpack__"):
        return result
    module = sys.modules.get(type(template).__module__.split(".")[0])
    from_dlpack = getattr(module, "from_dlpack", None)
    return from_dlpack(result) if from_dlpack is not None else result


def _describe(x, name, stream):
    """A device operand's pointer, dtype, shape and element strides, from __cuda_array_interface__ or DLPack."""
    d = _gemmkit.DeviceOperand()
    interface = getattr(x, "__cuda_array_interface__", None)
    if interface is not None:
        typestr = interface["typestr"]
        if typestr[1:] not in ("f8", "f4") or typestr[0] not in "<|=":
            raise TypeError(f"{name}: device arrays must be float64 or float32, not {typestr}")
        item = int(typestr[2])
        shape = tuple(interface["shape"])
        strides = interface.get("strides")
        if strides is None:  # C order
            strides, step = [], item
            for extent in reversed(shape):
                strides.insert(0, step)
                step *= max(extent, 1)
        if any(s % item for s in strides):
            raise ValueError(f"{name}: strides that are not whole elements")
        d.data, d.dtype = int(interface["data"][0]), typestr[1:]
        d.shape, d.strides = list(shape), [s // item for s in strides]
        return d, interface.get("stream")
    if hasattr(x, "__dlpack__"):
        device = x.__dlpack_device__()
        if device[0] not in (_KDL_CUDA, _KDL_CUDA_MANAGED):
            raise TypeError(f"{name}: a host array among device arrays")
        _gemmkit.describe_dlpack(x.__dlpack__(stream=stream if stream else 1), d)
        return d, None
    raise TypeError(f"{name}: not a device array ({type(x).__name__}): give all operands on the device")


def _matmul_device(a, b, out, alpha, beta, transa, transb, ctx):
    owner = ctx if ctx is not None else _device_context()
    stream = owner.stream
    da, producer_stream = _describe(a, "a", stream)
    db, _ = _describe(b, "b", stream)
    if out is None:
        if beta != 0.0:
            raise ValueError("beta != 0 needs out (the C it scales)")
        out = _empty_like_device(a, da, db, transa, transb)
    dc, _ = _describe(out, "out", stream)
    # The producer's stream (CUDA array interface v3), unless the context names one.
    use = producer_stream if (producer_stream not in (None, 0) and stream == 0) else None
    if use is not None:
        owner.stream = 0 if use == 1 else use  # 1: the legacy default stream
    try:
        _gemmkit.matmul_device(da, db, dc, alpha, beta, transa, transb, owner._core)
    finally:
        if use is not None:
            owner.stream = stream
    return out


def _device_context():
    context = getattr(_local, "device_context", None)
    if context is None:
        context = _local.device_context = Context()
    return context


def _empty_like_device(a, da, db, transa, transb):
    m = da.shape[-1] if transa else da.shape[-2]
    n = db.shape[-2] if transb else db.shape[-1]
    batch = max(da.shape[0] if len(da.shape) == 3 else 0, db.shape[0] if len(db.shape) == 3 else 0)
    shape = (batch, m, n) if batch else (m, n)
    module = sys.modules.get(type(a).__module__.split(".")[0])
    empty = getattr(module, "empty", None)
    if empty is None:
        raise TypeError(f"out is needed for device arrays of type {type(a).__name__}")
    try:
        return empty(shape, dtype=a.dtype, device=a.device)
    except TypeError:
        return empty(shape, dtype=a.dtype)


def gpu_available():
    """Whether gemmkit was built with CUDA and a GPU is usable."""
    return _gemmkit.gpu_available()


def info():
    """The build and what it can run: version, whether a GPU is usable, and the registered variants
    (id, dtype, "cpu" or "gpu", summary)."""
    return {"version": __version__, "gpu_available": gpu_available(), "variants": _gemmkit.variants()}
