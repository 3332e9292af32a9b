#!/usr/bin/env bash
# Installs what ptxperf needs beyond Rust, once, into the project's own
# virtual environment (.venv, ignored by git): NVRTC 12.9 and the CUDA headers
# from PyPI wheels (CCCL's too: <cooperative_groups.h>, CUB, Thrust; and
# cuRAND's device API, <curand_kernel.h>), and ptxas (register counts for
# occupancy). No CUDA toolkit, no GPU. Safe to run again: it does nothing
# when everything is in place.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
venv="$root/.venv"
stamp="$venv/.ptxperf-setup-3"
pkgs=(nvidia-cuda-nvrtc-cu12==12.9.86 nvidia-cuda-runtime-cu12==12.9.79 nvidia-cuda-nvcc-cu12==12.9.86 nvidia-cuda-cccl-cu12==12.9.27)
# cuRAND's wheel is 68 MB, almost all of it the host library; a kernel needs
# only its 2 MB of headers (the device API is header-only), so only those are
# unpacked, beside the other wheels' include folders, where ptxperf finds them.
curand=nvidia-curand-cu12==10.3.10.19

if [ -f "$stamp" ]; then
  exit 0
fi
echo "ptxperf setup: installing NVRTC 12.9, the CUDA, CCCL and cuRAND headers and ptxas into $venv (once, about 360 MB)" >&2
python3 -m venv "$venv"
"$venv/bin/pip" install --quiet --disable-pip-version-check "${pkgs[@]}"
site=$("$venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
test -f "$site/nvidia/cuda_nvrtc/lib/libnvrtc.so.12" || { echo "setup: libnvrtc.so.12 missing after install" >&2; exit 1; }
test -f "$site/nvidia/cuda_runtime/include/cuda_fp16.h" || { echo "setup: CUDA headers missing after install" >&2; exit 1; }
test -f "$site/nvidia/cuda_cccl/include/nv/target" || { echo "setup: CCCL headers missing after install" >&2; exit 1; }
wheels=$(mktemp -d)
trap 'rm -rf "$wheels"' EXIT
"$venv/bin/pip" download --quiet --disable-pip-version-check --no-deps --only-binary=:all: --dest "$wheels" "$curand"
"$venv/bin/python" -c '
import glob, sys, zipfile
wheels, site = sys.argv[1:3]
(wheel,) = glob.glob(wheels + "/nvidia_curand_cu12-*.whl")
with zipfile.ZipFile(wheel) as z:
    z.extractall(site, [n for n in z.namelist() if n.startswith("nvidia/curand/include/")])
' "$wheels" "$site"
test -f "$site/nvidia/curand/include/curand_kernel.h" || { echo "setup: cuRAND headers missing after unpacking" >&2; exit 1; }
printf '%s\n' "${pkgs[@]}" "$curand (headers only)" > "$stamp"
echo "ptxperf setup: done" >&2
