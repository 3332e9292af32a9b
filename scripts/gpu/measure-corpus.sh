#!/usr/bin/env bash
# Measures every kernel of the corpus on this machine's GPU and compares its
# outputs with the emulator: for each kernels/<name>/spec.toml, runs
#   ptxperf measure SPEC --ptx kernels/<name>/sm_XX.ptx --compare --json
# with sm_XX the highest checked-in PTX not above the device's compute
# capability (sm_90 on 9.x and newer, sm_80 on 8.x, sm_70 on 7.x), so no
# NVRTC is needed. A failing kernel (fault, JIT error, differing buffers) is
# recorded and the next one runs.
#
# Usage: bash scripts/gpu/measure-corpus.sh [PTXPERF] OUT
#   PTXPERF  the ptxperf binary built with the gpu feature (default: $PTXPERF):
#            cargo build --release --locked -p ptxperf --features gpu
#   OUT      output folder, created if needed
# Environment: REPS (default 20), WARMUP (default 3), SM (e.g. 80: force that
# PTX instead of asking nvidia-smi), TIMEOUT per kernel in s (default 600),
# KERNELS (space-separated names; default every kernel).
#
# Writes to OUT:
#   nvidia-smi.csv        name, driver_version, clocks.sm, clocks.max.sm
#   ptxperf-version.txt   `ptxperf --version`
#   corpus/<name>.json    the JSON object of `measure` (kept even when buffers differ)
#   corpus/<name>.err     stderr of a kernel whose measurement failed or differed
#   corpus.jsonl          one line per kernel: the JSON, or {"kernel":..,"error":..}
#   summary.csv           kernel,ptx,median_us,min_us,compare_status,error
# compare_status is the worst over the buffers: identical < within_tolerance <
# order_dependent (differs where the spec allows it) <
# different (or different_length); `error` when nothing was measured.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)

if [ $# -eq 2 ]; then
  bin=$1
  out=$2
elif [ $# -eq 1 ] && [ -n "${PTXPERF:-}" ]; then
  bin=$PTXPERF
  out=$1
else
  echo "usage: $0 [PTXPERF] OUT   (or set PTXPERF and give OUT)" >&2
  exit 2
fi
case $bin in /*) ;; */*) bin=$PWD/$bin ;; esac
case $out in /*) ;; *) out=$PWD/$out ;; esac
reps=${REPS:-20}
warmup=${WARMUP:-3}
limit=${TIMEOUT:-600}

mkdir -p "$out/corpus"
cd "$root"

"$bin" --version > "$out/ptxperf-version.txt"
if command -v nvidia-smi > /dev/null; then
  nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv \
    > "$out/nvidia-smi.csv" 2>&1 || true
fi

# The device's compute capability as an integer (8.9 -> 89).
if [ -n "${SM:-}" ]; then
  cc=$SM
else
  cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader | head -n 1 | tr -d ' ')
  cc=$(echo "$cap" | awk -F. '{ print $1 * 10 + $2 }')
fi
echo "compute capability ${cc}: using the highest kernels/*/sm_XX.ptx with XX <= ${cc}" >&2

# The highest sm_XX.ptx of kernel folder $1 with XX <= $cc (empty if none).
pick_ptx() {
  local best="" best_sm=0 f sm
  for f in "$1"/sm_*.ptx; do
    [ -e "$f" ] || continue
    sm=${f##*/sm_}
    sm=${sm%.ptx}
    if [ "$sm" -le "$cc" ] && [ "$sm" -gt "$best_sm" ]; then
      best=$f
      best_sm=$sm
    fi
  done
  echo "$best"
}

# A string as JSON (quotes, backslashes, control characters; lines joined by "; ").
json_string() {
  printf '%s' "$1" | tr '\n\t\r' '\034  ' | sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/\x1c/; /g' \
    | awk '{ printf "\"%s\"", $0 }'
}

# The value of numeric key $2 in the one-line JSON object $1.
json_number() {
  printf '%s' "$1" | sed -n "s/.*\"$2\":\([-0-9.eE+]*\).*/\1/p"
}

# The worst compare status in the JSON object $1.
worst_status() {
  local s
  s=$(printf '%s' "$1" | grep -o '"status":"[a-z_]*"' | sed 's/.*:"\(.*\)"/\1/' | sort -u)
  for w in different_length different order_dependent within_tolerance identical; do
    if printf '%s\n' "$s" | grep -qx "$w"; then
      echo "$w"
      return
    fi
  done
  echo "none"
}

: > "$out/corpus.jsonl"
echo "kernel,ptx,median_us,min_us,compare_status,error" > "$out/summary.csv"
if [ -n "${KERNELS:-}" ]; then
  names=$KERNELS
else
  names=$(for d in kernels/*/spec.toml; do basename "$(dirname "$d")"; done)
fi
failed=0
for name in $names; do
  dir=kernels/$name
  ptx=$(pick_ptx "$dir")
  stdout=$out/corpus/$name.stdout
  err=$out/corpus/$name.err
  rm -f "$out/corpus/$name.json" "$err"
  if [ -z "$ptx" ]; then
    msg="no sm_XX.ptx with XX <= $cc in $dir"
    status=1
    : > "$stdout"
    echo "$msg" > "$err"
  else
    set +e
    timeout "$limit" "$bin" measure "$dir/spec.toml" --ptx "$ptx" --compare --json \
      --reps "$reps" --warmup "$warmup" > "$stdout" 2> "$err"
    status=$?
    set -e
  fi
  # The JSON is the last line of stdout; device printf output comes before it.
  json=$(grep '^{"' "$stdout" | tail -n 1 || true)
  rm -f "$stdout"
  error=""
  if [ "$status" -ne 0 ]; then
    failed=$((failed + 1))
    error=$(grep -v '^\s*$' "$err" | head -n 3 || true)
    [ "$status" -eq 124 ] && error="timed out after ${limit} s"
    [ -n "$error" ] || error="exit status $status"
  else
    rm -f "$err"
  fi
  if [ -n "$json" ]; then
    printf '%s\n' "$json" > "$out/corpus/$name.json"
    printf '%s\n' "$json" >> "$out/corpus.jsonl"
    median=$(json_number "$json" median_ms | awk '{ printf "%.3f", $1 * 1000 }')
    min=$(json_number "$json" min_ms | awk '{ printf "%.3f", $1 * 1000 }')
    cmp=$(worst_status "$json")
  else
    printf '{"kernel":%s,"ptx":%s,"error":%s}\n' "$(json_string "$name")" \
      "$(json_string "$ptx")" "$(json_string "$error")" >> "$out/corpus.jsonl"
    median=""
    min=""
    cmp=error
  fi
  csv_error=$(printf '%s' "$error" | tr '\n' ' ' | sed 's/"/""/g')
  echo "$name,$ptx,$median,$min,$cmp,\"$csv_error\"" >> "$out/summary.csv"
  echo "$name: ${median:-?} us median, $cmp${error:+ ($(printf '%s' "$error" | head -n 1))}" >&2
done
echo "wrote $out/summary.csv and $out/corpus.jsonl ($failed kernel(s) failed or differed)" >&2
