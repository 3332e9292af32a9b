#!/usr/bin/env python3
"""How long one block of a Kernel Tuner convolution configuration lives on
an SM, and how the kernel's time changes when fewer blocks may be resident
(docs/timing-model.md, T_block; the low-occupancy configurations the timing
model predicts 2-3x fast).

Usage: scripts/gpu/block-lifetime.py OUT.json CONFIG...
  CONFIG  block_size_x,block_size_y,tile_size_x,tile_size_y,read_only,use_padding
Needs CuPy and cuda-python (NVRTC), as scripts/gpu/measure-kt.py; compiles
third_party/kernel_tuner/convolution.cu (scripts/fetch-validation-kernels.sh)
exactly as measure-kt.py does.

For each configuration, CUDA-event times (median of 20 launches after 3
warm-ups) of:
- full: the whole grid, as Kernel Tuner launches it;
- full_one_block_per_sm: the same with dynamic shared memory that leaves
  room for one block per SM;
- one_wave: only as many blocks as the SMs (row 0 of the grid, wrapping to
  the next rows), one block per SM: a block's lifetime plus the launch;
- empty: a grid of one block of a kernel that returns at once (the launch).
"""

import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
spec = importlib.util.spec_from_file_location("conv_launch", os.path.join(HERE, "conv_launch.py"))
conv_launch = importlib.util.module_from_spec(spec)
spec.loader.exec_module(conv_launch)


def main():
    out_path, configs = sys.argv[1], sys.argv[2:]
    import cupy as cp
    import numpy as np

    conv = conv_launch.Convolution(cp, np)
    empty = cp.RawKernel('extern "C" __global__ void empty() {}', "empty")
    results = conv.header()
    results["empty_ms"] = conv.median_ms(empty, (1,), (1,), ())
    results["configs"] = []
    for i, config in enumerate(configs):
        params, launch, err = conv.load(config, os.path.join("/tmp", f"block-lifetime-{i}.cubin"))
        if err:
            results["configs"].append({"config": params, "error": err})
            continue
        fn, g, b, one_per_sm = launch["fn"], launch["grid"], launch["block"], launch["one_per_sm"]
        wave = (min(conv.sms, g[0]), max(1, conv.sms // min(conv.sms, g[0])))
        row = {"config": params, "grid": g, "block": b, "registers": fn.num_regs,
               "static_shared": fn.shared_size_bytes, "dynamic_shared_one_per_sm": one_per_sm,
               "full_ms": conv.median_ms(fn, g, b, conv.args),
               "full_one_block_per_sm_ms": conv.median_ms(fn, g, b, conv.args, one_per_sm),
               "one_wave_grid": wave,
               "one_wave_ms": conv.median_ms(fn, wave, b, conv.args, one_per_sm)}
        results["configs"].append(row)
        print(config, {k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items() if k != "config"})
    with open(out_path, "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
