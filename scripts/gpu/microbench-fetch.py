#!/usr/bin/env python3
"""Instruction fetch when the resident warps run different parts of a large
code: the issue rate of straight-line FFMA code against its size, with
blocks streaming through the SMs as a real kernel's do.

microbench-hiding.py's `straight_N` starts every warp of one block per SM at
the same instruction after a barrier, so the warps walk the code together
and share each fetched line: the best case for the instruction caches
(docs/timing-model.md, "Instruction fetch"). Here each block runs the code
once and retires, and the grid holds many more blocks than the SMs, so
after the first wave the resident blocks are at scattered places in the
code, as in a fully unrolled convolution. Usage:

  scripts/gpu/microbench-fetch.py OUT.json   (needs CuPy and cuda-python's NVRTC)

Kernel `straight_N`: N FMAs over 8 independent chains, fully unrolled (16 B
of SASS each: N = 256 is 4 KB, 16384 is 256 KB). Launched with blocks of
`threads` threads (64: 32 blocks and 64 warps per SM; 512: 4 blocks; 1024:
2 blocks) and a grid of `rounds` x SMs x blocks-per-SM. Thread 0 of each
block records clock64 before and after its code and the SM it ran on; for
each SM the span from its first block's start to its last block's end, in
SM clocks, gives warp FMAs per SM clock over that SM's blocks (the median
over SMs is reported); CUDA events give the same over the whole launch at
the clock nvidia-smi reads (`events_warp_ffma_per_clock`).
"""

import importlib.util
import os
import subprocess
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
_common = importlib.util.spec_from_file_location("gpu_common", os.path.join(HERE, "gpu_common.py"))
gpu_common = importlib.util.module_from_spec(_common)
_common.loader.exec_module(gpu_common)
SIZES = [256, 512, 1024, 1536, 2048, 2560, 3072, 4096, 6144, 8192, 16384]
THREADS = [64, 512, 1024]

TEMPLATE = r"""
extern "C" __global__ void NAME(float* out, long long* spans, float mul, float add) {
  int t = threadIdx.x;
  float a[8];
  #pragma unroll
  for (int k = 0; k < 8; k++) a[k] = t + k;
  long long c0 = clock64();
  #pragma unroll
  for (int k = 0; k < N; k++) a[k & 7] = fmaf(a[k & 7], mul, add);
  long long c1 = clock64();
  float sum = 0.f;
  #pragma unroll
  for (int k = 0; k < 8; k++) sum += a[k];
  out[blockIdx.x * blockDim.x + t] = sum;
  if (t == 0) {
    unsigned sm;
    asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
    spans[3 * blockIdx.x] = c0;
    spans[3 * blockIdx.x + 1] = c1;
    spans[3 * blockIdx.x + 2] = sm;
  }
}
"""


def per_sm_rate(np, spans, warp_ffma_per_block):
    """Median over SMs of warp FMAs per SM clock: each SM's blocks' work over
    the span from its first block's start to its last block's end (rows of
    SPANS: start clock, end clock, SM)."""
    sm = spans[:, 2].astype(np.int64)
    nsm = int(sm.max()) + 1
    first = np.full(nsm, np.iinfo(np.int64).max)
    last = np.full(nsm, np.iinfo(np.int64).min)
    np.minimum.at(first, sm, spans[:, 0])
    np.maximum.at(last, sm, spans[:, 1])
    blocks = np.bincount(sm, minlength=nsm)
    used = blocks > 0
    rate = blocks[used] * warp_ffma_per_block / (last[used] - first[used]).astype(np.float64)
    return float(np.median(rate))


def clock_mhz():
    try:
        out = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm", "--format=csv,noheader,nounits"],
                             capture_output=True, text=True, timeout=10).stdout.strip()
        return float(out.splitlines()[0])
    except (OSError, ValueError, IndexError, subprocess.TimeoutExpired):
        return None


def main():
    out_path = gpu_common.out_path_argument(__doc__)
    import cupy as cp
    import numpy as np
    from concurrent.futures import ProcessPoolExecutor

    kt, (device, sms, cc) = gpu_common.load_measure_kt(), gpu_common.device(cp)
    started, versions = time.time(), kt.versions(cp)
    jobs = [(n, f"#define N {n}\n" + TEMPLATE.replace("NAME", f"straight_{n}"), f"straight_{n}",
             [f"--gpu-architecture=sm_{cc}"]) for n in SIZES]
    with ProcessPoolExecutor(max_workers=min(len(jobs), os.cpu_count() or 2)) as pool:
        built = {n: (cubin, name, err) for n, cubin, name, err in pool.map(kt.compile_one, jobs)}
    print(f"microbench-fetch: {len(jobs)} builds in {time.time() - started:.0f} s", flush=True)

    tmp = tempfile.mkdtemp()
    start_ev, stop_ev = cp.cuda.Event(), cp.cuda.Event()
    runs = []
    print(f"{'ffma':>6}{'KB':>6}{'threads':>8}{'blocks/SM':>10}{'warp FFMA/clk/SM':>18}{'events':>8}", flush=True)
    for n in SIZES:
        cubin, name, err = built[n]
        if err:
            runs.append({"ffma": n, "error": err})
            continue
        path = os.path.join(tmp, f"straight_{n}.cubin")
        with open(path, "wb") as f:
            f.write(cubin)
        sass = subprocess.run(["cuobjdump", "-sass", path], capture_output=True, text=True).stdout
        instructions = sum(1 for line in sass.splitlines() if line.strip().startswith("/*") and ";" in line)
        ffma = sum(1 for line in sass.splitlines() if " FFMA " in line)
        fn = cp.RawModule(path=path).get_function(name)
        for threads in THREADS:
            per_sm = min(32, 2048 // threads)
            # About 1 ms of work at 4 warp FMAs per clock and 2 GHz.
            rounds = max(4, int(1e-3 * 4 * 2e9 / (per_sm * threads // 32 * n)))
            grid = rounds * sms * per_sm
            out = cp.zeros(grid * threads, dtype=cp.float32)
            spans = cp.zeros(grid * 3, dtype=cp.int64)
            args = (out, spans, np.float32(0.999), np.float32(0.001))
            fn((grid,), (threads,), args)
            cp.cuda.Device().synchronize()
            rates, events = [], []
            for _ in range(3):
                mhz = clock_mhz()
                start_ev.record()
                fn((grid,), (threads,), args)
                stop_ev.record()
                stop_ev.synchronize()
                ms = cp.cuda.get_elapsed_time(start_ev, stop_ev)
                rates.append(per_sm_rate(np, cp.asnumpy(spans).reshape(-1, 3), threads // 32 * n))
                if mhz:
                    events.append(grid * (threads // 32) * n / sms / (ms * 1e-3 * mhz * 1e6))
            row = {"ffma": n, "code_bytes_sass": instructions * 16, "sass_instructions": instructions,
                   "sass_ffma": ffma, "threads": threads, "blocks_per_sm": per_sm, "warps_per_sm": per_sm * threads // 32,
                   "grid": grid, "warp_ffma_per_clock": sorted(rates)[1], "runs": rates,
                   "events_warp_ffma_per_clock": sorted(events)[len(events) // 2] if events else None}
            runs.append(row)
            print(f"{n:>6}{instructions * 16 / 1024:>6.0f}{threads:>8}{per_sm:>10}{row['warp_ffma_per_clock']:>18.3f}"
                  f"{row['events_warp_ffma_per_clock'] or 0:>8.3f}", flush=True)
    gpu_common.write_doc(out_path, "issue rate of straight-line FFMA code against code size, blocks streaming",
                         (kt, cp, device, sms, cc, versions), started, runs)


if __name__ == "__main__":
    main()
