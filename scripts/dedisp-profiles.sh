#!/usr/bin/env bash
# Regenerates docs/validation/profiles-dedispersion.tar.xz: emulated
# profiles of the brute-force dedispersion on the RTX A4000 and RTX A6000,
# DEDISP_SAMPLE configurations drawn with SEED from every configuration of
# their files (11,130 each, both parts of the split). The two files list the
# same configurations and both GPUs are sm_86, so they draw the same ones and
# each is compiled and emulated once for both. The report's dedispersion
# rows of those GPUs are rescored from them and `ptxperf learn` trains on
# them (docs/validation/README.md, docs/validation/learned.md).
#
# By default each configuration is emulated as `validate` emulates it: the
# CTA sample grows until its counts settle (estimated error at most 3 %),
# 4 to 12 s per configuration at two jobs on the 2-core machine, hours for
# 2,000; DIR= keeps the profiles so that a run stopped part way goes on
# where it stopped. BUDGET=N bounds the warp instructions of a grown sample
# instead (--work-budget, docs/speed.md "Huge grids"; about 1 s per
# configuration at N = 2,000,000) and leaves most samples unsettled: the
# archive emulated so (2026-11-30) had a median estimated error of 10.8 %,
# which held the timing model's Spearman down by about 0.2 on these GPUs
# (docs/validation/README.md, "The dedispersion's rank is held down by the
# work budget's sampling noise").
#
# Usage: scripts/dedisp-profiles.sh
#   DEDISP_SAMPLE=2000  configurations per data file (`all`, or a number
#                       drawn with SEED)
#   SEED=1              seed of the sample
#   CTAS=4              CTAs emulated per configuration (--sample-ctas)
#   BUDGET=none         --work-budget N, or `none` for the default emulation
#   JOBS=<cores>        worker threads
#   GROUNDTRUTH=        the data folder (default ../shared/data/groundtruth)
#   DIR=                keep the profiles in this folder and go on from the
#                       ones it holds (`validate --resume`): a run stopped
#                       part way is started again with the same DIR and
#                       settings (default: a temporary folder)
#
# Needs NVRTC (scripts/setup.sh) and the dedispersion source
# (scripts/fetch-validation-kernels.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. "$root/scripts/lib/settings.sh"
sample=${DEDISP_SAMPLE-2000}
seed=${SEED-1}
ctas=${CTAS-4}
budget=${BUDGET-none}
jobs=${JOBS-$(nproc)}
gt=${GROUNDTRUTH:-../shared/data/groundtruth}
# Checked before anything is built (scripts/lib/settings.sh).
setting_all_or_positive DEDISP_SAMPLE "$sample" dedisp-profiles
setting_number SEED "$seed" dedisp-profiles
setting_positive CTAS "$ctas" dedisp-profiles
setting_positive JOBS "$jobs" dedisp-profiles
setting_none_or_positive BUDGET "$budget" dedisp-profiles "warp instructions"
settings="settings: DEDISP_SAMPLE=$sample SEED=$seed CTAS=$ctas BUDGET=$budget"
# A folder to go on from must hold profiles of these settings: a resumed run
# with others would mix two emulations in one archive.
if [ -n "${DIR:-}" ] && [ -f "$DIR/settings.txt" ] && [ "$(head -n 1 "$DIR/settings.txt")" != "$settings" ]; then
  echo "dedisp-profiles: DIR=$DIR holds profiles of \"$(head -n 1 "$DIR/settings.txt")\", not \"$settings\": give the same settings or another folder" >&2
  exit 1
fi
sample_args=()
[ "$sample" = all ] || sample_args=(--sample "$sample" --seed "$seed")
budget_args=()
[ "$budget" = none ] || budget_args=(--work-budget "$budget")
cargo build --release --locked -p ptxperf --quiet
ptxperf=${CARGO_TARGET_DIR:-$root/target}/release/ptxperf
if [ -n "${DIR:-}" ]; then
  dir=$DIR
  mkdir -p "$dir"
  resume=(--resume)
else
  dir=$(mktemp -d)
  trap 'rm -rf "$dir"' EXIT
  resume=()
fi
started=$(date +%s)
resumed_from=$(find "$dir" -name '*.toml' | wc -l)
# Written first, so that a run stopped part way leaves its settings behind.
echo "$settings" > "$dir/settings.txt"
d=$gt/dedispersion
"$ptxperf" validate experiments/dedispersion.toml \
  --data "$d/dedispersion_milo_A4000.json.gz" --gpu rtx-a4000 \
  --data "$d/dedispersion_milo_A6000.json.gz" --gpu rtx-a6000 \
  "${sample_args[@]}" --sample-ctas "$ctas" ${budget_args[@]+"${budget_args[@]}"} --jobs "$jobs" \
  --model timing --bootstrap 0 --save-profiles "$dir" "${resume[@]}" --quiet > /dev/null
resumed=""
[ "$resumed_from" = 0 ] || resumed=" (this start; it went on from $resumed_from saved profiles)"
{
  echo "$settings"
  echo "emulated: commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (plus the working tree)') on $(date -u +%F), $(($(date +%s) - started)) s$resumed"
} > "$dir/settings.txt"
python3 scripts/profiles-archive.py pack "$dir" docs/validation/profiles-dedispersion.tar.xz
echo "dedisp-profiles: wrote docs/validation/profiles-dedispersion.tar.xz ($(find "$dir" -name '*.toml' | wc -l) profiles)" >&2
