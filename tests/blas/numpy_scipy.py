"""numpy and scipy on the BLAS drop-in (run under LD_PRELOAD, or with the drop-in as libblas.so.3).

numpy.dot of float64 and float32 matrices in C and Fortran order and as transposed views, checked
exactly on integer-valued data and within (k+3) eps against a longdouble product on random data;
scipy.linalg.blas.dgemm (the Fortran dgemm_), and scipy.linalg.solve (LAPACK, which reaches the CPU
BLAS through the forwarded routines). The trace (gemmkit_blas_traced_run) shows that the calls went
through the drop-in; this script checks that the drop-in is mapped into the process and, with
--replaced, that the system's libblas.so.3 is not.

  numpy_scipy.py [--replaced] [--large N]
    --replaced  the drop-in was found as libblas.so.3 (LD_LIBRARY_PATH): no other libblas.so.3 loaded
    --large N   also an N x N x N product in float64 and float32, checked by a random projection
                (for the GPU form: large enough to be worth the GPU)
"""
import argparse
import glob
import os
import subprocess
import sys

import numpy as np
import scipy.linalg
import scipy.linalg.blas

failures = []


def check(condition, message):
    if not condition:
        failures.append(message)
        print("FAIL " + message)


def mapped_files():
    paths = set()
    with open("/proc/self/maps") as maps:
        for line in maps:
            fields = line.split(None, 5)
            if len(fields) == 6 and fields[5].startswith("/"):
                paths.add(fields[5].strip())
    return paths


def within_eps(got, a, b, eps, what):
    """got against a @ b in long double: |got - ref| <= (k+3) eps (|a| @ |b|) elementwise."""
    k = a.shape[1]
    ref = np.asarray(a, dtype=np.longdouble) @ np.asarray(b, dtype=np.longdouble)
    bound = (k + 3) * eps * (np.abs(np.asarray(a, dtype=np.longdouble)) @ np.abs(np.asarray(b, dtype=np.longdouble)))
    error = np.abs(np.asarray(got, dtype=np.longdouble) - ref)
    bad = int(np.count_nonzero(~(error <= bound + np.finfo(np.float64).tiny)))
    check(bad == 0, f"{what}: {bad} elements off, worst error {float(np.max(error)):.3g} "
                    f"(bound {float(np.max(bound)):.3g})")


def exact(got, a, b, what):
    """Integer-valued data: every correct GEMM is exact, compare with int64 arithmetic (no BLAS)."""
    ref = a.astype(np.int64) @ b.astype(np.int64)
    bad = int(np.count_nonzero(got != ref))
    check(bad == 0, f"{what}: {bad} elements differ from the exact product")


def numpy_uses_a_shared_blas():
    """Whether numpy's core reaches its BLAS through libblas.so.3 / libcblas.so.3 (Debian's numpy), which a
    drop-in can replace, rather than through a BLAS of its own with renamed symbols (the wheels'
    scipy-openblas), whose calls no BLAS library can take."""
    core = os.path.dirname(np.core.__file__) if hasattr(np, "core") else os.path.dirname(np.__file__)
    for extension in glob.glob(os.path.join(core, "_multiarray_umath*.so")):
        needed = subprocess.run(["ldd", extension], capture_output=True, text=True).stdout
        if "libblas.so.3" in needed or "libcblas.so.3" in needed:
            return True
    return False


def main():
    if not numpy_uses_a_shared_blas():
        print("SKIP numpy does not load libblas.so.3 or libcblas.so.3 (a wheel with its own BLAS): nothing to replace")
        sys.exit(77)
    parser = argparse.ArgumentParser()
    parser.add_argument("--replaced", action="store_true")
    parser.add_argument("--large", type=int, default=0)
    args = parser.parse_args()
    rng = np.random.default_rng(20261129)

    files = mapped_files()
    ours = [p for p in files if "libgemmkit_blas" in p]
    check(len(ours) > 0, "libgemmkit_blas is not mapped into the process: numpy is not using the drop-in")
    if args.replaced:
        others = [p for p in files if p.endswith("libblas.so.3") or p.endswith("libcblas.so.3")]
        check(not others, f"another libblas.so.3 is loaded besides the drop-in: {others}")
    print("drop-in mapped:", ", ".join(sorted(ours)) or "no")
    print("numpy", np.__version__, "scipy", scipy.__version__)

    # float64 and float32, C and Fortran order, transposed views (numpy passes them as transposes).
    shapes = [(200, 150, 170), (65, 1, 33), (1, 64, 100), (128, 96, 257)]
    for dtype, eps in ((np.float64, np.finfo(np.float64).eps), (np.float32, np.finfo(np.float32).eps)):
        name = np.dtype(dtype).name
        for m, n, k in shapes:
            for order_a in "CF":
                for order_b in "CF":
                    ai = rng.integers(-8, 9, size=(m, k))
                    bi = rng.integers(-8, 9, size=(k, n))
                    a = np.array(ai, dtype=dtype, order=order_a)
                    b = np.array(bi, dtype=dtype, order=order_b)
                    exact(np.dot(a, b), ai, bi, f"numpy.dot {name} {m}x{k} ({order_a}) . {k}x{n} ({order_b})")
                    ar = np.array(rng.uniform(-1, 1, size=(m, k)), dtype=dtype, order=order_a)
                    br = np.array(rng.uniform(-1, 1, size=(k, n)), dtype=dtype, order=order_b)
                    within_eps(ar @ br, ar, br, eps, f"{name} {m}x{k} ({order_a}) @ {k}x{n} ({order_b})")
            at = np.array(rng.uniform(-1, 1, size=(k, m)), dtype=dtype)
            bt = np.array(rng.uniform(-1, 1, size=(n, k)), dtype=dtype)
            within_eps(at.T @ bt.T, at.T, bt.T, eps, f"{name} transposed views {m}x{k} @ {k}x{n}")

    # scipy's Fortran BLAS: dgemm_ with alpha, beta and transposes.
    a = np.asfortranarray(rng.uniform(-1, 1, size=(90, 70)))
    b = np.asfortranarray(rng.uniform(-1, 1, size=(80, 70)))
    c = np.asfortranarray(rng.uniform(-1, 1, size=(90, 80)))
    got = scipy.linalg.blas.dgemm(1.5, a, b, beta=-0.5, c=c.copy(order="F"), trans_b=1)
    ref = 1.5 * (a.astype(np.longdouble) @ b.T.astype(np.longdouble)) - 0.5 * c.astype(np.longdouble)
    bound = 73 * np.finfo(np.float64).eps * (1.5 * np.abs(a) @ np.abs(b.T) + 0.5 * np.abs(c))
    check(bool(np.all(np.abs(got - ref) <= bound)), "scipy.linalg.blas.dgemm(1.5, a, b^T, -0.5, c) is off")
    got = scipy.linalg.blas.sgemm(2.0, np.asfortranarray(a.T, dtype=np.float32), np.asfortranarray(b, dtype=np.float32),
                                  trans_a=1, trans_b=1)
    ref = 2.0 * (a.astype(np.float32).astype(np.longdouble) @ b.T.astype(np.float32).astype(np.longdouble))
    bound = 73 * np.finfo(np.float32).eps * 2.0 * (np.abs(a) @ np.abs(b.T))
    check(bool(np.all(np.abs(got - ref) <= bound)), "scipy.linalg.blas.sgemm(2, (a^T)^T, b^T) is off")

    # LAPACK (liblapack.so.3 on the CPU BLAS): solve a well-conditioned system, check the residual.
    n = 300
    m_ = rng.uniform(-1, 1, size=(n, n)) + n * np.eye(n)
    rhs = rng.uniform(-1, 1, size=(n, 4))
    x = scipy.linalg.solve(m_, rhs)
    residual = np.max(np.abs(m_ @ x - rhs)) / (np.max(np.abs(m_)) * np.max(np.abs(x)) * n)
    check(residual < 10 * np.finfo(np.float64).eps, f"scipy.linalg.solve: residual {residual:.3g}")
    # A product LAPACK's result feeds into (numpy again) stays consistent.
    check(bool(np.allclose(m_ @ x, rhs, rtol=0, atol=1e-10)), "solve: m @ x != rhs")

    # Large: a random projection, O(n^2): C x against A (B x) in long double, within eps |A| (|B| |x|).
    # The projection averages the elements' errors: a correct GEMM of either precision stays far inside
    # (OpenBLAS's sgemm at n = 2048: 0.005 of it; plain sequential fp32 sums about 0.01), while inputs
    # rounded to TF32 (10-bit mantissa) land about 5x outside: a GPU path must keep full precision.
    if args.large > 0:
        n = args.large
        for dtype in (np.float64, np.float32):
            eps = np.finfo(dtype).eps
            a = rng.uniform(-1, 1, size=(n, n)).astype(dtype)
            b = rng.uniform(-1, 1, size=(n, n)).astype(dtype)
            got = a @ b
            x = rng.uniform(-1, 1, size=n)
            lhs = got.astype(np.longdouble) @ x.astype(np.longdouble)
            rhs_ = a.astype(np.longdouble) @ (b.astype(np.longdouble) @ x.astype(np.longdouble))
            bound = eps * (np.abs(a).astype(np.float64) @ (np.abs(b).astype(np.float64) @ np.abs(x)))
            ratio = float(np.max(np.abs(lhs - rhs_) / bound))
            print(f"{np.dtype(dtype).name} {n}^3: |C x - A (B x)| is {ratio:.3g} of eps |A| (|B| |x|) at most")
            check(ratio <= 1, f"{np.dtype(dtype).name} {n}x{n}x{n}: C x differs from A (B x) by {ratio:.3g} "
                              f"eps |A| (|B| |x|) (reduced precision?)")
            check(bool(np.all(np.isfinite(got))), f"{np.dtype(dtype).name} {n}^3: non-finite elements")

    print(f"{len(failures)} failures")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
