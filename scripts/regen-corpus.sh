#!/usr/bin/env bash
# Regenerates the checked-in PTX of the kernel corpus: for every
# kernels/<name>/spec.toml, compiles the spec's source with the spec's defines
# (`ptxperf compile --spec`, which reads `source` and `defines` from the launch
# spec) for sm_70, sm_80 and sm_90, with -lineinfo (ptxperf's default), into
# kernels/<name>/sm_XX.ptx. Run from anywhere; paths in the PTX are relative
# to the repository root, so the output does not depend on the checkout's
# location. The test crates/nvrtc/tests/corpus_drift.rs fails when the
# checked-in PTX no longer matches what NVRTC makes.
#
# Usage: bash scripts/regen-corpus.sh [NAME...]   (default: every kernel)
# PTXPERF_BIN=path/to/ptxperf uses that binary instead of building one.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/setup.sh
if [ -n "${PTXPERF_BIN:-}" ]; then
  bin=$PTXPERF_BIN
else
  cargo build --release --locked --quiet -p ptxperf
  bin=target/release/ptxperf
fi
if [ $# -gt 0 ]; then
  names=("$@")
else
  names=()
  for spec in kernels/*/spec.toml; do
    names+=("$(basename "$(dirname "$spec")")")
  done
fi
for name in "${names[@]}"; do
  spec="kernels/$name/spec.toml"
  [ -f "$spec" ] || { echo "regen-corpus: $spec not found" >&2; exit 1; }
  for arch in sm_70 sm_80 sm_90; do
    # NVRTC warns that sm_70 is deprecated on every sm_70 build: expected, not shown.
    "$bin" compile --spec "$spec" --arch "$arch" -o "kernels/$name/$arch.ptx" \
      2> >(grep -v "Architectures prior to '<compute/sm>_75' are deprecated" >&2)
  done
  echo "regen-corpus: kernels/$name: sm_70 sm_80 sm_90" >&2
done
