#!/usr/bin/env python3
"""Measure a validation experiment on the GPU of this machine, the way Kernel
Tuner measured the ground truth, and write a Kernel Tuner cache file that
`ptxperf validate --data` reads.

Usage (on a machine with an NVIDIA GPU, CuPy and cuda-bindings):
  scripts/gpu/measure-kt.py EXPERIMENT.toml --space CACHE.json[.gz] --out OUT.json
      [--sample N] [--seed S] [--iterations 10] [--jobs 16] [--arch sm_90]

- EXPERIMENT.toml is one of experiments/*.toml: source, kernel, problem size,
  grid division, arguments and `__constant__` symbols.
- --space names a Kernel Tuner cache file whose tunable parameters and
  configurations are measured again here (all of them, or --sample N drawn
  with --seed). Configurations are never invented: the space is the
  ground truth's.
- Each configuration is built as Kernel Tuner builds it (the same prefix of
  defines as crates/validate/src/source.rs: grid_size_x/y/z, the block sizes,
  every tunable parameter in order, `kernel_tuner 1`; a `loop_unroll_factor`
  parameter becomes `constexpr int`, or deletes its `#pragma unroll` lines
  when 0), compiled with NVRTC for --arch (default: the device's) in --jobs
  processes (in a random order; --compile-budget stops compiling and
  measures what compiled), loaded as a cubin, launched once as a warm-up and then
  --iterations times, each launch timed with CUDA events. `time` is the mean
  in milliseconds, `times` the list, as in Kernel Tuner's cache files. The
  output is rewritten every 200 configurations, so a run stopped from outside
  (a time limit) leaves what it measured; --budget stops timing cleanly.
- A configuration whose block has more than 1024 threads is written as
  "InvalidConfig", one NVRTC or ptxas rejects as "CompilationFailedConfig",
  one whose launch fails as "RuntimeFailedConfig" (the strings Kernel Tuner
  writes).
- The outputs (arguments initialised to zeros, cleared before the warm-up
  launch) must match the first configuration's within 1e-4 of their largest
  magnitude: every configuration computes the same result (--max-mismatch F
  lets a fraction F of an output's elements differ). One that does not is
  written as "VerificationFailedConfig" and not timed. (Without the
  check, a loader that ran the first configuration's kernel for every
  configuration went unnoticed through a whole campaign.)
- Argument contents follow the experiment's `init` (zeros, uniform random
  with its seed and bounds, a formula of `i`); the kernels' timing does not
  depend on the values. A buffer with `host_mapped = true` is allocated in
  mapped (zero-copy) host memory (cudaHostAlloc with cudaHostAllocMapped),
  so the kernel reads and writes it over PCIe, as pnpoly's host code does.
- The source is the experiment's `source` (one file, or a list concatenated
  in order), after its `header` (and `#line 1`), with its `replace` edits;
  the block is the configuration's `block_size_names` (default
  block_size_x/y/z); a configuration that fails one of the `restrictions`
  is not in Kernel Tuner's space and is left out (evaluated in Python, as
  Kernel Tuner does).

The output records the device, driver, NVRTC and CuPy versions and the exact
command line in an extra top-level key `measured_by`.
"""

import argparse
import ctypes
import gzip
import json
import os
import random
import re
import sys
import tempfile
import time
import tomllib
from concurrent.futures import ProcessPoolExecutor, TimeoutError as FuturesTimeout, as_completed

DTYPES = {
    "f32": "float32", "f64": "float64", "f16": "float16",
    "i8": "int8", "u8": "uint8", "i16": "int16", "u16": "uint16",
    "i32": "int32", "u32": "uint32", "i64": "int64", "u64": "uint64",
}


def load_cache(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as f:
        return json.load(f)


def int_eval(expr, params):
    """An integer expression of the experiment (C semantics: / truncates)."""
    if isinstance(expr, int):
        return expr
    py = re.sub(r"(?<![/])/(?![/])", "//", str(expr))
    return int(eval(py, {"__builtins__": {}}, dict(params)))


BLOCK_SIZE_NAMES = ["block_size_x", "block_size_y", "block_size_z"]


def block_size_names(exp):
    names = list(exp.get("block_size_names", []))
    return names + BLOCK_SIZE_NAMES[len(names):]


def read_source(exp, here):
    """The header's text and `#line 1`, then the sources concatenated, with
    the `replace` edits (crates/validate/src/source.rs, SourceFiles::read)."""
    files = exp["source"] if isinstance(exp["source"], list) else [exp["source"]]
    text = ""
    for f in files:
        with open(os.path.normpath(os.path.join(here, f))) as fp:
            text += fp.read()
    for i, r in enumerate(exp.get("replace", [])):
        if not r["from"] or r["from"] not in text:
            raise SystemExit(f"replace[{i}]: `{r['from']}` occurs nowhere in the source")
        text = text.replace(r["from"], r["to"])
    if "header" in exp:
        with open(os.path.normpath(os.path.join(here, exp["header"]))) as fp:
            header = fp.read()
        if not header.endswith("\n"):
            header += "\n"
        text = header + "#line 1\n" + text
    return text


def admitted(exp, params):
    """Kernel Tuner's restrictions, evaluated as Kernel Tuner does (Python)."""
    env = dict(params)
    return all(eval(r.replace("&&", " and ").replace("||", " or "), {"__builtins__": {}}, env)
               for r in exp.get("restrictions", []))


def kernel_tuner_prefix(grid, block, params, names=BLOCK_SIZE_NAMES):
    entries = []

    def put(name, value):
        for e in entries:
            if e[0] == name:
                e[1] = value
                return
        entries.append([name, value])

    for n, g in zip(["grid_size_x", "grid_size_y", "grid_size_z"], grid):
        put(n, str(g))
    for n, b in zip(names, block):
        put(n, str(b))
    for n, v in params:
        put(n, str(v))
    put("kernel_tuner", "1")
    return entries


def instantiate(source, entries):
    prefix = ""
    body = source
    for name, value in entries:
        if "loop_unroll_factor" in name:
            if value == "0":
                body = re.sub(r"\n\s*#pragma\s+unroll\s+" + re.escape(name), "\n", body)
            else:
                prefix += f"constexpr int {name} = {value};\n"
        else:
            prefix += f"#define {name} {value}\n"
    if prefix:
        prefix += "#line 1\n"
    return prefix + body


def launch_geometry(exp, params):
    block = [int(params.get(n, d)) for n, d in zip(block_size_names(exp), [256, 1, 1])]
    problem = list(exp["problem_size"]) + [1] * (3 - len(exp["problem_size"]))
    divs = exp.get("grid_div")
    grid = []
    for d in range(3):
        if divs is not None and d < len(divs):
            div = int_eval(divs[d], params)
        elif divs is not None:
            div = 1
        else:
            div = block[d]
        grid.append(max(1, -(-problem[d] // div)))
    return grid, block


def compile_one(job):
    """Worker: NVRTC -> cubin bytes and the lowered entry name, or an error."""
    key, text, kernel, options = job
    from cuda.bindings import nvrtc

    def check(res, what):
        err = res[0]
        if err != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            raise RuntimeError(f"{what}: {err}")
        return res[1:] if len(res) > 1 else None

    (prog,) = check(nvrtc.nvrtcCreateProgram(text.encode(), b"kernel.cu", 0, [], []), "create")
    try:
        check(nvrtc.nvrtcAddNameExpression(prog, kernel.encode()), "name")
        opts = [o.encode() for o in options]
        res = nvrtc.nvrtcCompileProgram(prog, len(opts), opts)
        if res[0] != nvrtc.nvrtcResult.NVRTC_SUCCESS:
            (size,) = check(nvrtc.nvrtcGetProgramLogSize(prog), "log size")
            log = b" " * size
            check(nvrtc.nvrtcGetProgramLog(prog, log), "log")
            return key, None, None, log.decode(errors="replace")[-400:]
        (size,) = check(nvrtc.nvrtcGetCUBINSize(prog), "cubin size")
        cubin = b" " * size
        check(nvrtc.nvrtcGetCUBIN(prog, cubin), "cubin")
        (lowered,) = check(nvrtc.nvrtcGetLoweredName(prog, kernel.encode()), "lowered")
        name = lowered.decode() if isinstance(lowered, bytes) else str(lowered)
        return key, cubin, name, None
    finally:
        nvrtc.nvrtcDestroyProgram(prog)


def materialize(cp, np, spec, params, cache):
    ty = spec["type"]
    elem = DTYPES[ty.rstrip("*")]
    if not ty.endswith("*"):
        return getattr(np, elem)(spec["value"])
    n = int_eval(spec["len"], params)
    init = spec.get("init", "zeros")
    mapped = bool(spec.get("host_mapped", False))
    key = (spec["name"], n, json.dumps(init, sort_keys=True), mapped)
    if key in cache:
        return cache[key]
    if init == "zeros":
        host = np.zeros(n, dtype=elem)
    elif "random" in init:
        r = init["random"]
        rng = np.random.default_rng(r["seed"])
        if np.dtype(elem).kind == "f":
            host = rng.uniform(r["lo"], r["hi"], n).astype(elem)
        else:
            host = rng.integers(int(r["lo"]), int(r["hi"]), n).astype(elem)
    elif "formula" in init:
        i = np.arange(n, dtype=np.float64)
        host = np.asarray(eval(init["formula"], {"__builtins__": {}}, {"i": i}), dtype=np.float64)
        host = np.broadcast_to(host, (n,)).astype(elem)
    else:
        raise SystemExit(f"{spec['name']}: init {init} is not supported by this script")
    if mapped:
        # Mapped, pinned host memory; with unified addressing its host
        # pointer is the device pointer, so a CuPy array can wrap it and
        # every kernel access crosses PCIe.
        rt = cp.cuda.runtime
        nbytes = max(1, host.nbytes)
        ptr = rt.hostAlloc(nbytes, rt.hostAllocMapped)
        owner = MappedHost(rt, ptr)
        mem = cp.cuda.UnownedMemory(ptr, nbytes, owner)
        dev = cp.ndarray((n,), dtype=elem, memptr=cp.cuda.MemoryPointer(mem, 0))
        ctypes.memmove(ptr, host.ctypes.data, host.nbytes)
    else:
        dev = cp.asarray(host)
    cache[key] = dev
    return dev


class MappedHost:
    """Frees mapped host memory when the last array over it goes."""

    def __init__(self, rt, ptr):
        self.rt, self.ptr = rt, ptr

    def __del__(self):
        self.rt.freeHost(self.ptr)


def is_output(spec):
    """A pointer argument that starts as zeros: what the kernel writes."""
    return spec["type"].endswith("*") and spec.get("init", "zeros") == "zeros"


def verify(cp, outputs, reference, max_mismatch=0.0):
    """Every configuration must compute what the first one computed (the
    configurations of an experiment differ in how, not in what). The first
    configuration that runs sets the reference; a later output with an
    element that differs by more than 1e-4 of the reference's largest
    magnitude (or is NaN) is a mismatch, returned as a message, unless such
    elements are at most `max_mismatch` of the output (--max-mismatch: a
    kernel whose tunable variants may decide a borderline element
    differently, such as pnpoly's point on an edge)."""
    for name, buf in outputs:
        key = (name, buf.size)
        ref = reference.get(key)
        if ref is None:
            reference[key] = buf.copy()
            continue
        scale = float(cp.max(cp.abs(ref))) or 1.0
        off = cp.logical_not(cp.abs(buf - ref) <= 1e-4 * scale)
        bad = int(cp.count_nonzero(off))
        if bad > max_mismatch * buf.size:
            diff = float(cp.max(cp.abs(buf - ref)))
            return (f"{name} differs from the first configuration's in {bad} of {buf.size} elements, "
                    f"by up to {diff:.3g} (largest |value| {scale:.3g})")
    return None


def versions(cp):
    import subprocess
    out = {}
    try:
        q = "name,driver_version,clocks.sm,clocks.max.sm,clocks.mem,power.limit,temperature.gpu"
        out["nvidia_smi"] = subprocess.run(
            ["nvidia-smi", f"--query-gpu={q}", "--format=csv"], capture_output=True, text=True
        ).stdout.strip()
    except OSError as e:
        out["nvidia_smi"] = str(e)
    out["cupy"] = cp.__version__
    out["cuda_runtime"] = cp.cuda.runtime.runtimeGetVersion()
    out["cuda_driver"] = cp.cuda.runtime.driverGetVersion()
    try:
        from cuda.bindings import nvrtc
        err, major, minor = nvrtc.nvrtcVersion()
        out["nvrtc"] = f"{major}.{minor}"
    except Exception as e:  # noqa: BLE001
        out["nvrtc"] = f"unknown ({e})"
    return out


def print_launch(experiment, spec):
    with open(experiment, "rb") as f:
        exp = tomllib.load(f)
    here = os.path.dirname(os.path.abspath(experiment))
    source = read_source(exp, here)
    params = []
    for item in filter(None, spec.split(",")):
        name, value = item.split("=", 1)
        params.append((name, int(value) if re.fullmatch(r"-?[0-9]+", value) else value))
    grid, block = launch_geometry(exp, dict(params))
    lens = {a["name"]: int_eval(a["len"], dict(params)) for a in exp["arg"] if a["type"].endswith("*")}
    lens.update({c["name"]: int_eval(c["len"], dict(params)) for c in exp.get("constant", [])})
    text = instantiate(source, kernel_tuner_prefix(grid, block, params, block_size_names(exp)))
    json.dump({"grid": grid, "block": block, "lens": lens, "source": text,
               "admitted": admitted(exp, params)}, sys.stdout)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("experiment")
    ap.add_argument("--space", help="the Kernel Tuner cache file whose space is measured (required)")
    ap.add_argument("--out", help="the cache file to write (required)")
    ap.add_argument("--sample", type=int, default=0)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--iterations", type=int, default=10)
    ap.add_argument("--jobs", type=int, default=os.cpu_count() or 1)
    ap.add_argument("--arch", default=None)
    ap.add_argument("--compile-budget", type=float, default=0,
                    help="stop compiling after this many seconds and measure what compiled")
    ap.add_argument("--budget", type=float, default=0,
                    help="stop timing after this many seconds and write the configurations measured so far")
    ap.add_argument("--max-mismatch", type=float, default=0.0,
                    help="the fraction of an output's elements allowed to differ from the first "
                         "configuration's (default 0: none)")
    ap.add_argument("--drop-param", action="append", default=[],
                    help="a tunable parameter of the space not to re-create here (e.g. nvml_gr_clock)")
    ap.add_argument("--print-launch", metavar="NAME=VALUE,...",
                    help="print the grid, block, argument lengths and instantiated source of one "
                         "configuration as JSON and exit, without a GPU (tested against the "
                         "validate crate: crates/validate/tests/gpu_script.rs)")
    args = ap.parse_args()

    if args.print_launch is not None:
        print_launch(args.experiment, args.print_launch)
        return
    if not args.space or not args.out:
        ap.error("--space and --out are required")

    import cupy as cp
    import numpy as np

    with open(args.experiment, "rb") as f:
        exp = tomllib.load(f)
    here = os.path.dirname(os.path.abspath(args.experiment))
    source = read_source(exp, here)
    includes = [os.path.normpath(os.path.join(here, d)) for d in exp.get("include_dirs", [])]

    space = load_cache(args.space)
    keys = [k for k in space["tune_params_keys"] if k not in args.drop_param]
    all_keys = space["tune_params_keys"]
    configs = []
    seen = set()
    for entry in space["cache"].values():
        params = [(k, entry[k]) for k in keys]
        ident = ",".join(str(v) for _, v in params)
        if ident not in seen and admitted(exp, params):
            seen.add(ident)
            configs.append(params)
    if args.sample and args.sample < len(configs):
        configs = random.Random(args.seed).sample(configs, args.sample)

    dev = cp.cuda.Device(0)
    cc = dev.compute_capability
    arch = args.arch or f"sm_{cc}"
    options = [f"--gpu-architecture={arch}"] + [f"-I{d}" for d in includes]
    props = cp.cuda.runtime.getDeviceProperties(0)
    device_name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    print(f"measure-kt: {exp['name']} on {device_name} ({arch}), {len(configs)} configurations, "
          f"{args.iterations} timed launches each", file=sys.stderr, flush=True)

    jobs = []
    geometry = {}
    results = {}
    for params in configs:
        pd = dict(params)
        ident = ",".join(str(v) for _, v in params)
        grid, block = launch_geometry(exp, pd)
        geometry[ident] = (grid, block, pd)
        if block[0] * block[1] * block[2] > 1024:
            results[ident] = "InvalidConfig"
            continue
        text = instantiate(source, kernel_tuner_prefix(grid, block, params, block_size_names(exp)))
        jobs.append((ident, text, exp["kernel"], options))

    t0 = time.time()
    compiled = {}
    # Submitted in random order, so that a compile budget that runs out
    # leaves a random subset of the space, not its first rows.
    random.Random(args.seed).shuffle(jobs)
    # A budget that runs out must also stop the compiles in progress: busy
    # CPUs delay the launches between the timing events and inflate the
    # times (a run that left 16 compiles going measured 7 to 23 % slower
    # than a quiet one on the same configurations).
    pool = ProcessPoolExecutor(max_workers=args.jobs)
    futures = [pool.submit(compile_one, job) for job in jobs]
    try:
        for n, fut in enumerate(as_completed(futures, timeout=args.compile_budget or None)):
            ident, cubin, name, err = fut.result()
            compiled[ident] = (cubin, name, err)
            if (n + 1) % 100 == 0:
                print(f"  compiled {n + 1}/{len(jobs)} ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)
    except FuturesTimeout:
        print(f"measure-kt: compile budget spent: {len(compiled)} of {len(jobs)} compiled; "
              "the rest are left out of the output", file=sys.stderr, flush=True)
        # Concurrent.futures has no public way to stop a running task.
        for proc in list(getattr(pool, "_processes", {}).values()):
            proc.terminate()
    pool.shutdown(wait=True, cancel_futures=True)
    print(f"measure-kt: compiled {len(compiled)} in {time.time() - t0:.0f} s", file=sys.stderr, flush=True)

    def write_output():
        """The cache file of what is measured so far (rewritten whole, so an
        interrupted run leaves its last checkpoint)."""
        cache = {}
        for params in configs:
            ident = ",".join(str(v) for _, v in params)
            entry = {k: v for k, v in params}
            if ident not in results:
                continue
            r = results[ident]
            if isinstance(r, str):
                entry["time"] = r
            else:
                entry["time"] = sum(r) / len(r)
                entry["times"] = r
            cache[ident] = entry
        out = {
            "device_name": device_name,
            "kernel_name": exp["kernel"],
            "problem_size": exp["problem_size"],
            "tune_params_keys": keys,
            "tune_params": {k: space["tune_params"][k] for k in keys if k in space["tune_params"]},
            "objective": "time",
            "measured_by": {
                "command": " ".join(sys.argv),
                "space": os.path.basename(args.space),
                "space_keys_dropped": [k for k in all_keys if k not in keys],
                "arch": arch,
                "iterations": args.iterations,
                "warmup_launches": 1,
                **versions(cp),
            },
            "cache": cache,
        }
        opener = gzip.open if args.out.endswith(".gz") else open
        tmp = args.out + ".part"
        with opener(tmp, "wt") as f:
            json.dump(out, f, indent=0)
        os.replace(tmp, args.out)

    buffers = {}
    reference = {}
    tmpdir = tempfile.mkdtemp()
    t1 = time.time()
    start_ev, stop_ev = cp.cuda.Event(), cp.cuda.Event()
    for n, params in enumerate(configs):
        ident = ",".join(str(v) for _, v in params)
        if ident in results:
            continue
        if args.budget and time.time() - t1 > args.budget:
            print(f"measure-kt: time budget spent after {n} configurations", file=sys.stderr)
            break
        if ident not in compiled:
            continue
        cubin, name, err = compiled[ident]
        if cubin is None:
            results[ident] = "CompilationFailedConfig"
            continue
        grid, block, pd = geometry[ident]
        # One file per configuration: CuPy memoizes RawModule by path, so a
        # reused name ran the first configuration's kernel for every later
        # one (the H100 data measured before this fix were all invalid).
        path = os.path.join(tmpdir, f"{n}.cubin")
        with open(path, "wb") as f:
            f.write(cubin)
        try:
            module = cp.RawModule(path=path)
            kernel = module.get_function(name)
            for c in exp.get("constant", []):
                host = materialize(cp, np, {**c, "type": c["type"] + "*"}, pd, buffers)
                ptr = module.get_global(c["name"])
                ptr.copy_from_device(host.data, host.nbytes)
            argv = [materialize(cp, np, a, pd, buffers) for a in exp["arg"]]
            outputs = [(a["name"], v) for a, v in zip(exp["arg"], argv) if is_output(a)]
            for _, buf in outputs:
                buf.fill(0)
            kernel(tuple(grid), tuple(block), tuple(argv))
            cp.cuda.Device(0).synchronize()
            mismatch = verify(cp, outputs, reference, args.max_mismatch)
            if mismatch:
                results[ident] = "VerificationFailedConfig"
                print(f"  {ident}: {mismatch}", file=sys.stderr)
                continue
            times = []
            for _ in range(args.iterations):
                start_ev.record()
                kernel(tuple(grid), tuple(block), tuple(argv))
                stop_ev.record()
                stop_ev.synchronize()
                times.append(cp.cuda.get_elapsed_time(start_ev, stop_ev))
            results[ident] = times
        except (cp.cuda.driver.CUDADriverError, cp.cuda.runtime.CUDARuntimeError) as e:
            results[ident] = "RuntimeFailedConfig"
            print(f"  {ident}: {e}", file=sys.stderr)
            if "ILLEGAL" in str(e) or "LAUNCH_FAILED" in str(e):
                write_output()
                raise SystemExit("the context is lost after a fault; stopping") from e
        if (n + 1) % 200 == 0:
            write_output()
        if (n + 1) % 100 == 0:
            print(f"  measured {n + 1}/{len(configs)} ({time.time() - t1:.0f} s)", file=sys.stderr, flush=True)
    print(f"measure-kt: measured in {time.time() - t1:.0f} s", file=sys.stderr, flush=True)

    write_output()
    ok = [r for r in results.values() if not isinstance(r, str)]
    print(f"measure-kt: wrote {args.out}: {len(ok)} measured, {len(results) - len(ok)} failed; "
          f"fastest {min((sum(r) / len(r) for r in ok), default=float('nan')):.4f} ms", file=sys.stderr)


if __name__ == "__main__":
    main()
