#!/usr/bin/env bash
# Regenerates docs/validation/profiles-kt-convolution.tar.xz: the emulated
# profiles behind the whole-space convolution rows of
# docs/validation/README.md. Kernel Tuner's convolution on its GPUs, every
# configuration of each file (both parts of the split). The four files list
# the same configurations, and NVRTC's PTX of this kernel for compute_75 and
# compute_86 differs only in its `.target` line, so by default one run takes
# all four GPUs: each configuration is compiled once, for sm_75 (the oldest
# of them: --ptx-arch), built for each GPU by ptxas and emulated once.
# scripts/validation-report.sh then rescores the archive in seconds.
#
# A whole space is hours of work on two cores, so the profiles go to a folder
# that survives an interruption (KTCONV_DIR), and a second start resumes
# where the first stopped (validate --resume): only configurations without
# a profile for every GPU of their run are compiled and emulated.
#
# Usage: scripts/kt-convolution-profiles.sh
#   KTCONV_GPUS="geforce-rtx-3090,geforce-rtx-3060-laptop,geforce-rtx-2080-ti,titan-rtx"
#                 the runs: space-separated, each a comma-separated list of
#                 catalog ids
#   KTCONV_PTX_ARCH=sm_75   compile once per configuration and run for this
#                 architecture (no newer than any GPU of a run); empty:
#                 compile for each GPU's own architecture, as Kernel Tuner did
#   KTCONV_DIR=target/kt-convolution-profiles   where the profiles are kept
#   CTAS=4        CTAs emulated per configuration (--sample-ctas)
#   JOBS=<cores>  worker threads
#   GROUNDTRUTH=  the data folder (default ../shared/data/groundtruth)
#
# Needs NVRTC (scripts/setup.sh). Measured on the 2-core development
# machine (8 configurations, 2026-12-05): one run of the four GPUs took
# 3.8 CPU s per configuration, two runs by architecture without
# --ptx-arch 7.2 (NVRTC is most of it), and the 32 profiles were the same
# byte for byte but their first line; 5,256 configurations take about
# five and a half CPU hours.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
. "$root/scripts/lib/settings.sh"
runs=${KTCONV_GPUS-geforce-rtx-3090,geforce-rtx-3060-laptop,geforce-rtx-2080-ti,titan-rtx}
ptx_arch=${KTCONV_PTX_ARCH-sm_75}
dir=${KTCONV_DIR:-$root/target/kt-convolution-profiles}
ctas=${CTAS-4}
jobs=${JOBS-$(nproc)}
gt=${GROUNDTRUTH:-../shared/data/groundtruth}
# The data file of each GPU.
file_of() {
  case $1 in
    geforce-rtx-2080-ti) echo KT_convolution_RTX_2080_Ti ;;
    geforce-rtx-3060-laptop) echo KT_convolution_RTX_3060_laptop ;;
    geforce-rtx-3090) echo KT_convolution_RTX_3090 ;;
    titan-rtx) echo KT_convolution_RTX_Titan ;;
    *) echo "kt-convolution-profiles: no convolution data file for GPU '$1' (KTCONV_GPUS)" >&2; return 1 ;;
  esac
}
# Checked before anything is built (scripts/lib/settings.sh): the settings,
# and that every GPU of every run has a data file.
setting_nonempty KTCONV_GPUS "$runs" kt-convolution-profiles
setting_positive CTAS "$ctas" kt-convolution-profiles
setting_positive JOBS "$jobs" kt-convolution-profiles
# Empty is a choice here (compile per architecture), so only a value that is
# not an architecture is refused.
case $ptx_arch in
  '' | sm_[1-9][0-9] | sm_[1-9][0-9][0-9]) ;;
  *) echo "kt-convolution-profiles: KTCONV_PTX_ARCH must be an architecture such as sm_75, or empty to compile for each GPU's own, not '$ptx_arch'" >&2; exit 1 ;;
esac
for run in $runs; do
  [ -n "${run//,/}" ] || { echo "kt-convolution-profiles: a run of KTCONV_GPUS names no GPU: '$run'" >&2; exit 1; }
  for gpu in ${run//,/ }; do file_of "$gpu" > /dev/null || exit 1; done
done
cargo build --release --locked -p ptxperf --quiet
ptxperf=${CARGO_TARGET_DIR:-$root/target}/release/ptxperf
mkdir -p "$dir"
started=$(date +%s)
all_gpus=()
for run in $runs; do
  args=()
  [ -n "$ptx_arch" ] && args+=(--ptx-arch "$ptx_arch")
  for gpu in ${run//,/ }; do
    args+=(--data "$gt/kt-convolution/$(file_of "$gpu").json.gz" --gpu "$gpu")
    all_gpus+=("$gpu")
  done
  echo "kt-convolution-profiles: ${run//,/ and } (resumes from $dir)" >&2
  "$ptxperf" validate experiments/convolution.toml "${args[@]}" \
    --sample-ctas "$ctas" --jobs "$jobs" --model timing --bootstrap 0 \
    --save-profiles "$dir" --resume --quiet > /dev/null
done
# The profiles of GPUs not named in this run are left out of the archive.
pack=$(mktemp -d)
trap 'rm -rf "$pack"' EXIT
for gpu in "${all_gpus[@]}"; do ln -s "$dir/$gpu" "$pack/$gpu"; done
gpus=$(IFS=,; echo "${all_gpus[*]}")
{
  echo "settings: KTCONV_SAMPLE=all SEED=1 CTAS=$ctas GPUS=$gpus${ptx_arch:+ PTX_ARCH=$ptx_arch}"
  echo "emulated: commit $(git rev-parse --short HEAD)$(git diff --quiet || echo ' (plus the working tree)') on $(date -u +%F), $(($(date +%s) - started)) s in this start (earlier starts resumed)"
} > "$pack/settings.txt"
python3 scripts/profiles-archive.py pack "$pack" docs/validation/profiles-kt-convolution.tar.xz
echo "kt-convolution-profiles: wrote docs/validation/profiles-kt-convolution.tar.xz ($(find -L "$pack" -name '*.toml' | wc -l) profiles)" >&2
