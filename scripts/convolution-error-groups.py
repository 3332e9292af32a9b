#!/usr/bin/env python3
"""Where the `timing` model's error on Kernel Tuner's convolution gathers: the
tables of docs/validation/schoonhoven.md ("Large tiles: not the binary that
was timed") and docs/validation/by-parameter.md ("Few warps per SM before
Ampere", "FFMA-heavy code runs slower than the model allows, before Ampere").

usage: convolution-error-groups.py parts VALIDATE_JSON...
       convolution-error-groups.py tiles VALIDATE_JSON...
       convolution-error-groups.py warps PROFILES_DIR VALIDATE_JSON...
       convolution-error-groups.py ffma [--peak GPU=SMS,LANES,MHZ]... PROFILES_DIR VALIDATE_JSON...
  VALIDATE_JSON: what `ptxperf validate experiments/convolution.toml ...
      --model timing --json` printed for one GPU (each scored configuration
      keeps its parameters, measured and predicted times and part).
  PROFILES_DIR: the folder of saved profiles that run read (--profiles; one
      sub-folder per GPU id): registers and static shared memory per
      configuration, for the occupancy (`ptxperf gpus ID --occupancy`).

parts: per file and part of the split (and both), the scored configurations,
  MAPE % and Spearman with 90 % bootstrap intervals (1,000 resamples of the
  scored configurations, percentile, Python's random seeded with 1), the
  median predicted/measured, the best ratio, and the transferred-best
  baseline: for each other file, the configuration that ran fastest there
  (among those scored in both), its time here over the best here; the range
  over the other files. The files must score the same configurations (the
  Schoonhoven files do: the same space, the same --sample and --seed).
tiles: per file and part, the scored configurations, MAPE %, Spearman,
  median predicted/measured and the best ratio (measured time of the
  configuration ranked fastest over the best measured): on all of them, on
  those with tile_size_x * tile_size_y below 24, and the median
  predicted/measured of the others.
warps: per file, development part, tiles below 24: the median
  predicted/measured by resident warps per SM (up to 8, 16, 24, 32, 48, 64).
ffma: per file, development part, tiles below 24: the median
  predicted/measured by the profile's FP32 warp instructions per shared
  load (below 1.5, 1.5 to 2.5, 2.5 and more), and of blocks two threads
  wide with tiles wider than one; and the largest share of the GPU's FP32
  peak any development configuration reached, measured (FP32 warp
  instructions over SMs x FP32 lanes / 32 x clock x measured time). The
  peak is the catalog's (`ptxperf gpus GPU --json`: SMs, FP32 lanes, the
  clock the models use) unless --peak gives it, e.g. for the clock a card
  holds.
Prints Markdown on stdout; exits 1 with a message on a missing or bad file.
"""
import functools
import json
import os
import random
import re
import statistics
import subprocess
import sys

THRESHOLD = 24  # tile_size_x * tile_size_y from which NVRTC keeps a loop
MODEL = "timing"
WARP_BINS = (8, 16, 24, 32, 48, 64)
PARAMS = ("block_size_x", "block_size_y", "tile_size_x", "tile_size_y", "use_padding", "read_only")
ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


class Bad(Exception):
    pass


def ranks(values):
    """Ranks from 1, ties given their mean rank (as validate's Spearman)."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def spearman(a, b):
    ra, rb = ranks(a), ranks(b)
    ma, mb = statistics.mean(ra), statistics.mean(rb)
    num = sum((x - ma) * (y - mb) for x, y in zip(ra, rb))
    den = (sum((x - ma) ** 2 for x in ra) * sum((y - mb) ** 2 for y in rb)) ** 0.5
    return num / den if den > 0 else float("nan")


def figures(rows):
    """scored | MAPE % | Spearman | median pred/meas | best ratio of (measured, predicted) pairs."""
    if len(rows) < 2:
        return "- | - | - | - | -"
    measured = [m for m, _ in rows]
    predicted = [p for _, p in rows]
    mape = 100 * statistics.mean(abs(p - m) / m for m, p in rows)
    median = statistics.median(p / m for m, p in rows)
    fastest = min(range(len(rows)), key=lambda i: predicted[i])
    best = measured[fastest] / min(measured)
    return f"{len(rows)} | {mape:.1f} | {spearman(measured, predicted):.3f} | {median:.3f} | {best:.3f}"


def bootstrap(rows, stat, resamples=1000, seed=1):
    """90 % percentile interval of stat over resamples of rows."""
    rng = random.Random(seed)
    values = [stat([rows[rng.randrange(len(rows))] for _ in rows]) for _ in range(resamples)]
    # A resample of one configuration repeated has no Spearman (NaN): left out.
    values = sorted(v for v in values if v == v)
    if not values:
        return float("nan"), float("nan")
    n = len(values)
    return values[int(0.05 * n)], values[max(int(0.95 * n) - 1, 0)]


def mape_of(rows):
    return 100 * statistics.mean(abs(p - m) / m for m, p in rows)


def spearman_of(rows):
    return spearman([m for m, _ in rows], [p for _, p in rows])


def key_of(r):
    return tuple(r["parameters"][k] for k in PARAMS)


def parts(paths):
    loaded = [load(path) for path in paths]
    measured = [{key_of(r): r["measured_ms"] for r in results} for _, results in loaded]
    print("| GPU | part | scored | MAPE % [90 % CI] | Spearman [90 % CI] | median pred/meas | best ratio "
          "| transferred best (other files) |")
    print("|---|---|---:|---|---|---:|---:|---|")
    for i, (gpu, results) in enumerate(loaded):
        for part in ("development", "check", None):
            rows = [r for r in results if part is None or r.get("part") == part]
            if len(rows) < 2:
                continue
            pairs = [pair(r) for r in rows]
            keys = [key_of(r) for r in rows]
            mlo, mhi = bootstrap(pairs, mape_of)
            slo, shi = bootstrap(pairs, spearman_of)
            median = statistics.median(p / m for m, p in pairs)
            fastest = min(range(len(pairs)), key=lambda j: pairs[j][1])
            best = min(m for m, _ in pairs)
            transfers = []
            for j, other in enumerate(measured):
                if j == i:
                    continue
                shared = [k for k in keys if k in other]
                if shared:
                    pick = min(shared, key=lambda k: other[k])
                    transfers.append(measured[i][pick] / best)
            span = f"{min(transfers):.2f} to {max(transfers):.2f}" if transfers else "-"
            print(f"| {gpu} | {part or 'both'} | {len(rows)} | {mape_of(pairs):.1f} [{mlo:.1f}, {mhi:.1f}] "
                  f"| {spearman_of(pairs):.3f} [{slo:.3f}, {shi:.3f}] | {median:.3f} "
                  f"| {pairs[fastest][0] / best:.3f} | {span} |")


def load(path):
    try:
        with open(path) as f:
            doc = json.load(f)
        return doc["gpu"], [r for r in doc["results"] if r.get("status") == "predicted"]
    except (OSError, ValueError, KeyError, TypeError) as e:
        raise Bad(f"{path}: not the JSON of `ptxperf validate --json` ({e})")


def large(r):
    p = r["parameters"]
    return p["tile_size_x"] * p["tile_size_y"] >= THRESHOLD


def pair(r):
    return r["measured_ms"], r["predicted_ms"][MODEL]


def tiles(paths):
    loaded = [load(path) for path in paths]
    print("| GPU | part | all: scored | MAPE % | Spearman | median pred/meas | best ratio "
          f"| tiles < {THRESHOLD}: scored | MAPE % | Spearman | median pred/meas | best ratio "
          f"| tiles >= {THRESHOLD}: scored | median pred/meas |")
    print("|---|---|" + "---:|" * 12)
    for gpu, results in loaded:
        for part in ("development", "check", None):
            rows = [r for r in results if part is None or r.get("part") == part]
            if not rows:
                continue
            big = [pair(r) for r in rows if large(r)]
            big_cell = f"{len(big)} | {statistics.median(p / m for m, p in big):.3f}" if big else "0 | -"
            small = [pair(r) for r in rows if not large(r)]
            print(f"| {gpu} | {part or 'both'} | {figures([pair(r) for r in rows])} | {figures(small)} | {big_cell} |")


def saved_profiles(folder):
    """(name, parameter key, TOML text) of every saved profile in folder whose
    file name carries the convolution's parameters."""
    try:
        names = os.listdir(folder)
    except OSError as e:
        raise Bad(f"{folder}: {e}")
    for name in names:
        if not name.endswith(".toml"):
            continue
        values = dict(kv.split("=", 1) for kv in name[: -len(".toml")].split(",") if "=" in kv)
        try:
            key = tuple(int(values[p]) for p in PARAMS)
        except (KeyError, ValueError):
            continue
        with open(os.path.join(folder, name)) as f:
            yield name, key, f.read()


def saved(table, r, missing):
    """What table (saved_resources, profile_counts) holds for result r's
    configuration; Bad(missing + the key) where it holds nothing."""
    key = key_of(r)
    if key not in table:
        raise Bad(f"{missing} for {key}")
    return table[key]


def saved_resources(folder):
    """Registers and static shared bytes per configuration, from the profiles' TOML."""
    out = {}
    for name, key, text in saved_profiles(folder):
        regs = re.search(r"^registers_per_thread = (\d+)", text, re.M)
        smem = re.search(r"^static_shared_per_block = (\d+)", text, re.M)
        if not (regs and smem):
            raise Bad(f"{folder}/{name}: no registers_per_thread or static_shared_per_block")
        out[key] = (int(regs.group(1)), int(smem.group(1)))
    return out


@functools.lru_cache(maxsize=None)
def resident_warps(gpu, threads, regs, smem):
    exe = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "ptxperf")
    cmd = [exe, "gpus", gpu, "--occupancy", "--threads", str(threads), "--regs", str(regs), "--smem", str(smem), "--json"]
    run = subprocess.run(cmd, capture_output=True, text=True)
    if run.returncode != 0:
        raise Bad(f"{' '.join(cmd)}: {run.stderr.strip()}")
    return json.loads(run.stdout)["occupancy"]["active_warps_per_sm"]


def warps(folder, paths):
    loaded = [load(path) for path in paths]
    print("| GPU | " + " | ".join(f"<= {w} warps/SM" for w in WARP_BINS) + " |")
    print("|---|" + "---:|" * len(WARP_BINS))
    for path, (gpu, results) in zip(paths, loaded):
        resources = saved_resources(os.path.join(folder, gpu))
        groups = {}
        for r in results:
            if r.get("part") != "development" or large(r):
                continue
            p = r["parameters"]
            regs, smem = saved(resources, r, f"{path}: no saved profile in {folder}/{gpu}")
            w = resident_warps(gpu, p["block_size_x"] * p["block_size_y"], regs, smem)
            group = next((b for b in WARP_BINS if w <= b), WARP_BINS[-1])
            m, pr = pair(r)
            groups.setdefault(group, []).append(pr / m)
        cells = [f"{statistics.median(groups[b]):.2f} ({len(groups[b])})" if b in groups else "-" for b in WARP_BINS]
        print(f"| {gpu} | " + " | ".join(cells) + " |")


def profile_counts(folder):
    """FP32 and shared-load warp instructions per configuration, from the
    profiles' [warp_instructions] tables."""
    out = {}
    for name, key, text in saved_profiles(folder):
        table = re.search(r"^\[warp_instructions\]\n(.*?)(?:^\[|\Z)", text, re.M | re.S)
        if not table:
            raise Bad(f"{folder}/{name}: no [warp_instructions] table")
        counts = dict(re.findall(r"^(\w+) = ([0-9.eE+-]+)$", table.group(1), re.M))
        try:
            fp32 = float(counts["fp32_fma"]) + float(counts["fp32"])
            shared = float(counts["shared_load"])
        except (KeyError, ValueError):
            raise Bad(f"{folder}/{name}: [warp_instructions] lacks fp32_fma, fp32 or shared_load")
        out[key] = (fp32, shared)
    return out


def catalog_peak(gpu):
    """(SMs, FP32 lanes per SM, MHz) of a catalog GPU at the clock the models use."""
    exe = os.path.join(os.environ.get("CARGO_TARGET_DIR", os.path.join(ROOT, "target")), "release", "ptxperf")
    run = subprocess.run([exe, "gpus", gpu, "--json"], capture_output=True, text=True)
    if run.returncode != 0:
        raise Bad(f"ptxperf gpus {gpu} --json: {run.stderr.strip()} (or give --peak {gpu}=SMS,LANES,MHZ)")
    g = json.loads(run.stdout)
    clocks = g["clocks"]
    mhz = clocks["base_mhz"] if clocks.get("model_clock") == "base" else clocks["boost_mhz"]
    return g["sm_count"], g["sm"]["fp32_lanes"], mhz


FFMA_BINS = ((1.5, "< 1.5"), (2.5, "1.5 to 2.5"), (float("inf"), ">= 2.5"))


def ffma(peaks, folder, paths):
    loaded = [load(path) for path in paths]
    print("| GPU | FP32 per shared load " + " | ".join(label for _, label in FFMA_BINS)
          + " | highest FP32 use | block_size_x 2, tile_size_x >= 2 |")
    print("|---|" + "---:|" * (len(FFMA_BINS) + 2))
    for path, (gpu, results) in zip(paths, loaded):
        counts = profile_counts(os.path.join(folder, gpu))
        sms, lanes, mhz = peaks[gpu] if gpu in peaks else catalog_peak(gpu)
        groups, narrow, top = {}, [], 0.0
        for r in results:
            if r.get("part") != "development":
                continue
            p = r["parameters"]
            fp32, shared = saved(counts, r, f"{path}: no saved profile in {folder}/{gpu}")
            m, pr = pair(r)
            # Warp instructions per second at the peak: SMs x lanes / 32 x clock.
            top = max(top, fp32 / (sms * lanes / 32 * mhz * 1e6 * m * 1e-3))
            if large(r):
                continue
            ratio = fp32 / shared if shared > 0 else float("inf")
            label = next(lab for bound, lab in FFMA_BINS if ratio < bound)
            groups.setdefault(label, []).append(pr / m)
            if p["block_size_x"] == 2 and p["tile_size_x"] >= 2:
                narrow.append(pr / m)
        cells = [f"{statistics.median(groups[lab]):.2f} ({len(groups[lab])})" if lab in groups else "-"
                 for _, lab in FFMA_BINS]
        cells.append(f"{top:.2f}")
        cells.append(f"{statistics.median(narrow):.2f} ({len(narrow)})" if narrow else "-")
        print(f"| {gpu} | " + " | ".join(cells) + " |")


def parse_peaks(args):
    """--peak GPU=SMS,LANES,MHZ options in front of the other arguments."""
    peaks = {}
    while len(args) >= 2 and args[0] == "--peak":
        gpu, _, spec = args[1].partition("=")
        try:
            sms, lanes, mhz = (float(x) for x in spec.split(","))
        except ValueError:
            raise Bad(f"--peak {args[1]}: want GPU=SMS,LANES,MHZ")
        if not gpu or min(sms, lanes, mhz) <= 0:
            raise Bad(f"--peak {args[1]}: want GPU=SMS,LANES,MHZ, all positive")
        peaks[gpu] = (sms, lanes, mhz)
        args = args[2:]
    return peaks, args


def main(argv):
    try:
        if len(argv) >= 1 and argv[0] == "ffma":
            peaks, rest = parse_peaks(argv[1:])
            if len(rest) >= 2:
                ffma(peaks, rest[0], rest[1:])
                return 0
        if len(argv) >= 2 and argv[0] == "parts":
            parts(argv[1:])
            return 0
        if len(argv) >= 2 and argv[0] == "tiles":
            tiles(argv[1:])
            return 0
        if len(argv) >= 3 and argv[0] == "warps":
            warps(argv[1], argv[2:])
            return 0
    except Bad as e:
        print(f"convolution-error-groups: {e}", file=sys.stderr)
        return 1
    print(__doc__.strip(), file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
