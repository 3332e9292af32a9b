#!/usr/bin/env python3
"""Grows docs/validation/profiles-dedispersion-unbudgeted.tar.xz: the
report's 2,000-configuration dedispersion sample (DEDISP_SAMPLE=2000 SEED=1
CTAS=4) emulated again without the work budget, a batch at a time, in a
fixed random order, so that whatever part is done at any point is a uniform
random subset of the 2,000 and the archive can grow over several runs.

Emulating all 2,000 without the budget takes hours on a 2-core machine
(scripts/dedisp-profiles.sh, BUDGET=none); this script cuts that into
batches that each end with an archive one can rescore. The order: the 2,000
names sorted, then shuffled with Python's random.Random(20261202); a
configuration is emulated when its turn comes and it has no profile yet
(the archive's first 120, two random draws from the development part, were
emulated before the order existed).

How a batch emulates only its own configurations: `ptxperf validate
--resume` skips every configuration with a saved profile, so a scratch
folder gets, beside nothing for the batch, the unbudgeted profile of every
configuration done and the budgeted one (docs/validation/
profiles-dedispersion.tar.xz) of every other; after the run the batch's new
profiles are moved into the growing set and the archive is packed again.

usage: scripts/dedisp-unbudgeted.py DIR [COUNT]
       scripts/dedisp-unbudgeted.py --check
  DIR    working folder kept between runs (the growing set, the budgeted
         placeholders, the scratch folder); created from the committed
         archives when it does not exist
  COUNT  configurations to emulate in this run (default: all that remain)
  PTXPERF=  the ptxperf binary (default: target/release/ptxperf, built here)
  JOBS=     worker threads (default: the cores)
  GROUNDTRUTH=  the data folder (default ../shared/data/groundtruth)
A file DIR/stop ends the run after the batch in progress; a run stopped in
the middle of a batch loses only that batch. Profiles emulated earlier by
the same binary can be put in DIR/cache/<gpu>/: they are taken instead of
emulating, when their turn comes. `--check` checks the committed archive
against the order: both GPUs hold the same configurations, and all but at
most the first 120 are the order's first ones with none skipped (so the
subset is the uniform one it claims to be) and it holds profiles only, no
recorded failure. The kernel's source must be in third_party/ first
(scripts/fetch-validation-kernels.sh); a configuration that fails to
emulate stops the run with its reason, the batch's profiles not kept.
Exits 1 with a message on bad arguments, a failed emulation or a failed
check.
"""
import os
import random
import shutil
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BUDGETED = "docs/validation/profiles-dedispersion.tar.xz"
ARCHIVE = "docs/validation/profiles-dedispersion-unbudgeted.tar.xz"
SETTINGS = "settings: DEDISP_SAMPLE=2000 SEED=1 CTAS=4 BUDGET=none"
GPUS = [("rtx-a4000", "dedispersion_milo_A4000.json.gz"), ("rtx-a6000", "dedispersion_milo_A6000.json.gz")]
ORDER_SEED = 20261202
# Each batch ends when its slowest configuration does, one core idle
# meanwhile; 100 keeps that wait a few per cent of a batch.
BATCH = 100


def fail(message):
    sys.exit(f"dedisp-unbudgeted: {message}")


def archive_tool(*args):
    r = subprocess.run([sys.executable, os.path.join(ROOT, "scripts/profiles-archive.py"), *args])
    if r.returncode != 0:
        fail(f"profiles-archive.py {args[0]} failed")


def done(profiles):
    """Configurations with a profile (or a recorded failure) on every GPU."""
    per_gpu = []
    for gpu, _ in GPUS:
        folder = os.path.join(profiles, gpu)
        names = os.listdir(folder) if os.path.isdir(folder) else []
        per_gpu.append({os.path.splitext(n)[0] for n in names if n.endswith((".toml", ".failed"))})
    return set.intersection(*per_gpu)


def emulate(ptxperf, jobs, groundtruth, work):
    args = [ptxperf, "validate", "experiments/dedispersion.toml"]
    for gpu, data in GPUS:
        args += ["--data", os.path.join(groundtruth, "dedispersion", data), "--gpu", gpu]
    args += ["--sample", "2000", "--seed", "1", "--sample-ctas", "4", "--jobs", str(jobs),
             "--model", "timing", "--bootstrap", "0", "--save-profiles", work, "--resume", "--quiet"]
    return subprocess.run(args, cwd=ROOT, stdout=subprocess.DEVNULL).returncode


def the_order(names):
    order = sorted(names)
    random.Random(ORDER_SEED).shuffle(order)
    return order


def check():
    """The committed archive is the first 120 and a prefix of the order."""
    with tempfile.TemporaryDirectory() as tmp:
        archive_tool("unpack", os.path.join(ROOT, ARCHIVE), os.path.join(tmp, "u"))
        archive_tool("unpack", os.path.join(ROOT, BUDGETED), os.path.join(tmp, "b"))
        per_gpu = [
            {os.path.splitext(n)[0] for n in os.listdir(os.path.join(tmp, "u", g)) if n.endswith(".toml")}
            for g, _ in GPUS
        ]
        names = [os.path.splitext(n)[0] for n in os.listdir(os.path.join(tmp, "b", GPUS[0][0])) if n.endswith(".toml")]
        # Only profiles: a recorded failure would stand for a configuration
        # without a time, and so far each one was a broken run, not a result.
        others = [
            os.path.join(g, n) for g, _ in GPUS for n in os.listdir(os.path.join(tmp, "u", g)) if not n.endswith(".toml")
        ]
    if others:
        fail(f"{ARCHIVE}: {len(others)} entries are not profiles, {others[0]} first")
    if per_gpu[0] != per_gpu[1]:
        fail(f"{ARCHIVE}: the GPUs hold different configurations ({len(per_gpu[0])} and {len(per_gpu[1])})")
    have = per_gpu[0]
    if not have <= set(names):
        fail(f"{ARCHIVE}: {len(have - set(names))} configurations are not in the report's sample")
    prefix = 0
    for n in the_order(names):
        if n not in have:
            break
        prefix += 1
    beyond = len(have) - prefix
    if beyond > 120:
        fail(f"{ARCHIVE}: {len(have)} configurations, the order's first {prefix} and {beyond} others: at most the first 120 may lie beyond the order's prefix")
    print(f"dedisp-unbudgeted: {len(have)} configurations: the order's first {prefix} and {beyond} of the first 120 beyond them")


def main():
    if sys.argv[1:] == ["--check"]:
        check()
        return
    if len(sys.argv) not in (2, 3) or sys.argv[1].startswith("-"):
        fail("usage: scripts/dedisp-unbudgeted.py DIR [COUNT]")
    top = os.path.abspath(sys.argv[1])
    count = None
    if len(sys.argv) == 3:
        if not sys.argv[2].isdigit() or int(sys.argv[2]) == 0:
            fail(f"COUNT must be a positive number, not '{sys.argv[2]}'")
        count = int(sys.argv[2])
    jobs = os.environ.get("JOBS") or str(os.cpu_count() or 1)
    if not jobs.isdigit() or int(jobs) == 0:
        fail(f"JOBS must be a positive number, not '{jobs}'")
    groundtruth = os.path.abspath(os.environ.get("GROUNDTRUTH") or os.path.join(ROOT, "../shared/data/groundtruth"))
    for _, data in GPUS:
        if not os.path.isfile(os.path.join(groundtruth, "dedispersion", data)):
            fail(f"no {os.path.join(groundtruth, 'dedispersion', data)} (set GROUNDTRUTH)")
    kernel = os.path.join(ROOT, "third_party/benchmark_hub/dedisp_milo/dedispersion.cu")
    if not os.path.isfile(kernel):
        fail(f"no {kernel}: run scripts/fetch-validation-kernels.sh first")
    ptxperf = os.environ.get("PTXPERF")
    if not ptxperf:
        subprocess.run(["cargo", "build", "--release", "--locked", "-p", "ptxperf", "--quiet"], cwd=ROOT, check=True)
        ptxperf = os.path.join(os.environ.get("CARGO_TARGET_DIR") or os.path.join(ROOT, "target"), "release/ptxperf")

    # The commit the binary was built from (checked out when the run starts).
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=ROOT, capture_output=True, text=True).stdout.strip()
    profiles, placeholders, cache = (os.path.join(top, d) for d in ("profiles", "placeholders", "cache"))
    if not os.path.isdir(profiles):
        archive_tool("unpack", os.path.join(ROOT, ARCHIVE), profiles)
    if not os.path.isdir(placeholders):
        archive_tool("unpack", os.path.join(ROOT, BUDGETED), placeholders)
    with open(os.path.join(placeholders, "settings.txt")) as f:
        if not f.readline().startswith("settings: DEDISP_SAMPLE=2000 SEED=1 CTAS=4 "):
            fail(f"{BUDGETED} is not the 2,000-configuration sample this archive grows from")
    names = sorted(os.path.splitext(n)[0] for n in os.listdir(os.path.join(placeholders, GPUS[0][0])) if n.endswith(".toml"))
    order = the_order(names)
    log = os.path.join(top, "batches.log")
    if not os.path.isfile(log):
        # The seconds of earlier runs, read from the archive this one grows,
        # open the log so that settings.txt keeps counting them.
        prior = 0.0
        with open(os.path.join(profiles, "settings.txt")) as f:
            for line in f:
                if line.startswith("emulated:") and " s of batches" in line:
                    prior = float(line.split(" s of batches")[0].rsplit(" ", 1)[1].replace(",", ""))
        with open(log, "w") as f:
            f.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} carried from the archive {prior:.0f} s, {len(done(profiles))} of {len(names)}\n")

    emulated = 0
    while count is None or emulated < count:
        if os.path.exists(os.path.join(top, "stop")):
            print("dedisp-unbudgeted: stopped (DIR/stop)", file=sys.stderr)
            break
        have = done(profiles)
        todo = [n for n in order if n not in have]
        if not todo:
            break
        batch = todo[: min(BATCH, count - emulated) if count is not None else BATCH]
        # Taken from the cache instead of emulated, in their turn.
        cached = [n for n in batch if all(os.path.isfile(os.path.join(cache, g, n + ".toml")) for g, _ in GPUS)]
        for n in cached:
            for g, _ in GPUS:
                shutil.copy2(os.path.join(cache, g, n + ".toml"), os.path.join(profiles, g, n + ".toml"))
        batch = [n for n in batch if n not in cached]
        emulated += len(cached)
        if not batch:
            continue
        work = os.path.join(top, "scratch")
        shutil.rmtree(work, ignore_errors=True)
        wanted = set(batch)
        for g, _ in GPUS:
            os.makedirs(os.path.join(work, g))
            for n in names:
                if n in wanted:
                    continue
                own = os.path.join(profiles, g, n + ".toml")
                src = own if os.path.isfile(own) else os.path.join(placeholders, g, n + ".toml")
                if os.path.isfile(src):
                    os.link(src, os.path.join(work, g, n + ".toml"))
        shutil.copy2(os.path.join(placeholders, "settings.txt"), os.path.join(work, "settings.txt"))
        started = time.time()
        rc = emulate(ptxperf, jobs, groundtruth, work)
        seconds = time.time() - started
        # A failed emulation stops the run before anything is moved or
        # packed: so far every configuration of the sample emulates, and a
        # failure here has meant a missing kernel source, not a result.
        for g, _ in GPUS:
            for n in batch:
                failed = os.path.join(work, g, n + ".failed")
                if os.path.isfile(failed):
                    with open(failed) as f:
                        fail(f"{g}/{n} failed to emulate, nothing of the batch kept: {f.read().strip()}")
        moved = 0
        for g, _ in GPUS:
            for n in batch:
                for ext in (".toml",):
                    path = os.path.join(work, g, n + ext)
                    if os.path.isfile(path):
                        shutil.move(path, os.path.join(profiles, g, n + ext))
                        moved += 1
        emulated += len(batch)
        total = len(done(profiles))
        with open(log, "a") as f:
            f.write(f"{time.strftime('%Y-%m-%d %H:%M:%S')} batch {len(batch)} rc={rc} {seconds:.0f} s, {total} of {len(names)}\n")
        if rc != 0 or moved != len(batch) * len(GPUS):
            fail(f"validate exited {rc} with {moved} of {len(batch) * len(GPUS)} profiles of the batch (see {log})")
        write_settings(top, profiles, len(names), commit)
        archive_tool("pack", profiles, os.path.join(ROOT, ARCHIVE))
    print(f"dedisp-unbudgeted: {len(done(profiles))} of {len(names)} configurations in {ARCHIVE}", file=sys.stderr)


def write_settings(top, profiles, total, commit):
    """settings.txt: the first line as scripts/dedisp-profiles.sh writes it;
    then what subset the archive holds and what emulated it."""
    seconds = 0.0
    with open(os.path.join(top, "batches.log")) as f:
        for line in f:
            seconds += float(line.split(" s, ")[0].rsplit(" ", 1)[1])
    have = len(done(profiles))
    with open(os.path.join(profiles, "settings.txt"), "w") as f:
        f.write(f"{SETTINGS}\n")
        f.write(
            f"subset: {have} of the {total:,} configurations: 120 development configurations "
            "(Python random.sample seeds 11 and 12), then the others in the order of "
            f"random.Random({ORDER_SEED}).shuffle of the sorted names (scripts/dedisp-unbudgeted.py)\n"
        )
        f.write(
            "emulated: the first 120 by commit 2fdfe7a on 2026-12-02, 1,359 s (--jobs 2); "
            f"the rest by scripts/dedisp-unbudgeted.py, {seconds:,.0f} s of batches (last at commit {commit})\n"
        )


if __name__ == "__main__":
    main()
