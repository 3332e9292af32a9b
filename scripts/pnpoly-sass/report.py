#!/usr/bin/env python3
"""Correlations and a compact table from table.tsv (analyze.py)."""
import csv
import os
import statistics

from analyze import spearman

HERE = os.environ.get("OUT", "target/pnpoly-sass")
rows = list(csv.DictReader(open(os.path.join(HERE, "table.tsv")), delimiter="\t"))


def f(r, c):
    v = r[c]
    return None if v == "None" else float(v)


# derived metrics
for r in rows:
    for tag in ("3090", "3060L"):
        p13 = f(r, f"prof_ptx13_edge_{tag}")
        r[f"sass_path/prof13_{tag}"] = f(r, "sass_path_edge") / p13
        r[f"alu2/prof13_{tag}"] = max(f(r, "sass_path_edge"), 2 * f(r, "path_alu_edge")) / p13
    r["tile_size_f"] = float(r["tile_size"])

METRICS = ["ratio_text", "ratio_main", "ratio_loop", "ratio_path", "ratio_path13",
           "sass_path/prof13", "alu2/prof13", "tile_size_f"]


def get(r, m, tag):
    if m in ("sass_path/prof13", "alu2/prof13"):
        return r[f"{m}_{tag}"]
    return f(r, m) if isinstance(r[m], str) else r[m]


print("Spearman rho over block_size_x=256 configurations with a dev.csv row")
print(f"{'metric':18s} {'3090':>7s} {'3060L':>7s} {'both':>7s} | tile>=8: {'3090':>7s} {'3060L':>7s}")
for m in METRICS:
    out = []
    for sel in (lambda r: True, lambda r: int(r["tile_size"]) >= 8):
        pooled_x, pooled_y = [], []
        for tag in ("3090", "3060L"):
            xs, ys = [], []
            for r in rows:
                y = f(r, f"meas_dev_{tag}")
                if y is None or not sel(r):
                    continue
                xs.append(get(r, m, tag))
                ys.append(y)
            out.append((spearman(xs, ys), len(xs)))
            pooled_x += xs
            pooled_y += ys
        out.append((spearman(pooled_x, pooled_y), len(pooled_x)))
    a, b, c, d, e, _ = out
    print(f"{m:18s} {a[0]:7.3f} {b[0]:7.3f} {c[0]:7.3f} | {'':8s} {d[0]:7.3f} {e[0]:7.3f}   (n={a[1]},{b[1]}; tile>=8 n={d[1]},{e[1]})")

# compact table: one line per configuration
cols = [("bm", "between_method"), ("t", "tile_size"), ("u", "use_method"), ("U", "unroll"),
        ("PTX", "ptx"), ("SASS", "sass_text"), ("S/P", "ratio_text"), ("Smain/P", "ratio_main"),
        ("Ploop/e", "ptx_loop_edge"), ("Sloop/e", "sass_loop_edge"), ("Sl/Pl", "ratio_loop"),
        ("Ppath/e", "ptx_path_edge"), ("P13path/e", "ptx13_path_edge"), ("Spath/e", "sass_path_edge"),
        ("S/P13", "ratio_path13"), ("alu/e", "path_alu_edge"), ("BSSY/e", "bssy_edge"),
        ("m/d3090", "meas_dev_3090"), ("m/d3060L", "meas_dev_3060L")]
with open(os.path.join(HERE, "table.md"), "w") as fh:
    fh.write("| " + " | ".join(c[0] for c in cols) + " |\n")
    fh.write("|" + "---|" * len(cols) + "\n")
    for r in rows:
        vals = []
        for _, c in cols:
            v = r[c]
            vals.append("-" if v == "None" else (f"{float(v):.3g}" if "." in v else v))
        fh.write("| " + " | ".join(vals) + " |\n")

# by tile x use_method: medians over between_method
print("\nmedian over between_method (and over available dev rows) per tile, use_method")
print(f"{'t':>3} {'u':>2} {'S/P':>6} {'Smain/P':>8} {'Sl/Pl':>6} {'Spath/P13path':>13} {'S/P':>4}  m/d3090 m/d3060L")
for t in sorted({int(r["tile_size"]) for r in rows}):
    for u in range(3):
        g = [r for r in rows if int(r["tile_size"]) == t and int(r["use_method"]) == u]
        def med(c):
            v = [f(r, c) for r in g if f(r, c) is not None]
            return statistics.median(v) if v else float("nan")
        print(f"{t:3d} {u:2d} {med('ratio_text'):6.2f} {med('ratio_main'):8.2f} {med('ratio_loop'):6.2f}"
              f" {med('ratio_path13'):13.2f} {med('ratio_path'):5.2f}  {med('meas_dev_3090'):7.2f} {med('meas_dev_3060L'):7.2f}")
