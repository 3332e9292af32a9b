#!/usr/bin/env python3
"""SASS instructions per PTX operation, measured with ptxas (no GPU).

Some PTX instructions are not one machine instruction: an IEEE `div.rn.f32`
becomes a reciprocal on the special-function unit, a Newton-Raphson
refinement in FMAs, a range check and a branch around a slow-path call. The
timing model charges such an instruction the SASS it expands to; this script
measures that number for every compute capability the ground truth holds.

For each operation it writes a kernel with N independent operations (N = 8,
16, 32, 64) on values loaded from memory, compiles it with ptxas, reads the
size of the kernel's `.text` section from the cubin (every SASS instruction
of Volta and later is 16 bytes; Maxwell and Pascal put three in 32 bytes
with a control word) and fits the slope of instructions over N:
the cost of one more operation, without the kernel's fixed prologue and
epilogue and without a slow-path subroutine that all operations share.
Constant-memory loads are measured the same way, each multiplied into a
product: at an immediate address ptxas folds the load into the multiply's
`c[bank][offset]` operand, behind a register it is an `LDC` of its own
(one instruction more).

Output: data/ptxas/sass-per-op.tsv, with the ptxas version and the command.

Usage: scripts/sass-per-op.py   (ptxas from $PTXPERF_PTXAS, else .venv's)
"""

import glob
import os
import struct
import subprocess
import sys
import tempfile

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
OUT = os.path.join(ROOT, "data", "ptxas", "sass-per-op.tsv")
ARCHS = ["sm_50", "sm_52", "sm_60", "sm_61", "sm_70", "sm_75", "sm_80", "sm_86", "sm_89", "sm_90"]
COUNTS = [8, 16, 32, 64]



def sass_bytes(arch):
    """Bytes of .text per SASS instruction: 16 from Volta on; on Maxwell
    and Pascal 32 bytes hold a control word and three instructions."""
    return 16.0 if int(arch[3:]) >= 70 else 32.0 / 3.0

# (name, PTX type of the operands, the operation with %d, %a, %b)
OPS = [
    ("mul.f32", "f32", "mul.rn.f32 {d}, {a}, {b};"),
    ("div.rn.f32", "f32", "div.rn.f32 {d}, {a}, {b};"),
    ("div.rn.ftz.f32", "f32", "div.rn.ftz.f32 {d}, {a}, {b};"),
    ("div.full.f32", "f32", "div.full.f32 {d}, {a}, {b};"),
    ("div.approx.f32", "f32", "div.approx.f32 {d}, {a}, {b};"),
    ("rcp.rn.f32", "f32", "rcp.rn.f32 {d}, {a};"),
    ("sqrt.rn.f32", "f32", "sqrt.rn.f32 {d}, {a};"),
    ("sqrt.rn.ftz.f32", "f32", "sqrt.rn.ftz.f32 {d}, {a};"),
    ("div.rn.f64", "f64", "div.rn.f64 {d}, {a}, {b};"),
    ("div.s32", "s32", "div.s32 {d}, {a}, {b};"),
    ("div.u32", "u32", "div.u32 {d}, {a}, {b};"),
    ("rem.s32", "s32", "rem.s32 {d}, {a}, {b};"),
    ("rem.u32", "u32", "rem.u32 {d}, {a}, {b};"),
]


def ptxas_path():
    found = os.environ.get("PTXPERF_PTXAS") or next(
        iter(glob.glob(os.path.join(ROOT, ".venv/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas"))),
        None,
    )
    if not found or not os.access(found, os.X_OK):
        sys.exit("ptxas not found: run scripts/setup.sh or set PTXPERF_PTXAS")
    return found


def kernel(op, ty, n):
    """A kernel doing `n` independent `op`s on loaded values, storing their sum."""
    reg = {"f32": "%f", "f64": "%fd", "s32": "%r", "u32": "%r"}[ty]
    bits = 64 if ty == "f64" else 32
    add = {"f32": "add.rn.f32", "f64": "add.rn.f64", "s32": "add.s32", "u32": "add.s32"}[ty]
    size = bits // 8
    decl = {"%f": ".f32", "%fd": ".f64", "%r": ".b32"}[reg]
    body = [
        ".version 8.0",
        ".target sm_50",
        ".address_size 64",
        ".visible .entry k(.param .u64 src, .param .u64 dst)",
        "{",
        "  .reg .b64 %p<4>;",
        f"  .reg {decl} {reg}<{3 * n + 2}>;",
        "  ld.param.u64 %p0, [src];",
        "  ld.param.u64 %p1, [dst];",
        "  cvta.to.global.u64 %p0, %p0;",
        "  cvta.to.global.u64 %p1, %p1;",
    ]
    # Operands loaded from memory so that nothing folds at compile time.
    for i in range(2 * n):
        body.append(f"  ld.global.{ty if ty != 's32' else 'u32'} {reg}{i}, [%p0+{i * size}];")
    for i in range(n):
        d, a, b = f"{reg}{2 * n + i}", f"{reg}{2 * i}", f"{reg}{2 * i + 1}"
        body.append("  " + op.format(d=d, a=a, b=b))
    acc = f"{reg}{2 * n}"
    for i in range(1, n):
        body.append(f"  {add} {acc}, {acc}, {reg}{2 * n + i};")
    body.append(f"  st.global.{ty if ty != 's32' else 'u32'} [%p1], {acc};")
    body += ["  ret;", "}"]
    return "\n".join(body) + "\n"


def const_kernel(n, register_addressed):
    """A kernel multiplying `n` constant-memory words into a product: the
    words at immediate addresses (`[table+4i]`) or behind a register
    (`[%p2+4i]`, the table indexed by a parameter)."""
    body = [
        ".version 8.0",
        ".target sm_50",
        ".address_size 64",
        ".const .align 4 .b32 table[256];",
        ".visible .entry k(.param .u64 dst, .param .u32 j)",
        "{",
        "  .reg .b64 %p<4>;",
        f"  .reg .b32 %r<{n + 3}>;",
        "  ld.param.u64 %p1, [dst];",
        "  cvta.to.global.u64 %p1, %p1;",
        "  ld.param.u32 %r0, [j];",
        "  mov.u64 %p2, table;",
        "  mul.wide.u32 %p3, %r0, 4;",
        "  add.s64 %p2, %p2, %p3;",
    ]
    for i in range(n):
        at = f"%p2+{4 * i}" if register_addressed else f"table+{4 * i}"
        body.append(f"  ld.const.u32 %r{i + 2}, [{at}];")
    body.append("  mov.u32 %r1, %r0;")
    for i in range(n):
        body.append(f"  mul.lo.u32 %r1, %r1, %r{i + 2};")
    body += ["  st.global.u32 [%p1], %r1;", "  ret;", "}"]
    return "\n".join(body) + "\n"


def text_bytes(cubin):
    """Size of the `.text.k` section of an ELF64 cubin."""
    data = open(cubin, "rb").read()
    shoff = struct.unpack_from("<Q", data, 0x28)[0]
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    sections = [struct.unpack_from("<IIQQQQIIQQ", data, shoff + i * shentsize) for i in range(shnum)]
    names = sections[shstrndx]
    total = 0
    for s in sections:
        start = names[4] + s[0]
        name = data[start : data.index(b"\0", start)].decode()
        if name.startswith(".text."):
            total += s[5]
    return total


def slope(xs, ys):
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    return sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)


def main():
    ptxas = ptxas_path()
    version = subprocess.run([ptxas, "--version"], capture_output=True, text=True).stdout
    version = next((w for w in version.split() if w.startswith("V")), "unknown")
    rows = []
    consts = []
    with tempfile.TemporaryDirectory() as tmp:
        ptx = os.path.join(tmp, "k.ptx")
        cubin = os.path.join(tmp, "k.cubin")

        def instructions(text, arch):
            open(ptx, "w").write(text)
            subprocess.run([ptxas, "-O3", "--gpu-name", arch, ptx, "-o", cubin], check=True)
            return text_bytes(cubin) / sass_bytes(arch)

        for name, ty, op in OPS:
            for arch in ARCHS:
                sizes = [instructions(kernel(op, ty, n), arch) for n in COUNTS]
                rows.append((name, arch, slope(COUNTS, sizes), sizes))
        for name, register_addressed in (
            ("ld.const [table+imm]", False),
            ("ld.const [reg+imm]", True),
        ):
            for arch in ARCHS:
                sizes = [instructions(const_kernel(n, register_addressed), arch) for n in COUNTS]
                consts.append((name, arch, slope(COUNTS, sizes), sizes))
    # The accumulating add is one instruction per operation on every
    # architecture; `mul.f32`'s row measures it (its slope is mul + add).
    add = {arch: s for name, arch, s, _ in rows if name == "mul.f32"}
    os.makedirs(os.path.dirname(OUT), exist_ok=True)
    with open(OUT, "w") as f:
        f.write("# SASS instructions per PTX operation, static, measured with ptxas (not a GPU).\n")
        f.write(f"# ptxas {version}; regenerate with scripts/sass-per-op.py\n")
        f.write(f"# Kernels of N independent operations, N in {COUNTS}, each result added to a sum;\n")
        f.write("# per_op = slope of .text instructions over N, less the add (the mul.f32 slope less 1).\n")
        f.write("# A slow-path subroutine shared by every operation is not in the slope.\n")
        f.write("# ld.const rows: N constant loads each multiplied into a product; per_op = SASS per load and multiply\n")
        f.write("# (a 32-bit multiply is 1 IMAD from sm_70, 3 XMAD before); the [reg+imm] row less the [table+imm] row is the LDC.\n")
        f.write("op\tarch\tper_op\ttext_instructions_at_n\n")
        for name, arch, s, sizes in rows:
            per_op = s - (add[arch] - 1.0)
            f.write(f"{name}\t{arch}\t{per_op:.2f}\t{','.join(str(int(x)) for x in sizes)}\n")
        # Constant loads: N loads each multiplied into a product; per_op is
        # the slope, load and multiply together: the register-addressed
        # load costs the difference between the two rows of an arch.
        for name, arch, s, sizes in consts:
            f.write(f"{name}\t{arch}\t{s:.2f}\t{','.join(str(int(x)) for x in sizes)}\n")
    print(open(OUT).read())


if __name__ == "__main__":
    main()
