#!/usr/bin/env python3
"""The profiles behind docs/validation/README.md, as one small archive.

A report run with SAVE_PROFILES=DIR leaves DIR/settings.txt and, per GPU,
DIR/<gpu>/<configuration>.toml (the emulated profile ptxperf validate
rescores) and .ptx (kept for reading, not needed to rescore), or .failed
(why that configuration has no profile). The archive holds settings.txt
and the TOML and .failed files only, xz-compressed (about 60 KB for
the report's 354 profiles), and is byte-for-byte the same for the same
profiles: names sorted, times, owners and modes fixed. So the committed
report can be rescored by anyone, and by a test, in seconds.

A folder that a resumed run filled beyond the sample to be archived (a
larger sample stopped half-way) is first cut down to the sample: `select`
links into DEST/<gpu>/ the profiles (and .failed files) of the
configurations a `ptxperf validate --json` run scored, matched on every
tunable parameter in the file's name.

usage: profiles-archive.py pack DIR ARCHIVE     # DIR/settings.txt + DIR/*/*.toml, *.failed
       profiles-archive.py unpack ARCHIVE DIR   # the same tree under DIR
       profiles-archive.py select VALIDATE_JSON SRC DEST   # link the scored ones
Exits 1 with a message on a missing folder, a bad archive or an unsafe name,
a file that is not validate's JSON, or a GPU of it with no profile in SRC.
"""
import io
import json
import lzma
import os
import sys
import tarfile


def members(root):
    """settings.txt, then every <gpu>/<name>.toml and .failed, sorted."""
    if not os.path.isfile(os.path.join(root, "settings.txt")):
        raise SystemExit(f"{root}: no settings.txt (not a folder a SAVE_PROFILES run wrote)")
    names = ["settings.txt"]
    for gpu in sorted(os.listdir(root)):
        folder = os.path.join(root, gpu)
        if os.path.isdir(folder):
            names += [f"{gpu}/{f}" for f in sorted(os.listdir(folder)) if f.endswith((".toml", ".failed"))]
    if len(names) == 1:
        raise SystemExit(f"{root}: no <gpu>/*.toml profiles")
    return names


def pack(root, archive):
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w", format=tarfile.GNU_FORMAT) as tar:
        for name in members(root):
            with open(os.path.join(root, name), "rb") as f:
                data = f.read()
            info = tarfile.TarInfo(name)
            info.size = len(data)
            info.mtime = 0
            info.mode = 0o644
            info.uid = info.gid = 0
            info.uname = info.gname = ""
            tar.addfile(info, io.BytesIO(data))
    # Written beside and renamed over: a second writer or an interrupted one
    # never leaves a shorter stream followed by the tail of an older one (the
    # Schoonhoven archive of 76b8c9d held 132 such bytes, which Python's
    # lzma.decompress skips and `xz -t` / `tar xJf` reject).
    part = archive + ".part"
    with open(part, "wb") as f:
        f.write(lzma.compress(buffer.getvalue(), preset=9))
    os.replace(part, archive)


def whole_stream(raw):
    """The data of one complete xz stream with nothing after it: what
    `xz -t` and `tar xJf` accept (lzma.decompress would ignore trailing
    bytes that are not a stream)."""
    decoder = lzma.LZMADecompressor(format=lzma.FORMAT_XZ)
    data = decoder.decompress(raw)
    if not decoder.eof:
        raise lzma.LZMAError("the xz stream is cut short")
    if decoder.unused_data:
        raise lzma.LZMAError(f"{len(decoder.unused_data)} bytes after the xz stream (a torn write?)")
    return data


def unpack(archive, root):
    try:
        with open(archive, "rb") as f:
            data = whole_stream(f.read())
        tar = tarfile.open(fileobj=io.BytesIO(data), mode="r")
    except (OSError, lzma.LZMAError, tarfile.TarError) as e:
        raise SystemExit(f"{archive}: not a profiles archive ({e})")
    with tar:
        for info in tar.getmembers():
            parts = info.name.split("/")
            if not info.isfile() or info.name.startswith("/") or ".." in parts or len(parts) > 2:
                raise SystemExit(f"{archive}: unexpected entry {info.name!r}")
            target = os.path.join(root, *parts)
            os.makedirs(os.path.dirname(target), exist_ok=True)
            src = tar.extractfile(info)
            with open(target, "wb") as f:
                f.write(src.read() if src else b"")


def name_values(file_name):
    """The key=value pairs of a profile's file name (without extension)."""
    stem = file_name.rsplit(".", 1)[0]
    pairs = [p.split("=", 1) for p in stem.split(",")]
    return {p[0]: p[1] for p in pairs if len(p) == 2}


def as_name_value(value):
    """A parameter's value as a file name writes it (3, not 3.0)."""
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def scored_by_gpu(path):
    """{gpu: [parameters]} of every result of a `validate --json` file (one
    GPU, or several under "gpus")."""
    try:
        with open(path) as f:
            doc = json.load(f)
        runs = doc["gpus"] if "gpus" in doc else [doc]
        return {run["gpu"]: [r["parameters"] for r in run["results"]] for run in runs}
    except OSError as e:
        raise SystemExit(f"{path}: {e.strerror}")
    except (ValueError, KeyError, TypeError):
        raise SystemExit(f"{path}: not the JSON of `ptxperf validate --json`")


def select(validate_json, src, dest):
    for gpu, scored in scored_by_gpu(validate_json).items():
        folder = os.path.join(src, gpu)
        if not os.path.isdir(folder):
            raise SystemExit(f"{folder}: no profiles of {gpu}")
        keys = sorted({k for params in scored for k in params})
        wanted = {tuple(as_name_value(p.get(k)) for k in keys) for p in scored}
        linked = 0
        for f in sorted(os.listdir(folder)):
            if not f.endswith((".toml", ".failed")):
                continue
            values = name_values(f)
            if tuple(values.get(k) for k in keys) in wanted:
                os.makedirs(os.path.join(dest, gpu), exist_ok=True)
                os.symlink(os.path.abspath(os.path.join(folder, f)), os.path.join(dest, gpu, f))
                linked += 1
        if linked == 0:
            raise SystemExit(f"{folder}: none of the {len(scored)} scored configurations has a profile")
        print(f"{gpu}: {linked} files of {len(scored)} scored configurations", file=sys.stderr)


def main(argv):
    if len(argv) == 5 and argv[1] == "select":
        select(argv[2], argv[3], argv[4])
        return
    if len(argv) != 4 or argv[1] not in ("pack", "unpack"):
        raise SystemExit(__doc__.strip())
    if argv[1] == "pack":
        pack(argv[2], argv[3])
    else:
        unpack(argv[2], argv[3])


if __name__ == "__main__":
    main(sys.argv)
