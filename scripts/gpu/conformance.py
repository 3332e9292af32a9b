#!/usr/bin/env python3
"""Record a GPU's results for the conformance kit (crates/conformance).

Usage (on a machine with an NVIDIA GPU and CuPy):
  ptxperf conformance gen --out /tmp/kit          # on any machine
  scripts/gpu/conformance.py /tmp/kit [--out data/conformance/<gpu-slug>]
      [--forms FILTER] [--dry-run]

- KIT is a directory `ptxperf conformance gen` wrote: manifest.json and, per
  instruction form, <stem>.ptx (a self-contained kernel `conf(.param .u64 out)`
  whose operands are initialised data of the module) and <stem>.in.bin.
- Each kernel is loaded with cupy.RawModule, launched once as one CTA of
  `threads` threads on a zeroed output buffer of `out_bytes` bytes, and the
  buffer is written to <out>/<stem>.out.bin. The manifest, kernels and
  inputs are copied next to the outputs, so <out> is self-contained: commit
  it, and `cargo test -p conformance` compares the emulator with it.
- A form whose `sm` exceeds the device's compute capability is skipped;
  one whose module fails to load or launch is listed under `failed` in
  <out>/gpu.json with the error. gpu.json also holds the GPU's name, compute
  capability, driver and CUDA runtime versions, the date and the command.
- A form whose launch leaves the CUDA context unusable (a sticky error such
  as an illegal instruction) ends the process with status 3 after writing
  its name to <out>/aborted.txt; run again with --resume, which skips the
  forms already recorded and lists the aborted ones under `failed`
  (scripts/gpu/campaign.sh loops so).
- --dry-run needs no GPU and no CuPy: it checks the kit (every file present,
  input sizes as the manifest says) and prints what it would run.
"""

import argparse
import datetime
import json
import os
import re
import shutil
import sys

REPO = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
KIT_VERSION = 1


def load_kit(kit):
    """The manifest, checked against the files; raises ValueError on a bad kit."""
    path = os.path.join(kit, "manifest.json")
    with open(path, encoding="utf-8") as f:
        m = json.load(f)
    if m.get("kit") != KIT_VERSION:
        raise ValueError(f"{path}: kit version {m.get('kit')}, this script reads {KIT_VERSION}")
    for form in m["forms"]:
        for ext in (".ptx", ".in.bin"):
            p = os.path.join(kit, form["stem"] + ext)
            if not os.path.isfile(p):
                raise ValueError(f"{p}: missing (form {form['name']})")
        want = m["threads"] * len(form["inputs"]) * 8
        have = os.path.getsize(os.path.join(kit, form["stem"] + ".in.bin"))
        if have != want:
            raise ValueError(f"{form['stem']}.in.bin: {have} bytes, the manifest implies {want}")
    return m


def slug(name):
    return re.sub(r"[^a-z0-9]+", "-", name.lower()).strip("-")


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("kit")
    ap.add_argument("--out", help="output directory (default: data/conformance/<gpu-slug>)")
    ap.add_argument("--forms", default="", help="only forms whose name contains this")
    ap.add_argument("--dry-run", action="store_true", help="check the kit and print the plan; no GPU")
    ap.add_argument("--resume", action="store_true", help="skip forms whose output is already in --out")
    args = ap.parse_args()

    try:
        m = load_kit(args.kit)
    except (OSError, ValueError, KeyError, json.JSONDecodeError) as e:
        print(f"error: {e}", file=sys.stderr)
        return 1
    forms = [f for f in m["forms"] if args.forms in f["name"]]

    if args.dry_run:
        for f in forms:
            print(f"would run {f['name']} (sm_{f['sm']}, {m['threads']} threads, {f['out_bytes']} output bytes)")
        print(f"dry run: {len(forms)} forms of {len(m['forms'])} in {args.kit}; nothing launched")
        return 0

    import cupy  # only on the GPU machine

    rt = cupy.cuda.runtime
    props = rt.getDeviceProperties(cupy.cuda.Device().id)
    name = props["name"].decode() if isinstance(props["name"], bytes) else str(props["name"])
    cc = props["major"] * 10 + props["minor"]
    out = args.out or os.path.join(REPO, "data", "conformance", slug(name))
    os.makedirs(out, exist_ok=True)
    shutil.copy(os.path.join(args.kit, "manifest.json"), os.path.join(out, "manifest.json"))

    skipped, failed, ran = [], {}, 0
    aborted_path = os.path.join(out, "aborted.txt")
    aborted = {}
    if args.resume and os.path.isfile(aborted_path):
        with open(aborted_path, encoding="utf-8") as r:
            for line in r:
                name_, _, err = line.rstrip("\n").partition("\t")
                if name_:
                    aborted[name_] = err
    for f in forms:
        stem = f["stem"]
        if f["name"] in aborted:
            failed[f["name"]] = "left the CUDA context unusable: " + aborted[f["name"]]
            continue
        if args.resume and os.path.isfile(os.path.join(out, stem + ".out.bin")):
            ran += 1
            continue
        for ext in (".ptx", ".in.bin"):
            shutil.copy(os.path.join(args.kit, stem + ext), os.path.join(out, stem + ext))
        if f["sm"] > cc:
            skipped.append(f["name"])
            continue
        try:
            mod = cupy.RawModule(path=os.path.join(args.kit, stem + ".ptx"))
            fn = mod.get_function(m["entry"])
            buf = cupy.zeros(f["out_bytes"], dtype=cupy.uint8)
            fn((1,), (m["threads"],), (buf,))
            rt.deviceSynchronize()
            with open(os.path.join(out, stem + ".out.bin"), "wb") as w:
                w.write(cupy.asnumpy(buf).tobytes())
            ran += 1
        except Exception as e:  # a form the GPU rejects is data, not a crash
            failed[f["name"]] = str(e)
            try:  # is the context still usable?
                cupy.zeros(1, dtype=cupy.uint8).sum().get()
                rt.deviceSynchronize()
            except Exception as sticky:
                with open(aborted_path, "a", encoding="utf-8") as w:
                    w.write(f"{f['name']}\t{str(e).splitlines()[0] if str(e) else sticky}\n")
                print(f"{f['name']}: {e}; the context is unusable, ending (run again with --resume)", file=sys.stderr)
                return 3

    info = {
        "name": name,
        "compute_capability": cc,
        "driver_version": rt.driverGetVersion(),
        "runtime_version": rt.runtimeGetVersion(),
        "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "command": " ".join(sys.argv),
        "ran": ran,
        "skipped": skipped,
        "failed": failed,
    }
    with open(os.path.join(out, "gpu.json"), "w", encoding="utf-8") as w:
        json.dump(info, w, indent=2)
        w.write("\n")
    print(f"{name} (sm_{cc}): {ran} forms recorded, {len(skipped)} skipped, {len(failed)} failed -> {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
