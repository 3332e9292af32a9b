#!/usr/bin/env bash
# The main job on the bundled example (examples/saxpy.cu, examples/saxpy.toml):
# compile it to PTX with NVRTC (installed once by scripts/setup.sh), check the
# PTX, run it on the SIMT emulator, characterize it, and predict its time on an
# A100 with every model.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/setup.sh
cargo build --release --locked --quiet -p ptxperf
bin=target/release/ptxperf
mkdir -p out
set -x
"$bin" compile examples/saxpy.cu --arch sm_80 -o out/saxpy.ptx
"$bin" check out/saxpy.ptx
"$bin" run examples/saxpy.toml --dump out/saxpy
"$bin" characterize examples/saxpy.toml --lines 5
"$bin" predict examples/saxpy.toml --gpu a100-pcie-40gb --svg out/saxpy-roofline.svg
