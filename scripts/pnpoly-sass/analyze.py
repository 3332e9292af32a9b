#!/usr/bin/env python3
"""Static PTX vs SASS instruction counts of cn_pnpoly (sm_86), whole kernel
and the per-edge (vertex) loop, per configuration; joined with measured /
device_seconds for the RTX 3090 and RTX 3060 Laptop (block_size_x=256).

Inputs, under $OUT (default target/pnpoly-sass): ptx/, cubin/, sass/ from
build.py. With $MEASURED set to a folder holding dev.csv (`ptxperf learn
... --export-samples dev.csv`), bdp/<gpu>.jsonl (one JSON line per saved
profile: {"file": the profile's file name, "seconds": ..., "b": the
breakdown of `ptxperf predict --profile F --gpu GPU --model timing
--json`}) and profiles-pnpoly/<gpu>/*.toml (the unpacked
docs/validation/profiles-pnpoly.tar.xz), the measured columns are filled
too; without it they are None.
Outputs: table.tsv (one row per configuration), loops/ (the loop text of
each configuration, PTX and SASS).
"""
import collections
import csv
import heapq
import itertools
import json
import os
import re
import statistics
import struct
import tomllib

HERE = os.environ.get("OUT", "target/pnpoly-sass")
MEASURED = os.environ.get("MEASURED")
KERNEL = "_Z9cn_pnpolyPiP6float2i"
TILES = [1, 2, 4, 6, 8, 10, 12, 14, 16, 18, 20]
GPUS = ["geforce-rtx-3090", "geforce-rtx-3060-laptop"]
DIV_SLOTS = 13.0  # what ptxperf's timing model charges a div.rn.f32 (params.rs FP32_DIV_SLOTS)


# ---------------------------------------------------------------- ELF
def elf_section_size(path, want):
    """Size of the ELF64 section named `want` (own parser: header, section
    header table, .shstrtab)."""
    data = open(path, "rb").read()
    assert data[:4] == b"\x7fELF" and data[4] == 2, "not ELF64"
    e_shoff, = struct.unpack_from("<Q", data, 0x28)
    e_shentsize, e_shnum, e_shstrndx = struct.unpack_from("<HHH", data, 0x3A)
    def sh(i):
        # name, type, flags, addr, offset, size
        return struct.unpack_from("<IIQQQQ", data, e_shoff + i * e_shentsize)
    stroff = sh(e_shstrndx)[4]
    for i in range(e_shnum):
        nm, _, _, _, _, size = sh(i)
        end = data.index(b"\0", stroff + nm)
        if data[stroff + nm:end].decode() == want:
            return size
    raise KeyError(want)


# ---------------------------------------------------------------- PTX
def ptx_body(text):
    """Instruction lines of the entry KERNEL's body, with labels as
    ('label', name) items."""
    lines = text.splitlines()
    start = next(i for i, l in enumerate(lines) if ".entry" in l and KERNEL in l)
    i = start
    while lines[i].strip() != "{":
        i += 1
    depth, items = 0, []
    for l in lines[i:]:
        s = l.strip()
        if s == "{":
            depth += 1
            continue
        if s == "}":
            depth -= 1
            if depth == 0:
                break
            continue
        if not s or s.startswith("//"):
            continue
        if s.endswith(":"):
            items.append(("label", s[:-1]))
            continue
        if s.startswith("."):  # .reg .param .shared .local .loc .pragma ...
            continue
        if s.endswith(";"):
            items.append(("ins", s))
        else:
            raise ValueError("unexpected PTX line: " + s)
    return items


def ptx_graph(items):
    """Instructions as nodes: (text, opcode, successors)."""
    ins, labels = [], {}
    for kind, s in items:
        if kind == "label":
            labels[s] = len(ins)
        else:
            ins.append(s)
    nodes = []
    for k, s in enumerate(ins):
        pred = s.startswith("@")
        body = s.split(None, 1)[1] if pred else s
        op = body.split()[0].rstrip(";")
        succ = []
        if op.startswith("bra"):
            tgt = body.split()[1].rstrip(";")
            succ.append(labels[tgt])
            if pred:
                succ.append(k + 1)
        elif op.startswith("ret") or op.startswith("exit"):
            if pred:
                succ.append(k + 1)
        else:
            succ.append(k + 1)
        nodes.append((s, op, [x for x in succ if x < len(ins)]))
    return nodes


# ---------------------------------------------------------------- SASS
SASS_RE = re.compile(r"/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")


def sass_parse(text):
    """The instructions of the .text.KERNEL section: list of (addr, text),
    labels {name: addr}, and the start addresses of subroutines ($... labels)."""
    sec = text.split(f"//--------------------- .text.{KERNEL} ")[1]
    sec = sec.split("//---------------------")[0]
    ins, labels, subs, pending = [], {}, [], []
    for line in sec.splitlines():
        s = line.strip()
        m = SASS_RE.search(s)
        if m:
            addr = int(m.group(1), 16)
            for p in pending:
                labels[p] = addr
                if p.startswith("$"):
                    subs.append(addr)
            pending = []
            ins.append((addr, m.group(2).strip()))
        elif s.endswith(":") and not s.startswith("."+"text") and " " not in s:
            pending.append(s[:-1])
    return ins, labels, subs


def sass_split(ins, subs):
    """Kernel body / subroutines / padding (a trailing self-branch and NOPs)."""
    end = len(ins)
    while end and ins[end - 1][1] == "NOP":
        end -= 1
    if end and re.match(r"BRA `\((\.L_x_\d+)\)", ins[end - 1][1]):
        end -= 1  # the "stuck" self-loop ptxas puts after the last function
    first_sub = min(subs) if subs else None
    main = [x for x in ins[:end] if first_sub is None or x[0] < first_sub]
    sub = [x for x in ins[:end] if first_sub is not None and x[0] >= first_sub]
    return main, sub, len(ins) - end


def sass_op(t):
    body = t.split(None, 1)[1] if t.startswith("@") else t
    return body.split()[0]


def sass_graph(ins, labels):
    idx = {a: k for k, (a, _) in enumerate(ins)}
    nodes = []
    for k, (a, t) in enumerate(ins):
        guarded = t.startswith("@") and not t.startswith("@PT ")
        op = sass_op(t)
        base = op.split(".")[0]
        succ = []
        m = re.search(r"`\(([^)]+)\)", t)
        if base in ("BRA", "JMP", "BRX"):
            if m and m.group(1) in labels and labels[m.group(1)] in idx:
                succ.append(idx[labels[m.group(1)]])
            conditional = guarded or ".DIV" in op or re.search(r"BRA\S*\s+!?U?P\d", t)
            if conditional:
                succ.append(k + 1)
        elif base in ("EXIT", "RET"):
            if guarded:
                succ.append(k + 1)
        else:  # CALL returns to the next instruction; its subroutine is not walked
            succ.append(k + 1)
        nodes.append((t, op, [x for x in succ if x < len(ins)]))
    return nodes


# ASSUMED pipe classes (Nsight Compute's pipe names; which pipe FSETP and
# FCHK use on sm_86 is an assumption, not measured here)
PIPE_CLASSES = ["alu", "fma", "mufu", "uniform", "const", "branch", "other"]


def pipe_class(op):
    b = op.split(".")[0]
    if b in ("FSETP", "ISETP", "SEL", "FSEL", "LOP3", "PLOP3", "IADD3", "SHF", "LEA",
             "P2R", "R2P", "MOV", "FMNMX", "IMNMX", "FCHK", "CS2R"):
        return "alu"
    if b in ("FFMA", "FADD", "FMUL", "IMAD"):
        return "fma"
    if b == "MUFU":
        return "mufu"
    if b == "LDC":
        return "const"
    if b.startswith("U"):
        return "uniform"
    if b in ("BRA", "BSSY", "BSYNC", "CALL", "EXIT", "RET", "WARPSYNC"):
        return "branch"
    return "other"


# ---------------------------------------------------------------- loops
def natural_loops(nodes):
    """(head, latch, body set) for every back edge latch -> head (head <= latch)."""
    preds = collections.defaultdict(list)
    for k, (_, _, succ) in enumerate(nodes):
        for s in succ:
            preds[s].append(k)
    loops = []
    for k, (_, _, succ) in enumerate(nodes):
        for h in succ:
            if h <= k:
                body, stack = {h, k}, [k]
                while stack:
                    x = stack.pop()
                    for p in preds[x]:
                        if p not in body:
                            body.add(p)
                            stack.append(p)
                loops.append((h, k, body))
    return loops


def shortest(nodes, head, latch, body, weight, path=False):
    """Least total weight of a path head -> latch inside the loop body
    (with path=True also the nodes of that path)."""
    dist, heap, prev = {head: weight(head)}, [(weight(head), head)], {}
    while heap:
        d, x = heapq.heappop(heap)
        if x == latch:
            if not path:
                return d
            p = [x]
            while p[-1] != head:
                p.append(prev[p[-1]])
            return d, p[::-1]
        if d > dist[x]:
            continue
        for s in nodes[x][2]:
            if s in body and s != head:
                nd = d + weight(s)
                if nd < dist.get(s, 1e18):
                    dist[s] = nd
                    prev[s] = x
                    heapq.heappush(heap, (nd, s))
    raise RuntimeError("no path")


def edge_loop(nodes, is_div):
    """The innermost natural loop holding the division (the per-edge loop)."""
    cands = [l for l in natural_loops(nodes) if any(is_div(nodes[x][1]) for x in l[2])]
    return min(cands, key=lambda l: len(l[2]))


# ---------------------------------------------------------------- data
def spearman(x, y):
    def ranks(v):
        order = sorted(range(len(v)), key=lambda i: v[i])
        r = [0.0] * len(v)
        i = 0
        while i < len(v):
            j = i
            while j + 1 < len(v) and v[order[j + 1]] == v[order[i]]:
                j += 1
            for k in range(i, j + 1):
                r[order[k]] = (i + j) / 2 + 1
            i = j + 1
        return r
    rx, ry = ranks(x), ranks(y)
    mx, my = statistics.fmean(rx), statistics.fmean(ry)
    sxy = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    sxx = sum((a - mx) ** 2 for a in rx)
    syy = sum((b - my) ** 2 for b in ry)
    return sxy / (sxx * syy) ** 0.5


def key_of(config):
    kv = dict(p.split("=") for p in config.replace(".toml", "").split(","))
    if kv["block_size_x"] != "256":
        return None
    return int(kv["between_method"]), int(kv["tile_size"]), int(kv["use_method"])


def measured():
    dev, bdp = {}, {}
    if not MEASURED:
        return dev, bdp
    for r in csv.DictReader(open(os.path.join(MEASURED, "dev.csv"))):
        if r["kernel"] == "cn_pnpoly" and r["gpu"] in GPUS:
            k = key_of(r["config"])
            if k:
                dev[(r["gpu"], k)] = (float(r["measured_s"]), float(r["timing_s"]))
    for g in GPUS:
        for l in open(os.path.join(MEASURED, "bdp", f"{g}.jsonl")):
            d = json.loads(l)
            k = key_of(d["file"])
            if k:
                bdp[(g, k)] = (d["b"]["device_seconds"], d["b"]["pcie_seconds"], d["seconds"])
    return dev, bdp


def profile_ptx_per_warp_edge(gpu, key):
    """Dynamic PTX warp instructions per warp and per polygon edge from
    ptxperf's emulated profile (whole kernel / (warps * 600)); also with each
    fp32_div counted as DIV_SLOTS."""
    if not MEASURED:
        return None, None
    d = os.path.join(MEASURED, "profiles-pnpoly", gpu)
    f = next(x for x in os.listdir(d) if key_of(x) == key)
    p = tomllib.load(open(os.path.join(d, f), "rb"))
    wi = p["warp_instructions"]
    tot = sum(wi.values())
    warps = p["launch"]["grid"][0] * p["launch"]["block"][0] / 32
    return tot / warps / 600, (tot + (DIV_SLOTS - 1) * wi["fp32_div"]) / warps / 600


def main():
    os.makedirs(os.path.join(HERE, "loops"), exist_ok=True)
    dev, bdp = measured()
    rows = []
    extra_ops = collections.Counter()
    for bm, t, u in itertools.product(range(4), TILES, range(3)):
        n = f"bm{bm}_t{t}_u{u}"
        items = ptx_body(open(os.path.join(HERE, "ptx", n + ".ptx")).read())
        pn = ptx_graph(items)
        ptx_static = len(pn)
        ptx_div = sum(1 for x in pn if x[1].startswith("div.rn.f32"))
        text = elf_section_size(os.path.join(HERE, "cubin", n + ".cubin"), f".text.{KERNEL}")
        assert text % 16 == 0
        sass_text = text // 16
        ins, labels, subs = sass_parse(open(os.path.join(HERE, "sass", n + ".sass")).read())
        assert len(ins) == sass_text, (n, len(ins), sass_text)
        main_i, sub_i, pad = sass_split(ins, subs)
        sn = sass_graph(main_i, labels)
        # loops
        ph, pl, pbody = edge_loop(pn, lambda op: op.startswith("div.rn.f32"))
        sh, sl, sbody = edge_loop(sn, lambda op: op.startswith("MUFU.RCP"))
        U = sum(1 for x in pbody if pn[x][1].startswith("div.rn.f32"))
        Us = sum(1 for x in sbody if sn[x][1].startswith("MUFU.RCP"))
        assert U == Us, (n, U, Us)
        p_loop = len(pbody)
        s_loop = len(sbody)
        p_short = shortest(pn, ph, pl, pbody, lambda x: 1)
        p_short13 = shortest(pn, ph, pl, pbody,
                             lambda x: DIV_SLOTS if pn[x][1].startswith("div.rn.f32") else 1)
        s_short, s_nodes = shortest(sn, sh, sl, sbody, lambda x: 1, path=True)
        pclass = collections.Counter(pipe_class(sn[x][1]) for x in s_nodes)
        pops = collections.Counter(pn[x][1].split(".")[0] for x in pbody)
        sops = collections.Counter(sn[x][1].split(".")[0] for x in sbody)
        for o in ("BSSY", "BSYNC"):
            sops.setdefault(o, 0)
        with open(os.path.join(HERE, "loops", n + ".txt"), "w") as f:
            f.write(f"# {n}: PTX edge loop, {p_loop} instructions, unroll {U}\n")
            for x in sorted(pbody):
                f.write(pn[x][0] + "\n")
            f.write(f"\n# SASS edge loop, {s_loop} instructions\n")
            for x in sorted(sbody):
                f.write(f"{main_i[x][0]:05x} {sn[x][0]}\n")
            f.write("\n# PTX opcodes: " + " ".join(f"{k}={v}" for k, v in pops.most_common()) + "\n")
            f.write("# SASS opcodes: " + " ".join(f"{k}={v}" for k, v in sops.most_common()) + "\n")
        row = dict(between_method=bm, tile_size=t, use_method=u, unroll=U,
                   ptx=ptx_static, ptx_div=ptx_div, sass_text=sass_text, sass_main=len(main_i),
                   sass_sub=len(sub_i), sass_pad=pad,
                   ratio_text=sass_text / ptx_static, ratio_main=len(main_i) / ptx_static,
                   ptx_loop_edge=p_loop / U, sass_loop_edge=s_loop / U,
                   ratio_loop=s_loop / p_loop,
                   ptx_path_edge=p_short / U, ptx13_path_edge=p_short13 / U,
                   sass_path_edge=s_short / U,
                   ratio_path=s_short / p_short, ratio_path13=s_short / p_short13,
                   **{f"path_{c}_edge": pclass[c] / U for c in PIPE_CLASSES},
                   bssy_edge=sops["BSSY"] / U, bsync_edge=sops["BSYNC"] / U,
                   sass_ops_edge=" ".join(f"{k}={v / U:g}" for k, v in sorted(sops.items())),
                   ptx_ops_edge=" ".join(f"{k}={v / U:g}" for k, v in sorted(pops.items())))
        for g, tag in zip(GPUS, ("3090", "3060L")):
            k = (g, (bm, t, u))
            dv, bd = dev.get(k), bdp.get(k)
            row[f"meas_dev_{tag}"] = dv[0] / bd[0] if dv and bd else None
            row[f"meas_timing_{tag}"] = dv[0] / dv[1] if dv else None
            row[f"pcie_dev_{tag}"] = bd[1] / bd[0] if bd else None
            dyn, dyn13 = profile_ptx_per_warp_edge(g, (bm, t, u))
            row[f"prof_ptx_edge_{tag}"] = dyn
            row[f"prof_ptx13_edge_{tag}"] = dyn13
        rows.append(row)
    cols = list(rows[0].keys())
    with open(os.path.join(HERE, "table.tsv"), "w") as f:
        f.write("\t".join(cols) + "\n")
        for r in rows:
            f.write("\t".join(f"{r[c]:.4g}" if isinstance(r[c], float) else str(r[c]) for c in cols) + "\n")
    print("wrote table.tsv and loops/")


if __name__ == "__main__":
    main()
