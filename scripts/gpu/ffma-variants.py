#!/usr/bin/env python3
"""Which part of Kernel Tuner's convolution slows its FFMA-heavy
configurations beyond the timing model's time (docs/validation/by-parameter.md,
"FFMA-heavy code runs slower than the model allows")? Each configuration is
built and timed as it is and in variants that each change one thing:

- base:      the kernel as Kernel Tuner builds it (measure-kt.py's build);
- imm:       the filter weights as compile-time constants instead of the
             `__constant__` array: each FFMA takes an immediate where it took
             a constant-bank operand (c[0x3][...]);
- split:     two partial sums per output (even and odd filter columns),
             added at the end: half as long a dependent FFMA chain per output;
- imm_split: both;
- rolled:    the loop over filter rows kept rolled (`#pragma unroll 1`): the
             code is about 15 times smaller, at the price of a loop and
             register-indexed filter loads (ULDC with a register offset);
- noload:    no global loads: each thread writes its shared-memory words from
             their indices (the compute phase alone, with its barrier);
- nocompute: the global loads, the barrier and one shared load per output,
             no filter loop (the load phase alone).

Usage:
  scripts/gpu/ffma-variants.py measure OUT_DIR CONFIG...   (on a GPU: CuPy and
      cuda-python's NVRTC, as measure-kt.py; writes OUT_DIR/ffma-variants.json
      and the SASS of every build, OUT_DIR/ffma-variants.sass.txt.gz)
  scripts/gpu/ffma-variants.py sources OUT_DIR               (anywhere: writes
      each variant's source and an experiment file for `ptxperf validate`)
  scripts/gpu/ffma-variants.py kt-data RESULTS.json OUT_DIR    (anywhere: one
      Kernel Tuner cache file per variant from what `measure` wrote, for
      `ptxperf validate OUT_DIR/convolution-VARIANT.toml --data
      OUT_DIR/convolution-VARIANT.json`; also writes the sources and specs)
  VARIANTS=base,imm,...  (environment) measures only those variants;
  LAUNCHES, ROUNDS, WARMUPS (environment; 30, 2, 3) set the timing loop:
      LAUNCHES=1 ROUNDS=1 WARMUPS=0 launches each build once, for a
      profiler, e.g. `ncu -k regex:convolution_kernel --metrics
      l1tex__data_pipe_lsu_wavefronts.sum,l1tex__t_requests_pipe_lsu_mem_global_op_ld.sum,smsp__inst_executed_pipe_lsu.sum
      --csv python3 scripts/gpu/ffma-variants.py measure OUT CONFIG...`
  CONFIG  block_size_x,block_size_y,tile_size_x,tile_size_y,read_only,use_padding

Times are CUDA-event medians of 30 launches after 3 warm-ups (by default);
every configuration's variants are timed in two interleaved rounds, so a drifting
clock shows as a difference between the rounds. Outputs of `split` and
`rolled` are checked against `base` (same weights, other summation order:
relative error below 1e-4 of the largest output); `imm` computes with other
weights and is checked against `imm_split`. `median_ms` is the lower of the
two rounds' medians; `versions` holds nvidia-smi's clocks before the first
build, `versions_now` after the last configuration written.
"""

import gzip
import importlib.util
import json
import os
import re
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
_common = importlib.util.spec_from_file_location("gpu_common", os.path.join(HERE, "gpu_common.py"))
gpu_common = importlib.util.module_from_spec(_common)
_common.loader.exec_module(gpu_common)
ROOT = os.path.dirname(os.path.dirname(HERE))
KEYS = ["block_size_x", "block_size_y", "tile_size_x", "tile_size_y", "read_only", "use_padding"]
VARIANTS = ["base", "imm", "split", "imm_split", "rolled", "noload", "nocompute"]

FILTER_READ = "d_filter[i*filter_width+j]"
SUM_LINE = "sum[yi][xi] += sh_input[ty+yi*block_size_y+i][tx+xi*block_size_x+j] * d_filter[i*filter_width+j];"
FILTER_LOOP = re.compile(r"(//for each filter weight\s*\n\s*)#pragma unroll(\s*\n\s*for \(int i=0; i < filter_height)")


def replace_once(text, old, new):
    if text.count(old) != 1:
        raise SystemExit(f"ffma-variants: the convolution source changed: {old!r} found {text.count(old)} times")
    return text.replace(old, new)


def transform(source, variant):
    """The kernel source of VARIANT (see the module's doc)."""
    text = source
    if variant in ("split", "imm_split"):
        text = replace_once(text, "float sum[tile_size_y][tile_size_x];",
                            "float sum[tile_size_y][tile_size_x];\n    float sum_odd[tile_size_y][tile_size_x];")
        text = replace_once(text, "sum[yi][xi] = 0.0f;", "sum[yi][xi] = 0.0f;\n             sum_odd[yi][xi] = 0.0f;")
        product = "sh_input[ty+yi*block_size_y+i][tx+xi*block_size_x+j] * d_filter[i*filter_width+j]"
        text = replace_once(text, SUM_LINE,
                            f"if (j & 1) sum_odd[yi][xi] += {product}; else sum[yi][xi] += {product};")
        stores = text.count("= sum[yi][xi];")
        if stores != 2:
            raise SystemExit(f"ffma-variants: expected two stores of sum[yi][xi], found {stores}")
        text = text.replace("= sum[yi][xi];", "= sum[yi][xi] + sum_odd[yi][xi];")
    if variant in ("imm", "imm_split"):
        n = text.count(FILTER_READ)
        if n < 1:
            raise SystemExit("ffma-variants: the convolution source changed: no filter read")
        text = text.replace(FILTER_READ, "FILTER_IMM(i*filter_width+j)")
        text = "#define FILTER_IMM(k) (0.25f + 0.001f * (float)(k))\n" + text
    if variant == "noload":
        text = replace_once(text, "sh_input[i][j] = LDG(input, y*input_width+x);",
                            "sh_input[i][j] = (float)(i - j);")
        text = replace_once(text, "sh_input[i][j] = LDG(input, (by+i)*input_width + (bx+j));",
                            "sh_input[i][j] = (float)(i - j);")
    if variant == "nocompute":
        text = replace_once(text, SUM_LINE,
                            "if (i == 0 && j == 0) sum[yi][xi] += sh_input[ty+yi*block_size_y][tx+xi*block_size_x];")
    if variant == "rolled":
        text, n = FILTER_LOOP.subn(r"\1#pragma unroll 1\2", text)
        if n != 1:
            raise SystemExit("ffma-variants: the convolution source changed: no filter-row loop")
    return text


def experiment():
    import tomllib

    with open(os.path.join(ROOT, "experiments", "convolution.toml"), "rb") as f:
        exp = tomllib.load(f)
    with open(os.path.normpath(os.path.join(ROOT, "experiments", exp["source"]))) as f:
        return exp, f.read()


def write_sources(out_dir):
    """Each variant's source and a copy of experiments/convolution.toml that
    points at it, for `ptxperf predict OUT_DIR/convolution-VARIANT.toml`."""
    exp, source = experiment()
    os.makedirs(out_dir, exist_ok=True)
    with open(os.path.join(ROOT, "experiments", "convolution.toml")) as f:
        spec = f.read()
    for v in VARIANTS:
        name = f"convolution-{v}.cu"
        with open(os.path.join(out_dir, name), "w") as f:
            f.write(transform(source, v))
        text = re.sub(r'(?m)^source = "[^"]*"', f'source = "{name}"', spec, count=1)
        with open(os.path.join(out_dir, f"convolution-{v}.toml"), "w") as f:
            f.write(text)
    print(f"ffma-variants: {len(VARIANTS)} sources and experiment files in {out_dir}")


def sass_summary(cubin_path, kernel_name):
    """Counts of the SASS opcodes that matter here, from cuobjdump."""
    try:
        text = subprocess.run(["cuobjdump", "-sass", cubin_path], capture_output=True, text=True,
                              timeout=60).stdout
    except (OSError, subprocess.TimeoutExpired) as e:
        return {"error": str(e)}, ""
    counts = {"instructions": 0, "FFMA": 0, "FFMA_const": 0, "FFMA_imm": 0, "LDS": 0, "LDC": 0,
              "LDG": 0, "BRA": 0}
    for line in text.splitlines():
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_.]+)\s*([^;]*);", line)
        if not m:
            continue
        op, operands = m.group(1), m.group(2)
        counts["instructions"] += 1
        base = op.split(".")[0]
        if base == "FFMA":
            counts["FFMA"] += 1
            if "c[0x3]" in operands:
                counts["FFMA_const"] += 1
            elif re.search(r",\s*-?[0-9][0-9.e+-]*\s*,", operands + ","):
                counts["FFMA_imm"] += 1
        elif base in counts:
            counts[base] += 1
    return counts, text


def measure(out_dir, configs, variants=None):
    variants = variants or VARIANTS
    launches = max(1, int(os.environ.get("LAUNCHES", "30")))
    rounds = max(1, int(os.environ.get("ROUNDS", "2")))
    warmups = max(0, int(os.environ.get("WARMUPS", "3")))
    import cupy as cp
    import numpy as np
    from concurrent.futures import ProcessPoolExecutor

    kt = gpu_common.load_measure_kt()
    exp, source = experiment()
    os.makedirs(out_dir, exist_ok=True)
    device, _, cc = gpu_common.device(cp)
    started = time.time()
    versions_before = kt.versions(cp)

    jobs, meta = [], {}
    for config in configs:
        params = dict(zip(KEYS, config.split(",")))
        params.update({"filter_width": "15", "filter_height": "15"})
        grid, block = kt.launch_geometry(exp, {k: int(v) for k, v in params.items()})
        entries = kt.kernel_tuner_prefix(grid, block, list(params.items()))
        for v in variants:
            key = f"{config}/{v}"
            text = kt.instantiate(transform(source, v), entries)
            jobs.append((key, text, exp["kernel"], [f"--gpu-architecture=sm_{cc}"]))
            meta[key] = (config, v, grid, block)
    with ProcessPoolExecutor(max_workers=min(14, os.cpu_count() or 2)) as pool:
        built = {key: (cubin, name, err) for key, cubin, name, err in pool.map(kt.compile_one, jobs)}
    print(f"ffma-variants: {len(jobs)} builds in {time.time() - started:.0f} s", flush=True)

    image = cp.zeros(4096 * 4096, dtype=cp.float32)
    inp = cp.asarray(np.random.default_rng(1).uniform(-1, 1, (4096 + 14) * (4096 + 14)).astype(np.float32))
    filt = cp.asarray(np.random.default_rng(2).uniform(-1, 1, 15 * 15).astype(np.float32))
    start_ev, stop_ev = cp.cuda.Event(), cp.cuda.Event()
    tmp = tempfile.mkdtemp()
    sass_all = []
    results = []

    def write():
        doc = {
            "what": "Kernel Tuner's convolution (15x15 filter, 4096^2 image) in variants: scripts/gpu/ffma-variants.py",
            "command": f"VARIANTS={','.join(variants)} python3 scripts/gpu/ffma-variants.py measure OUT "
                       + " ".join(configs),
            "device": device,
            "compute_capability": cc,
            "timing_loop": {"launches": launches, "rounds": rounds, "warmups": warmups},
            "versions": versions_before,
            "versions_now": kt.versions(cp),
            "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
            "seconds": round(time.time() - started, 1),
            "results": results,
        }
        with open(os.path.join(out_dir, "ffma-variants.json"), "w") as f:
            json.dump(doc, f, indent=1)
        with gzip.open(os.path.join(out_dir, "ffma-variants.sass.txt.gz"), "wt") as f:
            f.write("\n".join(sass_all))

    for config in configs:
        loaded = {}
        for v in variants:
            key = f"{config}/{v}"
            cubin, name, err = built[key]
            row = {"config": config, "variant": v}
            if err:
                row["error"] = err
                results.append(row)
                continue
            path = os.path.join(tmp, f"{len(results)}.cubin")
            with open(path, "wb") as f:
                f.write(cubin)
            try:
                module = cp.RawModule(path=path)
                fn = module.get_function(name)
            except Exception as e:  # noqa: BLE001
                row["error"] = f"load: {e}"
                results.append(row)
                continue
            try:
                module.get_global("d_filter").copy_from_device(filt.data, filt.nbytes)
            except Exception:  # noqa: BLE001  (imm, nocompute: the array may be gone)
                row["filter_array"] = "absent"
            counts, text = sass_summary(path, name)
            sass_all.append(f"==== {key}\n{text}")
            row.update({"registers": getattr(fn, "num_regs", None),
                        "static_shared_bytes": getattr(fn, "shared_size_bytes", None),
                        "local_bytes": getattr(fn, "local_size_bytes", None), "sass": counts,
                        "cubin_bytes": len(cubin), "times_ms": []})
            _, _, grid, block = meta[key]
            loaded[v] = (fn, tuple(grid[:2]), tuple(block[:2]), row)
            results.append(row)
        outputs = {}
        for round_ in range(rounds):
            for v, (fn, grid, block, row) in loaded.items():
                args = (image, inp, filt)
                for _ in range(warmups):
                    fn(grid, block, args)
                times = []
                for _ in range(launches):
                    start_ev.record()
                    fn(grid, block, args)
                    stop_ev.record()
                    stop_ev.synchronize()
                    times.append(cp.cuda.get_elapsed_time(start_ev, stop_ev))
                row["times_ms"].append(sorted(times)[len(times) // 2])
                if round_ == 0:
                    outputs[v] = cp.asnumpy(image).copy()
        for v, ref in (("split", "base"), ("rolled", "base"), ("imm", "imm_split")):
            if v in outputs and ref in outputs:
                scale = float(np.max(np.abs(outputs[ref]))) or 1.0
                err = float(np.max(np.abs(outputs[v] - outputs[ref]))) / scale
                loaded[v][3]["max_rel_diff_vs_" + ref] = err
                loaded[v][3]["output_ok"] = err < 1e-4
        for v, (_, _, _, row) in loaded.items():
            row["median_ms"] = min(row["times_ms"])
        line = " ".join(f"{v} {loaded[v][3]['median_ms']:.4f}" for v in loaded)
        print(f"ffma-variants: {config}: {line}", flush=True)
        write()
    write()


def kt_data(results_path, out_dir):
    """Kernel Tuner cache files (the format `ptxperf validate --data` reads),
    one per variant, from the `measure` output."""
    with open(results_path) as f:
        doc = json.load(f)
    write_sources(out_dir)
    order = ["block_size_x", "block_size_y", "filter_height", "filter_width", "read_only", "tile_size_x",
             "tile_size_y", "use_padding"]
    for v in VARIANTS:
        cache = {}
        for row in doc["results"]:
            if row["variant"] != v or "median_ms" not in row:
                continue
            params = {k: int(x) for k, x in zip(KEYS, row["config"].split(","))}
            params.update({"filter_width": 15, "filter_height": 15})
            key = ",".join(str(params[k]) for k in order)
            cache[key] = {**{k: params[k] for k in order}, "time": row["median_ms"], "times": row["times_ms"]}
        out = {"device_name": doc["device"], "kernel_name": "convolution_kernel", "problem_size": [4096, 4096],
               "tune_params_keys": order, "objective": "time",
               "measured_by": {"command": doc["command"], "variant": v, "versions": doc["versions"],
                               "nvrtc": doc["versions"].get("nvrtc")},
               "cache": cache}
        with open(os.path.join(out_dir, f"convolution-{v}.json"), "w") as f:
            json.dump(out, f, indent=1)
    print(f"ffma-variants: Kernel Tuner files for {len(VARIANTS)} variants in {out_dir}")


def main():
    if len(sys.argv) < 3 or sys.argv[1] not in ("measure", "sources", "kt-data"):
        raise SystemExit(__doc__)
    if sys.argv[1] == "sources":
        write_sources(sys.argv[2])
    elif sys.argv[1] == "kt-data":
        if len(sys.argv) != 4:
            raise SystemExit(__doc__)
        kt_data(sys.argv[2], sys.argv[3])
    else:
        chosen = os.environ.get("VARIANTS")
        measure(sys.argv[2], sys.argv[3:], chosen.split(",") if chosen else None)


if __name__ == "__main__":
    main()
