#!/usr/bin/env bash
# Regenerates docs/validation/profiles-schoonhoven.tar.xz: the emulated
# profiles behind the Schoonhoven convolution rows of docs/validation/README.md.
# Kernel Tuner's convolution on the GTX 1080 Ti, GTX TITAN X, Tesla K20m,
# Tesla P100 and RTX 2070 SUPER: SCHOON_SAMPLE configurations drawn with SEED
# from every configuration of each file (both parts of the split). The five
# files list the same 5,776 configurations in the same order, so they draw
# the same ones and share one run.
#
# NVRTC's PTX of this kernel is the same for sm_50 to sm_86 apart from its
# `.target` (checked on 20 configurations of this space compiled for each of
# the five GPUs: one emulation served all 100; docs/validation/schoonhoven.md),
# so each configuration is compiled once, for sm_50 (--ptx-arch), and ptxas
# builds that PTX for each GPU's architecture: one NVRTC compile per
# configuration instead of five, the same figures.
#
# A run takes hours on two cores, so the profiles go to a folder that
# survives an interruption (SCHOON_DIR) and a second start resumes where the
# first stopped (validate --resume). validate works through a sample in the
# data files' order, so a run stopped half-way leaves no random sample
# behind; the run therefore grows the sample in steps of SCHOON_STEP (each
# sample of seed 1 holds the smaller ones: the draw is a partial shuffle),
# and every finished step is a sample that can be archived on its own.
# Only the profiles of the SCHOON_SAMPLE configurations are archived
# (profiles-archive.py select), whatever else the folder holds.
#
# Usage: scripts/schoonhoven-profiles.sh
#   SCHOON_SAMPLE=2000  configurations sampled per data file; `all`: every
#                       configuration (5,776), the whole spaces the report
#                       then judges against issue 26's bar
#   SCHOON_STEP=500     the sample grows by this many per resumed validate run
#   SEED=1              seed of the sample
#   CTAS=4              CTAs emulated per configuration (--sample-ctas)
#   JOBS=<cores>        worker threads
#   SCHOON_DIR=target/schoonhoven-profiles   where the profiles are kept
#   GROUNDTRUTH=        the data folder (default ../shared/data/groundtruth)
#
# Needs NVRTC (scripts/setup.sh). About 4.5 CPU s per configuration on the
# 2-core development machine (3.9 s of NVRTC, five ptxas runs of 0.3 s, one
# emulation): the committed archive (SCHOON_SAMPLE=all, 5,776 per GPU)
# took about 5 hours of wall time at --jobs 2, in resumed starts.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. "$root/scripts/lib/settings.sh"
sample=${SCHOON_SAMPLE-2000}
step=${SCHOON_STEP-500}
seed=${SEED-1}
ctas=${CTAS-4}
jobs=${JOBS-$(nproc)}
dir=${SCHOON_DIR:-$root/target/schoonhoven-profiles}
gt=${GROUNDTRUTH:-../shared/data/groundtruth}
# Checked before anything is built (scripts/lib/settings.sh).
setting_all_or_positive SCHOON_SAMPLE "$sample" schoonhoven-profiles
setting_positive SCHOON_STEP "$step" schoonhoven-profiles
setting_number SEED "$seed" schoonhoven-profiles
setting_positive CTAS "$ctas" schoonhoven-profiles
setting_positive JOBS "$jobs" schoonhoven-profiles
# `all`: the steps grow to the files' whole length (a sample of every
# configuration is all of them).
s=$gt/schoonhoven-convolution
whole=0
if [ "$sample" = all ]; then
  whole=1
  sample=$(python3 -c 'import gzip, sys; print(sum(1 for _ in gzip.open(sys.argv[1], "rt")) - 1)' \
    "$s/convolution_GTX_1080Ti.csv.gz" 2>/dev/null) || { echo "schoonhoven-profiles: cannot read $s/convolution_GTX_1080Ti.csv.gz" >&2; exit 1; }
  case $sample in
    '' | *[!0-9]* | 0) echo "schoonhoven-profiles: SCHOON_SAMPLE=all, but $s/convolution_GTX_1080Ti.csv.gz lists no configurations ('$sample')" >&2; exit 1 ;;
  esac
fi
cargo build --release --locked -p ptxperf --quiet
ptxperf=${CARGO_TARGET_DIR:-$root/target}/release/ptxperf
mkdir -p "$dir"
started=$(date +%s)
pack=$(mktemp -d)
trap 'rm -rf "$pack"' EXIT
# One resumed validate run per step; the last one's JSON names the sample.
n=0
while [ "$n" -lt "$sample" ]; do
  n=$((n + step))
  [ "$n" -gt "$sample" ] && n=$sample
  echo "schoonhoven-profiles: the sample of $n (of $sample)" >&2
  "$ptxperf" validate experiments/convolution.toml \
    --data "$s/convolution_GTX_1080Ti.csv.gz" --gpu geforce-gtx-1080-ti \
    --data "$s/convolution_GTX_Titan_X.csv.gz" --gpu geforce-gtx-titan-x-maxwell \
    --data "$s/convolution_K20.csv.gz" --gpu tesla-k20m \
    --data "$s/convolution_P100.csv.gz" --gpu tesla-p100-pcie-16gb \
    --data "$s/convolution_RTX_2070_SUPER.csv.gz" --gpu geforce-rtx-2070-super \
    --sample "$n" --seed "$seed" --sample-ctas "$ctas" --jobs "$jobs" \
    --ptx-arch sm_50 --model timing --bootstrap 0 \
    --save-profiles "$dir" --resume --quiet --json > "$pack/validate.json"
done
python3 scripts/profiles-archive.py select "$pack/validate.json" "$dir" "$pack"
rm "$pack/validate.json"
{
  shown_sample=$sample
  [ "$whole" = 0 ] || shown_sample=all
  echo "settings: SCHOON_SAMPLE=$shown_sample SEED=$seed CTAS=$ctas PTX_ARCH=sm_50"
  echo "emulated: commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (plus the working tree)') on $(date -u +%F), $(($(date +%s) - started)) s in this start (earlier starts resumed)"
} > "$pack/settings.txt"
python3 scripts/profiles-archive.py pack "$pack" docs/validation/profiles-schoonhoven.tar.xz
echo "schoonhoven-profiles: wrote docs/validation/profiles-schoonhoven.tar.xz ($(find -L "$pack" -name '*.toml' | wc -l) profiles)" >&2
