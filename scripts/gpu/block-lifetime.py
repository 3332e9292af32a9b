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
import tomllib

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
spec = importlib.util.spec_from_file_location("measure_kt", os.path.join(HERE, "measure-kt.py"))
kt = importlib.util.module_from_spec(spec)
spec.loader.exec_module(kt)

KERNEL = "convolution_kernel"
KEYS = ["block_size_x", "block_size_y", "tile_size_x", "tile_size_y", "read_only", "use_padding"]


def main():
    out_path, configs = sys.argv[1], sys.argv[2:]
    import cupy as cp
    import numpy as np

    with open(os.path.join(ROOT, "experiments", "convolution.toml"), "rb") as f:
        exp = tomllib.load(f)
    source = open(os.path.join(ROOT, "experiments", exp["source"])).read()
    props = cp.cuda.runtime.getDeviceProperties(0)
    sms = props["multiProcessorCount"]
    cc = cp.cuda.Device(0).compute_capability
    smem_per_sm = props["sharedMemPerMultiprocessor"]
    image = cp.zeros(4096 * 4096, dtype=cp.float32)
    inp = cp.asarray(np.random.default_rng(1).uniform(-1, 1, (4096 + 14) * (4096 + 14)).astype(np.float32))
    filt = cp.asarray(np.random.default_rng(2).uniform(-1, 1, 15 * 15).astype(np.float32))
    empty = cp.RawKernel('extern "C" __global__ void empty() {}', "empty")
    start, stop = cp.cuda.Event(), cp.cuda.Event()

    def timed(fn, grid, block, args, shared=0):
        for _ in range(3):
            fn(grid, block, args, shared_mem=shared)
        times = []
        for _ in range(20):
            start.record()
            fn(grid, block, args, shared_mem=shared)
            stop.record()
            stop.synchronize()
            times.append(cp.cuda.get_elapsed_time(start, stop))
        return sorted(times)[len(times) // 2]

    results = {"device": props["name"].decode() if isinstance(props["name"], bytes) else props["name"],
               "sms": sms, "cc": cc, "versions": kt.versions(cp),
               "empty_ms": timed(empty, (1,), (1,), ()), "configs": []}
    for i, config in enumerate(configs):
        params = dict(zip(KEYS, config.split(",")))
        params.update({"filter_width": "15", "filter_height": "15"})
        grid, block = kt.launch_geometry(exp, {k: int(v) for k, v in params.items()})
        entries = kt.kernel_tuner_prefix(grid, block, list(params.items()))
        text = kt.instantiate(source, entries)
        _, cubin, name, err = kt.compile_one((config, text, KERNEL, [f"--gpu-architecture=sm_{cc}"]))
        if err:
            results["configs"].append({"config": params, "error": err})
            continue
        path = os.path.join("/tmp", f"block-lifetime-{i}.cubin")
        with open(path, "wb") as f:
            f.write(cubin)
        module = cp.RawModule(path=path)
        fn = module.get_function(name)
        ptr = module.get_global("d_filter")
        ptr.copy_from_device(filt.data, filt.nbytes)
        static = fn.shared_size_bytes
        one_per_sm = max(0, smem_per_sm // 2 + 1 - static)
        fn.max_dynamic_shared_size_bytes = one_per_sm
        args = (image, inp, filt)
        g, b = tuple(grid[:2]), tuple(block[:2])
        wave = (min(sms, g[0]), max(1, sms // min(sms, g[0])))
        row = {"config": params, "grid": g, "block": b, "registers": fn.num_regs,
               "static_shared": static, "dynamic_shared_one_per_sm": one_per_sm,
               "full_ms": timed(fn, g, b, args),
               "full_one_block_per_sm_ms": timed(fn, g, b, args, one_per_sm),
               "one_wave_grid": wave,
               "one_wave_ms": timed(fn, wave, b, args, one_per_sm)}
        results["configs"].append(row)
        print(config, {k: (round(v, 4) if isinstance(v, float) else v) for k, v in row.items() if k != "config"})
    with open(out_path, "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
