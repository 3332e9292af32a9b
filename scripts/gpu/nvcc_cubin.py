"""Shared by the microbenchmark scripts: build a CUDA source with this
machine's nvcc for its GPU and keep the source and the SASS beside the
results, so that what was timed can be read afterwards."""

import os
import subprocess


def build(outdir, stem, source, cc):
    """Write OUTDIR/STEM.cu, compile it for sm_CC into /tmp/STEM.cubin,
    write its SASS (cuobjdump) to OUTDIR/STEM.sass; returns the cubin path."""
    os.makedirs(outdir, exist_ok=True)
    cu = os.path.join(outdir, f"{stem}.cu")
    cubin = os.path.join("/tmp", f"{stem}.cubin")
    with open(cu, "w") as f:
        f.write(source)
    subprocess.run(["nvcc", f"-arch=sm_{cc}", "-O3", "-cubin", "-o", cubin, cu], check=True)
    sass = subprocess.run(["cuobjdump", "-sass", cubin], capture_output=True, text=True, check=True).stdout
    with open(os.path.join(outdir, f"{stem}.sass"), "w") as f:
        f.write(sass)
    return cubin
