"""Shared by the measuring scripts that build with measure-kt.py's NVRTC
path (ffma-variants.py, microbench-fetch.py, microbench-l1lines.py)."""

import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))


def load_measure_kt():
    """measure-kt.py as a module, registered as `measure_kt` so that a
    process pool's workers find its `compile_one` by name."""
    spec = importlib.util.spec_from_file_location("measure_kt", os.path.join(HERE, "measure-kt.py"))
    kt = importlib.util.module_from_spec(spec)
    sys.modules["measure_kt"] = kt
    spec.loader.exec_module(kt)
    return kt


def device(cp):
    """(name, SM count, compute capability as "90") of device 0."""
    props = cp.cuda.runtime.getDeviceProperties(0)
    name = props["name"].decode() if isinstance(props["name"], bytes) else props["name"]
    return name, props["multiProcessorCount"], cp.cuda.Device(0).compute_capability


def out_path_argument(doc):
    """The one argument (OUT.json) of a microbenchmark script, else its usage."""
    if len(sys.argv) != 2:
        raise SystemExit(doc)
    return sys.argv[1]


def build_one(kt, source, entry, cc, sass_path):
    """NVRTC-builds SOURCE (all its kernels; ENTRY names one) for sm_CC into a
    temporary cubin, writes its SASS (`cuobjdump -sass`) to SASS_PATH and
    returns the cubin's path."""
    import subprocess
    import tempfile

    _, cubin, _, err = kt.compile_one(("all", source, entry, [f"--gpu-architecture=sm_{cc}"]))
    if err:
        raise SystemExit(f"{os.path.basename(sys.argv[0])}: build failed: {err}")
    path = os.path.join(tempfile.mkdtemp(), entry + ".cubin")
    with open(path, "wb") as f:
        f.write(cubin)
    sass = subprocess.run(["cuobjdump", "-sass", path], capture_output=True, text=True).stdout
    with open(sass_path, "w") as f:
        f.write(sass)
    return path


def write_doc(out_path, what, run, started, runs, **figures):
    """OUT.json of a microbenchmark: what it measures, the command, the
    device and versions (RUN: kt, cp, device, sms, cc, versions before),
    FIGURES (its settings), the time it took and its RUNS."""
    import json
    import time

    kt, cp, device, sms, cc, versions = run
    script = os.path.relpath(os.path.abspath(sys.argv[0]), os.path.dirname(os.path.dirname(HERE)))
    doc = {"what": f"{what}: {script}", "command": f"python3 {script} OUT.json", "device": device,
           "cc": cc, "sms": sms, **figures, "versions": versions, "versions_after": kt.versions(cp),
           "date_utc": time.strftime("%Y-%m-%d %H:%M", time.gmtime()),
           "seconds": round(time.time() - started, 1), "runs": runs}
    with open(out_path, "w") as f:
        json.dump(doc, f, indent=1)
