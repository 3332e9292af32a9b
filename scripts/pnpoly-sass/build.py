#!/usr/bin/env python3
"""Compile every block_size_x=256 configuration of the kt-pnpoly space:
CUDA -> PTX (ptxperf compile, NVRTC, sm_86) -> cubin (ptxas -arch=sm_86)
-> SASS text (nvdisasm -c). Sequential, one process at a time. Outputs
under $OUT (default target/pnpoly-sass)/{ptx,cubin,sass}, named
bm{between}_t{tile}_u{use}. Then analyze.py and report.py
(docs/validation/pnpoly-pcie.md, "The SASS of the per-edge loop").

Run from the repository root. Environment:
  PTXPERF        ptxperf binary (default target/release/ptxperf)
  PTXPERF_PTXAS  ptxas (default .venv's nvidia/cuda_nvcc/bin/ptxas)
  NVDISASM       nvdisasm (required; e.g. `pip install nvidia-cuda-nvdisasm`
                 into a venv: its nvidia/cu13/bin/nvdisasm)
  PNPOLY_SRC     the kernel (default
                 ../shared/data/groundtruth/kernels/benchmark_hub/pnpoly/pnpoly.cu)
"""
import itertools
import os
import subprocess

HERE = os.environ.get("OUT", "target/pnpoly-sass")
SRC = os.environ.get(
    "PNPOLY_SRC", "../shared/data/groundtruth/kernels/benchmark_hub/pnpoly/pnpoly.cu"
)
PTXPERF = os.environ.get("PTXPERF", "target/release/ptxperf")
PTXAS = os.environ.get(
    "PTXPERF_PTXAS", ".venv/lib/python3.11/site-packages/nvidia/cuda_nvcc/bin/ptxas"
)
NVDISASM = os.environ.get("NVDISASM", "")
TILES = [1, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20]
BLOCK = 256
N = 20000000


def name(bm, t, u):
    return f"bm{bm}_t{t}_u{u}"


def main():
    if not NVDISASM:
        raise SystemExit("set NVDISASM to an nvdisasm binary (see this file's docstring)")
    for d in ("ptx", "cubin", "sass"):
        os.makedirs(os.path.join(HERE, d), exist_ok=True)
    for bm, t, u in itertools.product(range(4), TILES, range(3)):
        n = name(bm, t, u)
        ptx = os.path.join(HERE, "ptx", n + ".ptx")
        cub = os.path.join(HERE, "cubin", n + ".cubin")
        sas = os.path.join(HERE, "sass", n + ".sass")
        grid = -(-N // (BLOCK * t))
        # the same defines, in the same order, as Kernel Tuner / ptxperf's experiment
        defs = [("grid_size_x", grid), ("grid_size_y", 1), ("grid_size_z", 1),
                ("block_size_x", BLOCK), ("block_size_y", 1), ("block_size_z", 1),
                ("between_method", bm), ("tile_size", t), ("use_method", u),
                ("kernel_tuner", 1)]
        cmd = [PTXPERF, "compile", SRC, "--arch", "sm_86", "-o", ptx]
        for k, v in defs:
            cmd += ["-D", f"{k}={v}"]
        subprocess.run(cmd, check=True)
        subprocess.run([PTXAS, "-arch=sm_86", ptx, "-o", cub], check=True)
        with open(sas, "w") as f:
            subprocess.run([NVDISASM, "-c", cub], check=True, stdout=f,
                           stderr=subprocess.DEVNULL)
        print(n, flush=True)


if __name__ == "__main__":
    main()
