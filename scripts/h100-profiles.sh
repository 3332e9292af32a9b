#!/usr/bin/env bash
# Regenerates docs/validation/profiles-h100.tar.xz: the emulated profiles
# behind the H100 rows of docs/validation/README.md. The three kernels this
# project measured on its H100 SXM5 (data/measured/h100-sxm5-80gb, README
# there): vector_add (15 configurations), the dedispersion (60) and the
# convolution (188), every configuration of each file (H100_SAMPLE to draw
# fewer). These are development data (issue 26): models were changed to fit
# them, so no figure of theirs is judged.
#
# The dedispersion is emulated without a work budget, as the report's H100
# row always was: about 30 CPU s per configuration on the 2-core development
# machine. The whole archive took 1,364 s there at --jobs 2 (about 900 s for
# the dedispersion; NVRTC's PTX cache may have held some configurations).
# scripts/validation-report.sh then rescores the archive in seconds.
#
# Usage: scripts/h100-profiles.sh
#   H100_SAMPLE=all  configurations per data file (`all`, or a number drawn
#                    with SEED)
#   SEED=1           seed of the sample
#   CTAS=4           CTAs emulated per configuration (--sample-ctas)
#   JOBS=<cores>     worker threads
#
# Needs NVRTC (scripts/setup.sh) and the kernel sources
# (scripts/fetch-validation-kernels.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. "$root/scripts/lib/settings.sh"
sample=${H100_SAMPLE-all}
seed=${SEED-1}
ctas=${CTAS-4}
jobs=${JOBS-$(nproc)}
# Checked before anything is built (scripts/lib/settings.sh).
setting_all_or_positive H100_SAMPLE "$sample" h100-profiles
setting_number SEED "$seed" h100-profiles
setting_positive CTAS "$ctas" h100-profiles
setting_positive JOBS "$jobs" h100-profiles
sample_args=()
[ "$sample" = all ] || sample_args=(--sample "$sample" --seed "$seed")
cargo build --release --locked -p ptxperf --quiet
ptxperf=${CARGO_TARGET_DIR:-$root/target}/release/ptxperf
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
started=$(date +%s)
m=data/measured/h100-sxm5-80gb
for pair in vector_add.json:vector-add convolution.json.gz:convolution dedispersion.json.gz:dedispersion; do
  echo "h100-profiles: ${pair%%:*}" >&2
  "$ptxperf" validate "experiments/${pair#*:}.toml" --data "$m/${pair%%:*}" --gpu h100-sxm5-80gb \
    ${sample_args[@]+"${sample_args[@]}"} --sample-ctas "$ctas" --jobs "$jobs" \
    --model timing --bootstrap 0 --save-profiles "$dir" --quiet > /dev/null
done
{
  echo "settings: H100_SAMPLE=$sample SEED=$seed CTAS=$ctas"
  echo "emulated: commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (plus the working tree)') on $(date -u +%F), $(($(date +%s) - started)) s"
} > "$dir/settings.txt"
python3 scripts/profiles-archive.py pack "$dir" docs/validation/profiles-h100.tar.xz
echo "h100-profiles: wrote docs/validation/profiles-h100.tar.xz ($(find "$dir" -name '*.toml' | wc -l) profiles)" >&2
