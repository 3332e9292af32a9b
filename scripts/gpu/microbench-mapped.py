#!/usr/bin/env python3
"""What a kernel reaches reading and writing mapped (zero-copy) host memory:
the catalog's `pcie.mapped_read_gbs` (gpus/README.md) measured, and the
host link it runs on.

Buffers of 256 MiB in pinned host memory mapped into the device
(cudaHostAlloc with cudaHostAllocMapped, as pnpoly's host code and
measure-kt.py's `host_mapped` allocate them); kernels stream through them
with coalesced warp accesses of 4, 8 and 16 bytes per lane, one pass each,
over a grid of 4 blocks of 256 threads per SM (grid-stride loop):

- `read`: every element read once (the sum is written to device memory, so
  nothing is dropped);
- `write`: every element written once;
- `read_write`: pnpoly's pattern: 8 bytes read and 4 written per element,
  in two buffers.

Also cudaMemcpy of the read buffer's bytes to the device, for reference.
Times are CUDA-event medians of 7 launches after 2 warm-ups. The JSON also
holds the link's generation and width, current and maximum, as nvidia-smi
reads them (`nvidia_smi_pci`; the H200 run of 2026-12-04 asked `nvidia-smi
-q -d PCI`, which that nvidia-smi refuses, so its file lacks them). Usage:

  scripts/gpu/microbench-mapped.py OUT.json   (needs CuPy and cuda-python's NVRTC)
"""

import ctypes
import importlib.util
import os
import subprocess
import time

HERE = os.path.dirname(os.path.abspath(__file__))
_common = importlib.util.spec_from_file_location("gpu_common", os.path.join(HERE, "gpu_common.py"))
gpu_common = importlib.util.module_from_spec(_common)
_common.loader.exec_module(gpu_common)

BYTES = 256 << 20
THREADS = 256
BLOCKS_PER_SM = 4

SOURCE = r"""
template <typename T> __device__ float total(T v);
template <> __device__ float total<float>(float v) { return v; }
template <> __device__ float total<float2>(float2 v) { return v.x + v.y; }
template <> __device__ float total<float4>(float4 v) { return v.x + v.y + v.z + v.w; }
template <typename T> __device__ T make(float f);
template <> __device__ float make<float>(float f) { return f; }
template <> __device__ float2 make<float2>(float f) { return make_float2(f, f); }
template <> __device__ float4 make<float4>(float f) { return make_float4(f, f, f, f); }

template <typename T> __device__ void read_(const T* in, float* out, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  float s = 0.f;
  for (; i < n; i += (long long)gridDim.x * blockDim.x) s += total(in[i]);
  out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
template <typename T> __device__ void write_(T* out, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  for (; i < n; i += (long long)gridDim.x * blockDim.x) out[i] = make<T>((float)i);
}
extern "C" __global__ void read4(const float* in, float* out, long long n) { read_(in, out, n); }
extern "C" __global__ void read8(const float2* in, float* out, long long n) { read_(in, out, n); }
extern "C" __global__ void read16(const float4* in, float* out, long long n) { read_(in, out, n); }
extern "C" __global__ void write4(float* out, long long n) { write_(out, n); }
extern "C" __global__ void write8(float2* out, long long n) { write_(out, n); }
extern "C" __global__ void write16(float4* out, long long n) { write_(out, n); }
extern "C" __global__ void read_write(const float2* in, int* out, long long n) {
  long long i = blockIdx.x * (long long)blockDim.x + threadIdx.x;
  for (; i < n; i += (long long)gridDim.x * blockDim.x) out[i] = in[i].x < in[i].y;
}
"""


def main():
    out_path = gpu_common.out_path_argument(__doc__)
    import cupy as cp
    import numpy as np

    kt, (device, sms, cc) = gpu_common.load_measure_kt(), gpu_common.device(cp)
    started, versions = time.time(), kt.versions(cp)
    pci = subprocess.run(["nvidia-smi", "--query-gpu=pcie.link.gen.current,pcie.link.gen.max,"
                          "pcie.link.width.current,pcie.link.width.max", "--format=csv"],
                         capture_output=True, text=True).stdout
    path = gpu_common.build_one(kt, SOURCE, "read4", cc, os.path.splitext(out_path)[0] + ".sass.txt")
    module = cp.RawModule(path=path)
    rt = cp.cuda.runtime

    owner = object()

    def mapped(nbytes):
        ptr = rt.hostAlloc(nbytes, rt.hostAllocMapped)
        mem = cp.cuda.UnownedMemory(ptr, nbytes, owner)
        return ptr, cp.cuda.MemoryPointer(mem, 0)

    src_ptr, src = mapped(BYTES)
    dst_ptr, dst = mapped(BYTES)
    ctypes.memset(src_ptr, 1, BYTES)
    grid = sms * BLOCKS_PER_SM
    sink = cp.zeros(grid * THREADS, dtype=cp.float32)
    start_ev, stop_ev = cp.cuda.Event(), cp.cuda.Event()

    def time_ms(launch):
        for _ in range(2):
            launch()
        times = []
        for _ in range(7):
            start_ev.record()
            launch()
            stop_ev.record()
            stop_ev.synchronize()
            times.append(cp.cuda.get_elapsed_time(start_ev, stop_ev))
        return sorted(times)[len(times) // 2]

    runs = []
    print(f"{'kernel':<12}{'bytes/lane':>11}{'ms':>9}{'read GB/s':>11}{'write GB/s':>12}", flush=True)

    def record(name, width, ms, read_bytes, written_bytes):
        row = {"kernel": name, "bytes_per_lane": width, "median_ms": ms,
               "read_gbs": read_bytes / ms / 1e6, "written_gbs": written_bytes / ms / 1e6}
        runs.append(row)
        print(f"{name:<12}{width:>11}{ms:>9.3f}{row['read_gbs']:>11.2f}{row['written_gbs']:>12.2f}", flush=True)

    for width in (4, 8, 16):
        n = np.int64(BYTES // width)
        fn = module.get_function(f"read{width}")
        record("read", width, time_ms(lambda: fn((grid,), (THREADS,), (src, sink, n))), BYTES, 0)
        fn = module.get_function(f"write{width}")
        record("write", width, time_ms(lambda: fn((grid,), (THREADS,), (dst, n))), 0, BYTES)
    n = np.int64(BYTES // 8)
    fn = module.get_function("read_write")
    record("read_write", 8, time_ms(lambda: fn((grid,), (THREADS,), (src, dst, n))), BYTES, BYTES // 2)
    dev = cp.empty(BYTES, dtype=cp.uint8)
    ms = time_ms(lambda: rt.memcpy(dev.data.ptr, src_ptr, BYTES, rt.memcpyHostToDevice))
    record("memcpy_h2d", 0, ms, BYTES, 0)
    ms = time_ms(lambda: rt.memcpy(dst_ptr, dev.data.ptr, BYTES, rt.memcpyDeviceToHost))
    record("memcpy_d2h", 0, ms, 0, BYTES)
    rt.freeHost(src_ptr)
    rt.freeHost(dst_ptr)
    gpu_common.write_doc(out_path, "mapped (zero-copy) host memory read and written by kernels",
                         (kt, cp, device, sms, cc, versions), started, runs,
                         buffer_bytes=BYTES, threads=THREADS, blocks_per_sm=BLOCKS_PER_SM,
                         nvidia_smi_pci=pci)


if __name__ == "__main__":
    main()
