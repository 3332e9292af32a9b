#!/usr/bin/env python3
"""The summary table of docs/validation/README.md: the `timing` model on every
dataset against issue 9's bar (MAPE <= 25 % and Spearman >= 0.8 on each
ground-truth dataset of the convolution and the dedispersion) and the GEMM
against issue 26's (MAPE <= 30 % and Spearman >= 0.85), with the 90 %
bootstrap intervals, from the JSON that `ptxperf validate --json` printed
for each dataset.

usage: validation-summary.py LIST [WHOLE]
  LIST: one dataset a line, three tab-separated fields:
        the dataset as the report names it, bar|gemm|whole|pnpoly|other, the
        validate JSON file ("-": the dataset did not run or was skipped).
        "bar": a dataset issue 9's bar applies to; "gemm": one issue 26's bar
        applies to; "whole": a whole space of the convolution, judged against
        issue 26's bar; "pnpoly": a pnpoly row (shown, no bar for the timing
        model; a paragraph says why); "other": shown, not judged.
  WHOLE: the "whole" datasets by part of the split, one a line, tab-separated:
        the dataset, development|check, then one validate JSON (--part,
        --transfer-from) per other GPU whose fastest configuration is the
        transferred-best baseline; the first has the intervals.
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
        return "| " + " | ".join(cells) + " |", False, kind, None
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
    elif kind in ("gemm", "whole"):
        bar = "issue 26: " + verdict(mape, spearman, "gemm")
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
    # How much of the file the row scores: (drawn, configurations in it).
    coverage = (v.get("sampled"), v.get("configurations"))
    return "| " + " | ".join(cells) + " |", bar.endswith("**passes**"), kind, coverage


def coverage_paragraph(coverages):
    """Which configurations the rows score: every one of the file, or a
    sample (named, with its size). `coverages`: (dataset, None for a row
    that did not run, else (drawn, configurations in the file) as validate's
    JSON gives them, either possibly missing)."""
    def known(c):
        return c is not None and all(isinstance(n, int) for n in c)

    whole = [name for name, c in coverages if known(c) and c[0] == c[1]]
    sampled = [f"{name} ({c[0]:,} of {c[1]:,})" for name, c in coverages if known(c) and c[0] != c[1]]
    missing = [name for name, c in coverages if c is None]
    unstated = [name for name, c in coverages if c is not None and not known(c)]
    print(f"Which configurations: {len(whole)} of {len(coverages)} rows score every configuration of their file (a whole")
    if sampled:
        print("space); the others score a sample drawn with a fixed seed from every configuration: " + "; ".join(sampled) + ".")
    else:
        print("space).")
    if missing:
        print("No figure (did not run): " + ", ".join(missing) + ".")
    if unstated:
        print("Not stated by their JSON (no `sampled` or `configurations`): " + ", ".join(unstated) + ".")


def main(argv):
    if len(argv) not in (2, 3):
        raise SystemExit(__doc__.strip())
    try:
        lines = [l.rstrip("\n") for l in open(argv[1]) if l.strip()]
    except OSError as e:
        raise SystemExit(f"{argv[1]}: {e}")
    rows = []
    coverages = []
    kinds = set()
    passed = {"bar": 0, "gemm": 0, "whole": 0}
    judged = {"bar": 0, "gemm": 0, "whole": 0}
    for n, line in enumerate(lines, 1):
        fields = line.split("\t")
        if len(fields) != 3 or fields[1] not in ("bar", "gemm", "whole", "pnpoly", "other"):
            raise SystemExit(f"{argv[1]}:{n}: want DATASET<tab>bar|gemm|whole|pnpoly|other<tab>JSON, got {line!r}")
        text, ok, kind, coverage = row(*fields)
        coverages.append((fields[0], coverage))
        rows.append(text)
        kinds.add(kind)
        if kind in judged:
            judged[kind] += 1
            passed[kind] += ok
    print("## Summary: the `timing` model against issue 9's bar and issue 26's")
    print()
    print(f"Issue 9's bar: MAPE <= {MAPE_BAR:g} % and Spearman >= {SPEARMAN_BAR:g} on every ground-truth dataset of the")
    print("convolution and the dedispersion that is not a whole space (the whole spaces are judged against issue")
    print(f"26's bar, below). It holds on {passed['bar']} of {judged['bar']}. Median pred/meas below 1: the")
    print("model predicts a typical configuration faster than it ran. The last column is the seed model")
    print("with the best Spearman on the dataset (MAPE % / Spearman). Figures unrounded against the bar;")
    print("the sections below give every model.")
    print()
    coverage_paragraph(coverages)
    print()
    print("Which data the figures come from: `dev / check` counts the scored configurations by their part of")
    print("the split (data/split.toml, docs/validation/split.md). A row holds both parts, so it is not a check")
    print("figure: models were developed on the development part, and the report's earlier samples held")
    print("check configurations too. The H100 rows are development data (models were changed to fit them).")
    print("Check figures: the whole spaces by part below, docs/validation/h200-check.md (a GPU no model was")
    print("developed on) and `ptxperf validate --part check`.")
    if judged["gemm"]:
        print()
        print(f"The GEMM rows (CLBlast's Xgemm, a larger sample drawn from every configuration, both parts of the")
        print(f"split) are judged against issue 26's bar, MAPE <= {GEMM_MAPE_BAR:g} % and Spearman >= {GEMM_SPEARMAN_BAR:g}: it holds on")
        print(f"{passed['gemm']} of {judged['gemm']}. Models were developed on their development part (docs/validation/gemm.md), and their")
        print("check part was scored once, to report; gemm.md gives the figures of each part.")
    if judged["whole"]:
        print()
        print("The rows marked `issue 26` among the convolution's are whole spaces: every configuration Kernel Tuner measured on")
        print(f"that GPU, both parts of the split, judged against issue 26's bar, MAPE <= {GEMM_MAPE_BAR:g} % and Spearman >= {GEMM_SPEARMAN_BAR:g}: it")
        print(f"holds on {passed['whole']} of {judged['whole']}. They are not in issue 9's count above. No model change was chosen on them:")
        print("the section below gives each part apart, the check part scored to report.")
    if "pnpoly" in kinds:
        print()
        print("The pnpoly rows (both parts of the split; the header says which configurations) have no bar for the timing")
        print("model: its time is mostly the PCIe traffic of zero-copy host memory (docs/validation/pnpoly-pcie.md).")
        print("The RTX 2080 Ti and TITAN RTX files of pnpoly are excluded by data/split.toml (their times are below")
        print("reading the input over PCIe) and have no row.")
    print()
    print("The CI columns: 90 % bootstrap intervals of the timing model's MAPE and Spearman (percentile")
    print("method, 1000 resamples of the scored configurations). Best ratio: the measured time of the")
    print("configuration the timing model ranks fastest over the fastest measured, among those scored; where several")
    print("tie for its fastest prediction (within 0.5 %), their mean measured time (issue 26's bar: within 1.10; the")
    print("transferred-best baseline for every pair of GPUs is in docs/validation/transfer.md).")
    print()
    print("| dataset | GPU model | scored | dev / check | MAPE % | Spearman | median pred/meas | bar | best seed model | MAPE 90 % CI | Spearman 90 % CI | best ratio |")
    print("|---|---|---:|---:|---:|---:|---:|---|---|---|---|---:|")
    for r in rows:
        print(r)
    if len(argv) == 3:
        whole_by_part(argv[2])
    by_parameter([(f[0], f[2]) for f in (l.split("\t") for l in lines)])


def by_parameter(datasets):
    """Per dataset, the parameter that explains most of the timing model's
    error (`by_parameter` of the validate JSON, `validate --by-param`)."""
    out = []
    for name, path in datasets:
        if path == "-":
            continue
        try:
            with open(path) as f:
                v = json.load(f)
        except (OSError, ValueError) as e:
            raise SystemExit(f"{path}: not the JSON of `ptxperf validate --json` ({e})")
        entry = next((e for e in v.get("by_parameter", []) if e.get("model") == MODEL), None)
        if entry is None or not entry.get("parameters"):
            continue
        params = entry["parameters"]

        def describe(p):
            counted = [x for x in p["values"] if x["scored"] >= 3]
            if len(counted) < 2:
                return f"{p['name']} ({100 * p['explained']:.0f} %)"
            lo = min(counted, key=lambda x: x["median_predicted_over_measured"])
            hi = max(counted, key=lambda x: x["median_predicted_over_measured"])
            return (f"{p['name']} ({100 * p['explained']:.0f} %): "
                    f"{lo['median_predicted_over_measured']:.2f} at {lo['value']} to "
                    f"{hi['median_predicted_over_measured']:.2f} at {hi['value']}")

        scored = sum(x["scored"] for x in params[0]["values"])
        second = describe(params[1]) if len(params) > 1 else "none"
        out.append(f"| {name} | {entry['part']} | {scored} | {describe(params[0])} | {second} |")
    if not out:
        return
    print()
    print("### Where the timing model's error moves")
    print()
    print("For each dataset, the tunable parameter whose values explain the largest share of the variance of")
    print("ln(predicted/measured) (the adjusted R² of the log ratio on the parameter's values, in brackets), with the")
    print("median predicted/measured at its lowest and its highest value (values with at least 3 configurations),")
    print("and the next parameter. A share near 0: the error does not move with any one parameter. Over the")
    print("development part of the split where the scored configurations hold both parts (`part`): these are for")
    print("developing a model, and the check part is only reported. `ptxperf validate --by-param` prints every")
    print("parameter and value (docs/validation/by-parameter.md). The rows of 30 configurations or fewer hold one")
    print("to a few configurations per value: their shares are mostly noise.")
    print()
    print("| dataset | part | scored | explains most | next |")
    print("|---|---|---:|---|---|")
    for line in out:
        print(line)


def transfer_ratio(path):
    """The transferred-best ratio and the other GPU of one --transfer-from run."""
    try:
        with open(path) as f:
            t = json.load(f).get("transfer") or {}
    except (OSError, ValueError) as e:
        raise SystemExit(f"{path}: not the JSON of `ptxperf validate --json` ({e})")
    return t.get("ratio"), t.get("from_gpu", "?")


def whole_by_part(path):
    """The whole-space rows by part of the split, with the transferred-best
    baseline of every other GPU."""
    try:
        lines = [l.rstrip("\n").split("\t") for l in open(path) if l.strip()]
    except OSError as e:
        raise SystemExit(f"{path}: {e}")
    print()
    print("### Whole spaces by part of the split")
    print()
    print("The whole-space rows above, each part of the split (data/split.toml) apart: models may be developed on")
    print("the development part; the check part is scored only to report. Best ratio: as above, within the part.")
    print("Transferred best: the configuration measured fastest on another GPU of the same convolution, run on this")
    print("one (its measured time over the best here, within the part; `validate --transfer-from`); the range over")
    print("the other GPUs of the same files (three of Kernel Tuner's convolution, four of the Schoonhoven one), and")
    print("which GPU's is the closest. Timing beats it where its best ratio is lower.")
    print()
    print("| dataset | part | scored | MAPE % | MAPE 90 % CI | Spearman | Spearman 90 % CI | median pred/meas | best ratio | transferred best | timing beats the transferred best |")
    print("|---|---|---:|---:|---|---:|---|---:|---:|---|---|")
    for n, fields in enumerate(lines, 1):
        if len(fields) < 3 or fields[1] not in ("development", "check"):
            raise SystemExit(f"{path}:{n}: want DATASET<tab>development|check<tab>JSON..., got {fields!r}")
        try:
            with open(fields[2]) as f:
                v = json.load(f)
            timing = next(m for m in v["models"] if m["name"] == MODEL)
        except (OSError, ValueError, KeyError, StopIteration) as e:
            raise SystemExit(f"{fields[2]}: not the JSON of `ptxperf validate --json` with a timing model ({e})")
        transfers = [transfer_ratio(p) for p in fields[2:]]
        ratios = [(r, g) for r, g in transfers if r is not None]
        best = timing.get("best_config_ratio")
        if ratios:
            low = min(ratios)
            span = f"{min(r for r, _ in ratios):.3f} to {max(r for r, _ in ratios):.3f} (closest: {low[1]})"
            beaten = sum(1 for r, _ in ratios if best is not None and best < r)
            ties = sum(1 for r, _ in ratios if best is not None and best == r)
            beats = f"{beaten} of {len(ratios)}" + (f" ({ties} tied)" if ties else "")
        else:
            span, beats = "n/a", "n/a"
        cells = [
            fields[0],
            fields[1],
            str(timing.get("scored", 0)),
            figure(timing.get("mape_percent"), 2),
            interval(timing, "mape_percent", 1),
            figure(timing.get("spearman"), 3),
            interval(timing, "spearman", 3),
            figure(timing.get("median_predicted_over_measured"), 3),
            figure(best, 3),
            span,
            beats,
        ]
        print("| " + " | ".join(cells) + " |")


if __name__ == "__main__":
    main(sys.argv)
