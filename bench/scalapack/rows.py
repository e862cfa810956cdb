#!/usr/bin/env python3
"""Result rows of bench/scalapack/device.sh (JSON lines).

  rows.py row --case C --blas B --n N --ranks R --nb NB --panel K --threads T --status S --wall W
              --gpu NAME --trace PREFIX --result JSON     prints one run's row
  rows.py ratios FILE                                     appends gemmkit/openblas rows to FILE

A run's row takes pdgemm_check --bench's JSON line (grid, seconds, gflops, c00_err) and, for
gemmkit, the DGEMM calls of the per-rank traces PREFIX.<rank>.jsonl counted by route. A run that
finished with C(0,0) off its dot product by more than 1e-10 (normalized) gets status "wrong".
"""
import argparse
import datetime
import json
import os
import sys


def trace_routes(prefix, ranks):
    """DGEMM calls and milliseconds by route over the ranks' trace files; None without traces."""
    routes, found = {}, False
    for rank in range(ranks):
        path = f"{prefix}.{rank}.jsonl"
        if not os.path.exists(path):
            continue
        found = True
        with open(path) as lines:
            for line in lines:
                try:
                    call = json.loads(line)
                except ValueError:
                    continue
                if str(call.get("routine", "")).lower() not in ("dgemm", "dgemm_"):
                    continue
                entry = routes.setdefault(call.get("route", "?"), {"calls": 0, "ms": 0.0})
                entry["calls"] += 1
                entry["ms"] = round(entry["ms"] + float(call.get("ms", 0.0)), 3)
    return routes if found else None


def row(args):
    result = json.loads(args.result or "{}")
    status = args.status
    if status == "ok" and float(result.get("c00_err", 0.0)) > 1e-10:
        status = "wrong"
    out = {
        "suite": "scalapack",
        "case": args.case,
        "n": args.n,
        "ranks": args.ranks,
        "grid": result.get("grid"),
        "nb": args.nb,
        "panel": args.panel,
        "blas": args.blas,
        "threads_per_rank": args.threads,
        "gflops": result.get("gflops"),
        "seconds": result.get("seconds"),
        "warmup_seconds": result.get("warmup_seconds"),
        "c00_err": result.get("c00_err"),
        "status": status,
        "wall_s": args.wall,
        "device": args.gpu,
        "openblas_coretype": os.environ.get("OPENBLAS_CORETYPE", ""),
        "commit": os.environ.get("GEMMKIT_COMMIT", "unknown"),
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
    }
    if args.blas == "gemmkit":
        out["routes"] = trace_routes(args.trace, args.ranks)
    print(json.dumps(out))


def ratios(path):
    with open(path) as lines:
        rows = [json.loads(line) for line in lines if line.strip()]
    runs = [r for r in rows if r.get("suite") == "scalapack" and r.get("status") == "ok" and r.get("gflops")]
    base = {(r["n"], r["ranks"], r["panel"]): r for r in runs if r["blas"] == "openblas"}
    added = []
    for r in runs:
        if r["blas"] != "gemmkit":
            continue
        other = base.get((r["n"], r["ranks"], r["panel"]))
        if other is None:
            continue
        added.append({
            "suite": "scalapack", "case": r["case"], "n": r["n"], "ranks": r["ranks"], "grid": r["grid"],
            "nb": r["nb"], "panel": r["panel"], "blas": "gemmkit/openblas",
            "ratio": round(r["gflops"] / other["gflops"], 4),
            "gemmkit_gflops": r["gflops"], "openblas_gflops": other["gflops"],
            "device": r["device"], "commit": r["commit"], "date": r["date"],
        })
    with open(path, "a") as out:
        for a in added:
            out.write(json.dumps(a) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    sub = parser.add_subparsers(dest="command", required=True)
    r = sub.add_parser("row")
    for name in ("case", "blas", "status", "gpu", "trace", "result"):
        r.add_argument("--" + name, required=True)
    for name in ("n", "ranks", "nb", "panel", "threads", "wall"):
        r.add_argument("--" + name, type=int, required=True)
    q = sub.add_parser("ratios")
    q.add_argument("file")
    args = parser.parse_args()
    if args.command == "row":
        row(args)
    else:
        ratios(args.file)


if __name__ == "__main__":
    sys.exit(main())
