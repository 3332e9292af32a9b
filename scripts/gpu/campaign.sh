#!/usr/bin/env bash
# Everything a lent GPU machine should measure for this project, in one call
# that ends within about nine minutes (a lent machine gives ten minutes a
# command and fifteen a session): the environment, the conformance kit, the
# clock and rates the GPU holds under load, the issue microbenchmark, and
# the ground-truth kernels (vector_add, dedispersion, convolution) over
# samples of the ground-truth spaces. `nvidia-smi dmon` logs clocks, power
# and temperature every second throughout. Each part has a time budget; a
# part that fails is logged and the next one runs. Everything is packed into
# OUT/results.tgz (the device tool returns at most eight files), the log
# into OUT/log.txt.
#
# Usage: scripts/gpu/campaign.sh OUT KIT SPACEDIR
#   KIT: what `ptxperf conformance gen --out KIT` wrote (on any machine).
#   SPACEDIR: KT_convolution_RTX_3090.json.gz, dedispersion_milo_A4000.json.gz
#   and test_cache_time_energy.json from ../shared/data/groundtruth.
#   Needs third_party/ (scripts/fetch-validation-kernels.sh) beside it.
#   DEADLINE: seconds the whole script may take (default 530).
set -uo pipefail
out=$1
kit=$2
space=$3
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
mkdir -p "$out"
stage=$(mktemp -d)
export PYTHONUNBUFFERED=1
start=$(date +%s)
deadline=$((start + ${DEADLINE:-530}))
left() { echo $((deadline - $(date +%s))); }
say() { echo "campaign: +$(($(date +%s) - start))s $*"; }

nvidia-smi dmon -s pucm -d 1 >"$stage/dmon.txt" 2>&1 &
dmon=$!

say "env"
timeout 30 bash scripts/gpu/measure-groundtruth.sh "$stage" "$space" env || say "env failed ($?)"
python3 - >"$stage/device-properties.json" <<'PY' || say "device properties failed"
import cupy, json
p = cupy.cuda.runtime.getDeviceProperties(cupy.cuda.Device().id)
print(json.dumps({k: (v.decode(errors="replace") if isinstance(v, bytes) else v) for k, v in p.items()
                  if isinstance(v, (int, float, str, bytes))}, indent=1, sort_keys=True))
PY
{ python3 -m pip list 2>/dev/null | grep -i -E '^(cupy|numpy|cuda|nvidia-cuda)'; uname -a; nproc; } >>"$stage/env.txt" 2>&1

say "conformance"
conf_end=$(($(date +%s) + 150))
resume=""
for try in 1 2 3 4 5 6 7 8; do
  budget=$((conf_end - $(date +%s)))
  [ "$budget" -le 5 ] && { say "conformance: out of time after $((try - 1)) tries"; break; }
  timeout "$budget" python3 scripts/gpu/conformance.py "$kit" --out "$stage/conformance" $resume
  rc=$?
  [ "$rc" -eq 0 ] && break
  say "conformance: try $try ended with $rc; resuming"
  resume="--resume"
done

say "clock under load"
timeout 70 python3 scripts/gpu/clock-under-load.py "$stage/clock-under-load.json" --seconds 15 || say "clock failed ($?)"

say "issue microbenchmark"
timeout 60 bash scripts/gpu/measure-groundtruth.sh "$stage" "$space" microbench || say "microbench failed ($?)"

say "vector_add"
BUDGET=15 timeout 45 bash scripts/gpu/measure-groundtruth.sh "$stage" "$space" vector-add || say "vector-add failed ($?)"

say "dedispersion"
DEDISP_SAMPLE=${DEDISP_SAMPLE:-200} BUDGET=75 COMPILE_BUDGET=30 timeout 140 \
  bash scripts/gpu/measure-groundtruth.sh "$stage" "$space" dedispersion || say "dedispersion failed ($?)"

conv_left=$(($(left) - 15))
if [ "$conv_left" -gt 60 ]; then
  say "convolution ($conv_left s)"
  CONV_SAMPLE=${CONV_SAMPLE:-400} BUDGET=30 COMPILE_BUDGET=$((conv_left - 45)) timeout "$conv_left" \
    bash scripts/gpu/measure-groundtruth.sh "$stage" "$space" convolution || say "convolution failed ($?)"
else
  say "convolution skipped: $conv_left s left"
fi

kill "$dmon" 2>/dev/null
say "packing"
tar -czf "$out/results.tgz" -C "$stage" .
say "done"
