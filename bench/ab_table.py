#!/usr/bin/env python3
"""The A/B table of bench/ab.sh: gemmkit's rate per row in two runs of one suite (old, new), the
ratio new/old, and the rows below a threshold (0.97 by default). Peer rows (cuBLAS, cuBLASXt,
OpenBLAS) are left out: only gemmkit's own code changed between the two builds."""
import argparse
import json
import sys

RATES = ["gflops", "gemmkit_ptr_gflops"]  # gemmkit's strided and pointer-array rates (batched)


def is_peer(row):
    variant = str(row.get("variant") or "")
    return variant.startswith(("cublas", "openblas")) or "cublas" in str(row.get("case", ""))


def key(row):
    return tuple(row.get(k) for k in ("suite", "case", "dtype", "trans", "m", "n", "k", "memory", "pipeline"))


def load(path):
    rows = {}
    with open(path) as lines:
        for line in lines:
            row = json.loads(line)
            if not is_peer(row):
                rows[key(row)] = row
    return rows


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("old")
    parser.add_argument("new")
    parser.add_argument("--threshold", type=float, default=0.97)
    parser.add_argument("--jsonl", metavar="FILE", help="append one row per compared rate to FILE")
    args = parser.parse_args()
    old, new = load(args.old), load(args.new)
    below, worst, count, compared = [], None, 0, []
    print("| suite | case | dtype | rate | old GFLOP/s | new GFLOP/s | new/old |")
    print("|---|---|---|---|---:|---:|---:|")
    for k, row in new.items():
        if k not in old:
            continue
        for rate in RATES:
            a, b = old[k].get(rate), row.get(rate)
            if not isinstance(a, (int, float)) or not isinstance(b, (int, float)) or a <= 0:
                continue
            ratio = b / a
            count += 1
            worst = ratio if worst is None else min(worst, ratio)
            print(f"| {row.get('suite')} | {row.get('case')} | {row.get('dtype')} | {rate} | {a:.4g} | {b:.4g} | {ratio:.3f} |")
            if args.jsonl:
                compared.append({"suite": "ab", "of_suite": row.get("suite"), "case": row.get("case"),
                                 "dtype": row.get("dtype"), "rate": rate, "old_gflops": a, "new_gflops": b,
                                 "ratio": round(ratio, 4), "old_commit": old[k].get("commit"),
                                 "new_commit": row.get("commit"), "device": row.get("device"),
                                 "clocks": row.get("clocks"), "driver": row.get("driver"), "date": row.get("date")})
            if ratio < args.threshold:
                below.append((row.get("case"), row.get("dtype"), rate, ratio))
    print(f"\n{count} rates compared; lowest new/old {worst if worst is None else round(worst, 3)}; "
          f"{len(below)} below {args.threshold}")
    for case, dtype, rate, ratio in below:
        print(f"  below: {case} {dtype} {rate} {ratio:.3f}")
    if args.jsonl:
        with open(args.jsonl, "a") as out:
            for row in compared:
                out.write(json.dumps(row) + "\n")
    return 0 if count > 0 else 1


if __name__ == "__main__":
    sys.exit(main())
