#!/usr/bin/env python3
"""What an L1 hit costs when a warp's 32 lanes touch several cache lines:
warp load requests per SM clock against the number of 128-byte lines one
request touches, each request reading 128 bytes in all.

The lanes of a request are spread over L lines (lane l reads word l / L of
line l mod L), so every request moves the same 128 bytes, in max(L, 4)
32-byte sectors and L lines. If the L1 path is limited by bytes, the rate
does not change with L; by sectors, it falls as max(L, 4) / 4; by lines
(tag lookups, "wavefronts"), as L. The buffer (64 KB) stays in L1 after a
warm-up launch; each load's address moves with the loop counter over 16
footprints of 4 KB so that nothing can be hoisted. Usage:

  scripts/gpu/microbench-l1lines.py OUT.json   (needs CuPy and cuda-python's NVRTC)

One block per SM (grid = SM count) of `threads` threads; thread 0 reads
clock64 around the timed loop (a barrier before and after), so rates are
per SM clock. `ldg` is an ordinary global load, `ldg_ro` the same through
__ldg (LDG.E.CONSTANT), the two paths of Kernel Tuner's convolution
(`read_only`).
"""

import importlib.util
import os
import time

HERE = os.path.dirname(os.path.abspath(__file__))
_common = importlib.util.spec_from_file_location("gpu_common", os.path.join(HERE, "gpu_common.py"))
gpu_common = importlib.util.module_from_spec(_common)
_common.loader.exec_module(gpu_common)
LINES = [1, 2, 4, 8, 16, 32]
THREADS = [256, 1024]
ITERS = 512
UNROLL = 8
WORDS = 16384  # 64 KB

TEMPLATE = r"""
extern "C" __global__ void NAME(float* buf, float* out, long long* cycles, int iters) {
  int t = threadIdx.x, lane = t & 31;
  int offset = (lane % L) * 32 + lane / L;
  float acc[UNROLL];
  #pragma unroll
  for (int u = 0; u < UNROLL; u++) acc[u] = 0.f;
  __syncthreads();
  long long c0 = clock64();
  #pragma unroll 1
  for (int i = 0; i < iters; i++) {
    #pragma unroll
    for (int u = 0; u < UNROLL; u++) {
      int idx = (((i * UNROLL + u + (t >> 5)) & 15) << 10) + offset;
      acc[u] += LOAD(buf + idx);
    }
  }
  __syncthreads();
  long long c1 = clock64();
  float sum = 0.f;
  #pragma unroll
  for (int u = 0; u < UNROLL; u++) sum += acc[u];
  out[blockIdx.x * blockDim.x + t] = sum;
  if (t == 0) cycles[blockIdx.x] = c1 - c0;
}
"""


def source():
    parts = []
    for path, load in (("ldg", "(*(P))"), ("ldg_ro", "__ldg(P)")):
        for lines in LINES:
            name = f"{path}_{lines}"
            body = TEMPLATE.replace("NAME", name).replace("LOAD(buf + idx)", load.replace("P", "buf + idx"))
            parts.append(f"#define L {lines}\n#define UNROLL {UNROLL}\n{body}#undef L\n#undef UNROLL\n")
    return "".join(parts)


def main():
    out_path = gpu_common.out_path_argument(__doc__)
    import cupy as cp
    import numpy as np

    kt, (device, sms, cc) = gpu_common.load_measure_kt(), gpu_common.device(cp)
    started, versions = time.time(), kt.versions(cp)
    path = gpu_common.build_one(kt, source(), "ldg_1", cc, os.path.splitext(out_path)[0] + ".sass.txt")
    module = cp.RawModule(path=path)
    buf = cp.asarray(np.random.default_rng(1).uniform(-1, 1, WORDS).astype(np.float32))
    runs = []
    print(f"{'path':<8}{'lines':>6}{'threads':>8}{'requests/clk/SM':>17}{'clk/request':>13}", flush=True)
    for name in ("ldg", "ldg_ro"):
        for lines in LINES:
            fn = module.get_function(f"{name}_{lines}")
            for threads in THREADS:
                out = cp.zeros(sms * threads, dtype=cp.float32)
                cycles = cp.zeros(sms, dtype=cp.int64)
                fn((sms,), (threads,), (buf, out, cycles, np.int32(8)))
                meds = []
                for _ in range(3):
                    fn((sms,), (threads,), (buf, out, cycles, np.int32(ITERS)))
                    cp.cuda.Device().synchronize()
                    meds.append(float(np.median(cp.asnumpy(cycles))))
                clk = sorted(meds)[1]
                requests = threads // 32 * ITERS * UNROLL
                rate = requests / clk
                runs.append({"path": name, "lines_per_request": lines, "sectors_per_request": max(lines, 4),
                             "threads": threads, "requests_per_sm": requests, "cycles_median": clk,
                             "cycles_runs": meds, "requests_per_clock": rate})
                print(f"{name:<8}{lines:>6}{threads:>8}{rate:>17.3f}{1 / rate:>13.2f}", flush=True)
    gpu_common.write_doc(out_path, "L1-hit load requests per SM clock against lines per request",
                         (kt, cp, device, sms, cc, versions), started, runs,
                         iters=ITERS, unroll=UNROLL, buffer_bytes=WORDS * 4)


if __name__ == "__main__":
    main()
