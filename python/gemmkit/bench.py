"""``python -m gemmkit.bench``: gemmkit.matmul beside numpy.matmul (the CPU BLAS numpy links) on host arrays,
in one run, with the ratio: squares, stacks of small matrices, and the cost per call of the Python layer on
8 x 8 matrices above the C call it makes; with a GPU, stacks of small matrices in device memory beside
cuBLAS's strided batched GEMM.

    python -m gemmkit.bench [--sizes 1024,2048] [--stack-bytes 1073741824] [--small 2,4,8,16,32] [--reps 5]
"""

import argparse
import json
import os
import platform
import time

import numpy as np

import gemmkit
from gemmkit import _gemmkit


def best_seconds(call, reps):
    call()  # the first call wakes thread pools and routes
    best = float("inf")
    for _ in range(reps):
        start = time.perf_counter()
        call()
        best = min(best, time.perf_counter() - start)
    return best


def row(kind, shape, ours, theirs, flops, peer="numpy", **extra):
    record = {"suite": "python", "case": kind, "shape": shape, "peer": peer, "gemmkit_s": ours, "peer_s": theirs,
              "gemmkit_gflops": flops / ours * 1e-9, "peer_gflops": flops / theirs * 1e-9,
              "speedup_vs_peer": theirs / ours, **extra}
    print(f"{kind:8} {shape:>22}  gemmkit {record['gemmkit_gflops']:9.1f} GFLOP/s  {peer} {record['peer_gflops']:9.1f}"
          f"  {record['speedup_vs_peer']:6.2f}x")
    return record


def device_stacks(sizes, stack_bytes, reps):
    """Stacks of small matrices in device memory: gemmkit.matmul beside cuBLAS strided batched, float64."""
    from gemmkit import _cuda

    runtime = _cuda.Runtime()
    if not gemmkit.gpu_available() or not runtime.usable:
        print("device stacks: skipped (no usable GPU, or no CUDA runtime and cuBLAS to load)")
        return []
    cublas = _cuda.CublasStridedBatched(runtime)
    rng = np.random.default_rng(1)
    rows = []
    for n in sizes:
        count = max(1, stack_bytes // (n * n * 8))
        a, b = rng.random((count, n, n)), rng.random((count, n, n))
        da, db, dout = _cuda.DeviceArray(runtime, a), _cuda.DeviceArray(runtime, b), _cuda.DeviceArray(runtime, a)
        sync = runtime.cudart.cudaDeviceSynchronize

        def ours():
            gemmkit.matmul(da, db, dout)
            sync()

        def theirs():
            cublas(da, db, dout)
            sync()

        ours_s, theirs_s = best_seconds(ours, reps), best_seconds(theirs, reps)
        theirs()
        if not np.allclose(dout.get()[:4], np.matmul(a[:4], b[:4]), rtol=0, atol=1e-12 * n):
            raise SystemExit(f"device stack of {n} x {n}: cuBLAS and numpy disagree")
        ours()
        if not np.allclose(dout.get()[:4], np.matmul(a[:4], b[:4]), rtol=0, atol=1e-12 * n):
            raise SystemExit(f"device stack of {n} x {n}: gemmkit.matmul is wrong")
        rows.append(row("device-stack", f"{count}x{n}x{n}", ours_s, theirs_s, 2.0 * count * n ** 3, peer="cuBLAS"))
    return rows


def main():
    parser = argparse.ArgumentParser(prog="python -m gemmkit.bench", description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="1024,2048", help="square sizes (float64)")
    parser.add_argument("--stack-bytes", type=int, default=1 << 28, help="bytes of A per stack of small matrices")
    parser.add_argument("--small", default="2,4,8,16,32", help="sizes of the stacked matrices")
    parser.add_argument("--reps", type=int, default=5)
    parser.add_argument("--device-small", default="2,4,8,16,32", help="sizes of the device stacks (needs a GPU)")
    parser.add_argument("--json", help="append one JSON object per row to this file")
    args = parser.parse_args()
    rng = np.random.default_rng(0)
    rows = []
    for n in (int(x) for x in args.sizes.split(",") if x):
        a, b = rng.random((n, n)), rng.random((n, n))
        out = np.empty((n, n))
        ours = best_seconds(lambda: gemmkit.matmul(a, b, out), args.reps)
        theirs = best_seconds(lambda: np.matmul(a, b, out=out), args.reps)
        rows.append(row("square", f"{n}x{n}x{n}", ours, theirs, 2.0 * n ** 3))
    for n in (int(x) for x in args.small.split(",") if x):
        count = max(1, args.stack_bytes // (n * n * 8))
        a, b = rng.random((count, n, n)), rng.random((count, n, n))
        out = np.empty((count, n, n))
        ours = best_seconds(lambda: gemmkit.matmul(a, b, out), args.reps)
        theirs = best_seconds(lambda: np.matmul(a, b, out=out), args.reps)
        rows.append(row("stack", f"{count}x{n}x{n}", ours, theirs, 2.0 * count * n ** 3))
    rows += device_stacks([int(x) for x in args.device_small.split(",") if x], args.stack_bytes, args.reps)
    # The Python layer's cost per call: gemmkit.matmul on 8 x 8 against the same C call timed in C++.
    a, b, out = rng.random((8, 8)), rng.random((8, 8)), np.empty((8, 8))
    calls = 20000
    python_s = best_seconds(lambda: [gemmkit.matmul(a, b, out) for _ in range(calls)], 3) / calls
    c_s = _gemmkit.time_c_calls(a, b, out, calls)
    numpy_s = best_seconds(lambda: [np.matmul(a, b, out=out) for _ in range(calls)], 3) / calls
    overhead = {"suite": "python", "case": "overhead", "shape": "8x8x8", "gemmkit_s": python_s, "c_call_s": c_s,
                "python_overhead_s": python_s - c_s, "numpy_s": numpy_s}
    print(f"overhead 8x8x8: gemmkit.matmul {python_s * 1e6:.2f} us, its C call {c_s * 1e6:.2f} us, "
          f"Python layer {(python_s - c_s) * 1e6:.2f} us; numpy.matmul {numpy_s * 1e6:.2f} us")
    rows.append(overhead)
    if args.json:
        run = {"version": gemmkit.__version__, "numpy": np.__version__, "host_cpu": host_cpu(),
               "host_threads": os.cpu_count(), "gpu_available": gemmkit.gpu_available(),
               "commit": os.environ.get("GEMMKIT_COMMIT", "unknown"),
               "date": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        with open(args.json, "a", encoding="utf-8") as f:
            for r in rows:
                f.write(json.dumps({**r, **run}) + "\n")


def host_cpu():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor()


if __name__ == "__main__":
    main()
