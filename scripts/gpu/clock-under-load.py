#!/usr/bin/env python3
"""The clock and the rates a GPU holds under sustained load (issue 26: the
per-GPU figures that decide a prediction's level must come from sources or
microbenchmarks, never from the kernel times that are scored).

Usage (on a machine with an NVIDIA GPU, CuPy and nvidia-smi):
  scripts/gpu/clock-under-load.py OUT.json [--seconds 15]

Three phases, each a stream of back-to-back launches for --seconds, while
`nvidia-smi --query-gpu` samples the SM and memory clocks, power, temperature
and the active clock-event (throttle) reasons every 100 ms:

- `fma`: every SM full of warps (8 blocks of 256 threads per SM), each thread
  running 8 independent FP32 FMA chains, 65536 steps (milliseconds a launch). The rate in FMA per
  second, divided by the SM count and the 128 FP32 lanes per SM of compute
  capability 7.0 to 9.0 (8.6/8.9: 128 as well), gives `effective_sm_mhz`:
  the clock at which full-rate FMA issue would give that rate. It is a lower
  bound on the clock held (on the H200: 1793 MHz while nvidia-smi read 1980,
  because FFMA issues at 3.655 of 4 per SM clock there, as
  microbench-issue.py measures); the clock held is nvidia-smi's.
- `copy`: a device-to-device copy of 2 GiB (float4 loads and stores), bytes
  read plus written per second: the DRAM bandwidth a streaming kernel gets.
- `idle`: a few samples with nothing running, for the idle clocks.

The JSON holds, per phase, the launches, the median launch time, the rate,
and the nvidia-smi samples' median, minimum and maximum SM clock, the memory
clock, power and temperature, and every throttle reason seen. The device,
driver and CUDA runtime versions, the date and the command line are recorded
beside them.
"""

import argparse
import datetime
import json
import statistics
import subprocess
import sys
import threading
import time

FMA_SRC = r"""
extern "C" __global__ void fma_load(float *out, float mul, float add, int steps) {
    float a0 = threadIdx.x, a1 = a0 + 1, a2 = a0 + 2, a3 = a0 + 3;
    float a4 = a0 + 4, a5 = a0 + 5, a6 = a0 + 6, a7 = a0 + 7;
    for (int i = 0; i < steps; ++i) {
        a0 = fmaf(a0, mul, add); a1 = fmaf(a1, mul, add);
        a2 = fmaf(a2, mul, add); a3 = fmaf(a3, mul, add);
        a4 = fmaf(a4, mul, add); a5 = fmaf(a5, mul, add);
        a6 = fmaf(a6, mul, add); a7 = fmaf(a7, mul, add);
    }
    float s = a0 + a1 + a2 + a3 + a4 + a5 + a6 + a7;
    if (s == 12345.678f) out[blockIdx.x * blockDim.x + threadIdx.x] = s;
}
extern "C" __global__ void copy_load(const float4 *src, float4 *dst, long long n) {
    long long stride = (long long)gridDim.x * blockDim.x;
    for (long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += stride)
        dst[i] = src[i];
}
"""

QUERY = "timestamp,clocks.sm,clocks.mem,power.draw,temperature.gpu,clocks_event_reasons.active"


class Sampler:
    """nvidia-smi sampling in the background; samples are tagged by phase."""

    def __init__(self):
        self.phase = "start"
        self.samples = []
        self.proc = subprocess.Popen(
            ["nvidia-smi", f"--query-gpu={QUERY}", "--format=csv,noheader,nounits", "-lms", "100"],
            stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self):
        for line in self.proc.stdout:
            parts = [p.strip() for p in line.split(",")]
            if len(parts) != 6:
                continue
            try:
                self.samples.append({
                    "phase": self.phase, "sm_mhz": float(parts[1]), "mem_mhz": float(parts[2]),
                    "power_w": float(parts[3]), "temp_c": float(parts[4]), "reasons": parts[5]})
            except ValueError:
                continue

    def stop(self):
        self.proc.terminate()
        self.proc.wait(timeout=5)


def summary(samples, phase):
    got = [s for s in samples if s["phase"] == phase]
    if not got:
        return {"samples": 0}
    out = {"samples": len(got)}
    for key in ("sm_mhz", "mem_mhz", "power_w", "temp_c"):
        vals = [s[key] for s in got]
        out[key] = {"median": statistics.median(vals), "min": min(vals), "max": max(vals)}
    out["reasons_seen"] = sorted({s["reasons"] for s in got})
    return out


def run_phase(cupy, launch, seconds):
    """Back-to-back launches for `seconds`; each timed with CUDA events."""
    times = []
    launch()  # warm-up
    cupy.cuda.runtime.deviceSynchronize()
    end = time.time() + seconds
    while time.time() < end:
        a, b = cupy.cuda.Event(), cupy.cuda.Event()
        a.record()
        launch()
        b.record()
        b.synchronize()
        times.append(cupy.cuda.get_elapsed_time(a, b))
    return times


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("out")
    ap.add_argument("--seconds", type=float, default=15.0)
    args = ap.parse_args()

    import cupy

    rt = cupy.cuda.runtime
    props = rt.getDeviceProperties(cupy.cuda.Device().id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    sms = props["multiProcessorCount"]
    mod = cupy.RawModule(code=FMA_SRC, options=("-std=c++17",))
    fma = mod.get_function("fma_load")
    copy = mod.get_function("copy_load")

    sampler = Sampler()
    time.sleep(1.0)
    sampler.phase = "idle"
    time.sleep(2.0)

    blocks, threads, steps = sms * 8, 256, 65536
    out = cupy.zeros(blocks * threads, dtype=cupy.float32)
    sampler.phase = "fma"
    fma_times = run_phase(cupy, lambda: fma((blocks,), (threads,), (out, cupy.float32(0.999), cupy.float32(0.001), cupy.int32(steps))), args.seconds)
    fma_ms = statistics.median(fma_times)
    fmas = blocks * threads * steps * 8
    fma_rate = fmas / (fma_ms * 1e-3)

    n_bytes = 2 << 30
    src = cupy.ones(n_bytes // 4, dtype=cupy.float32)
    dst = cupy.empty_like(src)
    n4 = n_bytes // 16
    sampler.phase = "copy"
    copy_times = run_phase(cupy, lambda: copy((sms * 16,), (512,), (src, dst, cupy.int64(n4))), args.seconds)
    copy_ms = statistics.median(copy_times)
    sampler.phase = "after"
    time.sleep(0.5)
    sampler.stop()

    result = {
        "device": name,
        "sms": sms,
        "compute_capability": props["major"] * 10 + props["minor"],
        "driver_version": rt.driverGetVersion(),
        "runtime_version": rt.runtimeGetVersion(),
        "cupy": cupy.__version__,
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join(sys.argv),
        "fma": {
            "blocks": blocks, "threads": threads, "steps": steps, "launches": len(fma_times),
            "median_ms": fma_ms, "min_ms": min(fma_times), "max_ms": max(fma_times),
            "fma_per_s": fma_rate,
            "effective_sm_mhz": fma_rate / (sms * 128) / 1e6,
            "smi": summary(sampler.samples, "fma"),
        },
        "copy": {
            "bytes_each_way": n_bytes, "launches": len(copy_times),
            "median_ms": copy_ms, "min_ms": min(copy_times), "max_ms": max(copy_times),
            "bytes_per_s_read_plus_written": 2 * n_bytes / (copy_ms * 1e-3),
            "smi": summary(sampler.samples, "copy"),
        },
        "idle": {"smi": summary(sampler.samples, "idle")},
    }
    with open(args.out, "w", encoding="utf-8") as w:
        json.dump(result, w, indent=2)
        w.write("\n")
    f, c = result["fma"], result["copy"]
    print(f"{name}: FMA {fma_rate / 1e12:.2f} T/s = full-rate issue at {f['effective_sm_mhz']:.0f} MHz "
          f"(nvidia-smi median {f['smi'].get('sm_mhz', {}).get('median')}); "
          f"copy {c['bytes_per_s_read_plus_written'] / 1e12:.2f} TB/s read+written "
          f"(SM {c['smi'].get('sm_mhz', {}).get('median')} MHz, mem {c['smi'].get('mem_mhz', {}).get('median')} MHz)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
