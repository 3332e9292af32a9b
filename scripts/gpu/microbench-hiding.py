#!/usr/bin/env python3
"""Latency hiding on one SM: throughput against warps per SM and independent
accumulators, for shared-load-fed FMAs (the convolution's inner loop) and
for FMAs alone (docs/timing-model.md, T_wave = max(throughput terms,
T_chain)). The question: does one SM follow the model's max(), or does a
warp's issue stall longer than its dependent chain says when few warps are
resident (the low-occupancy convolutions the model predicts 2-3x fast)?

Usage: scripts/gpu/microbench-hiding.py OUTDIR   (needs nvcc, cuobjdump, CuPy)

Grid = the SM count; each block asks for 120 KB of dynamic shared memory so
that no SM holds two (Volta and later; fewer SMs than blocks would show as
a doubled time). Block = W warps, W in WARPS. Thread 0 reads clock64 after a
barrier before and after the timed loop (a barrier again at the end), so
every figure is in SM clocks. The loop (not unrolled, ITERS iterations) does
M independent steps, M in ACCS:

- lds_ffma: a[k] = fma(s[conflict-free address], cf[k], a[k]): one LDS.32
  and one FFMA per step, the FFMA waiting for its load;
- ffma: a[k] = fma(a[k], mul, add): M independent FMA chains;
- lds_chase: M independent chains of j = s[j] (shared-memory latency);
- straight_N: no loop body to re-fetch: N FMAs over 8 independent chains,
  fully unrolled (16 B of SASS each, N up to 32768 = 512 KB of code),
  executed ITERS_STRAIGHT times: does code larger than the instruction
  caches slow a warp down (fully unrolled convolutions are 20-200 KB)?

Writes OUTDIR/microbench-hiding.{json,cu,sass} and prints SM clocks per
loop iteration of one warp and warp instructions per SM clock.
"""

import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("nvcc_cubin", os.path.join(HERE, "nvcc_cubin.py"))
nvcc_cubin = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(nvcc_cubin)

ITERS = 2048
WARPS = [1, 2, 4, 8, 12, 16, 24, 32]
ACCS = [1, 2, 4, 8, 16]
STRAIGHT = [256, 2048, 8192, 32768]
ITERS_STRAIGHT = 4
SHARED_FLOATS = 4096
DYNAMIC_SHARED = 120 * 1024

BODIES = {
    "lds_ffma": "a[k] = fmaf(s[(base + k * 32 + lane) & (SF - 1)], cf[k], a[k]);",
    "ffma": "a[k] = fmaf(a[k], mul, add);",
    "lds_chase": "j[k] = __float_as_int(s[j[k]]);",
}

HEADER = "#define SF %d\n__constant__ float cf[16];\n" % SHARED_FLOATS
TEMPLATE = r"""
extern "C" __global__ void NAME(float* out, long long* cycles, int iters, float mul, float add) {
  extern __shared__ float dyn[];
  float* s = dyn;
  int t = threadIdx.x, lane = t & 31;
  // For lds_chase each word holds the index of a word 32 further on (same
  // bank, its own lane's column), so each load depends on the last.
  for (int i = t; i < SF; i += blockDim.x) s[i] = __int_as_float((i + 32) & (SF - 1));
  float a[M];
  int j[M];
  #pragma unroll
  for (int k = 0; k < M; k++) { a[k] = t + k; j[k] = (k * 128 + lane) & (SF - 1); }
  __syncthreads();
  long long c0 = clock64();
  int base = ((t >> 5) * 64) & (SF - 1);
  #pragma unroll 1
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int k = 0; k < M; k++) { BODY }
    base = (base + 32 * M + 1) & (SF - 1);
  }
  __syncthreads();
  long long c1 = clock64();
  float sum = 0.f;
  #pragma unroll
  for (int k = 0; k < M; k++) sum += a[k] + (float)j[k];
  out[blockIdx.x * blockDim.x + t] = sum;
  if (t == 0) cycles[blockIdx.x] = c1 - c0;
}
"""


STRAIGHT_TEMPLATE = r"""
extern "C" __global__ void NAME(float* out, long long* cycles, int iters, float mul, float add) {
  int t = threadIdx.x;
  float a[8];
  #pragma unroll
  for (int k = 0; k < 8; k++) a[k] = t + k;
  __syncthreads();
  long long c0 = clock64();
  #pragma unroll 1
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int k = 0; k < N; k++) a[k & 7] = fmaf(a[k & 7], mul, add);
  }
  __syncthreads();
  long long c1 = clock64();
  float sum = 0.f;
  #pragma unroll
  for (int k = 0; k < 8; k++) sum += a[k];
  out[blockIdx.x * blockDim.x + t] = sum;
  if (t == 0) cycles[blockIdx.x] = c1 - c0;
}
"""


def kernel_name(variant, m):
    return f"mb_{variant}_{m}"


def source():
    parts = [HEADER]
    for variant, body in BODIES.items():
        for m in ACCS:
            text = TEMPLATE.replace("NAME", kernel_name(variant, m)).replace("BODY", body)
            parts.append(f"#define M {m}\n{text}#undef M\n")
    for n in STRAIGHT:
        text = STRAIGHT_TEMPLATE.replace("NAME", kernel_name("straight", n))
        parts.append(f"#define N {n}\n{text}#undef N\n")
    return "".join(parts)


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "."
    import cupy as cp
    import numpy as np

    props = cp.cuda.runtime.getDeviceProperties(0)
    sms = props["multiProcessorCount"]
    cc = cp.cuda.Device(0).compute_capability
    cubin = nvcc_cubin.build(outdir, "microbench-hiding", source(), cc)
    module = cp.RawModule(path=cubin)
    cf = module.get_global("cf")
    cf_host = cp.asarray(np.linspace(0.5, 1.0, 16, dtype=np.float32))
    cf.copy_from_device(cf_host.data, cf_host.nbytes)
    out = cp.zeros(sms * 32 * max(WARPS), dtype=cp.float32)
    cycles = cp.zeros(sms, dtype=cp.int64)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    results = {"device": name, "cc": cc, "sms": sms, "iters": ITERS,
               "dynamic_shared_bytes": DYNAMIC_SHARED, "runs": []}

    def timed(fn, warps, iters):
        """Median over 3 runs (after a warm-up) of the median block's clocks."""
        args = (out, cycles, np.int32(iters), np.float32(0.999), np.float32(0.001))
        meds = []
        for run in range(4):
            fn((sms,), (32 * warps,), args, shared_mem=DYNAMIC_SHARED)
            cp.cuda.Device(0).synchronize()
            if run > 0:
                meds.append(float(cp.median(cycles.astype(cp.float64))))
        return sorted(meds)[1], meds

    print(f"{'variant':<10}{'M':>3}{'warps':>6}{'clk/iter':>10}{'steps/clk/SM':>14}")
    for variant in BODIES:
        for m in ACCS:
            fn = module.get_function(kernel_name(variant, m))
            fn.max_dynamic_shared_size_bytes = DYNAMIC_SHARED
            for w in WARPS:
                clk, meds = timed(fn, w, ITERS)
                per_iter = clk / ITERS  # SM clocks per loop iteration (all W warps)
                steps = w * m / per_iter  # warp steps (one LDS+FFMA, one FFMA or one load) per SM clock
                results["runs"].append({"variant": variant, "accumulators": m, "warps_per_sm": w,
                                        "cycles_median": clk, "cycles_runs": meds,
                                        "clocks_per_iteration": per_iter, "warp_steps_per_clock": steps})
                print(f"{variant:<10}{m:>3}{w:>6}{per_iter:>10.2f}{steps:>14.3f}")
    for n in STRAIGHT:
        fn = module.get_function(kernel_name("straight", n))
        fn.max_dynamic_shared_size_bytes = DYNAMIC_SHARED
        for w in WARPS:
            clk, meds = timed(fn, w, ITERS_STRAIGHT)
            per_ffma = clk / (ITERS_STRAIGHT * n)  # SM clocks per FMA of one warp
            results["runs"].append({"variant": "straight", "ffma": n, "warps_per_sm": w,
                                    "cycles_median": clk, "cycles_runs": meds,
                                    "clocks_per_ffma_per_warp": per_ffma,
                                    "warp_ffma_per_clock": w / per_ffma})
            print(f"{'straight':<10}{n:>6}{w:>6}{per_ffma:>10.3f}{w / per_ffma:>14.3f}")
    with open(os.path.join(outdir, "microbench-hiding.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
