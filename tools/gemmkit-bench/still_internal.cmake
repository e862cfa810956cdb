# The files of gemmkit-bench that still include gemmkit's internal headers (issue 50: the CLI is a
# client of include/gemmkit/), with what each still reaches for. Only these are compiled with the
# layers' include folders (CMakeLists.txt), and layers.tools_use_public_headers fails when another
# file includes an internal header or a listed one no longer does: the list may only shrink.
set(GEMMKIT_BENCH_STILL_INTERNAL
  batched_cpu_tune.cpp    # sweeps the CPU small blockings: candidates are not registered variants yet
  batched_tune.cpp        # sweeps the GPU small-batched candidates: not registered variants yet
  ladder.cpp              # the ladder steps' compiled resources and the SIMT model; `model --measured`'s ranking check
  micro.cpp               # the device micro-benchmarks
  ooc_bench.cpp           # the host-resident executor's phases and the CPU share
  overhead.cpp            # driver pointer queries and scale_c, timed on their own
)
