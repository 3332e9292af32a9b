#!/usr/bin/env python3
"""One warp's issue schedule, read from ptxas's SASS (no GPU).

From Maxwell on, ptxas writes its schedule into every instruction's control
bits: how many cycles the warp stalls before its next instruction, which
scoreboard barrier a variable-latency instruction (a shared or global load)
sets when its result is written, and which barriers an instruction waits on
before it issues. On Volta and later the bits are the top 23 of each 128-bit
instruction (Jia et al., "Dissecting the NVIDIA Volta GPU Architecture via
Microbenchmarking", arXiv 1804.06826, section 2.1): bits 105-108 the stall,
109 the yield flag, 110-112 the write barrier, 113-115 the read barrier,
116-121 the wait mask, 122-125 the register reuse flags; barrier 7 is none.

This script replays one warp alone through that schedule, in order: an
instruction issues when the barriers of its wait mask are free, a load frees
its write barrier its latency after it issued, and the warp stalls the
instruction's stall count (at least one cycle) before the next. That is a
lower bound on one warp's time where nothing else competes for the SM, to
set beside the timing model's T_chain (docs/timing-model.md). Branches are
not followed: the replay is of the instructions in address order, so it
suits straight-line code such as a fully unrolled loop; `--after-barrier`
keeps only what follows the kernel's last BAR (a tiled kernel's compute
phase after its tile loads); `--loop` keeps the innermost loop's body
(from a backward branch's target to the branch, the shortest such span)
and reports one iteration in the steady state: two iterations replayed
back to back less one, so that a load issued near the end of an
iteration and waited on near the start of the next is charged.

The SASS text comes from `nvdisasm -c -hex`, which prints each
instruction's two 64-bit halves. NVIDIA's disassembler is on PyPI
(`pip install nvidia-cuda-nvdisasm`, its nvidia/cu13/bin/nvdisasm); the
CUDA 13 releases there read sm_75 and newer only, so this script covers
Turing onwards.

Usage:
  sass-schedule.py [options] FILE...
FILE is PTX (compiled with ptxas for --arch, then disassembled) or, with
--sass, nvdisasm's text. Options:
  --arch sm_75             the architecture ptxas builds for (PTX input)
  --kernel NAME            the kernel (a substring of its mangled name);
                           default: the file's largest
  --after-barrier          replay only the instructions after the last BAR
  --loop                   replay the innermost loop's body, per iteration
  --latency OP=CYCLES,...  latencies of variable-latency instructions by
                           opcode prefix (default LDS=19,LDG=188,LDC=20,
                           S2R=20, anything else 20): the catalog's shared
                           and L2-hit latencies of the GPU in question
  --sass                   FILE is nvdisasm -c -hex text
  --json                   one JSON object per file instead of a table
Environment: PTXPERF_PTXAS (default .venv's ptxas), NVDISASM (required
for PTX input). Exit status 1 with a message on a file it cannot read.
"""

import glob
import json
import os
import re
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
# scripts/setup.sh's ptxas, whichever Python made the virtual environment.
VENV_PTXAS = os.path.join(ROOT, ".venv/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas")
DEFAULT_LATENCY = {"LDS": 19.0, "LDG": 188.0, "LDC": 20.0, "S2R": 20.0}
OTHER_LATENCY = 20.0
NO_BARRIER = 7

LINE = re.compile(r"^\s+/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;\s+/\* 0x([0-9a-f]{16}) \*/")
HIGH = re.compile(r"^\s+/\* 0x([0-9a-f]{16}) \*/")
SECTION = re.compile(r"\.section\s+\.text\.(\S+?),")
LABEL = re.compile(r"^(\.L\w+):")
BRANCH_TARGET = re.compile(r"\bBRA\b.*`\((\.L\w+)\)")


class Failure(Exception):
    pass


def control(high):
    """The control fields of a Volta-and-later instruction's high 64 bits."""
    return {
        "stall": (high >> 41) & 0xF,
        "yield": (high >> 45) & 1,
        "write_barrier": (high >> 46) & 7,
        "read_barrier": (high >> 49) & 7,
        "wait_mask": (high >> 52) & 0x3F,
    }


def opcode(text):
    """The instruction's opcode with its modifiers, without a predicate."""
    body = re.sub(r"^@!?U?P[T0-9]+\s+", "", text)
    return body.split()[0] if body.split() else ""


def parse(text):
    """Kernels of nvdisasm -c -hex text: {mangled name: [instruction]}."""
    kernels = {}
    current = None
    labels = []
    lines = text.split("\n")
    i = 0
    while i < len(lines):
        section = SECTION.search(lines[i])
        if section:
            current = kernels.setdefault(section.group(1), [])
            labels = []
        label = LABEL.match(lines[i])
        if label:
            labels.append(label.group(1))
        match = LINE.match(lines[i])
        if match and current is not None:
            high = HIGH.match(lines[i + 1]) if i + 1 < len(lines) else None
            if not high:
                raise Failure(f"line {i + 2}: expected the instruction's second half")
            target = BRANCH_TARGET.search(match.group(2))
            ins = {"address": int(match.group(1), 16), "op": opcode(match.group(2)),
                   "labels": labels, "target": target.group(1) if target else None}
            ins.update(control(int(high.group(1), 16)))
            current.append(ins)
            labels = []
            i += 2
            continue
        i += 1
    return {k: v for k, v in kernels.items() if v}


def innermost_loop(instructions):
    """The body of the shortest backward branch's loop, or None. A branch to
    itself is not a loop body: nvdisasm ends every kernel with one (the
    padding after EXIT)."""
    at = {label: k for k, ins in enumerate(instructions) for label in ins["labels"]}
    loops = [(k - at[ins["target"]], at[ins["target"]], k)
             for k, ins in enumerate(instructions)
             if ins["target"] in at and at[ins["target"]] < k]
    if not loops:
        return None
    _, first, last = min(loops)
    return instructions[first:last + 1]


def latency_of(op, latency):
    for prefix, cycles in latency.items():
        if op.startswith(prefix):
            return cycles
    return OTHER_LATENCY


def replay(instructions, latency):
    """Cycles one warp alone takes through `instructions` in order."""
    t = 0.0
    free_at = [0.0] * 8
    for ins in instructions:
        for b in range(6):
            if ins["wait_mask"] >> b & 1:
                t = max(t, free_at[b])
        if ins["write_barrier"] != NO_BARRIER:
            b = ins["write_barrier"]
            free_at[b] = max(free_at[b], t + latency_of(ins["op"], latency))
        if ins["read_barrier"] != NO_BARRIER:
            # A store's source registers are read a few cycles after issue.
            b = ins["read_barrier"]
            free_at[b] = max(free_at[b], t + 4.0)
        t += max(ins["stall"], 1)
    return t


def summary(name, instructions, latency, per_iteration=False):
    count = lambda prefix: sum(1 for i in instructions if i["op"].startswith(prefix))
    cycles = replay(instructions, latency)
    if per_iteration:
        cycles = replay(instructions * 2, latency) - cycles
    return {
        "kernel": name,
        "instructions": len(instructions),
        "stall_cycles": sum(max(i["stall"], 1) for i in instructions),
        "replay_cycles": cycles,
        "ffma": count("FFMA"),
        "lds": count("LDS"),
        "ldg": count("LDG"),
    }


def disassemble(path, arch):
    ptxas = os.environ.get("PTXPERF_PTXAS") or next(iter(glob.glob(VENV_PTXAS)), "")
    if not ptxas:
        raise Failure("ptxas not found: run scripts/setup.sh or set PTXPERF_PTXAS")
    nvdisasm = os.environ.get("NVDISASM", "")
    if not nvdisasm:
        raise Failure("set NVDISASM to nvdisasm (pip install nvidia-cuda-nvdisasm)")
    with tempfile.TemporaryDirectory() as tmp:
        src = open(path).read()
        src = re.sub(r"^\.target\s+sm_\d+", f".target {arch}", src, count=1, flags=re.M)
        ptx = os.path.join(tmp, "k.ptx")
        cubin = os.path.join(tmp, "k.cubin")
        with open(ptx, "w") as f:
            f.write(src)
        done = subprocess.run([ptxas, f"-arch={arch}", "-O3", ptx, "-o", cubin],
                              capture_output=True, text=True)
        if done.returncode != 0:
            raise Failure(f"ptxas: {done.stderr.strip()}")
        done = subprocess.run([nvdisasm, "-c", "-hex", cubin], capture_output=True, text=True)
        if done.returncode != 0:
            raise Failure(f"nvdisasm: {done.stderr.strip()}")
        return done.stdout


def parse_latency(spec):
    latency = dict(DEFAULT_LATENCY)
    for part in filter(None, spec.split(",")):
        op, _, cycles = part.partition("=")
        try:
            latency[op.strip()] = float(cycles)
        except ValueError:
            raise Failure(f"--latency: '{part}' is not OP=CYCLES")
    return latency


def main(argv):
    opts = {"arch": "sm_75", "kernel": None, "after": False, "loop": False,
            "latency": dict(DEFAULT_LATENCY),
            "sass": False, "json": False}
    files = []
    args = iter(argv)
    for a in args:
        if a in ("--arch", "--kernel", "--latency"):
            value = next(args, None)
            if value is None:
                raise Failure(f"{a} needs a value")
            if a == "--latency":
                opts["latency"] = parse_latency(value)
            else:
                opts[a[2:]] = value
        elif a == "--after-barrier":
            opts["after"] = True
        elif a in ("--sass", "--json", "--loop"):
            opts[a[2:]] = True
        elif a.startswith("-"):
            raise Failure(f"unknown option {a} (see the script's docstring)")
        else:
            files.append(a)
    if not files:
        raise Failure("no file given (usage: sass-schedule.py [options] FILE...)")
    columns = ("file", "kernel", "instructions", "ffma", "lds", "ldg", "stall_cycles",
               "replay_cycles")
    rows = []
    for path in files:
        try:
            text = open(path).read() if opts["sass"] else disassemble(path, opts["arch"])
        except OSError as e:
            raise Failure(f"{path}: {e.strerror}")
        kernels = parse(text)
        if opts["kernel"]:
            kernels = {k: v for k, v in kernels.items() if opts["kernel"] in k}
        if not kernels:
            raise Failure(f"{path}: no kernel with SASS found")
        name = max(kernels, key=lambda k: len(kernels[k]))
        instructions = kernels[name]
        if opts["after"]:
            bars = [i for i, x in enumerate(instructions) if x["op"].startswith("BAR")]
            if not bars:
                raise Failure(f"{path}: --after-barrier, but {name} has no BAR")
            instructions = instructions[bars[-1] + 1:]
        if opts["loop"]:
            body = innermost_loop(instructions)
            if body is None:
                raise Failure(f"{path}: --loop, but {name} has no backward branch")
            instructions = body
        s = summary(name, instructions, opts["latency"], opts["loop"])
        s["file"] = path
        rows.append(s)
    # Printed once every file was read, so that a failure prints nothing else.
    if opts["json"]:
        for s in rows:
            print(json.dumps(s, sort_keys=True))
    else:
        print("\t".join(columns))
        for s in rows:
            print("\t".join(str(s[k]) for k in columns))


if __name__ == "__main__":
    try:
        main(sys.argv[1:])
    except Failure as e:
        print(f"sass-schedule.py: {e}", file=sys.stderr)
        sys.exit(1)
