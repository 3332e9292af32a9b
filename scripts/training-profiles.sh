#!/usr/bin/env bash
# Regenerates data/learned/profiles-gemm-pnpoly.tar.xz: the emulated profiles
# of the kernels the validation report does not score, which the `learned`
# model trains on beside the report's archive (docs/validation/learned.md).
# CLBlast's GEMM on its four GPUs and pnpoly on the two whose times are valid
# (data/split.toml excludes the other two), SAMPLE configurations drawn with
# SEED from every configuration of each file (training reads the development
# part only; cross-validation scores the check part).
#
# Usage: scripts/training-profiles.sh
#   SAMPLE=80      configurations sampled per data file
#   SEED=1         seed of the sample
#   JOBS=<cores>   worker threads
#   GROUNDTRUTH=   the data folder (default ../shared/data/groundtruth)
#   OUT=           the archive (default data/learned/profiles-gemm-pnpoly.tar.xz)
#
# Needs NVRTC (scripts/setup.sh) and a release build. About 15 CPU minutes
# on the 2-core development machine (GEMM 12, pnpoly 1).
set -euo pipefail
absolute() { case $1 in "" | /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac; }
out=$(absolute "${OUT:-}")
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
out=${out:-data/learned/profiles-gemm-pnpoly.tar.xz}
sample=${SAMPLE:-80}
seed=${SEED:-1}
jobs=${JOBS:-$(nproc)}
gt=${GROUNDTRUTH:-../shared/data/groundtruth}
ptxperf=target/release/ptxperf
[ -x "$ptxperf" ] || cargo build --release --locked -p ptxperf
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
started=$(date +%s)
g=$gt/kt-gemm
"$ptxperf" validate experiments/gemm.toml \
  --data "$g/KT_gemm_RTX_3090.json.gz" --gpu geforce-rtx-3090 \
  --data "$g/KT_gemm_RTX_2080_Ti.json.gz" --gpu geforce-rtx-2080-ti \
  --data "$g/KT_gemm_RTX_Titan.json.gz" --gpu titan-rtx \
  --data "$g/KT_gemm_RTX_3060_laptop.json.gz" --gpu geforce-rtx-3060-laptop \
  --sample "$sample" --seed "$seed" --jobs "$jobs" --save-profiles "$dir" > /dev/null
p=$gt/kt-pnpoly
"$ptxperf" validate experiments/pnpoly.toml \
  --data "$p/KT_pnpoly_RTX_3090.json.gz" --gpu geforce-rtx-3090 \
  --data "$p/KT_pnpoly_RTX_3060_laptop.json.gz" --gpu geforce-rtx-3060-laptop \
  --sample "$sample" --seed "$seed" --jobs "$jobs" --save-profiles "$dir" > /dev/null
{
  echo "settings: SAMPLE=$sample SEED=$seed (GEMM on 4 GPUs, pnpoly on 2)"
  echo "emulated: commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (plus the working tree)') on $(date -u +%F), $(($(date +%s) - started)) s"
} > "$dir/settings.txt"
python3 scripts/profiles-archive.py pack "$dir" "$out"
echo "training-profiles: wrote $out ($(find "$dir" -name '*.toml' | wc -l) profiles)" >&2
