#!/usr/bin/env python3
"""Latency of one dependent global load (pointer chase) on this GPU, in SM
clocks, by where the data lives and how it is laid out
(data/measured/h100-sxm5-80gb, "Global load latency").

Usage: scripts/gpu/microbench-latency.py OUT.json
Needs CuPy (its NVRTC builds the kernel).

One thread per block chases `p = next[p]` for STEPS loads between two
clock64 reads; a block of 32 threads (only lane 0 chases) so the load is a
whole warp's. The chain visits FOOTPRINT bytes in slots STRIDE bytes apart,
in a random order (seeded) so that no prefetcher or DRAM row stays open for
it, except the `rows` variants, which walk slots in address order like the
tile-load loop of Kernel Tuner's convolution walks image rows (16,440 bytes
apart for a 4,110-float row). Each variant runs with one block (one SM busy)
and with one block per SM (every SM chasing its own stretch of the chain).
Median over the blocks of cycles per load; the L1 and L2 variants after a
warm-up pass, the DRAM ones (1 GiB) on slots never loaded before.
"""

import json
import sys

STEPS = 4096
VARIANTS = [
    # name, footprint bytes, stride bytes, order
    ("l1", 16 << 10, 128, "random"),
    ("l2", 16 << 20, 128, "random"),
    ("dram_128B", 1 << 30, 128, "random"),
    ("dram_4KiB", 1 << 30, 4096, "random"),
    ("rows_16440B", 1 << 30, 16440, "rows"),
]

SOURCE = r"""
extern "C" __global__ void chase(const unsigned int *next, const unsigned int *starts,
                                 int warmup, int steps, unsigned int *sink, long long *cycles) {
    if (threadIdx.x != 0) return;
    unsigned int p = starts[blockIdx.x];
    for (int s = 0; s < warmup; s++) p = next[p];
    long long t0 = clock64();
    for (int s = 0; s < steps; s++) p = next[p];
    long long t1 = clock64();
    sink[blockIdx.x] = p;
    cycles[blockIdx.x] = t1 - t0;
}
"""


def chain(np, footprint, stride, order, seed):
    slots = footprint // stride
    words = stride // 4
    perm = np.arange(slots, dtype=np.int64)
    if order == "random":
        np.random.default_rng(seed).shuffle(perm)
    nxt = np.zeros(footprint // 4, dtype=np.uint32)
    nxt[perm * words] = (np.roll(perm, -1) * words).astype(np.uint32)
    return nxt, perm, words


def main():
    out_path = sys.argv[1]
    import cupy as cp
    import numpy as np

    props = cp.cuda.runtime.getDeviceProperties(0)
    sms = props["multiProcessorCount"]
    results = {"device": props["name"].decode() if isinstance(props["name"], bytes) else props["name"],
               "sms": sms, "cc": cp.cuda.Device(0).compute_capability, "steps": STEPS,
               "cupy": cp.__version__, "driver": cp.cuda.runtime.driverGetVersion(),
               "variants": []}
    for name, footprint, stride, order in VARIANTS:
        nxt, perm, words = chain(np, footprint, stride, order, 1)
        d_next = cp.asarray(nxt)
        kernel = cp.RawKernel(SOURCE, "chase")
        # Caches are warmed only where the footprint fits them (L1, L2);
        # the DRAM variants load every slot for the first time.
        cached = footprint <= (32 << 20)
        row = {"name": name, "footprint_bytes": footprint, "stride_bytes": stride, "order": order}
        for blocks, key in [(1, "one_sm"), (sms, "every_sm")]:
            sink = cp.zeros(blocks, dtype=cp.uint32)
            cyc = cp.zeros(blocks, dtype=cp.int64)
            # Each block walks its own stretch of the cycle (no block loads
            # a slot another has brought into L2), unless the chain is a
            # cached one, which every block walks from its own start.
            stretch = len(perm) // blocks
            steps = STEPS if cached else min(STEPS, stretch)
            starts = cp.asarray((perm[np.arange(blocks) * stretch] * words).astype(np.uint32))
            warmup = len(perm) if cached else 0
            kernel((blocks,), (32,), (d_next, starts, np.int32(warmup), np.int32(steps), sink, cyc))
            cp.cuda.Device(0).synchronize()
            per_load = cp.asnumpy(cyc).astype(np.float64) / steps
            row[key] = {"steps": steps, "median_clk": float(np.median(per_load)),
                        "min_clk": float(per_load.min()), "max_clk": float(per_load.max())}
        results["variants"].append(row)
        print(name, row["one_sm"], row["every_sm"], flush=True)
        del d_next
    with open(out_path, "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
