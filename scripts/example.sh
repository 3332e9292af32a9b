#!/usr/bin/env bash
# The main job on the bundled example (examples/saxpy.cu, examples/saxpy.toml):
# compile it to PTX with NVRTC (installed once by scripts/setup.sh), check the
# PTX, run it on the SIMT emulator, characterize it, and predict its time on an
# A100 with every model. Each step says what it does on stderr; cargo shows
# its own progress while it builds (a first build takes a few minutes).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
step() { printf '\n==> %s\n' "$*" >&2; }
step "1/7 setup: NVRTC, the CUDA headers and ptxas in .venv (installed once)"
bash scripts/setup.sh
step "2/7 building ptxperf (cargo build --release; a first build takes a few minutes)"
cargo build --release --locked -p ptxperf
bin=target/release/ptxperf
mkdir -p out
step "3/7 compiling examples/saxpy.cu to PTX with NVRTC: out/saxpy.ptx"
"$bin" compile examples/saxpy.cu --arch sm_80 -o out/saxpy.ptx
step "4/7 checking the PTX"
"$bin" check out/saxpy.ptx
step "5/7 running the kernel on the emulator (buffers into out/saxpy/)"
"$bin" run examples/saxpy.toml --dump out/saxpy
step "6/7 characterizing it (Kerr et al. metrics, the hottest lines)"
"$bin" characterize examples/saxpy.toml --lines 5
step "7/7 predicting its time on an A100 (roofline chart: out/saxpy-roofline.svg)"
"$bin" predict examples/saxpy.toml --gpu a100-pcie-40gb --svg out/saxpy-roofline.svg
