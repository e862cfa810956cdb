# shellcheck shell=bash
# A step of bench/device.sh, sourced by it: out, build, bench_bin, gpu_tests, status, stage, want
# and build_cpu_only come from there.
# python (not a default step): the Python package's tests with the GPU (device arrays through gemmkit's own
# buffers and DLPack, torch's tensors where the image has torch), then `python -m gemmkit.bench` (host
# squares at 8192 and 16384 and 1 GiB stacks against numpy.matmul, device stacks against cuBLAS, the
# Python layer's cost per call): $out/python.jsonl. The interpreter is the one CMake built the package for;
# a call that narrows GEMMKIT_BUILD_TARGETS names _gemmkit among them.
python_bin="$(sed -n 's/^GEMMKIT_PYTHON_EXECUTABLE:INTERNAL=//p' "$build/CMakeCache.txt" | head -1)"
if [[ -z "$python_bin" || ! -f "$build/python/gemmkit/__init__.py" ]]; then
  stage "python: no package in $build (no Python 3 with pybind11 and numpy at configure time)"
  status=1
else
  stage "Python package: pytest with $python_bin, then python -m gemmkit.bench"
  PYTHONPATH="$build/python" "$python_bin" -m pytest -q -p no:cacheprovider tests/python \
    > "$out/python-tests.log" 2>&1 || status=1
  tail -3 "$out/python-tests.log"
  PYTHONPATH="$build/python" GEMMKIT_COMMIT="$GEMMKIT_COMMIT" "$python_bin" -m gemmkit.bench \
    --sizes "${GEMMKIT_PYTHON_SIZES:-8192,16384}" --json "$out/python.jsonl" > "$out/python-bench.log" 2>&1 || status=1
  cat "$out/python-bench.log"
fi
