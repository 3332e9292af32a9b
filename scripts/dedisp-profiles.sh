#!/usr/bin/env bash
# Regenerates docs/validation/profiles-dedispersion.tar.xz: emulated
# profiles of the brute-force dedispersion on the RTX A4000 and RTX A6000,
# DEDISP_SAMPLE configurations drawn with SEED from every configuration of
# their files (11,130 each, both parts of the split). The two files list the
# same configurations and both GPUs are sm_86, so they draw the same ones and
# each is compiled and emulated once for both. `ptxperf learn` trains on
# them (docs/validation/learned.md); the report's dedispersion rows keep
# their 20-configuration samples of profiles.tar.xz.
#
# Unlike the other archives these profiles are emulated with a work budget
# (--work-budget, docs/speed.md "Huge grids"): unbounded, a configuration
# costs about 25 CPU s (2,000 would take 14 hours on the 2-core machine);
# bounded at 2,000,000 warp instructions it costs about 2.6, and its
# timing prediction lies within 0.86 to 1.04 of the unbounded one on 20
# configurations of the A4000.
#
# Usage: scripts/dedisp-profiles.sh
#   DEDISP_SAMPLE=2000  configurations per data file (`all`, or a number
#                       drawn with SEED)
#   SEED=1              seed of the sample
#   CTAS=4              CTAs emulated per configuration (--sample-ctas)
#   BUDGET=2000000      --work-budget
#   JOBS=<cores>        worker threads
#   GROUNDTRUTH=        the data folder (default ../shared/data/groundtruth)
#
# Needs NVRTC (scripts/setup.sh) and the dedispersion source
# (scripts/fetch-validation-kernels.sh).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
sample=${DEDISP_SAMPLE:-2000}
seed=${SEED:-1}
ctas=${CTAS:-4}
budget=${BUDGET:-2000000}
jobs=${JOBS:-$(nproc)}
gt=${GROUNDTRUTH:-../shared/data/groundtruth}
sample_args=()
[ "$sample" = all ] || sample_args=(--sample "$sample" --seed "$seed")
cargo build --release --locked -p ptxperf --quiet
ptxperf=${CARGO_TARGET_DIR:-$root/target}/release/ptxperf
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
started=$(date +%s)
d=$gt/dedispersion
"$ptxperf" validate experiments/dedispersion.toml \
  --data "$d/dedispersion_milo_A4000.json.gz" --gpu rtx-a4000 \
  --data "$d/dedispersion_milo_A6000.json.gz" --gpu rtx-a6000 \
  "${sample_args[@]}" --sample-ctas "$ctas" --work-budget "$budget" --jobs "$jobs" \
  --model timing --bootstrap 0 --save-profiles "$dir" --quiet > /dev/null
{
  echo "settings: DEDISP_SAMPLE=$sample SEED=$seed CTAS=$ctas BUDGET=$budget"
  echo "emulated: commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (plus the working tree)') on $(date -u +%F), $(($(date +%s) - started)) s"
} > "$dir/settings.txt"
python3 scripts/profiles-archive.py pack "$dir" docs/validation/profiles-dedispersion.tar.xz
echo "dedisp-profiles: wrote docs/validation/profiles-dedispersion.tar.xz ($(find "$dir" -name '*.toml' | wc -l) profiles)" >&2
