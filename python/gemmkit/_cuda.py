"""Device buffers and cuBLAS through ctypes, for ``python -m gemmkit.bench``'s device side: float arrays in
device memory described by ``__cuda_array_interface__`` (no CuPy or torch needed), and cuBLAS's strided
batched GEMM as the peer. Not part of the package's API."""

import ctypes
import ctypes.util

import numpy as np

_HOST_TO_DEVICE, _DEVICE_TO_HOST = 1, 2


def _load(name, soname):
    try:
        return ctypes.CDLL(ctypes.util.find_library(name) or soname)
    except OSError:
        return None


class Runtime:
    """The CUDA runtime and cuBLAS, or None when either is missing."""

    def __init__(self):
        self.cudart = _load("cudart", "libcudart.so")
        self.cublas = _load("cublas", "libcublas.so")
        if self.cudart is not None:
            self.cudart.cudaMemcpy.argtypes = [ctypes.c_void_p, ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
            self.cudart.cudaMalloc.argtypes = [ctypes.POINTER(ctypes.c_void_p), ctypes.c_size_t]
            self.cudart.cudaFree.argtypes = [ctypes.c_void_p]

    @property
    def usable(self):
        return self.cudart is not None and self.cublas is not None


class DeviceArray:
    """A C-order float array in device memory: upload on construction, ``get()`` downloads."""

    def __init__(self, runtime, host):
        host = np.ascontiguousarray(host)
        self.runtime, self.shape, self.dtype, self.nbytes = runtime, host.shape, host.dtype, host.nbytes
        self.pointer = ctypes.c_void_p()
        if runtime.cudart.cudaMalloc(ctypes.byref(self.pointer), self.nbytes) != 0:
            raise MemoryError(f"cudaMalloc of {self.nbytes} bytes")
        runtime.cudart.cudaMemcpy(self.pointer, host.ctypes.data, self.nbytes, _HOST_TO_DEVICE)

    @property
    def __cuda_array_interface__(self):
        return {"shape": self.shape, "typestr": self.dtype.str, "data": (self.pointer.value, False),
                "version": 3, "strides": None, "stream": None}

    def get(self):
        host = np.empty(self.shape, dtype=self.dtype)
        self.runtime.cudart.cudaDeviceSynchronize()
        self.runtime.cudart.cudaMemcpy(host.ctypes.data, self.pointer, self.nbytes, _DEVICE_TO_HOST)
        return host

    def __del__(self):
        if self.pointer:
            self.runtime.cudart.cudaFree(self.pointer)


class CublasStridedBatched:
    """cublasDgemmStridedBatched / cublasSgemmStridedBatched on stacks of C-order matrices: out = a @ b,
    computed as the column-major out^T = b^T a^T, on the default stream."""

    def __init__(self, runtime):
        self.runtime = runtime
        self.handle = ctypes.c_void_p()
        if runtime.cublas.cublasCreate_v2(ctypes.byref(self.handle)) != 0:
            raise RuntimeError("cublasCreate failed")

    def __call__(self, a, b, out):
        batch, m, k = a.shape
        n = b.shape[2]
        f64 = a.dtype == np.float64
        scalar = ctypes.c_double if f64 else ctypes.c_float
        one, zero = scalar(1.0), scalar(0.0)
        gemm = self.runtime.cublas.cublasDgemmStridedBatched if f64 else self.runtime.cublas.cublasSgemmStridedBatched
        status = gemm(self.handle, 0, 0, n, m, k, ctypes.byref(one), b.pointer, n, ctypes.c_longlong(k * n),
                      a.pointer, k, ctypes.c_longlong(m * k), ctypes.byref(zero), out.pointer, n,
                      ctypes.c_longlong(m * n), batch)
        if status != 0:
            raise RuntimeError(f"cuBLAS strided batched GEMM failed ({status})")

    def __del__(self):
        if self.handle:
            self.runtime.cublas.cublasDestroy_v2(self.handle)
