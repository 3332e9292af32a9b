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

usage: profiles-archive.py pack DIR ARCHIVE     # DIR/settings.txt + DIR/*/*.toml, *.failed
       profiles-archive.py unpack ARCHIVE DIR   # the same tree under DIR
Exits 1 with a message on a missing folder, a bad archive or an unsafe name.
"""
import io
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
    with open(archive, "wb") as f:
        f.write(lzma.compress(buffer.getvalue(), preset=9))


def unpack(archive, root):
    try:
        with open(archive, "rb") as f:
            data = lzma.decompress(f.read())
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


def main(argv):
    if len(argv) != 4 or argv[1] not in ("pack", "unpack"):
        raise SystemExit(__doc__.strip())
    if argv[1] == "pack":
        pack(argv[2], argv[3])
    else:
        unpack(argv[2], argv[3])


if __name__ == "__main__":
    main(sys.argv)
