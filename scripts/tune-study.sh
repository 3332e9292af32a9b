#!/usr/bin/env bash
# Seed 002's block-size experiments with the corpus kernels, predicted by
# every model on the GTX 280 and the A100 (docs/tune/README.md explains).
# Writes docs/tune/seed002/<kernel>-N<n>-<gpu>.{md,svg,json}.
#
# Usage: scripts/tune-study.sh [PTXPERF]   (default: target/release/ptxperf)
# Emulation samples SAMPLE_CTAS CTAs per configuration (default 8); results
# are cached in target/ptxperf-cache/tune, so a second run is immediate.
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
        --param "N=$n" --param "BS=$blocks" --sample-ctas "$sample" --quiet \
        --markdown "$stem.md" --svg "$stem.svg" --plot-x BS \
        --title "$kernel N=$n on $gpu: predicted time vs block B x B" \
        --json > "$stem.json"
    done
  done
}

run matmul_tiled 256 512 1024
run conv2d 1024 2048 4096
run syrk 256 512 1024

# --- ground truth ---------------------------------------------------------
# For every dataset of ../shared/data/groundtruth: tune a seeded sample of the
# measured configurations and score each model's pick (rank of the measured
# best in the model's top 10, measured time of the pick over the best).
# Needs scripts/fetch-validation-kernels.sh first. GT_SAMPLE (default 300)
# configurations per dataset; DEDISP_SAMPLE (default 100) for dedispersion.
[ "${SKIP_GROUNDTRUTH:-0}" = 1 ] && exit 0
gt=../shared/data/groundtruth
[ -d "$gt" ] || gt=/work/shared/data/groundtruth
gout=docs/tune/groundtruth
mkdir -p "$gout"
gt_sample=${GT_SAMPLE:-300}
dd_sample=${DEDISP_SAMPLE:-100}
gt_ctas=${GT_SAMPLE_CTAS:-4}
truth() { # space file gpu sample
  local space=$1 file=$2 gpu=$3 n=$4
  local stem
  stem="$gout/$(basename "$file" | sed 's/\..*//')-$gpu"
  echo "== $(basename "$file") as $gpu ($n configurations)" >&2
  /usr/bin/time -f "%e s wall" -o "$stem.time" \
    "$ptxperf" tune --space "$space" --measured "$file" --gpu "$gpu" \
    --sample "$n" --seed 1 --sample-ctas "$gt_ctas" --quiet > "$stem.txt"
}
conv=docs/tune/spaces/convolution.toml
truth $conv "$gt/kt-convolution/KT_convolution_RTX_2080_Ti.json.gz" geforce-rtx-2080-ti "$gt_sample"
truth $conv "$gt/kt-convolution/KT_convolution_RTX_3060_laptop.json.gz" geforce-rtx-3060-laptop "$gt_sample"
truth $conv "$gt/kt-convolution/KT_convolution_RTX_3090.json.gz" geforce-rtx-3090 "$gt_sample"
truth $conv "$gt/kt-convolution/KT_convolution_RTX_Titan.json.gz" titan-rtx "$gt_sample"
truth $conv "$gt/schoonhoven-convolution/convolution_GTX_1080Ti.csv.gz" geforce-gtx-1080-ti "$gt_sample"
truth $conv "$gt/schoonhoven-convolution/convolution_GTX_Titan_X.csv.gz" geforce-gtx-titan-x-maxwell "$gt_sample"
truth $conv "$gt/schoonhoven-convolution/convolution_K20.csv.gz" tesla-k20m "$gt_sample"
truth $conv "$gt/schoonhoven-convolution/convolution_P100.csv.gz" tesla-p100-pcie-16gb "$gt_sample"
truth $conv "$gt/schoonhoven-convolution/convolution_RTX_2070_SUPER.csv.gz" geforce-rtx-2070-super "$gt_sample"
dd=docs/tune/spaces/dedispersion.toml
truth $dd "$gt/dedispersion/dedispersion_milo_A4000.json.gz" rtx-a4000 "$dd_sample"
truth $dd "$gt/dedispersion/dedispersion_milo_A6000.json.gz" rtx-a6000 "$dd_sample"
