#!/usr/bin/env bash
# The main job on a bundled example: compile examples/saxpy.cu to PTX with
# NVRTC (installed once by scripts/setup.sh) and check the PTX.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/setup.sh
cargo build --release --locked --quiet -p ptxperf
bin=target/release/ptxperf
mkdir -p out
"$bin" compile examples/saxpy.cu --arch sm_80 -o out/saxpy.ptx
"$bin" check out/saxpy.ptx
