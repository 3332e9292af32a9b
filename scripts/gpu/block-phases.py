#!/usr/bin/env python3
"""Where a Kernel Tuner convolution block spends its time: the tile-load
phase (start to the barrier), the wait at the barrier, and the compute phase
(barrier to the last warp's end), in SM clocks read with clock64 inside the
kernel (docs/timing-model.md, T_block; data/measured/h100-sxm5-80gb,
"Where a convolution block's time goes").

Usage: scripts/gpu/block-phases.py OUT.json CONFIG...
  CONFIG  block_size_x,block_size_y,tile_size_x,tile_size_y,read_only,use_padding
Needs CuPy and cuda-python (NVRTC), as scripts/gpu/measure-kt.py, and
third_party/kernel_tuner/convolution.cu (scripts/fetch-validation-kernels.sh).

The kernel source is instrumented in memory (never written to the
repository): lane 0 of every warp stamps clock64 when the warp starts
(atomicMin over the block), when it reaches the __syncthreads after the tile
loads, when it leaves it, and when it ends (atomicMax over the block). Only
the first BLOCKS blocks of the grid record. Each configuration runs as
Kernel Tuner launches it ("launched") and with dynamic shared memory that
leaves room for one block per SM ("one_per_sm"); the figures are medians
over the recording blocks, and the kernel's CUDA-event time is kept beside
them (the stamps and their atomics add a few instructions per warp).
"""

import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("conv_launch", os.path.join(HERE, "conv_launch.py"))
conv_launch = importlib.util.module_from_spec(spec)
spec.loader.exec_module(conv_launch)

BLOCKS = 4096
SIGNATURE = "__global__ void convolution_kernel(float *output, float *input, float *filter) {"

# Stamps per recording block: start (min), at the barrier, after it, end (max).
PRELUDE = f"""
__device__ unsigned long long ptxperf_stamp[4 * {BLOCKS}];
__device__ __forceinline__ void ptxperf_mark(int slot, bool first) {{
    unsigned long long now = clock64();
    unsigned int lin = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
    unsigned int blk = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
    if ((lin & 31) == 0 && blk < {BLOCKS}) {{
        if (first) atomicMin(&ptxperf_stamp[4 * blk + slot], now);
        else atomicMax(&ptxperf_stamp[4 * blk + slot], now);
    }}
}}
"""


def instrument(source):
    """The convolution kernel with the four stamps (see the module doc)."""
    if SIGNATURE not in source or "__syncthreads();" not in source:
        raise SystemExit("convolution.cu does not look like kernel_tuner 1.5.0's; refusing to instrument it")
    head, tail = source.split(SIGNATURE, 1)
    body, rest = tail.split("__global__ void convolution_naive", 1)
    body = body.replace("__syncthreads();", "ptxperf_mark(1, false); __syncthreads(); ptxperf_mark(2, false);", 1)
    end = body.rstrip().rfind("}")
    body = body[:end] + "    ptxperf_mark(3, false);\n" + body[end:]
    return head + PRELUDE + SIGNATURE + "\n    ptxperf_mark(0, true);\n" + body + "__global__ void convolution_naive" + rest


def main():
    out_path, configs = sys.argv[1], sys.argv[2:]
    import cupy as cp
    import numpy as np

    conv = conv_launch.Convolution(cp, np, instrument)
    init = np.zeros(4 * BLOCKS, dtype=np.uint64)
    init[0::4] = np.iinfo(np.uint64).max

    def run(fn, stamps, grid, block, shared):
        ms = conv.median_ms(fn, grid, block, conv.args, shared, runs=10)
        stamps.copy_from_host(init.ctypes.data, init.nbytes)
        fn(grid, block, conv.args, shared_mem=shared)
        cp.cuda.Device(0).synchronize()
        got = np.empty_like(init)
        stamps.copy_to_host(got.ctypes.data, got.nbytes)
        s = got.reshape(-1, 4).astype(np.int64)
        s = s[(s[:, 3] > 0) & (s[:, 0] > 0)]

        def med(x):
            return float(np.median(x))

        return {"ms": ms, "blocks_recorded": int(len(s)),
                "load_clk": med(s[:, 1] - s[:, 0]), "barrier_clk": med(s[:, 2] - s[:, 1]),
                "compute_clk": med(s[:, 3] - s[:, 2]), "block_clk": med(s[:, 3] - s[:, 0]),
                "block_clk_p90": float(np.percentile(s[:, 3] - s[:, 0], 90))}

    results = conv.header()
    results["configs"] = []
    for i, config in enumerate(configs):
        params, launch, err = conv.load(config, os.path.join("/tmp", f"block-phases-{i}.cubin"))
        if err:
            results["configs"].append({"config": params, "error": err})
            print(config, "error", err)
            continue
        fn, g, b = launch["fn"], launch["grid"], launch["block"]
        stamps = launch["module"].get_global("ptxperf_stamp")
        row = {"config": params, "grid": g, "block": b, "registers": fn.num_regs,
               "local_bytes": fn.local_size_bytes, "static_shared": fn.shared_size_bytes,
               "launched": run(fn, stamps, g, b, 0),
               "one_per_sm": run(fn, stamps, g, b, launch["one_per_sm"])}
        results["configs"].append(row)
        print(config, row["registers"], "launched", row["launched"], "one_per_sm", row["one_per_sm"], flush=True)
    with open(out_path, "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
