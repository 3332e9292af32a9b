#!/usr/bin/env python3
"""Per-SM issue throughput of shared-memory loads and FP32 FMAs (and of
conversions and L1-resident global byte loads), alone and mixed, on the GPU
of this machine (the question behind docs/timing-model.md's
"shared loads and FMAs appear to serialise on Volta+": does a mix of LDS and
FFMA take the larger or the sum of their times?).

Usage: scripts/gpu/microbench-issue.py OUTDIR   (needs nvcc, cuobjdump, CuPy)

One block of 1024 threads (32 warps) per SM, grid = the SM count; thread 0
of each block reads clock64 after a barrier before and after the timed loop,
so the figure is in SM clocks and does not depend on the clock frequency.
Each variant's inner loop body is unrolled 8 times over independent
accumulators; its warp instructions per iteration are counted from the
variant (8 LDS, 8 FFMA, ...) and checked against the SASS, written to
OUTDIR/microbench-issue.sass. Writes OUTDIR/microbench-issue.json and prints
a table: warp instructions of each class per SM clock.
"""

import importlib.util
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
_spec = importlib.util.spec_from_file_location("nvcc_cubin", os.path.join(HERE, "nvcc_cubin.py"))
nvcc_cubin = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(nvcc_cubin)

ITERS = 4096
VARIANTS = {
    # name: (body of one unrolled step k, LDS per step, FFMA per step, bytes per LDS lane)
    "lds32": ("a[k] += s[base + k * 32 + lane];", 1, 0, 4),
    "lds128": ("{ float4 v = s4[(base4 + k * 32 + lane) & 511]; a[k] += v.x; }", 1, 0, 16),
    "ffma": ("a[k] = fmaf(a[k], mul, add);", 0, 1, 0),
    "ffma_x2": ("a[k] = fmaf(a[k], mul, add); a[k] = fmaf(a[k], mul, add2);", 0, 2, 0),
    "lds32_ffma": ("a[k] = fmaf(s[base + k * 32 + lane], cf[k], a[k]);", 1, 1, 4),
    "lds32_ffma_x2": ("a[k] = fmaf(s[base + k * 32 + lane], cf[k], a[k]); b[k] = fmaf(b[k], mul, add);", 1, 2, 4),
    "lds32_ffma_x4": (
        "a[k] = fmaf(s[base + k * 32 + lane], cf[k], a[k]); b[k] = fmaf(b[k], mul, add);"
        " b[k] = fmaf(b[k], mul, add2); b[k] = fmaf(b[k], add, mul);", 1, 4, 4),
    # Conversions (docs/timing-model.md, known gaps: the dedispersion kernel's
    # F2I.U32 and I2F.U16 per channel): counted in the FFMA column as
    # conversions per step; compare with the 16 per clock per SM the model uses.
    "cvt_f2i": ("a[k] += add; u[k] += (unsigned)(a[k] * mul);", 0, 1, 0),
    "cvt_i2f_u16": ("u[k] += 3u; a[k] += (float)(unsigned short)u[k];", 0, 1, 0),
    "cvt_both": ("a[k] += add; u[k] += (unsigned)(a[k] * mul); b[k] += (float)(unsigned short)u[k];", 0, 2, 0),
    # A 32-bit integer to FP32 (cvt.rn.f32.s32): ptxas emits I2FP.F32.S32 from
    # sm_86 on, not the conversion unit's I2F (docs/timing-model.md, "Integer
    # conversions"). Its rate was never measured: at 0.49 per clock per SM it
    # shares the conversion unit; near the issue limit it does not. cvt_i2fp_f2i
    # adds an F2I per step: if both shared one pipe it would run at half
    # cvt_f2i's steps per clock.
    "cvt_i2fp": ("u[k] += 3u; a[k] += (float)(int)u[k];", 0, 1, 0),
    "cvt_i2fp_f2i": ("a[k] += add; u[k] += (unsigned)(a[k] * mul); b[k] += (float)(int)u[k];", 0, 2, 0),
    # Dedispersion's channel loop (docs/validation/timing-effects.md, tenth and
    # thirteenth passes): per channel a uniform FP32 load (the shift), FMUL and
    # F2I, a byte load at that offset and its I2F. The model takes it as bound
    # by the larger of the LSU and the conversion unit, each needing 2 of a
    # warp's clocks per channel on GA10x. Here the loads hit L1 (4 KiB of
    # bytes, 1 KiB of shifts, warmed first); the LDS column counts global
    # loads per step, the FFMA column conversions. ldg_u8 + cvt_both against
    # ldg_u8_cvt says whether two busy units overlap (max) or not (sum).
    "ldg_u8": ("u[k] += g[(gbase + k * 32 + lane) & 4095];", 1, 0, 1),
    "ldg_u8_cvt": (
        "{ unsigned off = (unsigned)(gs[(gbase + k) & 255] * mul2);"
        " a[k] += (float)g[(off + gbase + k * 32 + lane) & 4095]; }", 2, 2, 0),  # B/clk: mixed widths, not shown
}

HEADER = "__constant__ float cf[8];\n"
TEMPLATE = r"""
extern "C" __global__ void __launch_bounds__(1024) NAME(float* out, long long* cycles, int iters, float mul, float add, float add2,
    const unsigned char* __restrict__ g, const float* __restrict__ gs, float mul2) {
  __shared__ float s[2048];
  float4* s4 = reinterpret_cast<float4*>(s);
  int t = threadIdx.x, lane = t & 31;
  for (int i = t; i < 2048; i += blockDim.x) s[i] = i * 0.25f;
  float a[8], b[8];
  unsigned u[8];
  #pragma unroll
  for (int k = 0; k < 8; k++) { a[k] = t + k; b[k] = t - k; u[k] = t * k; }
  __syncthreads();
  long long c0 = clock64();
  int base = (t >> 5) & 7, base4 = base, gbase = (t >> 5) * 7;
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int k = 0; k < 8; k++) { BODY }
    base = (base + 256 + 1) & 1023;
    base4 = (base4 + 33) & 255;
    gbase = (gbase + 97) & 4095;
  }
  __syncthreads();
  long long c1 = clock64();
  float sum = 0.f;
  #pragma unroll
  for (int k = 0; k < 8; k++) sum += a[k] + b[k] + (float)u[k];
  out[blockIdx.x * blockDim.x + t] = sum;
  if (t == 0) cycles[blockIdx.x] = c1 - c0;
}
"""


def main():
    outdir = sys.argv[1] if len(sys.argv) > 1 else "."
    import cupy as cp
    import numpy as np

    props = cp.cuda.runtime.getDeviceProperties(0)
    sms = props["multiProcessorCount"]
    cc = cp.cuda.Device(0).compute_capability
    src = HEADER + "".join(TEMPLATE.replace("NAME", "mb_" + n).replace("BODY", v[0]) for n, v in VARIANTS.items())
    cubin = nvcc_cubin.build(outdir, "microbench-issue", src, cc)
    module = cp.RawModule(path=cubin)
    cf = module.get_global("cf")
    cf_host = cp.asarray(np.linspace(0.5, 1.0, 8, dtype=np.float32))
    cf.copy_from_device(cf_host.data, cf_host.nbytes)
    out = cp.zeros(sms * 1024, dtype=cp.float32)
    g = cp.asarray((np.arange(4096) * 7 % 251).astype(np.uint8))
    gs = cp.asarray(np.linspace(0.0, 15.8, 256, dtype=np.float32))
    cycles = cp.zeros(sms, dtype=cp.int64)
    results = {"device": props["name"].decode() if isinstance(props["name"], bytes) else props["name"],
               "cc": cc, "sms": sms, "iters": ITERS, "warps_per_sm": 32, "variants": {}}
    print(f"{'variant':<16}{'clk/iter/warp':>14}{'LDS/clk':>9}{'FFMA/clk':>10}{'B/clk':>8}  (cvt_*: the FFMA column counts conversions; ldg_*: the LDS column counts global loads)")
    for name, (_, lds, ffma, width) in VARIANTS.items():
        fn = module.get_function("mb_" + name)
        args = (out, cycles, np.int32(ITERS), np.float32(0.999), np.float32(0.001), np.float32(0.002),
                g, gs, np.float32(2.0))
        fn((sms,), (1024,), args)  # warm-up
        cp.cuda.Device(0).synchronize()
        runs = []
        for _ in range(5):
            fn((sms,), (1024,), args)
            cp.cuda.Device(0).synchronize()
            runs.append(float(cp.median(cycles.astype(cp.float64))))
        clk = sorted(runs)[len(runs) // 2]
        per_iter = clk / ITERS  # SM clocks per loop iteration of all 32 warps
        lds_rate = 32 * 8 * lds / per_iter
        ffma_rate = 32 * 8 * ffma / per_iter
        results["variants"][name] = {
            "cycles_median": clk, "runs": runs, "lds_per_step": lds, "ffma_per_step": ffma,
            "lds_warp_instr_per_clk": lds_rate, "ffma_warp_instr_per_clk": ffma_rate,
            "shared_bytes_per_clk": lds_rate * 32 * width,
        }
        print(f"{name:<16}{per_iter / 32:>14.2f}{lds_rate:>9.3f}{ffma_rate:>10.3f}{lds_rate * 32 * width:>8.1f}")
    with open(os.path.join(outdir, "microbench-issue.json"), "w") as f:
        json.dump(results, f, indent=1)


if __name__ == "__main__":
    main()
