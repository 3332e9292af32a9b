#!/usr/bin/env python3
"""Register-indexed constant loads against block size and blocks per SM.

On an H200 the convolution's filter loop kept rolled (`ffma-variants.py`,
variant `rolled`: each weight a `ULDC` at a uniform-register offset) ran 18
to 21 times as long as unrolled in blocks of 64 threads, and 0.93 times as
long in blocks of 512 (data/measured/h200-sxm-141gb, "Second loan"). This
finds the rule. Each thread sums `x * w[k]` over the 225 weights of a
`__constant__` array, R times, in one of two forms:

- `indexed`: the loop over the weights kept rolled (`#pragma unroll 1`),
  so each weight is read at a loop-counter offset (ULDC UR, c[0x3][UR+imm]
  in sm_90 code);
- `unrolled`: the same loop unrolled, every offset an immediate.

Each is launched with blocks of 64 to 1,024 threads over a grid of many
blocks (streaming through the SMs), and, for blocks of 64 threads, with
dynamic shared memory that leaves room for 1 to 32 blocks per SM. Times are
CUDA-event medians of 10 launches after 2 warm-ups; the JSON also gives the
SM clocks per weight read per warp. Usage:

  scripts/gpu/microbench-uldc.py OUT.json   (needs CuPy and cuda-python's NVRTC)

Run on an H200 on 2026-12-04: data/measured/h200-sxm-141gb/microbench-uldc.json
(README there, "Third loan").
"""

import importlib.util
import os
import time

HERE = os.path.dirname(os.path.abspath(__file__))
_common = importlib.util.spec_from_file_location("gpu_common", os.path.join(HERE, "gpu_common.py"))
gpu_common = importlib.util.module_from_spec(_common)
_common.loader.exec_module(gpu_common)

WEIGHTS = 225
REPEATS = 8
THREADS = [64, 128, 256, 512, 1024]
BLOCKS_PER_SM = [1, 2, 4, 8, 16, 32]
WARPS_TOTAL = 1 << 19  # warps per launch: 16M threads

SOURCE = r"""
__constant__ float w[WEIGHTS];

extern "C" __global__ void NAME(const float* in, float* out, int repeats) {
  extern __shared__ float pad[];
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  float x = in[t], sum = 0.f;
  for (int r = 0; r < repeats; r++) {
    PRAGMA
    for (int k = 0; k < WEIGHTS; k++) sum = fmaf(x, w[k], sum);
    x += 1.f;
  }
  out[t] = sum + (blockDim.x > 4096 ? pad[0] : 0.f);
}
"""


def source():
    head, kernel = SOURCE.split("extern", 1)
    kernel = "extern" + kernel
    return (f"#define WEIGHTS {WEIGHTS}\n" + head
            + kernel.replace("NAME", "indexed").replace("PRAGMA", "#pragma unroll 1")
            + kernel.replace("NAME", "unrolled").replace("PRAGMA", "#pragma unroll"))


def main():
    out_path = gpu_common.out_path_argument(__doc__)
    import cupy as cp
    import numpy as np

    kt, (device, sms, cc) = gpu_common.load_measure_kt(), gpu_common.device(cp)
    started, versions = time.time(), kt.versions(cp)
    path = gpu_common.build_one(kt, source(), "indexed", cc, os.path.splitext(out_path)[0] + ".sass.txt")
    module = cp.RawModule(path=path)
    weights = cp.asarray(np.linspace(0.5, 1.0, WEIGHTS, dtype=np.float32))
    module.get_global("w").copy_from_device(weights.data, weights.nbytes)
    smem_per_sm = cp.cuda.runtime.getDeviceProperties(0)["sharedMemPerMultiprocessor"]
    n = WARPS_TOTAL * 32
    inp = cp.asarray(np.random.default_rng(1).uniform(-1, 1, n).astype(np.float32))
    out = cp.zeros(n, dtype=cp.float32)
    start_ev, stop_ev = cp.cuda.Event(), cp.cuda.Event()

    def time_ms(fn, threads, shared):
        args = (inp, out, np.int32(REPEATS))
        for _ in range(2):
            fn((n // threads,), (threads,), args, shared_mem=shared)
        times = []
        for _ in range(10):
            start_ev.record()
            fn((n // threads,), (threads,), args, shared_mem=shared)
            stop_ev.record()
            stop_ev.synchronize()
            times.append(cp.cuda.get_elapsed_time(start_ev, stop_ev))
        return sorted(times)[len(times) // 2]

    runs = []
    cases = [(t, None) for t in THREADS] + [(64, b) for b in BLOCKS_PER_SM]
    print(f"{'kernel':<10}{'threads':>8}{'blocks/SM':>10}{'ms':>10}{'ns/weight/warp/SM':>19}", flush=True)
    for name in ("indexed", "unrolled"):
        fn = module.get_function(name)
        for threads, per_sm in cases:
            shared = 0
            if per_sm is not None:
                # Room for at most per_sm blocks of this kernel per SM.
                shared = max(0, smem_per_sm // per_sm - 1024)
                fn.max_dynamic_shared_size_bytes = max(shared, 0)
            try:
                ms = time_ms(fn, threads, shared)
            except Exception as e:  # noqa: BLE001
                runs.append({"kernel": name, "threads": threads, "blocks_per_sm_limit": per_sm, "error": str(e)})
                continue
            reads_per_sm = WARPS_TOTAL * WEIGHTS * REPEATS / sms
            row = {"kernel": name, "threads": threads, "blocks_per_sm_limit": per_sm,
                   "dynamic_shared_bytes": shared, "median_ms": ms,
                   "ns_per_weight_read_per_warp_per_sm": ms * 1e6 / reads_per_sm}
            runs.append(row)
            label = "-" if per_sm is None else str(per_sm)
            print(f"{name:<10}{threads:>8}{label:>10}{ms:>10.4f}"
                  f"{row['ns_per_weight_read_per_warp_per_sm']:>19.4f}", flush=True)
    gpu_common.write_doc(out_path, "register-indexed constant loads against block size and blocks per SM",
                         (kt, cp, device, sms, cc, versions), started, runs,
                         weights=WEIGHTS, repeats=REPEATS, warps_per_launch=WARPS_TOTAL)


if __name__ == "__main__":
    main()
