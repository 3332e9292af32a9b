#!/usr/bin/env python3
"""The "Where the time went" section of docs/validation/README.md: per
dataset, the time breakdown that `ptxperf validate --json` printed
(`timings`: wall seconds per pipeline stage, summed over the configurations
run; docs/json.md, "Time breakdown").

usage: validation-timings.py LIST
  LIST: the summary list of scripts/validation-report.sh, one dataset a line,
        three tab-separated fields: the dataset, bar|other, the validate JSON
        file ("-": the dataset did not run or was skipped).
Prints Markdown on stdout; exits 1 with a message on a missing or bad file.
"""
import json
import sys

STAGES = [
    "nvrtc",
    "ptx_parse",
    "ptxas",
    "emulation",
    "characterization",
    "cache_model",
    "models",
    "other",
]


def main(argv):
    if len(argv) != 2:
        print(__doc__.strip(), file=sys.stderr)
        return 2
    rows = []
    with open(argv[1]) as f:
        for line in f:
            fields = line.rstrip("\n").split("\t")
            if len(fields) != 3:
                print(f"{argv[1]}: bad line {line!r}", file=sys.stderr)
                return 1
            name, _kind, path = fields
            if path == "-":
                continue
            try:
                with open(path) as j:
                    doc = json.load(j)
                t = doc["timings"]
                rows.append((name, doc.get("jobs"), t))
            except (OSError, ValueError, KeyError) as e:
                print(f"{path}: {e}", file=sys.stderr)
                return 1
    print("## Where the time went")
    print()
    print("Per dataset, the wall seconds of every configuration run, added up (`ptxperf validate --json`,")
    print("`timings`; docs/json.md, \"Time breakdown\"): the total, the mean per configuration, and each")
    print("stage's share of the total. With several jobs the configurations run side by side, so")
    print("their total exceeds the elapsed time; other engineers' jobs shared the cores. A PTX cache")
    print("hit counts 0 s for NVRTC.")
    print()
    head = ["dataset", "configurations", "total s", "s / configuration", "PTX cache hits"]
    print("| " + " | ".join(head + [f"{s} %" for s in STAGES]) + " |")
    print("|" + "---|" * (len(head) + len(STAGES)))
    for name, _jobs, t in rows:
        total = t["total_s"]
        n = t["configurations"]
        cells = [
            name,
            str(n),
            f"{total:.1f}",
            f"{total / n:.3f}" if n else "-",
            str(t["ptx_cache_hits"]),
        ]
        for s in STAGES:
            cells.append(f"{100 * t[s + '_s'] / total:.1f}" if total > 0 else "-")
        print("| " + " | ".join(cells) + " |")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
