#!/usr/bin/env bash
# Rescores the H200 check data (data/measured/h200-sxm-141gb) from the saved
# profiles in docs/validation/profiles-h200.tar.xz, in seconds and without
# NVRTC: the whole convolution space (400 configurations, 283 valid), the 40
# dedispersion configurations drawn with seed 1, the 15 vector_add block
# sizes, and the GEMM (800) and pnpoly (562 and 553 valid of 600 each)
# samples measured on 2026-12-04 (`gemm.json.gz`, `pnpoly.json.gz`,
# `pnpoly-seed2.json.gz`), each scored by the timing and the learned model with 90 %
# bootstrap intervals. The H200 is check data: no model is developed on
# these figures (docs/validation/split.md, h200-check.md).
#
# Usage: scripts/h200-check.sh [extra validate options, e.g. --json]
#   LEARNED_MODEL=FILE  score this learned model file instead of the committed
#                       data/learned/model.json (e.g. one trained by
#                       `ptxperf learn` without the H100's data files, to see
#                       the H200 as a GPU whose architecture was never seen;
#                       docs/validation/learned.md, "An unseen GPU")
#   MODELS="timing learned"  the models scored
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
cargo build --release --locked -p ptxperf --quiet
ptxperf=${CARGO_TARGET_DIR:-$root/target}/release/ptxperf
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
python3 scripts/profiles-archive.py unpack docs/validation/profiles-h200.tar.xz "$dir"
if [ -n "${LEARNED_MODEL:-}" ]; then
  export PTXPERF_LEARNED_MODEL=$LEARNED_MODEL
fi
model_args=()
for m in ${MODELS:-timing learned}; do model_args+=(--model "$m"); done
m=data/measured/h200-sxm-141gb
run() {
  echo "== $1 $2"
  "$ptxperf" validate "experiments/$1" --data "$m/$2" --gpu h200-sxm-141gb --part check \
    --profiles "$dir" "${model_args[@]}" "${@:3}"
}
run convolution.toml convolution.json.gz "$@"
run dedispersion.toml dedispersion.json.gz --sample 40 --seed 1 "$@"
run vector-add.toml vector_add.json "$@"
run gemm.toml gemm.json.gz "$@"
run pnpoly.toml pnpoly.json.gz "$@"
run pnpoly.toml pnpoly-seed2.json.gz "$@"
