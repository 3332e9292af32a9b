#!/usr/bin/env bash
# Nsight Compute on CLBlast's Xgemm: tile shapes, each built four ways (A and
# B through shared memory or read through L1: SA, SB in {0, 1}), timed with
# CUDA events and then profiled with `--set full`, to see what the L1's
# data stage does with global loads (data/measured/h200-sxm-141gb/README.md,
# "Fourth loan").
#
# Usage (on a machine with an NVIDIA GPU, Nsight Compute, CuPy and
# cuda-bindings): scripts/gpu/ncu-gemm.sh OUT SPACE
#   OUT    folder for gemm-ncu-times.json.gz (10 timed launches each),
#          gemm-under-ncu.json.gz (the run under the profiler, one timed
#          launch), gemm-ncu-raw.csv.gz (`ncu --csv --page raw`) and
#          ncu-gemm.log
#   SPACE  Kernel Tuner cache file holding the configurations
#          (KT_gemm_RTX_3090.json.gz: every configuration of the space)
#   SHAPES=MWG,NWG,MDIMC,NDIMC,MDIMA,NDIMB,VWM,VWN;...  the tile shapes
#          (default: the six of the fourth loan)
#   KERNELS=DIR  the folder holding benchmark_hub/ where the shared data
#          folder is not beside the repository (a lent machine)
#
# measure-kt.py launches each configuration once to check its output and
# then times it, in the space file's order, so the profiler's launches
# 2n and 2n + 1 are configuration n of gemm-under-ncu.json.gz.
set -euo pipefail
out=${1:?usage: scripts/gpu/ncu-gemm.sh OUT SPACE}
space=${2:?usage: scripts/gpu/ncu-gemm.sh OUT SPACE}
shapes=${SHAPES:-"128,32,8,16,32,8,4,1;128,32,8,32,16,16,2,1;64,64,32,8,16,8,2,1;128,128,16,32,32,16,2,4;128,128,8,8,8,8,4,4;64,64,8,8,8,8,2,2"}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
mkdir -p "$out"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
exp=experiments/gemm.toml
if [ -n "${KERNELS:-}" ]; then
  kernels=$(cd "$KERNELS" && pwd)
  sed "s#\.\./\.\./shared/data/groundtruth/kernels#$kernels#g" "$exp" > "$tmp/gemm.toml"
  exp=$tmp/gemm.toml
fi
# The chosen configurations, in shape order, SA and SB counting up.
python3 - "$space" "$shapes" "$tmp/space.json.gz" <<'EOF'
import gzip, json, sys
space, shapes, dest = sys.argv[1:]
opener = gzip.open if space.endswith(".gz") else open
d = json.load(opener(space, "rt"))
names = ["MWG", "NWG", "MDIMC", "NDIMC", "MDIMA", "NDIMB", "VWM", "VWN"]
cache = {}
for shape in shapes.split(";"):
    want = dict(zip(names, map(int, shape.split(","))))
    for sa in (0, 1):
        for sb in (0, 1):
            hits = [k for k, v in d["cache"].items()
                    if all(v.get(n) == x for n, x in want.items()) and v["SA"] == sa and v["SB"] == sb]
            if len(hits) != 1:
                sys.exit(f"ncu-gemm: {shape} SA={sa} SB={sb}: {len(hits)} configurations in {space}")
            cache[hits[0]] = d["cache"][hits[0]]
d["cache"] = cache
json.dump(d, gzip.open(dest, "wt"))
print(f"ncu-gemm: {len(cache)} configurations", file=sys.stderr)
EOF
log=$out/ncu-gemm.log
{ date -u; nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.mem,temperature.gpu,power.draw --format=csv
  ncu --version | tail -1; } > "$log" 2>&1
python3 scripts/gpu/measure-kt.py "$exp" --space "$tmp/space.json.gz" --out "$out/gemm-ncu-times.json.gz" \
  --iterations 10 >> "$log" 2>&1
ncu --set full -k regex:Xgemm --export "$tmp/gemm-ncu" --force-overwrite \
  python3 scripts/gpu/measure-kt.py "$exp" --space "$tmp/space.json.gz" --out "$out/gemm-under-ncu.json.gz" \
  --iterations 1 >> "$log" 2>&1
ncu --import "$tmp/gemm-ncu.ncu-rep" --csv --page raw | gzip -9 > "$out/gemm-ncu-raw.csv.gz"
date -u >> "$log"
