#!/usr/bin/env bash
# Regenerates docs/validation/profiles-gemm.tar.xz: the emulated profiles
# behind the GEMM rows of docs/validation/README.md. CLBlast's Xgemm on its
# four GPUs, GEMM_SAMPLE configurations of each file drawn with SEED from
# every configuration (both parts of the split). The RTX 2080 Ti, RTX 3090
# and TITAN RTX files list the same 17,956 configurations, so they draw the
# same ones and share a run: a configuration is compiled once per
# architecture and emulated once (sm_75 and sm_86 get the same PTX apart
# from `.target`). scripts/validation-report.sh then rescores the archive in
# about a minute.
#
# Usage: scripts/gemm-profiles.sh
#   GEMM_SAMPLE=2000  configurations sampled per data file
#   GEMM_LAPTOP_SAMPLE=GEMM_SAMPLE  the same for the RTX 3060 Laptop's file
#                     (10,000 configurations; it draws other configurations
#                     than the other three, so it costs a run of its own)
#   SEED=1            seed of the sample
#   CTAS=4            CTAs emulated per configuration (--sample-ctas)
#   JOBS=<cores>      worker threads
#   GROUNDTRUTH=      the data folder (default ../shared/data/groundtruth)
#
# Needs NVRTC (scripts/setup.sh). About 2.6 CPU s per configuration on the
# 2-core development machine (the three files of 17,956 configurations
# share each configuration's emulation), so about 45 minutes for those three
# at 2,000 and as long again for the laptop's.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. "$root/scripts/lib/settings.sh"
sample=${GEMM_SAMPLE-2000}
laptop_sample=${GEMM_LAPTOP_SAMPLE-$sample}
seed=${SEED-1}
ctas=${CTAS-4}
jobs=${JOBS-$(nproc)}
gt=${GROUNDTRUTH:-../shared/data/groundtruth}
# Checked before anything is built (scripts/lib/settings.sh). validate's
# --sample takes a number only, so there is no `all` here.
setting_positive GEMM_SAMPLE "$sample" gemm-profiles
setting_positive GEMM_LAPTOP_SAMPLE "$laptop_sample" gemm-profiles
setting_number SEED "$seed" gemm-profiles
setting_positive CTAS "$ctas" gemm-profiles
setting_positive JOBS "$jobs" gemm-profiles
cargo build --release --locked -p ptxperf --quiet
ptxperf=${CARGO_TARGET_DIR:-$root/target}/release/ptxperf
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
started=$(date +%s)
g=$gt/kt-gemm
"$ptxperf" validate experiments/gemm.toml \
  --data "$g/KT_gemm_RTX_2080_Ti.json.gz" --gpu geforce-rtx-2080-ti \
  --data "$g/KT_gemm_RTX_3090.json.gz" --gpu geforce-rtx-3090 \
  --data "$g/KT_gemm_RTX_Titan.json.gz" --gpu titan-rtx \
  --sample "$sample" --seed "$seed" --sample-ctas "$ctas" --jobs "$jobs" \
  --model timing --bootstrap 0 --save-profiles "$dir" --quiet > /dev/null
"$ptxperf" validate experiments/gemm.toml \
  --data "$g/KT_gemm_RTX_3060_laptop.json.gz" --gpu geforce-rtx-3060-laptop \
  --sample "$laptop_sample" --seed "$seed" --sample-ctas "$ctas" --jobs "$jobs" \
  --model timing --bootstrap 0 --save-profiles "$dir" --quiet > /dev/null
{
  echo "settings: GEMM_SAMPLE=$sample GEMM_LAPTOP_SAMPLE=$laptop_sample SEED=$seed CTAS=$ctas"
  echo "emulated: commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (plus the working tree)') on $(date -u +%F), $(($(date +%s) - started)) s"
} > "$dir/settings.txt"
python3 scripts/profiles-archive.py pack "$dir" docs/validation/profiles-gemm.tar.xz
echo "gemm-profiles: wrote docs/validation/profiles-gemm.tar.xz ($(find "$dir" -name '*.toml' | wc -l) profiles)" >&2
