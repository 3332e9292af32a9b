#!/usr/bin/env python3
"""Check that real ptxas accepts every kernel of a conformance kit, without
a GPU: each kernel's statements are compiled as inline assembly by NVRTC for
the form's own `sm_` target (NVRTC runs ptxas for a real architecture). The
emulator's parser is more lenient than ptxas; a form only ptxas rejects
would fail on the GPU day instead of now.

Usage:
  ptxperf conformance gen --out /tmp/kit
  scripts/conformance-ptxas.py /tmp/kit [--forms FILTER] [--nvrtc LIBNVRTC]

NVRTC is found as the nvrtc crate finds it: --nvrtc, $PTXPERF_NVRTC,
$CUDA_HOME/lib64, the repository's .venv. Exit status: 0 when every form
passes, 1 when some form is rejected (each printed with ptxas's message),
3 when NVRTC is not found.
"""

import argparse
import ctypes
import glob
import json
import os
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
LIB = "libnvrtc.so.12"


def find_nvrtc(explicit):
    cands = [explicit, os.environ.get("PTXPERF_NVRTC")]
    home = os.environ.get("CUDA_HOME")
    if home:
        cands += [os.path.join(home, "lib64", LIB), os.path.join(home, "lib", LIB)]
    cands += sorted(glob.glob(os.path.join(REPO, ".venv/lib/python3*/site-packages/nvidia/cuda_nvrtc/lib", LIB)))
    for c in cands:
        if c and os.path.isdir(c):
            c = os.path.join(c, LIB)
        if c and os.path.isfile(c):
            return c
    return None


def compile_cubin(lib, src, sm):
    """NVRTC's status and log for `src` compiled for sm_`sm`."""
    prog = ctypes.c_void_p()
    lib.nvrtcCreateProgram(ctypes.byref(prog), src.encode(), b"conformance.cu", 0, None, None)
    opts = (ctypes.c_char_p * 1)(f"--gpu-architecture=sm_{sm}".encode())
    status = lib.nvrtcCompileProgram(prog, 1, opts)
    n = ctypes.c_size_t()
    lib.nvrtcGetProgramLogSize(prog, ctypes.byref(n))
    log = ctypes.create_string_buffer(n.value)
    lib.nvrtcGetProgramLog(prog, log)
    lib.nvrtcDestroyProgram(ctypes.byref(prog))
    return status, log.value.decode(errors="replace")


def as_inline_asm(ptx):
    """The entry's statements as one inline-asm block; the module-level
    symbols (operands, scratch) become address 0: only syntax and types matter."""
    body = ptx[ptx.index(".visible .entry"):]
    body = body[body.index("{") + 1: body.rindex("}")]
    for old, new in (
        ("ld.param.u64 %rout, [out];", "mov.u64 %rout, 0;"),
        ("mov.u64 %rin, conf_in;", "mov.u64 %rin, 0;"),
        ("mov.u64 %rscratch, conf_scratch;", "mov.u64 %rscratch, 0;"),
        ("ret;", ""),
    ):
        body = body.replace(old, new)
    lines = [line.strip().replace("%", "%%") for line in body.splitlines() if line.strip()]
    # An operand makes NVRTC read `%%` as `%`.
    return 'extern "C" __global__ void k() { asm volatile("{\\n' + "\\n".join(lines) + '\\n}" :: "r"(0) : "memory"); }\n'


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kit")
    ap.add_argument("--forms", default="")
    ap.add_argument("--nvrtc")
    args = ap.parse_args()
    path = find_nvrtc(args.nvrtc)
    if path is None:
        print("nvrtc not found: give --nvrtc or PTXPERF_NVRTC", file=sys.stderr)
        return 3
    lib = ctypes.CDLL(path)
    with open(os.path.join(args.kit, "manifest.json"), encoding="utf-8") as f:
        m = json.load(f)
    checked, rejected = 0, 0
    for form in m["forms"]:
        if args.forms not in form["name"]:
            continue
        with open(os.path.join(args.kit, form["stem"] + ".ptx"), encoding="utf-8") as f:
            src = as_inline_asm(f.read())
        status, log = compile_cubin(lib, src, form["sm"])
        checked += 1
        if status != 0:
            rejected += 1
            errors = [line for line in log.splitlines() if "error" in line.lower()]
            print(f"{form['name']} (sm_{form['sm']}): " + " / ".join(errors[:2]))
    print(f"ptxas: {checked - rejected} of {checked} forms accepted")
    return 1 if rejected else 0


if __name__ == "__main__":
    sys.exit(main())
