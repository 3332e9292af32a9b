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
