#!/usr/bin/env bash
# Seed 002's block-size experiments with the corpus kernels, predicted by
# every model on the GTX 280 and the A100 (docs/tune/README.md explains).
# Writes docs/tune/seed002/<kernel>-N<n>-<gpu>.{md,svg,json}.
#
# Usage: scripts/tune-study.sh [PTXPERF]   (default: target/release/ptxperf)
# Emulation samples SAMPLE_CTAS CTAs per configuration (default 8), on
# JOBS worker threads (default 1); results
# are cached in $PTXPERF_CACHE_DIR/tune (default ~/.cache/ptxperf/tune),
# so a second run is immediate.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
ptxperf=${1:-target/release/ptxperf}
sample=${SAMPLE_CTAS:-8}
out=docs/tune/seed002
mkdir -p "$out"
blocks=2,4,8,16,32

run() { # kernel sizes...
  local kernel=$1; shift
  for gpu in geforce-gtx-280 a100-pcie-40gb; do
    for n in "$@"; do
      stem="$out/$kernel-N$n-$gpu"
      echo "== $kernel N=$n on $gpu" >&2
      "$ptxperf" tune "experiments/seed002/$kernel.toml" --gpu "$gpu" \
        --param "N=$n" --param "BS=$blocks" --sample-ctas "$sample" --jobs "${JOBS:-1}" --quiet \
        --markdown "$stem.md" --svg "$stem.svg" --plot-x BS \
        --title "$kernel N=$n on $gpu: predicted time vs block B x B" \
        --json > "$stem.json"
    done
  done
}

# KERNELS (default all three) picks which to run.
for k in ${KERNELS:-matmul_tiled conv2d syrk}; do
  case $k in
    matmul_tiled) run matmul_tiled 256 512 1024 ;;
    conv2d) run conv2d 1024 2048 4096 ;;
    syrk) run syrk 256 512 1024 ;;
  esac
done

# --- ground truth ---------------------------------------------------------
# Every GPU of ../shared/data/groundtruth, one tune run per kernel: each
# configuration is compiled once (for the oldest GPU's architecture, through
# the PTX cache shared with `ptxperf validate`), emulated once and predicted
# on every GPU; the space is the configurations measured in every file.
# Scores each model's pick (rank of the measured best in the model's top 10,
# measured time of the pick over the best). Needs
# scripts/fetch-validation-kernels.sh first. GT_SAMPLE (default 300)
# convolution configurations; DEDISP_SAMPLE (default 50) for dedispersion;
# JOBS (default 1) worker threads.
[ "${SKIP_GROUNDTRUTH:-0}" = 1 ] && exit 0
gt=../shared/data/groundtruth
[ -d "$gt" ] || gt=/work/shared/data/groundtruth
gout=docs/tune/groundtruth
# The full JSON (every configuration on every GPU, megabytes) stays out of docs/.
jout=target/tune-study
mkdir -p "$gout" "$jout"
gt_sample=${GT_SAMPLE:-300}
dd_sample=${DEDISP_SAMPLE:-50}
gt_ctas=${GT_SAMPLE_CTAS:-4}
jobs=${JOBS:-1}
kt=$gt/kt-convolution
sch=$gt/schoonhoven-convolution
echo "== convolution, 9 GPUs, $gt_sample configurations" >&2
/usr/bin/time -f "%e s wall" -o "$gout/convolution.time" \
  "$ptxperf" tune --experiment experiments/convolution.toml \
  --gpu geforce-rtx-2080-ti,geforce-rtx-3060-laptop,geforce-rtx-3090,titan-rtx,geforce-gtx-1080-ti,geforce-gtx-titan-x-maxwell,tesla-k20m,tesla-p100-pcie-16gb,geforce-rtx-2070-super \
  --measured "geforce-rtx-2080-ti=$kt/KT_convolution_RTX_2080_Ti.json.gz" \
  --measured "geforce-rtx-3060-laptop=$kt/KT_convolution_RTX_3060_laptop.json.gz" \
  --measured "geforce-rtx-3090=$kt/KT_convolution_RTX_3090.json.gz" \
  --measured "titan-rtx=$kt/KT_convolution_RTX_Titan.json.gz" \
  --measured "geforce-gtx-1080-ti=$sch/convolution_GTX_1080Ti.csv.gz" \
  --measured "geforce-gtx-titan-x-maxwell=$sch/convolution_GTX_Titan_X.csv.gz" \
  --measured "tesla-k20m=$sch/convolution_K20.csv.gz" \
  --measured "tesla-p100-pcie-16gb=$sch/convolution_P100.csv.gz" \
  --measured "geforce-rtx-2070-super=$sch/convolution_RTX_2070_SUPER.csv.gz" \
  --sample "$gt_sample" --seed 1 --sample-ctas "$gt_ctas" --jobs "$jobs" --quiet --json \
  > "$jout/convolution.json"
echo "== dedispersion, 2 GPUs, $dd_sample configurations" >&2
/usr/bin/time -f "%e s wall" -o "$gout/dedispersion.time" \
  "$ptxperf" tune --experiment experiments/dedispersion.toml --gpu rtx-a4000,rtx-a6000 \
  --measured "rtx-a4000=$gt/dedispersion/dedispersion_milo_A4000.json.gz" \
  --measured "rtx-a6000=$gt/dedispersion/dedispersion_milo_A6000.json.gz" \
  --sample "$dd_sample" --seed 1 --sample-ctas "$gt_ctas" --jobs "$jobs" --quiet --json \
  > "$jout/dedispersion.json"
# The tables of docs/tune/README.md.
python3 - "$jout/convolution.json" "$jout/dedispersion.json" > "$gout/tables.md" <<'PY'
import csv, gzip, json, statistics, sys
# Usage: table.py RUN.json [RUN.json...] (run from the repository root): one
# Markdown table per run of `ptxperf tune --json --measured ...`, a row per
# GPU, a column per model: "rank of the measured best in the model's top 10
# (or `>10 (rank)`) / measured time of the model's pick over the measured
# best", and where several configurations tie for the model's first place
# (within 0.5 %), "(N tied)": the ratio is then their mean measured time over
# the best, what picking any of them gives on average. Baseline column: the
# median over the sampled configurations of measured time over the best,
# i.e. what a random pick gives half the time.

def measured_times(path):
    """identity (sorted name=value) -> mean ms, from a KT cache or a CSV."""
    out = {}
    if path.endswith(".json.gz") or path.endswith(".json"):
        op = gzip.open if path.endswith(".gz") else open
        d = json.load(op(path, "rt"))
        keys = d["tune_params_keys"]
        for v in d["cache"].values():
            t = v.get("time")
            if isinstance(t, (int, float)) and 0 < t < 1e20:
                out[tuple(sorted(f"{k}={v[k]}" for k in keys))] = float(t)
    else:
        for row in csv.DictReader(gzip.open(path, "rt")):
            keys = [k for k in row if k not in ("mean_ms", "median_ms", "min_ms", "std_ms", "n")]
            try:
                t = float(row["mean_ms"])
            except ValueError:
                continue
            out[tuple(sorted(f"{k}={row[k]}" for k in keys))] = t
    return out

for path in sys.argv[1:]:
    v = json.load(open(path))
    reports = v["gpus"] if "gpus" in v else [v]
    models = [m["model"] for m in reports[0]["measured"]["metrics"]]
    print("| GPU | compared | random pick (median) | " + " | ".join(models) + " |")
    print("|---|---:|---:|" + "---:|" * len(models))
    for r in reports:
        times = measured_times(r["measured"]["file"])
        sampled = [times.get(tuple(sorted(f"{k}={x}" for k, x in c["params"].items())))
                   for c in r["configurations"]]
        sampled = [t for t in sampled if t is not None]
        base = statistics.median(sampled) / min(sampled) if sampled else float("nan")
        ms = {m["model"]: m for m in r["measured"]["metrics"]}
        cells = []
        for name in models:
            m = ms.get(name)
            if m is None:
                cells.append("n/a")
                continue
            rank = m["best_rank_in_top_k"]
            shown = str(rank) if rank is not None else f">10 ({m['best_rank']})"
            tied = f" ({m['tied']} tied)" if m["tied"] > 1 else ""
            cells.append(f"{shown} / {m['pick_ratio']:.2f}{tied}")
        compared = max(m["compared"] for m in r["measured"]["metrics"])
        print(f"| {r['gpu']} | {compared} | {base:.2f} | " + " | ".join(cells) + " |")
    c = v.get("counters", {})
    print()
    print(f"Run: {c.get('configurations')} configurations on {c.get('gpus')} GPUs, "
          f"{c.get('emulations')} emulations, PTX {c.get('ptx_cache_hits')} from the PTX cache / "
          f"{c.get('ptx_compiled')} compiled; evaluation {reports[0]['elapsed_s']:.0f} s with {reports[0]['jobs']} job(s).")
    print()
PY
