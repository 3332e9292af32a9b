#!/usr/bin/env bash
# Installs what ptxperf needs beyond Rust, once, into the project's own
# virtual environment (.venv, ignored by git): NVRTC 12.9 and the CUDA headers
# from PyPI wheels (CCCL's too: <cooperative_groups.h>, CUB, Thrust), and
# ptxas (register counts for occupancy). No CUDA toolkit, no GPU. Safe to run again: it does nothing when everything is in place.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/.venv"
stamp="$venv/.ptxperf-setup-2"
pkgs=(nvidia-cuda-nvrtc-cu12==12.9.86 nvidia-cuda-runtime-cu12==12.9.79 nvidia-cuda-nvcc-cu12==12.9.86 nvidia-cuda-cccl-cu12==12.9.27)

if [ -f "$stamp" ]; then
  exit 0
fi
echo "ptxperf setup: installing NVRTC 12.9, the CUDA and CCCL headers and ptxas into $venv (once, about 360 MB)" >&2
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "${pkgs[@]}"
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
test -f "$site/nvidia/cuda_nvrtc/lib/libnvrtc.so.12" || { echo "setup: libnvrtc.so.12 missing after install" >&2; exit 1; }
test -f "$site/nvidia/cuda_runtime/include/cuda_fp16.h" || { echo "setup: CUDA headers missing after install" >&2; exit 1; }
test -f "$site/nvidia/cuda_cccl/include/nv/target" || { echo "setup: CCCL headers missing after install" >&2; exit 1; }
printf '%s\n' "${pkgs[@]}" > "$stamp"
echo "ptxperf setup: done" >&2
