#!/usr/bin/env python3
"""The summary table of docs/validation/README.md: the `timing` model on every
dataset against issue 9's bar (MAPE <= 25 % and Spearman >= 0.8 on each
ground-truth dataset of the convolution and the dedispersion) and the GEMM
against issue 26's (MAPE <= 30 % and Spearman >= 0.85), with the 90 %
bootstrap intervals, from the JSON that `ptxperf validate --json` printed
for each dataset.

usage: validation-summary.py LIST
  LIST: one dataset a line, three tab-separated fields:
        the dataset as the report names it, bar|gemm|pnpoly|other, the
        validate JSON file ("-": the dataset did not run or was skipped).
        "bar": a dataset issue 9's bar applies to; "gemm": one issue 26's bar
        applies to; "pnpoly": a pnpoly row (shown, no bar for the timing
        model; a paragraph says why); "other": shown, not judged.
Prints Markdown on stdout; exits 1 with a message on a missing or bad file.
"""
import json
import sys

MAPE_BAR = 25.0
SPEARMAN_BAR = 0.8
# Issue 26's bar for the convolution and the GEMM.
GEMM_MAPE_BAR = 30.0
GEMM_SPEARMAN_BAR = 0.85
MODEL = "timing"


def verdict(mape, spearman, kind="bar"):
    if mape is None or spearman is None:
        return "no figure"
    mape_bar, spearman_bar = (GEMM_MAPE_BAR, GEMM_SPEARMAN_BAR) if kind == "gemm" else (MAPE_BAR, SPEARMAN_BAR)
    fails = []
    if mape > mape_bar:
        fails.append("MAPE")
    if spearman < spearman_bar:
        fails.append("Spearman")
    if not fails:
        return "**passes**"
    return " and ".join(fails) + " fail" + ("s" if len(fails) == 1 else "")


def figure(v, digits):
    return "n/a" if v is None else f"{v:.{digits}f}"


def best_other(models):
    """The seed model with the highest Spearman: the field the timing model
    is compared with."""
    others = [m for m in models if m["name"] != MODEL and m.get("spearman") is not None]
    if not others:
        return "n/a"
    m = max(others, key=lambda m: (m["spearman"], -(m.get("mape_percent") or 0.0)))
    return f"{m['name']} {figure(m.get('mape_percent'), 1)} / {figure(m['spearman'], 3)}"


def parts(split):
    """"development / check": the sampled configurations measured on the GPU
    by their part of the split (data/split.toml)."""
    if not split:
        return "n/a"
    return f"{split['development']} / {split['check']}"


def interval(m, key, digits):
    ci = m.get(key + "_ci90")
    if not ci or ci[0] is None or ci[1] is None:
        return "n/a"
    return f"[{ci[0]:.{digits}f}, {ci[1]:.{digits}f}]"


def row(name, kind, path):
    if path == "-":
        bar = "did not run (see its section)" if kind != "other" else "did not run"
        cells = [name, "", "0", "n/a", "n/a", "n/a", "n/a", bar, "n/a", "n/a", "n/a", "n/a"]
        return "| " + " | ".join(cells) + " |", False, kind
    try:
        with open(path) as f:
            v = json.load(f)
        timing = next(m for m in v["models"] if m["name"] == MODEL)
    except (OSError, ValueError, KeyError, StopIteration) as e:
        raise SystemExit(f"{path}: not the JSON of `ptxperf validate --json` with a timing model ({e})")
    mape = timing.get("mape_percent")
    spearman = timing.get("spearman")
    if kind == "other":
        bar = "not judged (outside the bar)"
    elif kind == "pnpoly":
        bar = "not judged (no timing bar)"
    elif kind == "gemm":
        bar = "issue 26: " + verdict(mape, spearman, kind)
    else:
        bar = verdict(mape, spearman)
    cells = [
        name,
        v.get("gpu", "?"),
        str(timing.get("scored", 0)),
        parts(v.get("split_parts")),
        figure(mape, 2),
        figure(spearman, 3),
        figure(timing.get("median_predicted_over_measured"), 3),
        bar,
        best_other(v["models"]),
        interval(timing, "mape_percent", 1),
        interval(timing, "spearman", 3),
        figure(timing.get("best_config_ratio"), 3),
    ]
    return "| " + " | ".join(cells) + " |", bar.endswith("**passes**"), kind


def main(argv):
    if len(argv) != 2:
        raise SystemExit(__doc__.strip())
    try:
        lines = [l.rstrip("\n") for l in open(argv[1]) if l.strip()]
    except OSError as e:
        raise SystemExit(f"{argv[1]}: {e}")
    rows = []
    kinds = set()
    passed = {"bar": 0, "gemm": 0}
    judged = {"bar": 0, "gemm": 0}
    for n, line in enumerate(lines, 1):
        fields = line.split("\t")
        if len(fields) != 3 or fields[1] not in ("bar", "gemm", "pnpoly", "other"):
            raise SystemExit(f"{argv[1]}:{n}: want DATASET<tab>bar|gemm|pnpoly|other<tab>JSON, got {line!r}")
        text, ok, kind = row(*fields)
        rows.append(text)
        kinds.add(kind)
        if kind in judged:
            judged[kind] += 1
            passed[kind] += ok
    print("## Summary: the `timing` model against issue 9's bar")
    print()
    print(f"The bar: MAPE <= {MAPE_BAR:g} % and Spearman >= {SPEARMAN_BAR:g} on every ground-truth dataset of the")
    print(f"convolution and the dedispersion. It holds on {passed['bar']} of {judged['bar']}. Median pred/meas below 1: the")
    print("model predicts a typical configuration faster than it ran. The last column is the seed model")
    print("with the best Spearman on the dataset (MAPE % / Spearman). Figures unrounded against the bar;")
    print("the sections below give every model.")
    print()
    print("Which data the figures come from: the samples were drawn before the split was made, from every")
    print("configuration, and models were developed on them. `dev / check` counts the sampled configurations")
    print("measured on the GPU by their part of the split (data/split.toml, docs/validation/split.md): check")
    print("configurations among them were seen while the model was developed, so no figure here is a check")
    print("figure. Check figures: docs/validation/h200-check.md (a GPU no model was developed on) and")
    print("`ptxperf validate --part check`.")
    if judged["gemm"]:
        print()
        print(f"The GEMM rows (CLBlast's Xgemm, a larger sample drawn from every configuration, both parts of the")
        print(f"split) are judged against issue 26's bar, MAPE <= {GEMM_MAPE_BAR:g} % and Spearman >= {GEMM_SPEARMAN_BAR:g}: it holds on")
        print(f"{passed['gemm']} of {judged['gemm']}. Models were developed on their development part (docs/validation/gemm.md), and their")
        print("check part was scored once, to report; gemm.md gives the figures of each part.")
    if "pnpoly" in kinds:
        print()
        print("The pnpoly rows (both parts of the split; the header says which configurations) have no bar for the timing")
        print("model: its time is mostly the PCIe traffic of zero-copy host memory (docs/validation/pnpoly-pcie.md).")
        print("The RTX 2080 Ti and TITAN RTX files of pnpoly are excluded by data/split.toml (their times are below")
        print("reading the input over PCIe) and have no row.")
    print()
    print("The CI columns: 90 % bootstrap intervals of the timing model's MAPE and Spearman (percentile")
    print("method, 1000 resamples of the scored configurations). Best ratio: the measured time of the")
    print("configuration the timing model ranks fastest over the fastest measured, among those scored (issue 26's")
    print("bar: within 1.10; the transferred-best baseline for every pair of GPUs is in docs/validation/transfer.md).")
    print()
    print("| dataset | GPU model | scored | dev / check | MAPE % | Spearman | median pred/meas | bar | best seed model | MAPE 90 % CI | Spearman 90 % CI | best ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---|---|---|---|---:|")
    for r in rows:
        print(r)


if __name__ == "__main__":
    main(sys.argv)
