#!/usr/bin/env python3
"""Issue 51's benchmark: dgemm_ on host arrays (what numpy.dot hands its BLAS), gemmkit's BLAS
drop-in (libgemmkit_blas.so.0) against OpenBLAS on all cores and NVBLAS with its best tile, side
by side in one run.

Each contender is one process of bench/blas/dgemm_host (a C program that links no BLAS and calls
whatever dgemm_ the loader gives it, on malloc'd, pageable arrays), with the contender's library
preloaded:

  openblas      LD_PRELOAD=<OpenBLAS .so>, OPENBLAS_NUM_THREADS = every CPU of this process,
                OPENBLAS_CORETYPE as bench/device.sh picks it (src/cpu/cpu_blas.hpp's hint) unless set
  gemmkit       LD_PRELOAD=libgemmkit_blas.so.0 with GEMMKIT_BLAS_TRACE: the route it took per size
                (cpu, gpu, host-resident, forward) and its variant go into the rows;
                GEMMKIT_BLAS_CPU_LIB = the same OpenBLAS; --gemmkit-env adds settings
  nvblas_tileT  LD_PRELOAD=libnvblas.so with a generated nvblas.conf per tile T (--nvblas-tiles,
                default 2048 and 8192): NVBLAS_CPU_BLAS_LIB = the same OpenBLAS (checked: the
                OpenBLAS the process loaded is that file), one GPU (as gemmkit's default), autopin
                on, trace log on (its gpu/cpu decision per call goes into the rows)

Rows (JSON lines, DESIGN.md's keys; suite "blas"): one per size and contender (key "contender",
peer null), and gemmkit's rows once more per peer, peer "nvblas" (the best tile, named in
peer_variant and peer_tile) and peer "openblas", with the ratio gemmkit / peer. Sizes whose three
matrices would need more than --mem-fraction of the host's memory are skipped, and so is a size
one contender would need more than --max-call-seconds per call for (predicted from its rate at the
size before). A table for people is printed at the end.

Without a GPU (no nvidia-smi, or --cpu-only) only openblas and gemmkit run, at small sizes: the
drop-in then stays on the CPU and its rows show route "cpu" (--contenders with nvblas adds NVBLAS,
which then runs every call on its CPU BLAS: a check of the plumbing, not a peer).

--crossover (suite "blas-crossover", bench/results/<device>/blas-crossover.jsonl): from which size
gemmkit's host-resident GPU pipeline beats OpenBLAS on all cores, for three families of shapes:
squares (n = 256 .. 3072), rank-k updates m = n = 8192 with k = 16 .. 1024 (ScaLAPACK's PDGEMM
calls local dgemm with k = its block size, 32: C crosses PCIe for little work) and a thin C,
m = k = 8192 with n = 32 .. 1024. Two contenders: gemmkit_gpu, the drop-in with
GEMMKIT_BLAS_CROSSOVER=0 (every call on the pipeline; with a GPU, a row whose traced route is not
host-resident is an error; its rows say pageable: true, malloc'd operands, and the
GEMMKIT_BLAS_HOST_MEMORY setting), and openblas. Rows: one per shape and contender, plus
gemmkit_gpu's once more with peer "openblas" and the ratio; each carries family, family_size (the
dimension that varies) and family_big, and the peer rows crossover_from: the smallest size of the
family from which the ratio stays > 1. The table ends with that summary. Adaptive reps as above,
but 0.5 s of timed work, 3 .. 30 reps and 2 warm-ups per shape (the first pays the GPU's start):
about a minute on the H200. Without a GPU (or --quick) the shapes shrink (BIG = 1024, squares to
768), gemmkit_gpu runs on the CPU (route cpu) and the table says so: a check of the plumbing.

Every contender's stderr, raw dgemm_host lines, NVBLAS confs and logs and gemmkit's trace are kept
in --work-dir. Exit status 1 when a run failed, a row is an error or a check failed.

    bench/blas/blas_bench.py                                  # GPU: 1024 .. 32768; else CPU-only
    bench/blas/blas_bench.py --cpu-only --json /tmp/blas.jsonl
    bench/blas/blas_bench.py --sizes 8192 16384 --contenders gemmkit,nvblas --nvblas-tiles 8192
    bench/blas/blas_bench.py --crossover                      # GPU: the full shapes; else --quick's
    bench/blas/blas_bench.py --crossover --crossover-ks 32 --crossover-big 16384

Python 3 standard library only. The device run is bench/device/blas.sh.
"""

import argparse
import datetime
import json
import math
import os
import pathlib
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import threading
import time

REPO = pathlib.Path(__file__).resolve().parents[2]
SOURCE = pathlib.Path(__file__).resolve().parent / "dgemm_host.c"
GPU_SIZES = [256, 512, 1024, 2048, 4096, 8192, 16384, 32768]
CPU_SIZES = [512, 1024, 2048]
# --crossover: where the GPU pipeline starts to beat OpenBLAS. Families: squares; rank-k updates
# m = n = BIG, k varied (ScaLAPACK's PDGEMM calls local dgemm with k = its block size, 32); and a
# thin C, m = k = BIG, n varied. --quick (the default without a GPU) scales them down.
CROSSOVER_SHAPES = {"big": 8192, "squares": [256, 384, 512, 768, 1024, 1536, 2048, 3072],
                    "ks": [16, 32, 64, 128, 256, 512, 1024], "ns": [32, 64, 128, 256, 512, 1024]}
QUICK_SHAPES = {"big": 1024, "squares": [128, 192, 256, 384, 512, 768], "ks": [16, 32, 64, 128, 256],
                "ns": [32, 64, 128, 256]}
# family -> (the dimension that varies, a label with BIG for the fixed ones)
FAMILIES = {"square": ("n", "squares, m = n = k"), "rank_k": ("k", "rank-k update, m = n = {big}"),
            "thin_c": ("n", "thin C, m = k = {big}")}
OPENBLAS_CANDIDATES = [
    REPO / ".deps/openblas/lib/libopenblas.so.0",
    pathlib.Path("/usr/lib/x86_64-linux-gnu/openblas-pthread/libopenblas.so.0"),
    pathlib.Path("/usr/lib/x86_64-linux-gnu/libopenblas.so.0"),
    pathlib.Path("/usr/lib64/libopenblas.so.0"),
]
BUILD_DIRS = ["build-device", "build", "build-cpu", "build-blas", "build-blasbench"]
NVBLAS_TRACE = re.compile(r"\[NVBLAS\] ([sd])gemm\[(gpu|cpu)\]: ta=(\w), tb=(\w), m=(\d+), n=(\d+), k=(\d+)")


def say(text):
    print(f"blas_bench: {text}", flush=True)


def now_iso():
    return datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")


# --- where it runs: GPU or CPU, commit, memory -------------------------------------------------------

def command_output(args, timeout=20):
    try:
        done = subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.SubprocessError):
        return None
    return done.stdout if done.returncode == 0 else None


def cpuinfo_field(key):
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            name, _, value = line.partition(":")
            if name.strip() == key:
                return value.strip()
    except OSError:
        pass
    return ""


def cpu_flags():
    return set((cpuinfo_field("flags") + " " + cpuinfo_field("Features")).split())


def cpu_isa(flags):
    for flag, isa in (("avx512f", "avx512"), ("avx2", "avx2"), ("avx", "avx"), ("sve", "sve"), ("asimd", "neon"),
                      ("sse2", "sse")):
        if flag in flags:
            return isa
    return "scalar"


def physical_cores():
    cores, physical = set(), "0"
    try:
        for line in pathlib.Path("/proc/cpuinfo").read_text().splitlines():
            name, _, value = line.partition(":")
            if name.strip() == "physical id":
                physical = value.strip()
            elif name.strip() == "core id":
                cores.add((physical, value.strip()))
    except OSError:
        pass
    return len(cores)


def short_device_name(name):
    """tools/gemmkit-bench/machine_info.cpp's short_device_name: h100, h200, ... or a slug."""
    for gpu in ("H100", "H200", "H20", "GH200", "B200", "A100", "L40S", "L4"):
        at = name.find(gpu)
        if at >= 0 and (at + len(gpu) == len(name) or not name[at + len(gpu)].isalnum()):
            return gpu.lower()
    cleaned = name.split("@")[0]
    for noise in ("(R)", "(r)", "(TM)", "(tm)", "NVIDIA"):
        cleaned = cleaned.replace(noise, " ")
    words = [w.lower() for w in re.split(r"[^A-Za-z0-9]+", cleaned) if w and w.lower() not in ("cpu", "processor")]
    return "-".join(words) or "unknown"


def short_cpu_name(model, isa, cores):
    """machine_info.cpp's short_cpu_name: e.g. xeon-avx512-16c (the results folder of a CPU run)."""
    words = short_device_name(model).split("-")
    kept = [w for i, w in enumerate(words)
            if w not in ("intel", "amd", "core", "unknown") and not (w.isdigit() and i + 1 < len(words)
                                                                     and words[i + 1] == "core")]
    return f"{'-'.join(kept) or 'cpu'}-{isa}-{cores}c"


def gpu_info(index):
    """Name, clocks and driver of GPU `index` from nvidia-smi, or None without a GPU."""
    text = command_output(["nvidia-smi", f"--id={index}", "--query-gpu=name,driver_version,clocks.max.sm,"
                           "clocks.max.mem,clocks.sm,memory.total", "--format=csv,noheader,nounits"])
    if not text or not text.strip():
        return None
    fields = [f.strip() for f in text.strip().splitlines()[0].split(",")]
    if len(fields) < 6:
        return None
    banner = command_output(["nvidia-smi"]) or ""
    cuda = re.search(r"CUDA Version:\s*([\d.]+)", banner)

    def number(x):
        try:
            return int(float(x))
        except ValueError:
            return None
    return {"name": fields[0], "driver_version": fields[1], "sm_max_mhz": number(fields[2]),
            "mem_max_mhz": number(fields[3]), "memory_mib": number(fields[5]),
            "cuda_driver": cuda.group(1) if cuda else None}


def sm_clock_now(index):
    text = command_output(["nvidia-smi", f"--id={index}", "--query-gpu=clocks.sm", "--format=csv,noheader,nounits"])
    try:
        return int(float(text.strip().splitlines()[0]))
    except (AttributeError, ValueError, IndexError):
        return None


def find_commit():
    """As gemmkit-bench does: GEMMKIT_COMMIT when set (a copied tree's .git may be stale), then git."""
    env = os.environ.get("GEMMKIT_COMMIT", "")
    if env:
        return env, "env GEMMKIT_COMMIT"
    text = command_output(["git", "-C", str(REPO), "rev-parse", "--short", "HEAD"])
    if text and text.strip():
        return text.strip(), "git"
    return "unknown", "none"


def host_memory_bytes():
    try:
        for line in pathlib.Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    return None


def coretype_hint(flags):
    """bench/device.sh's OPENBLAS_CORETYPE: OpenBLAS 0.3.21's DYNAMIC_ARCH runs its SSE core on
    Xeons it does not know (src/cpu/cpu_blas.hpp); the CPU's flags name the core to ask for."""
    if "avx512_bf16" in flags:
        return "Cooperlake"
    if "avx512f" in flags:
        return "SkylakeX"
    if "avx2" in flags:
        return "Haswell"
    return None


# --- the contenders' libraries and the measuring program ------------------------------------------

def first_existing(paths):
    for p in paths:
        if p and pathlib.Path(p).is_file():
            return pathlib.Path(p)
    return None


def find_openblas(given):
    if given:
        return pathlib.Path(given).absolute()
    found = first_existing(OPENBLAS_CANDIDATES)
    if found:
        return found
    listing = command_output(["ldconfig", "-p"]) or ""
    match = re.search(r"libopenblas\.so\.0 .*=> (\S+)", listing)
    return pathlib.Path(match.group(1)) if match else None


def find_gemmkit_lib(given):
    if given:
        return pathlib.Path(given).absolute()
    return first_existing([REPO / b / "blas" / "libgemmkit_blas.so.0" for b in BUILD_DIRS])


def find_nvblas(given):
    if given:
        return pathlib.Path(given).absolute()
    homes = [os.environ.get("CUDA_HOME", ""), os.environ.get("CUDA_PATH", ""), "/usr/local/cuda"]
    return first_existing([pathlib.Path(h) / "lib64" / name for h in homes if h for name in ("libnvblas.so",
                                                                                            "libnvblas.so.13")])


def find_or_build_exe(given, work_dir):
    """--exe, else a dgemm_host that CMake built (add_subdirectory(bench/blas)) newer than its source,
    else one compiled here with cc (it needs only libc, libdl and libm)."""
    if given:
        return pathlib.Path(given)
    source_time = SOURCE.stat().st_mtime
    for b in BUILD_DIRS:
        exe = REPO / b / "bench" / "blas" / "dgemm_host"
        if exe.is_file() and exe.stat().st_mtime >= source_time:
            return exe
    exe = work_dir / "dgemm_host"
    compiler = os.environ.get("CC") or shutil.which("cc") or shutil.which("gcc")
    if not compiler:
        sys.exit("blas_bench: no dgemm_host built and no C compiler to build it (pass --exe)")
    command = [compiler, "-std=c11", "-O2", "-o", str(exe), str(SOURCE), "-ldl", "-lpthread", "-lm"]
    done = subprocess.run(command, capture_output=True, text=True)
    if done.returncode != 0:
        sys.exit(f"blas_bench: {' '.join(command)} failed:\n{done.stderr}")
    return exe


def real(path):
    return os.path.realpath(str(path)) if path else None


# --- one contender: a dgemm_host process ------------------------------------------------------------

class Contender:
    def __init__(self, name, kind, library, tile=None, role=None, env=None):
        self.name = name          # openblas, gemmkit, nvblas_tile2048, gemmkit_gpu, ...
        self.kind = kind          # openblas, gemmkit, nvblas
        self.role = role or kind  # the rows' "contender": the kind, or gemmkit_gpu (--crossover)
        self.library = library    # what LD_PRELOAD names
        self.tile = tile
        self.env = env or {}      # settings of this contender, applied last (gemmkit_gpu: the crossover 0)
        self.results = {}         # (m, n, k) -> dgemm_host's row, with "date"
        self.failure = None       # why the process ended early, if it did
        self.env_notes = {}       # the environment that defines the run, for the rows
        self.files = {}           # conf, log, trace
        self.sm_mhz_after_run = None


def contender_env(args, contender, work_dir, openblas, flags):
    env = dict(os.environ)
    env.pop("LD_PRELOAD", None)
    env["OPENBLAS_NUM_THREADS"] = str(args.threads)
    notes = {"OPENBLAS_NUM_THREADS": str(args.threads)}
    if "OPENBLAS_CORETYPE" not in env and coretype_hint(flags):
        env["OPENBLAS_CORETYPE"] = coretype_hint(flags)
    if env.get("OPENBLAS_CORETYPE"):
        notes["OPENBLAS_CORETYPE"] = env["OPENBLAS_CORETYPE"]
    # OpenBLAS's own runtime (libgfortran, libquadmath) sits beside it when staged (.deps/openblas/lib).
    env["LD_LIBRARY_PATH"] = os.pathsep.join(p for p in (str(openblas.parent), env.get("LD_LIBRARY_PATH", "")) if p)
    env["LD_PRELOAD"] = str(contender.library)
    if contender.kind == "gemmkit":
        trace = work_dir / ("gemmkit-blas-trace.jsonl" if contender.name == "gemmkit" else
                            f"{contender.name}-blas-trace.jsonl")
        trace.unlink(missing_ok=True)
        env["GEMMKIT_BLAS_TRACE"] = str(trace)
        contender.files["trace"] = trace
        # The routines gemmkit forwards go to the same OpenBLAS as the other contenders' CPU work.
        env["GEMMKIT_BLAS_CPU_LIB"] = str(openblas)
        notes["GEMMKIT_BLAS_CPU_LIB"] = str(openblas)
        for setting in args.gemmkit_env:
            key, _, value = setting.partition("=")
            env[key] = value
            notes[key] = value
        env.update(contender.env)
        notes.update(contender.env)
    elif contender.kind == "nvblas":
        conf = work_dir / f"nvblas-tile{contender.tile}.conf"
        log = work_dir / f"nvblas-tile{contender.tile}.log"
        log.unlink(missing_ok=True)
        lines = [f"NVBLAS_LOGFILE {log}", "NVBLAS_TRACE_LOG_ENABLED", f"NVBLAS_CPU_BLAS_LIB {openblas}",
                 f"NVBLAS_GPU_LIST {args.nvblas_gpus}", f"NVBLAS_TILE_DIM {contender.tile}"]
        if args.nvblas_autopin == "on":
            lines.append("NVBLAS_AUTOPIN_MEM_ENABLED")
        conf.write_text("# written by bench/blas/blas_bench.py\n" + "\n".join(lines) + "\n")
        env["NVBLAS_CONFIG_FILE"] = str(conf)
        contender.files.update(conf=conf, log=log)
        notes.update(NVBLAS_CPU_BLAS_LIB=str(openblas), NVBLAS_GPU_LIST=args.nvblas_gpus,
                     NVBLAS_TILE_DIM=str(contender.tile), NVBLAS_AUTOPIN_MEM_ENABLED=args.nvblas_autopin)
    contender.env_notes = notes
    return env


def is_square(shape):
    return shape[0] == shape[1] == shape[2]


def shape_text(shape):
    """n=1024 for a square, else 8192x8192x32 (m x n x k), as dgemm_host says it."""
    return f"n={shape[1]}" if is_square(shape) else "x".join(map(str, shape))


def run_contender(args, contender, exe, shapes, work_dir, openblas, flags, timeout):
    env = contender_env(args, contender, work_dir, openblas, flags)
    problems = (["--sizes", ",".join(str(s[1]) for s in shapes)] if all(map(is_square, shapes)) else
                ["--shapes", ",".join(":".join(map(str, s)) for s in shapes)])
    command = [str(exe)] + problems + [
        "--dtype", args.dtype, "--trans", args.trans, "--target-seconds", str(args.target_seconds),
        "--min-reps", str(args.min_reps), "--max-reps", str(args.max_reps),
        "--max-call-seconds", str(args.max_call_seconds)]
    if args.warmups != 1:
        command += ["--warmups", str(args.warmups)]
    if args.reps:
        command += ["--reps", str(args.reps)]
    if args.fresh_c:
        command.append("--fresh-c")
    shown = " ".join(f"{k}={v}" for k, v in env.items() if k in ("LD_PRELOAD", "NVBLAS_CONFIG_FILE",
                                                                 "GEMMKIT_BLAS_TRACE") or k in contender.env_notes)
    say(f"{contender.name}: {shown} {' '.join(command)}")
    log_path = work_dir / f"blas-{contender.name}.log"
    raw_path = work_dir / f"blas-{contender.name}.raw.jsonl"
    contender.files["stderr"] = log_path
    killed = threading.Event()
    with open(log_path, "w") as log, open(raw_path, "w") as raw:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, text=True, env=env)

        def stop():
            killed.set()
            process.kill()
        timer = threading.Timer(timeout, stop)
        timer.start()
        try:
            for line in process.stdout:
                raw.write(line)
                raw.flush()
                try:
                    result = json.loads(line)
                except json.JSONDecodeError:
                    continue
                result["date"] = now_iso()
                shape = (result.get("m", result["n"]), result["n"], result.get("k", result["n"]))
                contender.results[shape] = result
                if result.get("status") == "ok":
                    say(f"{contender.name}: {shape_text(shape)} {result['gflops']:.1f} GFLOP/s, median "
                        f"{result['seconds_median']:.4g} s of {result['reps']}, verified {result['verified']}")
                else:
                    say(f"{contender.name}: {shape_text(shape)} {result['status']}: {result.get('reason', '')}")
            process.wait()
        finally:
            timer.cancel()
    if killed.is_set():
        contender.failure = f"killed after {timeout:.0f} s (timeout)"
    elif process.returncode != 0:
        tail = log_path.read_text(errors="replace").strip().splitlines()[-3:]
        contender.failure = f"exit status {process.returncode}: {' | '.join(tail)}"
    if contender.failure:
        say(f"{contender.name}: {contender.failure}")


# --- what each library says it did ------------------------------------------------------------------

def routes_of_calls(calls):
    routes = sorted({c for c in calls if c})
    if not routes:
        return None
    return routes[0] if len(routes) == 1 else "mixed:" + "+".join(routes)


def gemmkit_trace(contender, dtype):
    """Per (m, n, k): the route and variant of the timed calls (the warm-ups come first)."""
    path = contender.files.get("trace")
    by_size = {}
    if not path or not path.is_file():
        return by_size
    for line in path.read_text(errors="replace").splitlines():
        try:
            call = json.loads(line)
        except json.JSONDecodeError:
            continue
        if f"{dtype}gemm" not in str(call.get("routine", "")):
            continue
        if all(isinstance(call.get(d), int) for d in "mnk"):
            by_size.setdefault((call["m"], call["n"], call["k"]), []).append(call)
    info = {}
    for n, calls in by_size.items():
        reps = contender.results.get(n, {}).get("reps") or max(len(calls) - 1, 1)
        timed = calls[-reps:]
        variants = [c.get("variant") for c in timed if c.get("variant")]
        ms = [c["ms"] for c in timed if isinstance(c.get("ms"), (int, float))]
        info[n] = {"route": routes_of_calls(c.get("route") for c in timed),
                   "status": routes_of_calls(c.get("status") for c in timed),
                   "route_warmup": calls[0].get("route"),
                   "variant": max(set(variants), key=variants.count) if variants else None,
                   "lib_ms": statistics.median(ms) if ms else None, "traced_calls": len(calls)}
    return info


def nvblas_log(contender, dtype):
    """Per (m, n, k): gpu or cpu, from NVBLAS's trace log; and the log's complaints."""
    path = contender.files.get("log")
    routes, problems = {}, []
    if not path or not path.is_file():
        return routes, ["no NVBLAS log written"]
    for line in path.read_text(errors="replace").splitlines():
        match = NVBLAS_TRACE.search(line)
        if match:
            if match.group(1) == dtype:
                routes.setdefault(tuple(int(match.group(g)) for g in (5, 6, 7)), []).append(match.group(2))
        elif re.search(r"Cannot|No Gpu|failed|No device|need to be provided|Problem parsing", line):
            problems.append(line.strip())
    return {n: routes_of_calls(r[1:] or r) for n, r in routes.items()}, problems


# --- rows ---------------------------------------------------------------------------------------------

def device_keys(machine, contender):
    gpu = machine["gpu"]
    if gpu:
        return {"device": gpu["name"], "device_short": short_device_name(gpu["name"]),
                "clocks": {"sm_max_mhz": gpu["sm_max_mhz"], "mem_max_mhz": gpu["mem_max_mhz"],
                           "sm_mhz_after_run": contender.sm_mhz_after_run},
                "driver": gpu["cuda_driver"], "driver_version": gpu["driver_version"]}
    mhz = cpuinfo_field("cpu MHz")
    return {"device": machine["cpu_model"], "device_short": machine["cpu_short"],
            "clocks": {"cpu_mhz": float(mhz) if mhz else None}, "driver": "none"}


def significant(value, digits=7):
    """Floats to 7 significant digits, as gemmkit-bench writes them."""
    if isinstance(value, float) and math.isfinite(value):
        return float(f"{value:.{digits}g}")
    if isinstance(value, dict):
        return {k: significant(v, digits) for k, v in value.items()}
    return value


def usable(row):
    return row["status"] == "ok" and isinstance(row.get("gflops"), (int, float))


def contender_row(args, machine, contender, shape, extra):
    """The row of one contender at (m, n, k) (peer keys empty: contender rows have no peer)."""
    m, n, k = shape
    result = contender.results.get(shape)
    row = {"suite": args.suite, "case": f"{m}x{n}x{k}_{args.trans}", "dtype": "f64" if args.dtype == "d" else "f32",
           "m": m, "n": n, "k": k, "batch": 1, "trans": args.trans, "contender": contender.role,
           "variant": contender.name, "route": None, "tile": contender.tile, "status": "ok", "reason": None,
           "gflops": None, "time_ms": None, "time_min_ms": None, "time_max_ms": None, "warmup_ms": None,
           "reps": None, "warmup": args.warmups, "peer": None, "peer_variant": None, "peer_tile": None,
           "peer_gflops": None, "peer_time_ms": None, "ratio": None, "verified": "skipped", "verify_error": None,
           "verify_threshold": None, "verify_samples": None}
    if shape in machine["skipped_shapes"]:
        row.update(status="skipped", reason=machine["skipped_shapes"][shape])
    elif result is None:
        row.update(status="error" if contender.failure else "skipped", reason=contender.failure or "not run")
    elif result.get("status") != "ok":
        row.update(status=result["status"], reason=result.get("reason"))
    else:
        row.update(gflops=2.0 * m * n * k / result["seconds_median"] * 1e-9, time_ms=result["seconds_median"] * 1e3,
                   time_min_ms=result["seconds_min"] * 1e3, time_max_ms=result["seconds_max"] * 1e3,
                   warmup_ms=result["warmup_seconds"] * 1e3, reps=result["reps"], verified=result["verified"],
                   verify_error=result["max_rel_err"], verify_threshold=result["err_threshold"],
                   verify_samples=result["samples"])
    row.update(extra)
    if result is not None and result.get("status") == "ok":
        row.update(provider=result.get("provider"), loaded_blas=result.get("loaded_blas"))
        # The call went through the library meant: dgemm_ came from it (LD_PRELOAD took).
        if real(result.get("provider")) != real(contender.library):
            row.update(status="error", reason=f"dgemm_ came from {result.get('provider')}, not {contender.library}")
    row.update({"memory": "pageable", "fresh_c": args.fresh_c, "library": str(contender.library),
                "env": contender.env_notes})
    row.update(device_keys(machine, contender))
    row.update({"host_cpu": machine["cpu_model"], "host_isa": machine["cpu_isa"],
                "host_threads": machine["host_threads"], "cpu_threads": args.threads,
                "cpu_blas": machine.get("cpu_blas"), "commit": machine["commit"],
                "commit_source": machine["commit_source"], "date": (result or {}).get("date") or now_iso()})
    return row


def extra_keys(args, machine, contender, shape, trace, nvlog, openblas):
    """What a contender's own account of the run adds: gemmkit's trace, NVBLAS's log."""
    result = contender.results.get(shape) or {}
    if contender.kind == "openblas":
        return {"route": "cpu"}
    if contender.kind == "gemmkit":
        info = trace.get(shape, {})
        keys = {"route": info.get("route"), "route_warmup": info.get("route_warmup"),
                "variant": info.get("variant") or contender.name, "lib_ms": info.get("lib_ms"),
                "trace_status": info.get("status"), "traced_calls": info.get("traced_calls", 0)}
        if contender.role == "gemmkit_gpu":
            # GEMMKIT_BLAS_CROSSOVER=0: with a GPU every call must take the pipeline, else the row
            # measures something else; without one, the drop-in's CPU path (route cpu).
            expected = "host-resident" if machine["gpu"] else "cpu"
            keys.update(gpu_present=machine["gpu"] is not None, expected_route=expected, pageable=True,
                        allocation="malloc (dgemm_host)",
                        host_memory_setting=contender.env_notes.get("GEMMKIT_BLAS_HOST_MEMORY", "auto"))
            if result.get("status") == "ok" and keys["route"] != expected:
                where = "a GPU present" if machine["gpu"] else "no GPU"
                keys.update(status="error", reason=f"the trace shows route {keys['route']} for the timed calls, "
                            f"not {expected} (GEMMKIT_BLAS_CROSSOVER=0, {where})")
        return keys
    routes, problems = nvlog
    # NVBLAS opens NVBLAS_CPU_BLAS_LIB itself: check that the OpenBLAS in the process is that one.
    openblases = [real(p) for p in result.get("loaded_blas") or [] if "openblas" in os.path.basename(p)]
    check = None
    if result.get("status") == "ok":
        check = ("loaded" if real(openblas) in openblases else
                 f"other: {', '.join(openblases)}" if openblases else "not loaded")
    keys = {"route": routes.get(shape), "nvblas_cpu_blas_lib": str(openblas), "nvblas_cpu_blas_check": check}
    if problems:
        keys["nvblas_log"] = problems[:3]
        if machine["gpu"] and result.get("status") == "ok":
            keys.update(status="error", reason="NVBLAS's log: " + " | ".join(problems[:3]))
    return keys


def build_rows(args, machine, contenders, entries, openblas, own_rows=False):
    """Per entry (shape, keys every row of it gets): the contenders' rows, then gemmkit's once per peer
    (OpenBLAS, then NVBLAS at its best tile: a plot.py that keeps the last row of a case shows gemmkit
    against NVBLAS). own_rows: gemmkit's peerless row too (--crossover)."""
    by_kind = {}
    for c in contenders:
        by_kind.setdefault(c.kind, []).append(c)
    traces = {c.name: gemmkit_trace(c, args.dtype) for c in by_kind.get("gemmkit", [])}
    nvlogs = {c.name: nvblas_log(c, args.dtype) for c in by_kind.get("nvblas", [])}
    rows, table = [], []
    for shape, keys in entries:
        measured = {}
        for c in contenders:
            extra = extra_keys(args, machine, c, shape, traces.get(c.name, {}), nvlogs.get(c.name), openblas)
            measured[c.name] = contender_row(args, machine, c, shape, dict(keys, **extra))
            if c.kind != "gemmkit" or own_rows:
                rows.append(measured[c.name])
        nv = [measured[c.name] for c in by_kind.get("nvblas", []) if usable(measured[c.name])]
        ob = [measured[c.name] for c in by_kind.get("openblas", []) if usable(measured[c.name])]
        peers = []
        if "openblas" in by_kind:
            peers.append(("openblas", ob[0] if ob else None))
        if "nvblas" in by_kind:
            peers.append(("nvblas", max(nv, key=lambda r: r["gflops"]) if nv else None))
        for c in by_kind.get("gemmkit", []):
            mine = measured[c.name]
            for peer, other in peers or [(None, None)]:
                row = dict(mine)
                if peer and other:
                    row.update(peer=peer, peer_variant=other["variant"], peer_tile=other["tile"],
                               peer_gflops=other["gflops"], peer_time_ms=other["time_ms"],
                               ratio=mine["gflops"] / other["gflops"] if usable(mine) else None,
                               peer_verified=other["verified"])
                elif peer:
                    row.update(peer=peer, peer_status="not measured at this size")
                if peer == "nvblas":
                    row["peer_tiles_gflops"] = {str(measured[x.name]["tile"]): measured[x.name]["gflops"]
                                                for x in by_kind["nvblas"]}
                rows.append(row)
        table.append((shape, measured))
    return rows, table


def cell(row):
    if row is None:
        return "-"
    if row["status"] != "ok":
        return row["status"]
    mark = "" if row.get("verified") is True else " FAIL"
    return f"{row['gflops']:.0f}{mark}" if row["gflops"] >= 100 else f"{row['gflops']:.1f}{mark}"


def print_table(args, machine, contenders, table):
    names = [c.name for c in contenders]
    gemmkit = [c.name for c in contenders if c.kind == "gemmkit"]
    nvblas = [c.name for c in contenders if c.kind == "nvblas"]
    openblas = [c.name for c in contenders if c.kind == "openblas"]
    where = machine["gpu"]["name"] if machine["gpu"] else machine["cpu_model"]
    print()
    print(f"{args.dtype}gemm_ {args.trans} on malloc'd host arrays, GFLOP/s (median), {where}, "
          f"{args.threads} CPU threads, commit {machine['commit']}")
    head = ["n"] + names + (["gk route"] if gemmkit else [])
    if gemmkit and nvblas:
        head.append("gk/nvblas best")
    if gemmkit and openblas:
        head.append("gk/openblas")
    lines = [head]
    for shape, measured in table:
        line = [str(shape[1]) if is_square(shape) else "x".join(map(str, shape))] + [cell(measured[name])
                                                                                     for name in names]
        if gemmkit:
            g = measured[gemmkit[0]]
            line.append(str(g.get("route") or "?"))
            ok = g["status"] == "ok"
            if nvblas:
                nv = [measured[x] for x in nvblas if measured[x]["status"] == "ok"]
                best = max(nv, key=lambda r: r["gflops"]) if nv else None
                line.append(f"{g['gflops'] / best['gflops']:.2f}x (t{best['tile']})" if ok and best else "-")
            if openblas:
                o = measured[openblas[0]]
                line.append(f"{g['gflops'] / o['gflops']:.2f}x" if ok and o["status"] == "ok" else "-")
        lines.append(line)
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    for line in lines:
        print("  ".join(text.rjust(w) for text, w in zip(line, widths)))
    for c in contenders:
        for shape, measured in table:
            row = measured[c.name]
            if row["status"] not in ("ok", "skipped"):
                print(f"  {c.name} {shape_text(shape)}: {row['status']}: {row.get('reason')}")
    if nvblas:
        checks = {measured[x].get("nvblas_cpu_blas_check") for _, measured in table for x in nvblas} - {None}
        lib = table[0][1][nvblas[0]].get("nvblas_cpu_blas_lib")
        if checks == {"loaded"}:
            print(f"  NVBLAS_CPU_BLAS_LIB {lib}: the OpenBLAS loaded in every NVBLAS run")
        else:
            print(f"  NVBLAS_CPU_BLAS_LIB {lib}: WARNING, in the NVBLAS runs: {sorted(checks) or 'never checked'}")
        routes = {x: sorted({measured[x].get("route") or "?" for _, measured in table if measured[x]["status"] == "ok"})
                  for x in nvblas}
        print("  NVBLAS's own route (its trace log): " + "; ".join(f"{x} {'/'.join(r)}" for x, r in routes.items()))


# --- the crossover mode -------------------------------------------------------------------------------

def crossover_entries(args, quick):
    """[(shape, keys)]: the families' shapes in order (squares, rank-k updates, thin C), each with the
    keys its rows get: family, family_size (the dimension that varies) and family_big."""
    base = QUICK_SHAPES if quick else CROSSOVER_SHAPES
    big = args.crossover_big or base["big"]
    lists = {"square": args.crossover_squares or base["squares"], "rank_k": args.crossover_ks or base["ks"],
             "thin_c": args.crossover_ns or base["ns"]}
    entries = []
    for family, sizes in lists.items():
        for size in sorted(set(sizes)):
            shape = {"square": (size, size, size), "rank_k": (big, big, size), "thin_c": (big, size, big)}[family]
            entries.append((shape, {"family": family, "family_dim": FAMILIES[family][0], "family_size": size,
                                    "family_big": None if family == "square" else big}))
    return entries, big


def crossover_from(points):
    """The smallest size from which the ratio stays > 1: points [(size, ratio or None)] by size; a
    size without a ratio (an error, a skip) counts as not > 1. None when the last is not > 1."""
    start = None
    for size, ratio in points:
        if ratio is not None and ratio > 1:
            start = size if start is None else start
        else:
            start = None
    return start


def crossover_summary(rows):
    """Per family: its points (size, ratio, row) and where the ratio stays > 1; the peer rows get
    crossover_from."""
    families = {}
    for row in rows:
        if row["contender"] == "gemmkit_gpu" and row.get("peer") == "openblas":
            both = row["status"] == "ok" and row.get("verified") is True and row.get("peer_verified") is True
            ratio = row["ratio"] if both else None
            families.setdefault(row["family"], []).append((row["family_size"], ratio, row))
    summary = {}
    for family, points in families.items():
        points.sort(key=lambda p: p[0])
        start = crossover_from([(size, ratio) for size, ratio, _ in points])
        for _, _, row in points:
            row["crossover_from"] = start
        summary[family] = {"points": points, "from": start}
    return summary


def print_crossover_table(args, machine, table, entries, summary, big):
    gpu = machine["gpu"]
    where = gpu["name"] if gpu else f"{machine['cpu_model']}, NO GPU"
    print()
    print(f"{args.dtype}gemm_ {args.trans} on malloc'd (pageable) host arrays, GFLOP/s (median): gemmkit's drop-in "
          f"with GEMMKIT_BLAS_CROSSOVER=0 (gemmkit_gpu) against OpenBLAS, {where}, {args.threads} CPU threads, "
          f"commit {machine['commit']}")
    if not gpu:
        print("  No GPU present: gemmkit_gpu ran on the CPU (route cpu, the drop-in's OpenBLAS path), so its ratio "
              "is the drop-in's overhead, not a GPU crossover.")
    head = ["family", "m", "n", "k", "openblas", "gemmkit_gpu", "route", "gk/openblas"]
    lines = [head]
    for (shape, keys), (_, measured) in zip(entries, table):
        g, o = measured["gemmkit_gpu"], measured["openblas"]
        ratio = (f"{g['gflops'] / o['gflops']:.2f}x" if usable(g) and usable(o) and g.get("verified") is True and
                 o.get("verified") is True else "-")
        lines.append([keys["family"], *map(str, shape), cell(o), cell(g), str(g.get("route") or "?"), ratio])
    widths = [max(len(line[i]) for line in lines) for i in range(len(head))]
    for line in lines:
        print("  ".join(text.rjust(w) if i else text.ljust(w) for i, (text, w) in enumerate(zip(line, widths))))
    for shape, measured in table:
        for name, row in measured.items():
            if row["status"] not in ("ok", "skipped") or row.get("verified") is False:
                print(f"  {name} {shape_text(shape)}: {row['status']}: {row.get('reason') or 'not verified'}")
    print()
    print("Crossover: the smallest size from which gemmkit_gpu / openblas stays > 1 (every larger size measured too)"
          + ("" if gpu else " -- NO GPU: gemmkit_gpu ran on the CPU"))
    lines = [["family", "varies", "from", "ratio there", "ratios by size"]]
    for family, (dim, label) in FAMILIES.items():
        if family not in summary:
            continue
        info = summary[family]
        at = {size: ratio for size, ratio, _ in info["points"]}
        never = "never" if any(r is not None for r in at.values()) else "no ratio"
        lines.append([label.format(big=big), dim, str(info["from"]) if info["from"] is not None else never,
                      f"{at[info['from']]:.2f}x" if info["from"] is not None else "-",
                      " ".join(f"{size}:{ratio:.2f}" if ratio is not None else f"{size}:-"
                               for size, ratio, _ in info["points"])])
    widths = [max(len(line[i]) for line in lines) for i in range(len(lines[0]))]
    for line in lines:
        print("  " + "  ".join(text.ljust(w) for text, w in zip(line, widths)).rstrip())


# --- main -------------------------------------------------------------------------------------------

def parse_args():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--sizes", type=int, nargs="+", help=f"n (m = n = k); default {GPU_SIZES} with a GPU, "
                        f"{CPU_SIZES} without (not with --crossover)")
    parser.add_argument("--crossover", action="store_true",
                        help="where the GPU pipeline beats OpenBLAS: gemmkit_gpu (the drop-in with "
                        "GEMMKIT_BLAS_CROSSOVER=0) against openblas over squares, rank-k updates and a thin C "
                        "(suite blas-crossover, bench/results/<device>/blas-crossover.jsonl)")
    parser.add_argument("--quick", action="store_true",
                        help=f"--crossover at small shapes {QUICK_SHAPES} (the default without a GPU; "
                        f"with one: {CROSSOVER_SHAPES})")
    parser.add_argument("--crossover-big", type=int, help="--crossover: the fixed large dimension (8192; quick 1024)")
    parser.add_argument("--crossover-squares", type=int, nargs="+", help="--crossover: the squares' n")
    parser.add_argument("--crossover-ks", type=int, nargs="+", help="--crossover: k of m = n = BIG")
    parser.add_argument("--crossover-ns", type=int, nargs="+", help="--crossover: n of m = k = BIG")
    parser.add_argument("--mode", choices=["auto", "gpu", "cpu-only"], default="auto",
                        help="auto: gpu when nvidia-smi lists a GPU")
    parser.add_argument("--cpu-only", action="store_const", const="cpu-only", dest="mode")
    parser.add_argument("--contenders", default=None,
                        help="comma list of openblas, gemmkit, nvblas (default: all three with a GPU, "
                        "openblas,gemmkit without)")
    parser.add_argument("--openblas", help="the OpenBLAS .so (default: .deps/openblas/lib/libopenblas.so.0, then "
                        "the system's)")
    parser.add_argument("--gemmkit-lib", help="libgemmkit_blas.so.0 (default: <build>/blas/ of build-device, "
                        "build, build-cpu)")
    parser.add_argument("--gemmkit-env", action="append", default=[], metavar="KEY=VALUE",
                        help="environment for the gemmkit run (e.g. GEMMKIT_BLAS_HOST_MEMORY=pinned); repeatable")
    parser.add_argument("--nvblas", help="libnvblas.so (default: $CUDA_HOME or /usr/local/cuda lib64)")
    parser.add_argument("--nvblas-tiles", default="2048,8192", help="NVBLAS_TILE_DIM values, one run each")
    parser.add_argument("--nvblas-gpus", default="auto",
                        help="NVBLAS_GPU_LIST (auto: one GPU, as gemmkit's default: ALL0 on a one-GPU host, else 0)")
    parser.add_argument("--nvblas-autopin", choices=["on", "off"], default="on")
    parser.add_argument("--exe", help="dgemm_host (default: a CMake-built one newer than its source, else "
                        "compiled with cc into --work-dir)")
    parser.add_argument("--json", help="rows to this file (default bench/results/<device>/blas.jsonl, "
                        "--crossover blas-crossover.jsonl)")
    parser.add_argument("--append", action="store_true", help="append to --json instead of replacing it")
    parser.add_argument("--work-dir", help="confs, logs, traces, dgemm_host's raw lines (default: blas-work/, "
                        "--crossover blas-crossover-work/, beside --json when given, else under $TMPDIR)")
    parser.add_argument("--dtype", choices=["d", "s"], default="d")
    parser.add_argument("--trans", choices=["nn", "nt", "tn", "tt"], default="nn")
    parser.add_argument("--threads", type=int, default=len(os.sched_getaffinity(0)),
                        help="OPENBLAS_NUM_THREADS (default: every CPU of this process)")
    parser.add_argument("--reps", type=int, default=0, help="timed calls per size (default: adaptive)")
    parser.add_argument("--target-seconds", type=float,
                        help="adaptive reps: timed work per size (3; --crossover 0.5)")
    parser.add_argument("--min-reps", type=int, help="(2; --crossover 3)")
    parser.add_argument("--max-reps", type=int, help="(10; --crossover 30)")
    parser.add_argument("--warmups", type=int, help="untimed calls per size, the last sets the adaptive reps "
                        "(1; --crossover 2: the first includes the GPU's start-up)")
    parser.add_argument("--max-call-seconds", type=float, default=40.0,
                        help="skip a size predicted to take longer per call (0: no limit)")
    parser.add_argument("--fresh-c", action="store_true", help="a new, untouched C per call, as numpy.dot")
    parser.add_argument("--mem-fraction", type=float, default=0.8,
                        help="skip sizes whose 3 matrices exceed this fraction of host memory")
    parser.add_argument("--timeout", type=float, default=600.0, help="seconds per contender process")
    parser.add_argument("--deadline", type=float, default=0.0,
                        help="seconds for the whole run (0: none); a contender gets what is left")
    args = parser.parse_args()
    if args.crossover and (args.sizes or args.contenders):
        parser.error("--crossover runs its own shapes (--crossover-squares/-ks/-ns/-big) and contenders "
                     "(gemmkit_gpu, openblas): not with --sizes or --contenders")
    if not args.crossover and (args.quick or args.crossover_big or args.crossover_squares or args.crossover_ks
                               or args.crossover_ns):
        parser.error("--quick and --crossover-* go with --crossover")
    # Per mode: the main mode's 3 s of timed work per size; the crossover's many shapes less each.
    defaults = ({"target_seconds": 0.5, "min_reps": 3, "max_reps": 30, "warmups": 2}
                if args.crossover else {"target_seconds": 3.0, "min_reps": 2, "max_reps": 10, "warmups": 1})
    for key, value in defaults.items():
        if getattr(args, key) is None:
            setattr(args, key, value)
    args.suite = "blas-crossover" if args.crossover else "blas"
    return args


def main():
    args = parse_args()
    started = time.monotonic()
    flags = cpu_flags()
    gpu_count = 0
    if args.mode != "cpu-only" and shutil.which("nvidia-smi"):
        gpu_count = sum(line.startswith("GPU ") for line in (command_output(["nvidia-smi", "-L"]) or "").splitlines())
    if args.nvblas_gpus == "auto":
        # One GPU, as gemmkit's drop-in uses by default (GEMMKIT_BLAS_GPUS). NVBLAS rejects a device
        # number it cannot see ("Problem parsing line"); ALL0 is its documented form and, with one
        # GPU, the same device.
        args.nvblas_gpus = "ALL0" if gpu_count <= 1 else "0"
    gpu_index = args.nvblas_gpus.split()[0] if args.nvblas_gpus.split()[0].isdigit() else "0"
    gpu = gpu_info(gpu_index) if gpu_count else None
    if args.mode == "gpu" and gpu is None:
        sys.exit("blas_bench: --mode gpu, but nvidia-smi lists no GPU")
    mode = "gpu" if gpu else "cpu-only"
    big = None
    if args.crossover:
        entries, big = crossover_entries(args, quick=args.quick or mode != "gpu")
        wanted = ["gemmkit_gpu", "openblas"]
    else:
        entries = [((n, n, n), {}) for n in args.sizes or (GPU_SIZES if mode == "gpu" else CPU_SIZES)]
        wanted = (args.contenders or ("openblas,gemmkit,nvblas" if mode == "gpu" else "openblas,gemmkit")).split(",")
    shapes = list(dict.fromkeys(shape for shape, _ in entries))  # each once, in order
    unknown = set(wanted) - {"openblas", "gemmkit", "nvblas", "gemmkit_gpu"}
    if unknown:
        sys.exit(f"blas_bench: unknown contenders {sorted(unknown)}")
    if mode == "cpu-only" and "nvblas" in wanted:
        say("no GPU: NVBLAS will run every call on its CPU BLAS (a check of the plumbing, not a peer)")

    cpu_model = cpuinfo_field("model name") or "unknown CPU"
    cores = physical_cores() or os.cpu_count() or 1
    commit, commit_source = find_commit()
    machine = {"gpu": gpu, "cpu_model": cpu_model, "cpu_isa": cpu_isa(flags), "host_threads": os.cpu_count(),
               "cpu_short": short_cpu_name(cpu_model, cpu_isa(flags), min(cores, os.cpu_count() or cores)),
               "commit": commit, "commit_source": commit_source, "skipped_shapes": {}}
    device_short = short_device_name(gpu["name"]) if gpu else machine["cpu_short"]
    json_path = (pathlib.Path(args.json) if args.json else
                 REPO / "bench" / "results" / device_short / f"{args.suite}.jsonl")
    # Confs, logs and traces: beside --json when given (the device step's $OUT), else a temporary
    # folder (not bench/results/, which holds rows only).
    work_dir = pathlib.Path(args.work_dir) if args.work_dir else (
        json_path.parent / f"{args.suite}-work" if args.json else
        pathlib.Path(tempfile.gettempdir()) / ("gemmkit-blas-crossover" if args.crossover else "gemmkit-blas-bench"))
    work_dir.mkdir(parents=True, exist_ok=True)
    json_path.parent.mkdir(parents=True, exist_ok=True)

    openblas = find_openblas(args.openblas)
    if openblas is None or not openblas.is_file():
        sys.exit(f"blas_bench: no OpenBLAS ({args.openblas or 'searched ' + ', '.join(map(str, OPENBLAS_CANDIDATES))}); "
                 "pass --openblas PATH (every contender needs it: NVBLAS's CPU BLAS, gemmkit's CPU path)")
    contenders = []
    for kind in wanted:
        if kind == "openblas":
            contenders.append(Contender("openblas", "openblas", openblas))
        elif kind in ("gemmkit", "gemmkit_gpu"):
            lib = find_gemmkit_lib(args.gemmkit_lib)
            if lib is None or not lib.is_file():
                sys.exit(f"blas_bench: no libgemmkit_blas.so.0 ({args.gemmkit_lib or 'under <build>/blas/ of ' + ', '.join(BUILD_DIRS)}): "
                         "build the blas target or pass --gemmkit-lib PATH")
            if kind == "gemmkit":
                contenders.append(Contender("gemmkit", "gemmkit", lib))
            else:  # the pipeline at every size: a crossover of 0 multiply-adds
                contenders.append(Contender("gemmkit_gpu", "gemmkit", lib, role="gemmkit_gpu",
                                            env={"GEMMKIT_BLAS_CROSSOVER": "0"}))
        elif kind == "nvblas":
            lib = find_nvblas(args.nvblas)
            if lib is None or not lib.is_file():
                sys.exit("blas_bench: no libnvblas.so (pass --nvblas PATH)")
            for tile in (int(t) for t in args.nvblas_tiles.split(",")):
                contenders.append(Contender(f"nvblas_tile{tile}", "nvblas", lib, tile))
    exe = find_or_build_exe(args.exe, work_dir)

    memory = host_memory_bytes()
    element = 8 if args.dtype == "d" else 4
    for shape in shapes:
        m, n, k = shape
        need = (m * k + k * n + m * n) * element
        if memory and need > args.mem_fraction * memory:
            machine["skipped_shapes"][shape] = (f"3 matrices of {need / 2**30:.1f} GiB exceed {args.mem_fraction:.0%} "
                                                f"of the host's {memory / 2**30:.1f} GiB")
            say(f"{shape_text(shape)} skipped: {machine['skipped_shapes'][shape]}")
    run_shapes = [s for s in shapes if s not in machine["skipped_shapes"]]
    where = f"{gpu['name']} (driver {gpu['driver_version']})" if gpu else f"{cpu_model}, no GPU"
    shown = ([s[1] for s in run_shapes] if all(map(is_square, run_shapes)) else
             ", ".join("x".join(map(str, s)) for s in run_shapes))
    say(f"{mode} mode{' --crossover' if args.crossover else ''} on {where}; {args.threads} CPU threads; OpenBLAS "
        f"{openblas}; {'sizes' if all(map(is_square, run_shapes)) else 'shapes (m x n x k)'} {shown}; "
        f"contenders {[c.name for c in contenders]}; dgemm_host {exe}; files in {work_dir}")

    # gemmkit first, so a deadline cuts the peers rather than the library under test; in the
    # crossover mode, where a ratio needs both, each contender gets an equal share of what is left.
    order = sorted(contenders, key=lambda c: {"gemmkit": 0, "nvblas": 1, "openblas": 2}[c.kind])
    for position, c in enumerate(order):
        timeout = args.timeout
        if args.deadline:
            left = args.deadline - (time.monotonic() - started)
            timeout = min(timeout, left / (len(order) - position) if args.crossover else left)
            if timeout < 5:
                c.failure = "not run: the run's --deadline was spent"
                say(f"{c.name}: {c.failure}")
                continue
        if run_shapes:
            run_contender(args, c, exe, run_shapes, work_dir, openblas, flags, timeout)
        if gpu:
            c.sm_mhz_after_run = sm_clock_now(gpu_index)

    # The CPU BLAS every contender falls back on: OpenBLAS's core as the openblas run reports it.
    for c in contenders:
        for result in c.results.values():
            if result.get("openblas_core"):
                machine["cpu_blas"] = f"OpenBLAS {result['openblas_core']} ({result.get('openblas_config')})"
                break
        if machine.get("cpu_blas"):
            break

    rows, table = build_rows(args, machine, contenders, entries, openblas, own_rows=args.crossover)
    summary = crossover_summary(rows) if args.crossover else None
    with open(json_path, "a" if args.append else "w") as out:
        for row in rows:
            out.write(json.dumps(significant(row)) + "\n")
    if args.crossover:
        print_crossover_table(args, machine, table, entries, summary, big)
    else:
        print_table(args, machine, contenders, table)
    say(f"{len(rows)} rows written to {json_path}")
    bad = [r for r in rows if r["status"] == "error" or r.get("verified") is False]
    return 1 if bad or any(c.failure for c in contenders) else 0


if __name__ == "__main__":
    sys.exit(main())
