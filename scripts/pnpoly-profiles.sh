#!/usr/bin/env bash
# Regenerates docs/validation/profiles-pnpoly.tar.xz: the emulated profiles
# behind the pnpoly rows of docs/validation/README.md. pnpoly on the RTX 3090
# and the RTX 3060 Laptop, every configuration of their files (4,092 each,
# both parts of the split; PNPOLY_SAMPLE to draw fewer). The two files list
# the same configurations and both GPUs are sm_86, so each configuration is
# compiled and emulated once for both. The RTX 2080 Ti and TITAN RTX files
# are excluded by data/split.toml (their times are below reading the input
# over PCIe; docs/validation/pnpoly-pcie.md), so they are not emulated here.
# scripts/validation-report.sh then rescores the archive in seconds.
#
# Usage: scripts/pnpoly-profiles.sh
#   PNPOLY_SAMPLE=all  configurations per data file (`all`, or a number drawn
#                      with SEED)
#   SEED=1             seed of the sample
#   CTAS=4             CTAs emulated per configuration (--sample-ctas)
#   JOBS=<cores>       worker threads
#   GROUNDTRUTH=       the data folder (default ../shared/data/groundtruth)
#
# Needs NVRTC (scripts/setup.sh). About 0.8 CPU s per configuration on the
# 2-core development machine: the whole space in about half an hour.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. "$root/scripts/lib/settings.sh"
sample=${PNPOLY_SAMPLE-all}
seed=${SEED-1}
ctas=${CTAS-4}
jobs=${JOBS-$(nproc)}
gt=${GROUNDTRUTH:-../shared/data/groundtruth}
# Checked before anything is built (scripts/lib/settings.sh).
setting_all_or_positive PNPOLY_SAMPLE "$sample" pnpoly-profiles
setting_number SEED "$seed" pnpoly-profiles
setting_positive CTAS "$ctas" pnpoly-profiles
setting_positive JOBS "$jobs" pnpoly-profiles
sample_args=()
[ "$sample" = all ] || sample_args=(--sample "$sample" --seed "$seed")
cargo build --release --locked -p ptxperf --quiet
ptxperf=${CARGO_TARGET_DIR:-$root/target}/release/ptxperf
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
started=$(date +%s)
p=$gt/kt-pnpoly
"$ptxperf" validate experiments/pnpoly.toml \
  --data "$p/KT_pnpoly_RTX_3090.json.gz" --gpu geforce-rtx-3090 \
  --data "$p/KT_pnpoly_RTX_3060_laptop.json.gz" --gpu geforce-rtx-3060-laptop \
  "${sample_args[@]}" --sample-ctas "$ctas" --jobs "$jobs" \
  --model timing --bootstrap 0 --save-profiles "$dir" --quiet > /dev/null
{
  echo "settings: PNPOLY_SAMPLE=$sample SEED=$seed CTAS=$ctas"
  echo "emulated: commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (plus the working tree)') on $(date -u +%F), $(($(date +%s) - started)) s"
} > "$dir/settings.txt"
python3 scripts/profiles-archive.py pack "$dir" docs/validation/profiles-pnpoly.tar.xz
echo "pnpoly-profiles: wrote docs/validation/profiles-pnpoly.tar.xz ($(find "$dir" -name '*.toml' | wc -l) profiles)" >&2
