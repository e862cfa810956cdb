#!/usr/bin/env python3
"""Plots gemmkit-bench JSON lines and prints the README's performance table.

Reads bench/results/<device>/<suite>.jsonl (paths, or folders searched for *.jsonl; default
bench/results) and writes, next to each file, PNGs of GFLOP/s against problem size: one line per
gemmkit variant and per peer, with the ratio gemmkit / peer below. When a file holds several runs
of the same case (files are appended to), the last row wins. ooc-timeline*.jsonl files (the
host-resident pipeline's operations, `gemmkit-bench ooc --timeline`) are drawn as lanes against
time instead, one colour per operation, one PNG per case. The other ooc*.jsonl files (host-resident
GEMM, `gemmkit-bench ooc`) give, per size n, grouped bars of TFLOP/s (ooc_n<N>.png): one group per
memory kind and device budget, gemmkit's pipeline levels, its CPU share and cuBLASXt side by side,
forced tiles in a group of their own, in-core cuBLAS as a dashed line; where the file holds several
GPU counts, also TFLOP/s against the GPU count with the ideal line (ooc_scaling_n<N>.png). micro*.jsonl
files (`gemmkit-bench micro`) give seed 001's Fig. 2 again: copy bandwidth against offset, one line
per access width. ladder*.jsonl (`gemmkit-bench ladder`) gives seed 001's Fig. 5/11 style: GFLOP/s per
ladder step, one line per size, cuBLAS per size as a dashed line and the model's bound as open
markers. blas*.jsonl (bench/blas/blas_bench.py: dgemm_ on host arrays through the BLAS drop-in, NVBLAS
and OpenBLAS; the crossover sweep per family of shapes) give GFLOP/s per contender and the ratios below;
scalapack*.jsonl (bench/scalapack/device.sh) grouped bars per PDGEMM case. sass*.jsonl (instruction
mixes, no GFLOP/s) are not drawn.

    bench/plot.py bench/results                     # PNGs next to every .jsonl
    bench/plot.py --readme-table                    # README's summary table on stdout, no PNGs
    bench/plot.py --update-readme README.md         # ... written between README's perf-table markers
    bench/plot.py --doc-table dgemm                 # one docs/perf-<area>.md page's table on stdout
    bench/plot.py --update-doc docs/perf-*.md       # ... written between each page's table markers

Areas of --doc-table: dgemm (dgemm, sgemm, ladder, overhead), batched-gpu, batched-cpu,
host-resident (ooc), micro. Tables read bench/results/<device>/<suite>.jsonl, the latest run of
each suite per device. PNGs are written as 256-colour palette images (Pillow, which matplotlib
brings) to keep bench/results small.

matplotlib is imported only when PNGs are drawn, so the table works without it.
"""

import argparse
import fractions
import json
import math
import os
import pathlib
import re
import sys

README_BEGIN = "<!-- perf-table:begin -->"
README_END = "<!-- perf-table:end -->"
DOC_BEGIN = "<!-- table:begin -->"
DOC_END = "<!-- table:end -->"


def find_files(paths):
    files = []
    for p in paths:
        path = pathlib.Path(p)
        if path.is_dir():
            files.extend(sorted(path.rglob("*.jsonl")))
        elif path.is_file():
            files.append(path)
        else:
            sys.exit(f"plot.py: no such file or folder: {p}")
    return files


def json_lines(path):
    """The rows of a JSON-lines file, blank lines skipped; a line that is not JSON stops the run."""
    with open(path, encoding="utf-8") as f:
        for number, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                yield json.loads(line)
            except json.JSONDecodeError as e:
                sys.exit(f"plot.py: {path}:{number}: not JSON ({e})")


def read_rows(path):
    """Measured rows of one file, the last run of each case kept (in first-seen order)."""
    latest = {}
    for row in json_lines(path):
        if row.get("status", "ok") != "ok" or not is_number(row.get("gflops")):
            continue
        latest[row_key(row)] = row
    return list(latest.values())


def read_overhead_rows(path):
    """Rows of `gemmkit-bench overhead` (host time per call; no GFLOP/s), the last run of each case kept."""
    latest = {}
    for row in json_lines(path):
        if row.get("suite") == "overhead" and row.get("status", "ok") == "ok" and is_number(row.get("host_us")):
            latest[(row.get("case"), row.get("n"))] = row
    return list(latest.values())


def row_key(row):
    # A forced variant is its own line; table-selected rows form one "gemmkit" line whatever the id.
    who = row.get("variant") if row.get("variant_forced") else "selected"
    # Batched rows also differ by thread count and beta.
    return (row.get("section", ""), row.get("dtype"), row.get("case"), who, row.get("backend", ""),
            row.get("threads"), row.get("beta"))


def is_number(x):
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


def device_of(path, row):
    # bench/results/<device>/<suite>.jsonl names the device; else the row's short name.
    parent = pathlib.Path(path).resolve().parent
    if parent.parent.name == "results":
        return parent.name
    return row.get("device_short") or row.get("device") or "?"


def verified_text(row):
    v = row.get("verified")
    if v is True:
        sampled = is_number(row.get("verify_columns")) and row["verify_columns"] < row.get("n", 0)
        return "yes (sampled columns)" if sampled else "yes"
    if v is False:
        return "**FAILED**"
    return "not checked"


def gflops_text(x):
    if not is_number(x):
        return "-"
    return f"{x:.0f}" if x >= 100 else f"{x:.1f}"


def case_suffix(row):
    """What tells batched rows of one case apart in the table: the CPU's thread count."""
    return f" ({row['threads']} thr)" if is_batched(row) and is_number(row.get("threads")) else ""


def replace_between(path, begin_marker, end_marker, table):
    """Writes `table` between the two markers of the file at `path`."""
    text = pathlib.Path(path).read_text(encoding="utf-8")
    begin, end = text.find(begin_marker), text.find(end_marker)
    if begin < 0 or end < begin:
        sys.exit(f"plot.py: {path} has no {begin_marker} ... {end_marker} markers")
    text = text[: begin + len(begin_marker)] + "\n" + table + "\n" + text[end:]
    pathlib.Path(path).write_text(text, encoding="utf-8")


def update_readme(readme, table):
    replace_between(readme, README_BEGIN, README_END, table)


def import_pyplot():
    """matplotlib.pyplot with a file-only backend; re-runs under /usr/bin/python3 (Debian's
    python3-matplotlib) when this interpreter lacks it."""
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt

        return plt
    except ImportError:
        system = "/usr/bin/python3"
        if os.path.realpath(sys.executable) != os.path.realpath(system) and os.path.exists(system) \
                and not os.environ.get("GEMMKIT_PLOT_REEXEC"):
            print(f"plot.py: no matplotlib in {sys.executable}; running again with {system}", file=sys.stderr)
            os.environ["GEMMKIT_PLOT_REEXEC"] = "1"
            os.execv(system, [system, os.path.abspath(__file__)] + sys.argv[1:])
        sys.exit("plot.py: drawing needs matplotlib (apt-get install python3-matplotlib); "
                 "--readme-table works without it")


def size_of(row):
    return (row["m"] * row["n"] * row["k"]) ** (1.0 / 3.0)


def png_beside(path, suffix):
    """The PNG named after the data file `path`, with `suffix` added to its stem."""
    return pathlib.Path(path).with_name(pathlib.Path(path).stem + suffix + ".png")


def save_figure(plt, fig, out):
    """Lays the figure out, writes it to `out` and closes it; returns `out`."""
    fig.tight_layout()
    fig.savefig(out, dpi=72)
    plt.close(fig)
    palette_png(out)
    return out


def palette_png(path):
    """Rewrites the PNG at `path` with a 256-colour palette: a quarter of the bytes, the same plot."""
    try:
        from PIL import Image
    except ImportError:
        return
    with Image.open(path) as image:
        rgb = image.convert("RGB")
    method = getattr(getattr(Image, "Quantize", Image), "MEDIANCUT", 0)
    rgb.quantize(colors=256, method=method).save(path, optimize=True)


def is_grouped(row):
    """A grouped-batch row (`batched --grouped`): one call over several shapes, a table row, not a curve."""
    return "groups" in row


def plot_file(plt, path):
    rows = [r for r in read_rows(path) if not is_grouped(r)]
    if not rows:
        print(f"plot.py: {path}: no measured rows, nothing drawn", file=sys.stderr)
        return []
    groups = {}
    for row in rows:
        if is_batched(row):  # one plot per thread count (CPU) or one for the GPU, instead of per transpose
            where = f"{row['threads']}t" if is_number(row.get("threads")) else "gpu"
            third = where + ("" if row.get("beta", 1) != 0 else "_beta0")
        else:
            third = row.get("trans", "")
        groups.setdefault((row.get("section", ""), row.get("dtype", ""), third), []).append(row)
    # Name parts that differ between groups only, so a one-group file gives <suite>.png; batched
    # plots always name their thread count.
    batched = {key for key, group in groups.items() if is_batched(group[0])}
    varying = [len({key[i] for key in groups}) > 1 for i in range(2)]
    varying.append(len({key[2] for key in groups if key not in batched}) > 1)
    written = []
    for key, group in sorted(groups.items()):
        vary = varying[:2] + [varying[2] or key in batched]
        suffix = "".join("_" + part for part, v in zip(key, vary) if v and part)
        out = png_beside(path, suffix)
        if all(is_batched(r) for r in group):
            draw_batched(plt, path, key, group, out)
        else:
            draw_group(plt, path, key, group, out)
        written.append(out)
    return written


def draw_group(plt, path, key, rows, out):
    section, dtype, trans = key
    square = all(r["m"] == r["n"] == r["k"] for r in rows)
    cases = sorted({(r["m"] * r["n"] * r["k"], r["case"], r["m"] if square else size_of(r)) for r in rows})
    if square:
        xs_of = {case: x for _, case, x in cases}
    else:  # mixed shapes: one slot per case, in order of work
        xs_of = {case: i for i, (_, case, _) in enumerate(cases)}

    lines, ratios, peers = {}, {}, {}
    for r in rows:
        label = "gemmkit: " + (r["variant"] if r.get("variant_forced") else "selected")
        x = xs_of[r["case"]]
        lines.setdefault(label, []).append((x, r["gflops"]))
        if is_number(r.get("ratio")):
            ratios.setdefault(label, []).append((x, r["ratio"]))
        if r.get("peer") and is_number(r.get("peer_gflops")):
            peers.setdefault(r["peer"], {}).setdefault(x, []).append(r["peer_gflops"])

    fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 7), sharex=True, gridspec_kw={"height_ratios": [3, 1.3]})
    for label, points in sorted(lines.items()):
        points.sort()
        top.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
    for peer, by_x in sorted(peers.items()):
        # The peer ran once per gemmkit row; several gemmkit lines give several peer runs per size.
        points = sorted((x, sorted(v)[len(v) // 2]) for x, v in by_x.items())
        top.plot([p[0] for p in points], [p[1] for p in points], marker="s", linestyle="--", color="black",
                 label=f"peer: {peer}")
    bound = [r["bound_gflops"] for r in rows if is_number(r.get("bound_gflops"))]
    if bound:
        top.axhline(max(bound), color="gray", linestyle=":", label=f"bound {max(bound):.0f} GFLOP/s")
    for label, points in sorted(ratios.items()):
        points.sort()
        bottom.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=label)
    bottom.axhline(1.0, color="black", linewidth=0.8)

    device = device_of(path, rows[0])
    suite = rows[0].get("suite", pathlib.Path(path).stem)
    title = f"{device} · {suite}" + (f" · {section}" if section else "") + f" · {dtype} {trans}"
    commits = sorted({r.get("commit", "?") for r in rows})
    top.set_title(title + f"\n{rows[0].get('device', '')}, commit {', '.join(commits)}", fontsize=10)
    top.set_ylim(bottom=0)  # a zero baseline keeps small differences from looking large
    top.set_ylabel("GFLOP/s")
    top.grid(True, alpha=0.3)
    top.legend(fontsize=8)
    bottom.set_ylabel("gemmkit / peer")
    bottom.grid(True, alpha=0.3)
    if square:
        bottom.set_xlabel("m = n = k")
        top.set_xscale("log", base=2)
        ticks = sorted(xs_of.values())
        bottom.set_xticks(ticks)
        bottom.set_xticklabels([str(t) for t in ticks], rotation=45, fontsize=8)
    else:
        bottom.set_xlabel("case (m x n x k, in order of work)")
        bottom.set_xticks(list(range(len(cases))))
        bottom.set_xticklabels([c for _, c, _ in cases], rotation=45, ha="right", fontsize=7)
    save_figure(plt, fig, out)


BATCHED_PEERS = ["libxsmm", "openblas", "blis", "eigen", "loop"]
BATCHED_GPU_PEERS = ["gemmkit_ptr", "gemmkit_ptr_host", "cublas_strided", "cublas_ptr"]


def is_batched(row):
    """A row of `gemmkit-bench batched` (or its tour sections): on the CPU a thread count and the CPU
    peers' columns, on the GPU (backend cuda) the pointer-array and cuBLAS columns."""
    if row.get("backend") == "cuda":
        return any(f"{p}_gflops" in row for p in BATCHED_GPU_PEERS)
    return is_number(row.get("threads")) and (row.get("suite") == "batched-cpu" or
                                              any(f"{p}_gflops" in row for p in BATCHED_PEERS))


def draw_batched(plt, path, key, rows, out):
    """GF/s of gemmkit and every peer against the case (squares by n, then the other shapes), with the
    bound measured in the same run; % of that bound below."""
    section, dtype, threads = key
    squares = sorted((r for r in rows if r["m"] == r["n"] == r["k"]), key=lambda r: r["n"])
    others = sorted((r for r in rows if not r["m"] == r["n"] == r["k"]), key=lambda r: r["m"] * r["n"] * r["k"])
    ordered = squares + others
    xs = list(range(len(ordered)))
    labels = [str(r["n"]) if r in squares else r["case"] for r in ordered]

    gpu = rows[0].get("backend") == "cuda"
    fig, (top, bottom) = plt.subplots(2, 1, figsize=(10, 7.5), sharex=True, gridspec_kw={"height_ratios": [3, 1.6]})
    series = [("gemmkit" + (" strided" if gpu else ""), "gflops", "pct_bound",
               dict(marker="o", linewidth=2.2, color="C3"))]
    if gpu:
        gpu_styles = {"gemmkit_ptr": dict(marker="^", linewidth=1.6, color="C1"),
                      "gemmkit_ptr_host": dict(marker="v", linestyle=":", linewidth=1.2, color="C1"),
                      "cublas_strided": dict(marker="s", linestyle="--", linewidth=1, color="black"),
                      "cublas_ptr": dict(marker="D", linestyle="--", linewidth=1, color="C0")}
        series += [(p, f"{p}_gflops", f"{p}_pct_bound", gpu_styles[p]) for p in BATCHED_GPU_PEERS]
    else:
        series += [(p, f"{p}_gflops", f"{p}_pct_bound", dict(marker="s", linestyle="--", linewidth=1, color=f"C{i}"))
                   for i, p in enumerate(BATCHED_PEERS)]
    n_sq = len(squares)
    for name, gf_key, pct_key, style in series:
        points = [(x, r.get(gf_key), r.get(pct_key)) for x, r in zip(xs, ordered)]
        points = [p for p in points if is_number(p[1])]
        if not points:
            continue
        for axis, column in ((top, 1), (bottom, 2)):
            # Lines join the squares; the other shapes stand alone as markers.
            sq = [p for p in points if p[0] < n_sq and is_number(p[column])]
            ot = [p for p in points if p[0] >= n_sq and is_number(p[column])]
            label = name if axis is top else None
            if sq:
                axis.plot([p[0] for p in sq], [p[column] for p in sq], label=label, **style)
                label = None
            if ot:
                axis.plot([p[0] for p in ot], [p[column] for p in ot], label=label,
                          **{**style, "linestyle": "none"})
    bound = [(x, r.get("bound_gflops")) for x, r in zip(xs, ordered) if is_number(r.get("bound_gflops"))]
    if bound:
        sq = [b for b in bound if b[0] < n_sq]
        ot = [b for b in bound if b[0] >= n_sq]
        if sq:
            source = "a kernel with the same access mix" if gpu else "stream-like"
            top.plot([b[0] for b in sq], [b[1] for b in sq], color="gray", linestyle=":", linewidth=2,
                     label=f"bound: flops / (bytes / B), B {source}, same run")
        if ot:
            top.plot([b[0] for b in ot], [b[1] for b in ot], color="gray", marker="_", markersize=14,
                     linestyle="none")
    for goal in (85, 90):
        bottom.axhline(goal, color="gray", linestyle=":", linewidth=0.8)
    bottom.axhline(100, color="black", linewidth=0.8)
    if others and squares:
        for axis in (top, bottom):
            axis.axvline(n_sq - 0.5, color="gray", linewidth=0.6)

    device = device_of(path, rows[0])
    suite = rows[0].get("suite", pathlib.Path(path).stem)
    gb = sorted(r.get("stream_gbs", r.get("bandwidth_gbs")) for r in rows
                if is_number(r.get("stream_gbs", r.get("bandwidth_gbs"))))
    gb_text = (f", B = {gb[0]:.0f}-{gb[-1]:.0f} GB/s" if gpu else f", B = {gb[0]:.1f}-{gb[-1]:.1f} GB/s") if gb else ""
    if gpu:
        where = "GPU"
    else:
        count = threads.split("t")[0]
        where = f"{count} thread{'' if count == '1' else 's'}"
    title = f"{device} · {suite}" + (f" · {section}" if section else "") + f" · {dtype} · {where}"
    commits = sorted({r.get("commit", "?") for r in rows})
    top.set_title(title + f"\n{rows[0].get('device', '')}, beta = {rows[0].get('beta')}{gb_text}, commit "
                  f"{', '.join(commits)}", fontsize=10)
    top.set_ylim(bottom=0)
    top.set_ylabel("GFLOP/s")
    top.grid(True, alpha=0.3)
    top.legend(fontsize=8, ncol=2)
    bottom.set_ylabel("% of bound")
    bottom.set_ylim(bottom=0)
    bottom.grid(True, alpha=0.3)
    bottom.set_xlabel("m = n = k, then other shapes (m x n x k)")
    bottom.set_xticks(xs)
    bottom.set_xticklabels(labels, rotation=45, ha="right", fontsize=8)
    save_figure(plt, fig, out)


def is_timeline(path):
    return pathlib.Path(path).name.startswith("ooc-timeline")


def read_timeline(path):
    """Operations per case; a case's rows restart when it reappears after another case's (appended runs)."""
    cases, last_case = {}, None
    for row in json_lines(path):
        case = row.get("case", "")
        if case != last_case:
            cases[case] = []
        cases[case].append(row)
        last_case = case
    return cases


TIMELINE_LANES = ["stage", "h2d", "compute", "d2h", "unstage"]  # top to bottom: the data's path


def plot_timeline(plt, path):
    cases = read_timeline(path)
    written = []
    for case, ops in cases.items():
        if not ops:
            continue
        lanes = sorted({(o.get("worker", 0), o.get("device", 0), o["lane"]) for o in ops},
                       key=lambda l: (l[0], TIMELINE_LANES.index(l[2]) if l[2] in TIMELINE_LANES else 99, l[2]))
        kinds = sorted({o.get("what", "") for o in ops})
        colours = {k: plt.get_cmap("tab10")(i % 10) for i, k in enumerate(kinds)}
        fig, ax = plt.subplots(figsize=(12, 0.5 * len(lanes) + 1.8))
        for y, lane in enumerate(lanes):
            for kind in kinds:
                bars = [(o["start_ms"], max(o["end_ms"] - o["start_ms"], 1e-3)) for o in ops
                        if (o.get("worker", 0), o.get("device", 0), o["lane"]) == lane and o.get("what", "") == kind]
                if bars:
                    ax.broken_barh(bars, (y - 0.4, 0.8), facecolors=colours[kind], edgecolor="black", linewidth=0.3)
        ax.set_yticks(range(len(lanes)))
        ax.set_yticklabels([f"w{w} gpu{d} {lane}" for w, d, lane in lanes])
        ax.invert_yaxis()
        ax.set_xlabel("ms from the start of the call")
        end = max(o["end_ms"] for o in ops)
        busy = sum(o["end_ms"] - o["start_ms"] for o in ops if o["lane"] == "compute")
        workers = len({o.get("worker", 0) for o in ops if o["lane"] == "compute"}) or 1
        ax.set_title(f"{case}: {end:.1f} ms, compute lanes busy {100 * busy / (end * workers):.0f}%", fontsize=10)
        ax.legend(handles=[plt.Rectangle((0, 0), 1, 1, color=colours[k]) for k in kinds], labels=kinds,
                  loc="upper center", bbox_to_anchor=(0.5, -0.25), fontsize=8, ncol=len(kinds))
        ax.grid(axis="x", alpha=0.3)
        suffix = "" if len(cases) == 1 else "_" + "".join(c if c.isalnum() or c in "._-" else "_" for c in case)
        written.append(save_figure(plt, fig, png_beside(path, suffix)))
    return written


def is_ooc(path):
    """Host-resident GEMM results (`gemmkit-bench ooc`); its timelines have their own plot."""
    return pathlib.Path(path).name.startswith("ooc") and not is_timeline(path)


def ooc_key(row):
    """One host-resident case: its size, where its operands live, the GPUs, the variant and its settings."""
    return (row.get("n"), row.get("memory"), row.get("gpus"), row.get("pipeline"), row.get("budget_fraction"),
            bool(row.get("cpu_share")), row.get("variant"), row.get("forced_tile") or 0)


def read_ooc_rows(path):
    """Measured rows of `gemmkit-bench ooc`, the last run of each case kept (the file is appended to)."""
    latest = {}
    for row in json_lines(path):
        if row.get("status", "ok") == "ok" and is_number(row.get("gflops")) and is_number(row.get("n")):
            latest[ooc_key(row)] = row
    return list(latest.values())


def skipped_incore_reasons(path):
    """Per n, why the in-core cuBLAS row was not run (operands past the device's memory), from the
    last such row: the bars then say so instead of drawing no line."""
    reasons = {}
    for row in json_lines(path):
        if row.get("memory") == "device" and row.get("status") == "skipped" and is_number(row.get("n")):
            reasons[row["n"]] = row.get("message") or "skipped"
    return reasons


def is_gemmkit_ooc(row):
    """gemmkit's own host-resident rows, whatever their level, share or tile (the rest are peers)."""
    return (row.get("variant") or "").startswith("host_resident")


def is_cublasxt(row):
    """The peer the host-resident path is measured against, at any block size."""
    return (row.get("variant") or "").startswith("cublasxt")


def budget_text(fraction):
    """The device budget as the bench sets it: 0 is the device's free memory, else a share of the operands."""
    if not fraction:
        return "free memory"
    share = fractions.Fraction(fraction).limit_denominator(64)
    if share.numerator == 1 and abs(float(share) - fraction) < 1e-9:
        return f"budget 1/{share.denominator}"
    return f"budget {fraction:g}"


def setting_text(row):
    """Where the operands live and how much device memory the planner got: what a bar group shares."""
    return f"{row.get('memory', '?')}, {budget_text(row.get('budget_fraction'))}"


def setting_order(setting):
    """Pinned first (the fast path), then pageable; within one, free memory, then ever smaller budgets."""
    memory, budget = setting
    rank = {"pinned": 0, "pageable": 1}.get(memory, 2)
    return (rank, memory, 0 if not budget else 1, -(budget or 0))


def tile_text(row):
    """The planner's tile side, which the budget changes: it tells the bars of one level apart."""
    rows, cols = row.get("tile_rows"), row.get("tile_cols")
    if not (is_number(rows) and is_number(cols)):
        return ""
    return f" · tile {rows}" if rows == cols else f" · tile {rows}x{cols}"


def share_threads(row):
    """The CPU share's thread count where the variant names one (`_t14`); 0 for the executor's default."""
    threads = re.search(r"_t(\d+)(?:_|$)", (row.get("variant") or ""))
    return int(threads.group(1)) if threads else 0


def ooc_label(row, best_of=1):
    """A bar's name: gemmkit's pipeline level with its tile (and CPU share), or the peer and its block."""
    variant = row.get("variant", "?")
    if is_gemmkit_ooc(row):
        text = f"gemmkit L{row.get('pipeline', '?')}"
        if row.get("cpu_share"):
            text += " + CPU share" + (f", {share_threads(row)} threads" if share_threads(row) else "")
        if ooc_emulation(row):
            text += " · FP64 emulated" + (" (accurate)" if ooc_emulation(row) == "accurate" else "")
        if row.get("forced_tile"):
            return text + f" · tile {row['forced_tile']} (forced)"
        return text + tile_text(row)
    block = re.fullmatch(r"cublasxt_b(\d+)", variant)
    if block:
        return f"cuBLASXt · block {block.group(1)}" + (f" (best of {best_of})" if best_of > 1 else "")
    if variant == "cublasxt_default":
        return "cuBLASXt · default block"
    return variant


OOC_LEVEL_COLOURS = ["#9ecae1", "#6baed6", "#3182bd", "#08519c"]  # gemmkit L1..L4, light to dark


def ooc_colour(row):
    """Blues for gemmkit's levels (darker = more overlap), green for its CPU share, orange for forced
    tiles, greys for cuBLASXt."""
    if is_gemmkit_ooc(row):
        if row.get("forced_tile"):
            return "C1"
        if row.get("cpu_share"):
            return "C2"
        level = row.get("pipeline") if is_number(row.get("pipeline")) else 4
        return OOC_LEVEL_COLOURS[min(max(int(level), 1), 4) - 1]
    if is_cublasxt(row):
        return "#bbbbbb" if row.get("variant") == "cublasxt_default" else "#555555"
    return "C4"


def best_peers(rows):
    """(label, row) of cuBLASXt at its best measured block size, then at its default block (which can be
    far slower)."""
    blocks = [r for r in rows if re.fullmatch(r"cublasxt_b\d+", (r.get("variant") or ""))]
    picked = [(ooc_label(max(blocks, key=lambda r: r["gflops"]), len(blocks)), max(blocks, key=lambda r: r["gflops"]))
              ] if blocks else []
    return picked + [(ooc_label(r), r) for r in rows if r.get("variant") == "cublasxt_default"]


def ooc_bar_groups(rows):
    """(name, [(label, row)]) per memory kind and budget: gemmkit's levels, its CPU share, the peers of that
    memory; then the forced tiles, whose own group keeps them out of the planner's comparison."""
    planner = [r for r in rows if not is_cublasxt(r) and r.get("memory") != "device" and not r.get("forced_tile")]
    peers = [r for r in rows if is_cublasxt(r)]
    settings = {(r.get("memory"), r.get("budget_fraction") or 0) for r in planner}
    settings |= {(r.get("memory"), 0) for r in peers if not any(s[0] == r.get("memory") for s in settings)}
    groups = []
    for memory, budget in sorted(settings, key=setting_order):
        ours = [r for r in planner if (r.get("memory"), r.get("budget_fraction") or 0) == (memory, budget)]
        ours.sort(key=lambda r: (bool(r.get("cpu_share")), r.get("pipeline") or 0, share_threads(r),
                                 r.get("variant") or ""))
        theirs = best_peers([r for r in peers if r.get("memory") == memory])
        groups.append((f"{memory}, {budget_text(budget)}", [(ooc_label(r), r) for r in ours] + theirs))
    forced = sorted((r for r in rows if r.get("forced_tile") and r.get("memory") != "device"),
                    key=lambda r: (setting_order((r.get("memory"), r.get("budget_fraction") or 0)),
                                   r.get("pipeline") or 0, r["forced_tile"]))
    where = {setting_text(r) for r in forced}
    if len(where) == 1:
        groups.append((f"forced tiles ({where.pop()})", [(ooc_label(r), r) for r in forced]))
    elif forced:  # several settings: each bar names its own
        groups.append(("forced tiles", [(f"{ooc_label(r)} ({setting_text(r)})", r) for r in forced]))
    return groups


def ooc_commits(rows):
    """The commits behind a plot: appended files mix runs, and a plot should say which it shows."""
    return sorted({r.get("commit", "?") for r in rows})


def ooc_title(path, rows, n, what):
    """Device folder, size and what is drawn; the GPU's name and the commit(s) the rows came from."""
    first = rows[0]
    commits = ooc_commits(rows)
    return (f"{device_of(path, first)} · ooc · host-resident {first.get('dtype', '')} GEMM, m = n = k = {n} · {what}\n"
            f"{first.get('device', '')}, commit{'s' if len(commits) > 1 else ''} {', '.join(commits)}")


def draw_ooc_bars(plt, path, n, rows, out, incore_skipped=None):
    """TFLOP/s per variant, grouped by memory kind and budget; in-core cuBLAS (operands already on the
    device) as the dashed line the host-resident runs aim at, or, where it could not run, its reason
    (`incore_skipped`) under the axis."""
    counts = sorted({r.get("gpus", 1) for r in rows})
    gpus = 1 if 1 in counts else counts[0]
    rows = [r for r in rows if r.get("gpus", 1) == gpus]
    groups = [(name, members) for name, members in ooc_bar_groups(rows) if members]
    if not groups:
        print(f"plot.py: {path}: n = {n}: no host-resident rows, no bars drawn", file=sys.stderr)
        return None
    mixed = len(ooc_commits([r for _, members in groups for _, r in members])) > 1
    slots = sum(len(members) + 1 for _, members in groups)
    fig, ax = plt.subplots(figsize=(10, 0.3 * slots + 2.2))
    y, ticks, labels, headers, top = 0.0, [], [], [], 0.0
    for name, members in groups:
        if headers:
            ax.axhline(y - 0.7, color="gray", linewidth=0.5)
        ticks.append(y)
        labels.append(name)
        headers.append(len(ticks) - 1)
        y += 1
        for label, r in members:
            tflops = r["gflops"] / 1000
            top = max(top, tflops)
            ax.barh(y, tflops, height=0.72, color=ooc_colour(r), edgecolor="black", linewidth=0.4)
            note = f"  ({r.get('commit', '?')})" if mixed else ""
            ax.annotate(f"{tflops:.1f}{note}", (tflops, y), xytext=(4, 0), textcoords="offset points", va="center",
                        fontsize=8, bbox=dict(facecolor="white", edgecolor="none", alpha=0.8, pad=0.5))
            ticks.append(y)
            labels.append(label)
            y += 1
        y += 0.4
    incore = [r["gflops"] / 1000 for r in rows if r.get("memory") == "device"]
    for tflops in incore:
        ax.axvline(tflops, color="black", linestyle="--", linewidth=1)
    ax.set_yticks(ticks)
    ax.set_yticklabels(labels, fontsize=8)
    for i in headers:
        ax.get_yticklabels()[i].set_fontweight("bold")
        ax.get_yticklabels()[i].set_fontsize(9)
    ax.tick_params(axis="y", length=0)
    ax.set_ylim(y - 0.6, -0.6)
    ax.set_xlim(0, max([top] + incore) * (1.22 if mixed else 1.12))
    if incore:  # named on a top axis, where no bar or value label can cover it
        named = ax.twiny()
        named.set_xlim(ax.get_xlim())
        named.set_xticks(incore)
        named.set_xticklabels([f"in-core cuBLAS {t:.1f}" for t in incore], fontsize=8)
    budgets = any(r.get("budget_fraction") for _, members in groups for _, r in members)
    ax.set_xlabel("TFLOP/s" + (" (budget: device memory the planner may use, as a share of the operands' bytes)"
                               if budgets else "")
                  + (f"\nin-core cuBLAS not run: {incore_skipped}" if incore_skipped and not incore else ""))
    ax.grid(axis="x", alpha=0.3)
    where = f"{gpus} GPU" + ("" if gpus == 1 else "s") + (f" (of {', '.join(map(str, counts))} measured)"
                                                         if len(counts) > 1 else "")
    ax.set_title(ooc_title(path, rows, n, where), fontsize=10)
    return save_figure(plt, fig, out)


def ooc_scaling_series(rows):
    """Per GPU count: gemmkit's top pipeline level (pinned, planner's tile, free memory, no CPU share),
    cuBLASXt at its best block, and gemmkit's forced tiles."""
    ours = [r for r in rows if is_gemmkit_ooc(r) and r.get("memory") == "pinned" and not r.get("forced_tile")
            and not r.get("budget_fraction") and not r.get("cpu_share")]
    level = max((r.get("pipeline") or 0 for r in ours), default=0)
    series = {f"gemmkit L{level}": {r.get("gpus", 1): r for r in ours if (r.get("pipeline") or 0) == level}}
    blocks = [r for r in rows if re.fullmatch(r"cublasxt_b\d+", (r.get("variant") or "")) and r.get("memory") == "pinned"]
    series["cuBLASXt, best block"] = {g: max((r for r in blocks if r.get("gpus", 1) == g), key=lambda r: r["gflops"])
                                      for g in {r.get("gpus", 1) for r in blocks}}
    forced = [r for r in rows if is_gemmkit_ooc(r) and r.get("forced_tile") and r.get("memory") == "pinned"
              and not r.get("budget_fraction") and not r.get("cpu_share") and (r.get("pipeline") or 0) == level]
    for tile in sorted({r["forced_tile"] for r in forced}):
        series[f"gemmkit L{level}, tile {tile} (forced)"] = {r.get("gpus", 1): r for r in forced
                                                             if r["forced_tile"] == tile}
    return {name: points for name, points in series.items() if points}


def draw_ooc_scaling(plt, path, n, rows, out):
    """TFLOP/s against the GPU count, the speed-up over one GPU at each point, and the ideal line: the
    1-GPU gemmkit rate times the count."""
    series = ooc_scaling_series(rows)
    counts = sorted({g for points in series.values() for g in points})
    if len(counts) < 2:
        print(f"plot.py: {path}: n = {n}: one GPU count only, no scaling plot", file=sys.stderr)
        return None
    fig, ax = plt.subplots(figsize=(8, 5.5))
    styles = [dict(marker="o", color="#08519c", linewidth=2), dict(marker="s", color="#555555", linestyle="--")]
    top, forced = 0.0, 0
    for i, (name, points) in enumerate(series.items()):
        gs = sorted(points)
        tf = [points[g]["gflops"] / 1000 for g in gs]
        top = max(top, *tf)
        if "forced" in name:  # open markers, one colour per tile side, no labels: context, not the comparison
            ax.plot(gs, tf, marker="Dv^<>"[forced % 5], markerfacecolor="none", color=f"C{[1, 3, 4, 5, 6][forced % 5]}",
                    linestyle=":", linewidth=1, label=name)
            forced += 1
            continue
        style = styles[min(i, 1)]
        block = {re.sub(r"\D", "", (points[g].get("variant") or "")) for g in gs} if i else set()
        label = name + (f" ({', '.join(sorted(block, key=int))})" if block else "")
        ax.plot(gs, tf, label=label, **style)
        base = points[gs[0]]["gflops"] / 1000 if gs[0] == 1 else None
        for g, t in zip(gs, tf):
            # The higher series is named above left of its point, the lower below right: off rising lines.
            above = t >= max(p[g]["gflops"] / 1000 for name, p in series.items() if g in p and "forced" not in name)
            ax.annotate(f"{t:.1f}" + (f" ({t / base:.2f}x)" if base else ""), (g, t), textcoords="offset points",
                        xytext=(-8, 8) if above else (8, -14), ha="right" if above else "left", fontsize=8,
                        color=style["color"], bbox=dict(facecolor="white", edgecolor="none", alpha=0.8, pad=0.5))
    first = next(iter(series.values()))
    if 1 in first:
        one = first[1]["gflops"] / 1000
        ax.plot(counts, [one * g for g in counts], color="gray", linestyle=":", linewidth=1.5,
                label=f"ideal: 1-GPU gemmkit x GPUs ({one:.1f} per GPU)")
        top = max(top, one * counts[-1])
    ax.set_xticks(counts)
    ax.set_xlim(counts[0] - 0.4, counts[-1] + 0.8)
    ax.set_ylim(0, top * 1.1)
    ax.set_xlabel("GPUs")
    ax.set_ylabel("TFLOP/s (labels: TFLOP/s, speed-up over 1 GPU)")
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8, loc="upper left")
    used = [r for points in series.values() for r in points.values()]
    ax.set_title(ooc_title(path, used, n, "pinned, free memory"), fontsize=10)
    return save_figure(plt, fig, out)


def plot_ooc(plt, path):
    """Per size n: the grouped bars, and where the file holds several GPU counts the scaling plot."""
    rows = read_ooc_rows(path)
    if not rows:
        print(f"plot.py: {path}: no measured rows, nothing drawn", file=sys.stderr)
        return []
    several = len({r.get("gpus", 1) for r in rows}) > 1
    skipped = skipped_incore_reasons(path)
    written = []
    for n in sorted({r["n"] for r in rows}):
        at = [r for r in rows if r["n"] == n]
        written.append(draw_ooc_bars(plt, path, n, at, png_beside(path, f"_n{n}"), skipped.get(n)))
        if several:
            written.append(draw_ooc_scaling(plt, path, n, at, png_beside(path, f"_scaling_n{n}")))
    return [out for out in written if out]


def is_blas(path):
    """bench/blas/blas_bench.py's rows: dgemm_ on host arrays, one row per contender and size."""
    return pathlib.Path(path).name.startswith("blas")


def is_scalapack(path):
    """bench/scalapack/device.sh's rows: PDGEMM runs over gemmkit and over OpenBLAS, and their ratios."""
    return pathlib.Path(path).name.startswith("scalapack")


def plot_scalapack(plt, path):
    """Grouped bars of GFLOP/s per PDGEMM case (n, ranks, k-panel): gemmkit's drop-in beside OpenBLAS,
    the ratio written above each group."""
    runs, ratios = {}, {}
    for row in json_lines(path):
        if row.get("blas") == "gemmkit/openblas" and is_number(row.get("ratio")):
            ratios[row["case"]] = row["ratio"]
        elif row.get("status") == "ok" and is_number(row.get("gflops")):
            runs.setdefault(row["case"], {})[row["blas"]] = row
    if not runs:
        return []
    cases = sorted(runs, key=lambda c: (-next(iter(runs[c].values()))["n"], next(iter(runs[c].values()))["ranks"]))
    fig, axis = plt.subplots(figsize=(9, 5))
    width = 0.38
    for i, blas in enumerate(["gemmkit", "openblas"]):
        xs = [c + (i - 0.5) * width for c in range(len(cases))]
        axis.bar(xs, [runs[c].get(blas, {}).get("gflops", 0) for c in cases], width, label=blas)
    for c, case in enumerate(cases):
        if case in ratios:
            top = max(r["gflops"] for r in runs[case].values())
            axis.text(c, top * 1.02, f"{ratios[case]:.2f}x", ha="center", fontsize=9)
    labels = []
    for case in cases:
        r = next(iter(runs[case].values()))
        labels.append(f"n={r['n']}\n{r['ranks']} ranks ({r.get('grid')})\nk-panel {r['panel']}")
    axis.set_xticks(range(len(cases)))
    axis.set_xticklabels(labels, fontsize=8)
    axis.set_ylabel("GFLOP/s")
    first = next(iter(runs[cases[0]].values()))
    axis.set_title(f"{device_of(path, first)} · ScaLAPACK PDGEMM, ranks sharing one GPU · {first.get('device', '')}",
                   fontsize=10)
    axis.legend(fontsize=8)
    axis.grid(True, axis="y", alpha=0.3)
    out = png_beside(path, "")
    save_figure(plt, fig, out)
    return [out]


def is_emulation(path):
    """`gemmkit-bench gemm --emulate` rows: one per case and phi, a sub-object per side."""
    return pathlib.Path(path).name.startswith("emulation")


EMULATION_SIDES = ["gemmkit_emulated", "gemmkit_accurate", "gemmkit_auto", "gemmkit_native", "cuBLAS",
                   "cuBLAS_emulated"]
EMULATION_NAMES = {"gemmkit_emulated": "gemmkit emulated (fast scaling)", "gemmkit_accurate": "gemmkit emulated (accurate)",
                   "gemmkit_auto": "gemmkit AUTO"}


def emulation_label(row):
    """The case: "8192" or "16384x16384" over "k 4096", with the inputs below unless phi = 0."""
    m, n, k = row["m"], row["n"], row["k"]
    shape = f"{m}" if m == n == k else f"{m}x{n}\nk {k}"
    if row.get("inputs") == "split":
        return shape + "\nsplit"
    return shape + (f"\nphi {row['phi']:g}" if row.get("phi") else "")


def plot_emulation(plt, path):
    """TFLOP/s(-equivalent) and error of each side per case: the squares at phi = 0, the large shapes, then the
    phi sweep and the split case; the error panel is on a log scale."""
    rows = [r for r in json_lines(path) if r.get("suite", "").startswith("emulation")]
    if not rows:
        return []
    sides = [side for side in EMULATION_SIDES if any(side in r for r in rows)]
    fig, (speed, error) = plt.subplots(2, 1, figsize=(max(10, 1.1 * len(rows)), 8), sharex=True)
    width = 0.8 / len(sides)
    for i, side in enumerate(sides):
        xs = [x + (i - (len(sides) - 1) / 2) * width for x in range(len(rows))]
        label = EMULATION_NAMES.get(side, side.replace("_", " "))
        speed.bar(xs, [(r.get(side) or {}).get("tflops") or 0 for r in rows], width, label=label)
        error.bar(xs, [(r.get(side) or {}).get("error") or 0 for r in rows], width, label=label)
    for axis, title in ((speed, "TFLOP/s (FP64 or FP64-equivalent)"), (error, "max |c - ref| / (|A||B|)ij")):
        axis.set_xticks(range(len(rows)))
        axis.set_xticklabels([emulation_label(r) for r in rows], fontsize=8)
        axis.set_title(title)
    error.set_yscale("log")
    speed.legend(fontsize=8, ncol=3)
    row = rows[0]
    fig.suptitle(f"FP64 GEMM emulated on the INT8 tensor cores, {row.get('device', '')} ({row.get('date', '')[:10]})")
    return [save_figure(plt, fig, png_beside(path, ""))]


def is_python(path):
    """`python -m gemmkit.bench` rows: gemmkit.matmul beside numpy.matmul, and the Python layer's cost."""
    return pathlib.Path(path).name.startswith("python")


def plot_python(plt, path):
    """GFLOP/s of gemmkit.matmul and its peer per case (numpy.matmul on host squares and stacks, cuBLAS on
    device stacks), the ratio on each pair, and the cost per call of the Python layer in the title."""
    rows = [r for r in json_lines(path) if r.get("suite") == "python"]
    cases = [r for r in rows if r.get("case") != "overhead"]
    if not cases:
        return []
    fig, ax = plt.subplots(figsize=(max(8, 1.2 * len(cases)), 4.5))
    xs = range(len(cases))
    ax.bar([x - 0.2 for x in xs], [r["gemmkit_gflops"] for r in cases], 0.4, label="gemmkit.matmul")
    ax.bar([x + 0.2 for x in xs], [r["peer_gflops"] for r in cases], 0.4, label="its peer (numpy.matmul; cuBLAS on device)")
    for x, r in zip(xs, cases):
        ax.annotate(f"{r['speedup_vs_peer']:.2f}x", (x, max(r["gemmkit_gflops"], r["peer_gflops"])),
                    ha="center", va="bottom", fontsize=8)
    ax.set_xticks(list(xs))
    ax.set_xticklabels([f"{r['case']}\n{r['shape']}" for r in cases], fontsize=8)
    ax.set_ylabel("GFLOP/s")
    ax.legend(fontsize=8)
    overhead = next((r for r in rows if r.get("case") == "overhead"), None)
    first = cases[0]
    title = f"gemmkit.matmul vs numpy.matmul on host arrays, {first.get('host_cpu', '')} x {first.get('host_threads', '?')}"
    if overhead:
        title += (f"\nPython layer {overhead['python_overhead_s'] * 1e6:.2f} us per call above the C call "
                  f"({overhead['c_call_s'] * 1e6:.2f} us), 8 x 8")
    ax.set_title(f"{title} ({str(first.get('date', ''))[:10]})", fontsize=9)
    return [save_figure(plt, fig, png_beside(path, ""))]


def plot_blas(plt, path):
    """GFLOP/s against size, one line per contender (gemmkit's drop-in, OpenBLAS, NVBLAS per tile), and
    gemmkit / peer below (peer rows: NVBLAS at its best tile, OpenBLAS); the last run of each row kept.
    blas-crossover files get one figure per family of shapes (squares, rank-k updates, thin C) against
    the dimension that varies; blas-cpu-route files the interleaved rounds, each round a line."""
    latest = {}
    for row in json_lines(path):
        if str(row.get("suite", "")).startswith("blas") and row.get("status", "ok") == "ok" and is_number(row.get("gflops")):
            latest[(row.get("family"), row.get("dtype"), row.get("trans"), row.get("case"), row.get("contender"),
                    row.get("variant"), row.get("peer"))] = row
    groups = {}
    for row in latest.values():
        groups.setdefault((row.get("family") or "", row.get("dtype"), row.get("trans")), []).append(row)
    written = []
    for (family, dtype, trans), rows in sorted(groups.items()):
        fig, (top, bottom) = plt.subplots(2, 1, figsize=(9, 7), sharex=True, gridspec_kw={"height_ratios": [3, 1.3]})
        size = (lambda r: r["family_size"]) if family else (lambda r: r["n"])
        lines, ratios = {}, {}
        for r in rows:
            if r.get("peer") and is_number(r.get("ratio")):
                ratios.setdefault(r["peer"], {})[size(r)] = r["ratio"]
                if r.get("suite") == "blas-cpu-route":
                    continue  # its ratio rows carry the medians of the rounds drawn below
            label = "gemmkit" if r["contender"] == "gemmkit" else (r.get("contender") if family else r["variant"])
            if r.get("round") is not None:
                label = f"{r['contender']} round {r['round']}"
            lines.setdefault(label, {})[size(r)] = r["gflops"]
        for label, points in sorted(lines.items()):
            xs = sorted(points)
            style = {"marker": "o"} if label.startswith("gemmkit") else {"marker": "s", "linestyle": "--"}
            top.plot(xs, [points[x] for x in xs], label=label, **style)
        for peer, points in sorted(ratios.items()):
            xs = sorted(points)
            bottom.plot(xs, [points[x] for x in xs], marker="o", label=f"gemmkit / {peer}" +
                        (" (best tile)" if peer == "nvblas" else ""))
        bottom.axhline(1.0, color="black", linewidth=0.8)
        device = device_of(path, rows[0])
        commits = sorted({r.get("commit", "?") for r in rows})
        suite = rows[0].get("suite", "blas")
        top.set_title(f"{device} · {suite} (dgemm_ on host arrays){' · ' + family if family else ''} · {dtype} {trans}\n"
                      f"{rows[0].get('device', '')}, commit {', '.join(commits)}", fontsize=10)
        top.set_ylim(bottom=0)
        top.set_ylabel("GFLOP/s")
        top.set_xscale("log", base=2)
        top.grid(True, alpha=0.3)
        top.legend(fontsize=8)
        bottom.set_ylabel("gemmkit / peer")
        varies = rows[0].get("family_dim") if family else None
        bottom.set_xlabel(f"{varies} ({family})" if varies else "m = n = k")
        bottom.grid(True, alpha=0.3)
        bottom.legend(fontsize=8)
        ticks = sorted({size(r) for r in rows})
        bottom.set_xticks(ticks)
        bottom.set_xticklabels([str(t) for t in ticks], rotation=45, fontsize=8)
        out = png_beside(path, "" if len(groups) == 1 else f"_{family or dtype + '_' + trans}")
        save_figure(plt, fig, out)
        written.append(out)
    return written


def is_micro(path):
    return pathlib.Path(path).name.startswith("micro")


def read_micro_rows(path):
    """Rows of `gemmkit-bench micro` (one measured value each), the last run of each case kept."""
    latest = {}
    for row in json_lines(path):
        if row.get("suite") == "micro" and row.get("status", "ok") == "ok" and is_number(row.get("value")):
            latest[row.get("case")] = row
    return latest


def plot_micro(plt, path):
    """Seed 001's Fig. 2 on this device: copy bandwidth (read + write) against the offset, one line
    per access width, with the device-to-device memcpy and the H100 anchor for reference."""
    rows = read_micro_rows(path)
    copies = [r for r in rows.values() if is_number(r.get("width_bits")) and is_number(r.get("offset_words"))]
    if not copies:
        print(f"plot.py: {path}: no copy-bandwidth rows, nothing drawn", file=sys.stderr)
        return []
    fig, ax = plt.subplots(figsize=(9, 5))
    for width in sorted({r["width_bits"] for r in copies}):
        points = sorted((r["offset_words"], r["value"]) for r in copies if r["width_bits"] == width)
        ax.plot([p[0] for p in points], [p[1] for p in points], marker="o", label=f"{width:.0f}-bit word per thread")
    memcpy = rows.get("d2d_memcpy")
    if memcpy:
        ax.axhline(memcpy["value"], color="gray", linestyle=":", label=f"cudaMemcpy D2D {memcpy['value']:.0f} GB/s")
        if is_number(memcpy.get("anchor")):
            ax.axhline(memcpy["anchor"], color="black", linestyle="--", linewidth=0.8,
                       label=f"H100 anchor {memcpy['anchor']:.0f} GB/s")
    commits = sorted({r.get("commit", "?") for r in copies})
    ax.set_title(f"{device_of(path, copies[0])} · micro · copy bandwidth by offset and width (seed 001 Fig. 2)\n"
                 f"{copies[0].get('device', '')}, commit {', '.join(commits)}", fontsize=10)
    ax.set_xlabel("offset of source and destination (words of the access width)")
    ax.set_ylabel("GB/s (read + write)")
    ax.set_ylim(bottom=0)
    ax.grid(True, alpha=0.3)
    ax.legend(fontsize=8)
    return [save_figure(plt, fig, png_beside(path, "_bandwidth"))]


def is_ladder(path):
    return pathlib.Path(path).name.startswith("ladder")


def production_label(group, version):
    """The variant(s) the selection ran for one ladder row: one id where every size ran the same,
    else one "n: id" line per size (the pick may differ by size)."""
    by_size = {r["n"]: r.get("variant", "?") for r in group if r.get("version") == version}
    if len(set(by_size.values())) <= 1:
        return next(iter(by_size.values()), "")
    return "\n".join(f"{n}: {v}" for n, v in sorted(by_size.items()))


def plot_ladder(plt, path):
    """Seed 001's Fig. 5/11 on this device: GFLOP/s of each ladder step (x, in the run's order), one
    line per size, cuBLAS per size dashed, the model's bound per step and size as open markers."""
    written = []
    rows = read_rows(path)
    for dtype in sorted({r.get("dtype", "") for r in rows}):
        group = [r for r in rows if r.get("dtype") == dtype]
        steps = list(dict.fromkeys(r.get("version", r.get("variant", "?")) for r in group))
        sizes = sorted({r["n"] for r in group})
        fig, ax = plt.subplots(figsize=(11, 5.5))
        for i, n in enumerate(sizes):
            color = f"C{i}"
            at = {r.get("version", r.get("variant", "?")): r for r in group if r["n"] == n}
            xs = [x for x, step in enumerate(steps) if step in at]
            ax.plot(xs, [at[steps[x]]["gflops"] for x in xs], marker="o", color=color, label=f"n = {n}")
            model = [(x, at[steps[x]]["model_gflops"]) for x in xs if is_number(at[steps[x]].get("model_gflops"))]
            if model:
                ax.plot([p[0] for p in model], [p[1] for p in model], marker="o", markerfacecolor="none",
                        linestyle="none", color=color, label=f"model bound, n = {n}")
            peers = sorted(r["peer_gflops"] for r in at.values() if is_number(r.get("peer_gflops")))
            if peers:
                ax.axhline(peers[len(peers) // 2], color=color, linestyle="--", linewidth=1,
                           label=f"cuBLAS, n = {n} ({peers[len(peers) // 2]:.0f})")
        ax.set_xticks(list(range(len(steps))))
        labels = [s if s != "production (selection)" else "production\n" + production_label(group, s) for s in steps]
        ax.set_xticklabels(labels, rotation=30, ha="right", fontsize=8)
        commits = sorted({r.get("commit", "?") for r in group})
        ax.set_title(f"{device_of(path, group[0])} · ladder · {dtype} (seed 001 Fig. 5/11, seed 000 table)\n"
                     f"{group[0].get('device', '')}, commit {', '.join(commits)}", fontsize=10)
        ax.set_ylabel("GFLOP/s")
        ax.set_ylim(bottom=0)
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=7, ncol=3)
        written.append(save_figure(plt, fig, png_beside(path, f"_{dtype}")))
    return written


def is_sass(path):
    return pathlib.Path(path).name.startswith("sass")


# ---------------------------------------------------------------------------------------------
# Markdown tables for the docs' performance pages and the README, from the latest run of each
# suite per device: bench/results/<device>/<suite>.jsonl.


def suite_files(root, suite):
    """{device: path} of root/<device>/<suite>.jsonl, devices in name order."""
    return {p.parent.name: p for p in sorted(pathlib.Path(root).glob(f"*/{suite}.jsonl"))}


def run_dates(rows):
    """The days the rows were measured on: '2026-11-28' or '2026-11-27 to 2026-11-28'."""
    days = sorted({str(r["date"])[:10] for r in rows if r.get("date")})
    if not days:
        return "undated"
    return days[0] if len(days) == 1 else f"{days[0]} to {days[-1]}"


def runs_line(by_device):
    """'h100 2026-11-27; h200 2026-11-28' for {device: rows}."""
    return "; ".join(f"{device} {run_dates(rows)}" for device, rows in by_device.items() if rows)


def tflops(gflops):
    return f"{gflops / 1000:.1f}" if is_number(gflops) else "-"


def ratio_text(x):
    return f"{x:.2f}x" if is_number(x) else "-"


def geomean(values):
    values = [v for v in values if is_number(v) and v > 0]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def markdown(header, rows, align=None):
    """A Markdown table; align is one of 'l'/'r' per column (default: first left, others right)."""
    align = align or ["l"] + ["r"] * (len(header) - 1)
    lines = ["| " + " | ".join(header) + " |",
             "|" + "|".join("---" if a == "l" else "---:" for a in align) + "|"]
    lines += ["| " + " | ".join(str(c) for c in row) + " |" for row in rows]
    return lines


def selected_rows(path):
    """Rows of the selected (not forced) variant, the last run of each case, in the file's order."""
    return [r for r in read_rows(path) if not r.get("variant_forced")]


def generated_line(command, by_device):
    return f"Generated by `bench/plot.py {command}` from bench/results (runs: {runs_line(by_device)})."


def doc_table_dgemm(root):
    out = []
    # The GEMM suites: one row per case, one column per device and precision.
    columns, by_device = [], {}
    for suite, dtype in (("dgemm", "FP64"), ("sgemm", "FP32")):
        for device, path in suite_files(root, suite).items():
            rows = selected_rows(path)
            by_device.setdefault(f"{device} {suite}", rows)
            columns.append((f"{device} {dtype}", {r["case"]: r for r in rows}))
    if columns:
        cases = list(dict.fromkeys(case for _, by_case in columns for case in by_case))
        body = []
        for case in cases:
            cells = []
            for _, by_case in columns:
                r = by_case.get(case)
                cells.append(f"{tflops(r['gflops'])} ({ratio_text(r.get('ratio'))})" if r else "-")
            body.append([case.replace("_", " ")] + cells)
        body.append(["**geometric mean of the ratios**"] +
                    [f"**{ratio_text(geomean([r.get('ratio') for r in by_case.values()]))}**" for _, by_case in columns])
        out += ["TFLOP/s of the selected kernel (ratio to cuBLAS in the same run; per-call time of back-to-back calls):", ""]
        out += markdown(["m x n x k, op"] + [name for name, _ in columns], body)
        out += ["", generated_line("--doc-table dgemm", by_device), ""]
    # The ladder at its largest size: each step, measured against the model's bound.
    ladder = {device: read_rows(path) for device, path in suite_files(root, "ladder").items()}
    if ladder:
        n = max(r["n"] for rows in ladder.values() for r in rows)
        cols = [(device, dtype) for dtype in ("f64", "f32") for device in ladder
                if any(r.get("dtype") == dtype for r in ladder[device])]
        steps = list(dict.fromkeys(r.get("version") for rows in ladder.values() for r in rows))
        body = []
        for step in steps:
            cells = []
            for device, dtype in cols:
                r = next((r for r in ladder[device] if r.get("version") == step and r.get("dtype") == dtype
                          and r["n"] == n), None)
                if not r:
                    cells.append("-")
                    continue
                model = r.get("model_gflops")
                cells.append(tflops(r["gflops"]) + (f" / {tflops(model)}" if is_number(model) else ""))
            body.append([step] + cells)
        peers = []
        for device, dtype in cols:
            ps = sorted(r["peer_gflops"] for r in ladder[device] if r.get("dtype") == dtype and r["n"] == n
                        and is_number(r.get("peer_gflops")))
            peers.append(tflops(ps[len(ps) // 2]) if ps else "-")
        body.append(["cuBLAS (median over the steps' runs)"] + peers)
        out += [f"The ladder at m = n = k = {n}: TFLOP/s measured / the model's bound:", ""]
        out += markdown(["step"] + [f"{d} {t.upper().replace('F', 'FP')}" for d, t in cols], body)
        out += ["", generated_line("--doc-table dgemm", ladder), ""]
    # Host cost per call.
    overhead = {device: read_overhead_rows(path) for device, path in suite_files(root, "overhead").items()}
    for device, rows in overhead.items():
        fixed = [r for r in rows if r.get("n") is None]
        per_n = {}
        for r in rows:
            if r.get("n") is not None:
                per_n.setdefault(r["n"], {})[r["case"]] = r
        body = [[r["case"], "-", f"{r['host_us']:.2f}"] for r in fixed if r["case"] in ("kernel launch",)]
        for n, cases in sorted(per_n.items()):
            for case, r in cases.items():
                body.append([case, n, f"{r['host_us']:.2f}"])
        out += [f"Host time per call on {device} (µs, `gemmkit-bench overhead`):", ""]
        out += markdown(["call", "m = n = k", "host µs"], body)
        out += ["", generated_line("--doc-table dgemm", {device: rows})]
    return "\n".join(out).rstrip()


def batched_order(rows):
    squares = sorted((r for r in rows if r["m"] == r["n"] == r["k"]), key=lambda r: r["n"])
    others = sorted((r for r in rows if not r["m"] == r["n"] == r["k"]), key=lambda r: r["m"] * r["n"] * r["k"])
    return list(dict.fromkeys(r["case"] for r in squares + others))


def pct(x):
    return f"{x:.1f}" if is_number(x) else "-"


def doc_table_batched_gpu(root):
    out = []
    by_device = {device: read_rows(path) for device, path in suite_files(root, "batched").items()}
    for device, rows in by_device.items():
        plain = [r for r in rows if not is_grouped(r)]
        body = []
        for case in batched_order(plain):
            cells = []
            for dtype in ("f64", "f32"):
                r = next((r for r in plain if r["case"] == case and r.get("dtype") == dtype), None)
                cells += ([pct(r.get("pct_bound")), ratio_text(r.get("ratio_cublas_strided", r.get("ratio"))),
                           pct(r.get("gemmkit_ptr_pct_bound"))] if r else ["-", "-", "-"])
            body.append([case] + cells)
        out += [f"{device}: % of the bound n·B/16 (f64) or n·B/8 (f32), B measured in the same run; ratio to "
                "cuBLAS's strided batch; % of the bound with pointer arrays in device memory:", ""]
        out += markdown(["m x n x k", "f64 % bound", "f64 vs cuBLAS", "f64 ptr-array %",
                         "f32 % bound", "f32 vs cuBLAS", "f32 ptr-array %"], body)
        out += ["", generated_line("--doc-table batched-gpu", {device: rows}), ""]
    for device, path in suite_files(root, "batched-groups").items():
        latest = {}
        for r in json_lines(path):  # the last run of each (precision, groups)
            if is_grouped(r) and r.get("status", "ok") == "ok" and is_number(r.get("pct_bound")):
                latest[(r.get("dtype"), r.get("groups"))] = r
        rows = sorted(latest.values(), key=lambda r: (-(r.get("group_count") or 1), r.get("dtype")))
        body = []
        for r in rows:
            shapes = ", ".join(g.split(" x")[0] for g in r.get("groups", "").split(", "))
            body.append([r.get("dtype"), r.get("group_count"), shapes, pct(r.get("pct_bound")),
                         f"{ratio_text(r.get('ratio'))}" if is_number(r.get("ratio")) else "-"])
        out += [f"{device}: grouped calls (`batched --grouped`): one call over seven groups, then each group "
                "alone; % of the bound from the problems' own bytes, ratio to `cublas?gemmGroupedBatched`:", ""]
        out += markdown(["dtype", "groups", "shapes (m x n x k op)", "% bound", "vs cuBLAS grouped"], body,
                        ["l", "r", "l", "r", "r"])
        out += ["", generated_line("--doc-table batched-gpu", {device: rows})]
    return "\n".join(out).rstrip()


def cpu_goal(threads):
    """The CPU batched goal: 85 % of the bound on one thread, 90 % on all."""
    return 85.0 if threads == 1 else 90.0


def doc_table_batched_cpu(root):
    out = []
    by_device = {device: read_rows(path) for device, path in suite_files(root, "batched-cpu").items()}
    by_device = {d: [r for r in rows if r.get("beta", 1) != 0] for d, rows in by_device.items()}
    if not by_device:
        return ""
    latest = max(by_device, key=lambda d: run_dates(by_device[d])[-10:])
    rows = by_device[latest]
    threads = sorted({r["threads"] for r in rows})
    cols = [(dtype, t) for dtype in ("f64", "f32") for t in threads]
    body = []
    for case in batched_order(rows):
        cells = []
        for dtype, t in cols:
            r = next((r for r in rows if r["case"] == case and r.get("dtype") == dtype and r["threads"] == t), None)
            cells.append(f"{pct(r.get('pct_bound'))} ({ratio_text(r.get('ratio'))} {r.get('peer') or ''})".strip()
                         if r else "-")
        body.append([case] + cells)
    out += [f"{latest} (newest run): % of the bound n·B/16 (f64) or n·B/8 (f32), B from a stream-like pass "
            "in the same run (ratio to the best peer of LIBXSMM, OpenBLAS, BLIS, Eigen, plain loops):", ""]
    out += markdown(["m x n x k"] + [f"{d} {t} thr" for d, t in cols], body)
    out += ["", generated_line("--doc-table batched-cpu", {latest: rows}), ""]
    summary = []
    for device, rows in by_device.items():
        for dtype in ("f64", "f32"):
            for t in sorted({r["threads"] for r in rows}):
                group = [r for r in rows if r.get("dtype") == dtype and r["threads"] == t]
                if not group:
                    continue
                pcts = sorted(r["pct_bound"] for r in group if is_number(r.get("pct_bound")))
                summary.append([device, run_dates(group), dtype, t,
                                f"{sum(p >= cpu_goal(t) for p in pcts)} of {len(pcts)}",
                                pct(pcts[len(pcts) // 2]) if pcts else "-",
                                (f"{sum(r['ratio'] >= 1.0 for r in group if is_number(r.get('ratio')))} of "
                                 f"{sum(is_number(r.get('ratio')) for r in group)}"
                                 if any(is_number(r.get("ratio")) for r in group) else "no peer run"),
                                ratio_text(geomean([r.get("ratio") for r in group]))])
    out += ["Every device's latest run (goal: 85 % of the bound on 1 thread, 90 % on all):", ""]
    out += markdown(["device", "run", "dtype", "threads", "rows at goal", "median % bound", "rows >= best peer",
                     "geomean vs best peer"], summary, ["l", "l", "l", "r", "r", "r", "r", "r"])
    out += ["", generated_line("--doc-table batched-cpu", by_device)]
    return "\n".join(out).rstrip()


def ooc_emulation(row):
    """"fast" or "accurate" for a host-resident row whose blocks ran FP64-emulated, else ""."""
    variant = row.get("variant") or ""
    return "" if "_emulated" not in variant else "accurate" if "_emulated_accurate" in variant else "fast"


def doc_table_host_resident(root):
    out, body, by_device = [], [], {}
    for device, path in suite_files(root, "ooc").items():
        rows = read_ooc_rows(path)
        by_device[device] = rows
        incore = {r["n"]: r for r in rows if r.get("memory") == "device"}
        ours = [r for r in rows if is_gemmkit_ooc(r) and not r.get("forced_tile")]
        keys = sorted({(r["n"], r.get("memory"), r.get("gpus", 1), r.get("budget_fraction") or 0,
                        bool(r.get("cpu_share")), ooc_emulation(r)) for r in ours},
                      key=lambda k: (k[0], k[1] != "pinned", k[3], k[4], k[5], k[2]))
        for n, memory, gpus, budget, share, emulation in keys:
            same = [r for r in ours if (r["n"], r.get("memory"), r.get("gpus", 1), r.get("budget_fraction") or 0,
                                        bool(r.get("cpu_share")), ooc_emulation(r)) ==
                    (n, memory, gpus, budget, share, emulation)]
            best = max(same, key=lambda r: (r.get("pipeline") or 0, r["gflops"]))
            xt = [r for r in rows if is_cublasxt(r) and r["n"] == n and r.get("memory") == memory
                  and r.get("gpus", 1) == gpus]
            xt_best = max(xt, key=lambda r: r["gflops"]) if xt else None
            one = [r for r in ours if (r["n"], r.get("memory"), r.get("gpus", 1), r.get("budget_fraction") or 0,
                                       bool(r.get("cpu_share")), ooc_emulation(r)) ==
                   (n, memory, 1, budget, share, emulation)]
            one_best = max(one, key=lambda r: (r.get("pipeline") or 0, r["gflops"])) if one and gpus > 1 else None
            ic = incore.get(n)
            setting = memory + ("" if not budget else f", budget {budget:g}") + (", CPU share" if share else "")
            setting += {"": "", "fast": ", FP64 emulated", "accurate": ", FP64 emulated (accurate)"}[emulation]
            body.append([device, n, setting, gpus, f"L{best.get('pipeline')}", tflops(best["gflops"]),
                         ratio_text(best["gflops"] / ic["gflops"]) if ic and gpus == 1 else "-",
                         f"{tflops(xt_best['gflops'])} ({ratio_text(best['gflops'] / xt_best['gflops'])})"
                         if xt_best else "-",
                         ratio_text(best["gflops"] / one_best["gflops"]) if one_best else "-",
                         str(best.get("date", ""))[:10]])
    if body:
        out += ["TFLOP/s of `gemmkit-bench ooc` (A, B, C in host memory; the planner's tile; budget: device "
                "memory the planner may use as a share of the operands, default all free memory):", ""]
        out += markdown(["device", "n", "operands", "GPUs", "level", "gemmkit", "vs in-core cuBLAS",
                         "cuBLASXt (ratio)", "vs 1 GPU", "run"], body,
                        ["l", "r", "l", "r", "l", "r", "r", "r", "r", "l"])
        out += ["", generated_line("--doc-table host-resident", by_device)]
    return "\n".join(out).rstrip()


def micro_value(x, unit):
    if not is_number(x):
        return "-"
    return f"{x:.0f}" if abs(x) >= 100 else f"{x:.1f}" if abs(x) >= 10 else f"{x:.2f}"


def doc_table_micro(root):
    by_device = {device: read_micro_rows(path) for device, path in suite_files(root, "micro").items()}
    if not by_device:
        return ""
    cases, what, unit, anchor = [], {}, {}, {}
    for rows in by_device.values():
        for case, r in rows.items():
            if re.fullmatch(r"copy_w\d+_o\d+", case):
                continue
            if case not in cases:
                cases.append(case)
            what.setdefault(case, r.get("what", ""))
            unit.setdefault(case, r.get("unit", ""))
            if is_number(r.get("anchor")):
                anchor[case] = r["anchor"]
    body = []
    for case in cases:
        text = what[case] if len(what[case]) <= 70 else what[case][:67].rsplit(" ", 1)[0] + " ..."
        body.append([f"`{case}`", text, unit[case]] +
                    [micro_value(rows[case]["value"], unit[case]) if case in rows else "-" for rows in by_device.values()] +
                    [micro_value(anchor[case], unit[case]) if case in anchor else ""])
    # The copy kernels: best and worst over the offsets, per access width.
    for width in (32, 64, 128):
        cells = []
        for rows in by_device.values():
            vals = [r["value"] for c, r in rows.items() if re.fullmatch(rf"copy_w{width}_o\d+", c)]
            cells.append(f"{min(vals):.0f}-{max(vals):.0f}" if vals else "-")
        body.append([f"`copy_w{width}_o*`", f"copy kernel, {width}-bit words, offsets 0-32 words", "GB/s"] + cells + [""])
    out = ["Each case's median of its timed repetitions; anchor: the reference value the device's "
           "data sheet or published micro-benchmarks give (see the text):", ""]
    out += markdown(["case", "what", "unit"] + list(by_device) + ["anchor"], body, ["l", "l", "l"] + ["r"] * (len(by_device) + 1))
    out += ["", generated_line("--doc-table micro", {d: list(r.values()) for d, r in by_device.items()})]
    return "\n".join(out).rstrip()


DOC_TABLES = {
    "dgemm": doc_table_dgemm,
    "batched-gpu": doc_table_batched_gpu,
    "batched-cpu": doc_table_batched_cpu,
    "host-resident": doc_table_host_resident,
    "micro": doc_table_micro,
}


def doc_area(path):
    """The area of docs/perf-<area>.md."""
    name = pathlib.Path(path).stem
    area = name[len("perf-"):] if name.startswith("perf-") else name
    if area not in DOC_TABLES:
        sys.exit(f"plot.py: {path}: no table for '{area}' (areas: {', '.join(DOC_TABLES)})")
    return area


def is_emulated_ooc(row):
    """A host-resident row whose blocks ran the FP64 emulation (gemmkit-bench ooc --emulate)."""
    return "_emulated" in row.get("case", "")


def readme_table(root):
    """At most about fifteen headline rows: per area, gemmkit against its best peer, with the device."""
    body, used = [], {}

    def add(area, device, case, ours, peer, peer_value, ratio, rows):
        body.append([area, device, case, ours, f"{peer} {peer_value}".strip(), ratio_text(ratio)])
        used.setdefault(device, []).extend(rows)

    for suite, area in (("dgemm", "GPU DGEMM"), ("sgemm", "GPU SGEMM")):
        for device, path in suite_files(root, suite).items():
            rows = selected_rows(path)
            add(area, device, f"geometric mean over {len(rows)} shapes", "", "cuBLAS", "",
                geomean([r.get("ratio") for r in rows]), rows)
        for device, path in list(suite_files(root, suite).items())[-1:]:
            rows = {r["case"]: r for r in selected_rows(path)}
            for case in ("8192x8192x8192_nn", "12345x12345x12345_nn"):
                if case in rows:
                    r = rows[case]
                    add(area, device, case.replace("_", " ").replace("x", "×", 2), f"{tflops(r['gflops'])} TFLOP/s",
                        "cuBLAS", tflops(r.get("peer_gflops")), r.get("ratio"), [r])
    for device, path in suite_files(root, "batched").items():
        rows = [r for r in read_rows(path) if not is_grouped(r) and r["m"] == r["n"] == r["k"]]
        for dtype in ("f64", "f32"):
            group = [r for r in rows if r.get("dtype") == dtype]
            if group:
                pcts = [r["pct_bound"] for r in group if is_number(r.get("pct_bound"))]
                add(f"GPU batched {dtype}, n = 2…32", device, f"{min(pcts):.0f}-{max(pcts):.0f} % of the bound",
                    "", "cuBLAS strided", "(geomean)", geomean([r.get("ratio") for r in group]), group)
    cpu = {device: read_rows(path) for device, path in suite_files(root, "batched-cpu").items()}
    if cpu:
        device = max(cpu, key=lambda d: run_dates(cpu[d])[-10:])
        for dtype in ("f64", "f32"):
            group = [r for r in cpu[device] if r.get("dtype") == dtype and r.get("threads") == 1]
            if group:
                pcts = sorted(r["pct_bound"] for r in group if is_number(r.get("pct_bound")))
                add(f"CPU batched {dtype}, 1 thread", device, f"median {pcts[len(pcts) // 2]:.0f} % of the bound",
                    "", "best of LIBXSMM/OpenBLAS/BLIS/Eigen", "(geomean)",
                    geomean([r.get("ratio") for r in group]), group)
    for device, path in suite_files(root, "ooc").items():
        rows = read_ooc_rows(path)
        ours = [r for r in rows if is_gemmkit_ooc(r) and r.get("memory") == "pinned" and not r.get("forced_tile")
                and not r.get("budget_fraction") and not r.get("cpu_share")]
        if not ours:
            continue
        top = max(r.get("gpus", 1) for r in ours)
        n = max(r["n"] for r in ours if r.get("gpus", 1) == top)
        xt = [x for x in rows if is_cublasxt(x) and x["n"] == n and x.get("memory") == "pinned" and x.get("gpus", 1) == top]
        if not xt:
            continue
        best = max(xt, key=lambda x: x["gflops"])
        # Native FP64 and, where the run has it, the FP64 emulation on the INT8 tensor cores: separate rows.
        for emulated in (False, True):
            kind = [r for r in ours if r.get("gpus", 1) == top and r["n"] == n and is_emulated_ooc(r) == emulated]
            if not kind:
                continue
            r = max(kind, key=lambda r: r["gflops"])
            add(f"host-resident DGEMM{' (FP64 emulated)' if emulated else ''}, {top} GPU{'s' if top > 1 else ''}",
                device, f"n = {n}, pinned", f"{tflops(r['gflops'])} TFLOP/s", "cuBLASXt", tflops(best["gflops"]),
                r["gflops"] / best["gflops"], [r])
    for device, path in suite_files(root, "blas").items():
        rows = [r for r in json_lines(path) if r.get("contender") == "gemmkit" and is_number(r.get("ratio"))]
        for peer, label, n in (("nvblas", "NVBLAS (best tile)", 16384), ("openblas", "OpenBLAS, all cores", 8192)):
            r = next((r for r in rows if r.get("peer") == peer and r["n"] == n), None)
            if r:
                add("BLAS drop-in dgemm_, host arrays", device, f"n = {n}, malloc'd", f"{tflops(r['gflops'])} TFLOP/s",
                    label, tflops(r.get("peer_gflops")), r["ratio"], [r])
    for device, path in suite_files(root, "scalapack").items():
        ratio = next((r for r in json_lines(path) if r.get("blas") == "gemmkit/openblas" and r.get("n") == 32768), None)
        if ratio:
            add("ScaLAPACK PDGEMM on the drop-in", device, f"n = 32768, {ratio['ranks']} ranks on 1 GPU",
                f"{tflops(ratio['gemmkit_gflops'])} TFLOP/s", "over OpenBLAS", tflops(ratio["openblas_gflops"]),
                ratio["ratio"], [ratio])
    lines = markdown(["area", "device", "case", "gemmkit", "peer", "ratio"], body, ["l", "l", "l", "r", "l", "r"])
    lines += ["", generated_line("--readme-table", used)]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("paths", nargs="*", help="JSON-lines files or folders (default: bench/results)")
    parser.add_argument("--readme-table", action="store_true", help="print README's summary table, draw nothing")
    parser.add_argument("--update-readme", metavar="README",
                        help="replace the table between the perf-table markers of README, draw nothing")
    parser.add_argument("--doc-table", metavar="AREA", choices=sorted(DOC_TABLES),
                        help="print the table of docs/perf-AREA.md, draw nothing")
    parser.add_argument("--update-doc", metavar="PAGE", nargs="+",
                        help="replace the table between the table markers of each docs/perf-<area>.md page")
    args = parser.parse_args(argv)
    paths = args.paths or [str(pathlib.Path(__file__).resolve().parent / "results")]
    if args.readme_table or args.update_readme or args.doc_table or args.update_doc:
        root = paths[0]
        if not pathlib.Path(root).is_dir():
            sys.exit(f"plot.py: tables read a results folder (bench/results), not {root}")
        if args.doc_table:
            print(DOC_TABLES[args.doc_table](root))
        for page in args.update_doc or []:
            replace_between(page, DOC_BEGIN, DOC_END, DOC_TABLES[doc_area(page)](root))
            print(f"plot.py: table written into {page}", file=sys.stderr)
        if args.readme_table or args.update_readme:
            table = readme_table(root)
            if args.update_readme:
                update_readme(args.update_readme, table)
                print(f"plot.py: table written into {args.update_readme}", file=sys.stderr)
            else:
                print(table)
        return 0

    files = find_files(paths)
    if not files:
        sys.exit(f"plot.py: no .jsonl files under {', '.join(paths)}")

    plt = import_pyplot()
    for path in files:
        if is_sass(path):
            continue
        draw = (plot_timeline if is_timeline(path) else plot_ooc if is_ooc(path) else plot_micro if is_micro(path)
                else plot_blas if is_blas(path) else plot_scalapack if is_scalapack(path)
                else plot_emulation if is_emulation(path) else plot_python if is_python(path)
                else plot_ladder if is_ladder(path) else plot_file)
        for out in draw(plt, path):
            print(out)
    return 0


if __name__ == "__main__":
    try:
        sys.exit(main())
    except BrokenPipeError:  # output piped into head and the like
        sys.exit(0)
