#!/usr/bin/env bash
# Regenerates crates/ptx/tests/data/ptxas-registers.tsv: the registers per
# thread ptxas allocates for every entry of the corpus PTX (kernels/*/sm_XX.ptx),
# the reference the PTX-only register estimate (ptx::analysis::registers) is
# tested against. A measurement of ptxas, not of any GPU.
#
# Usage: scripts/ptxas-registers.sh [SM]   (default sm_80; ptxas from
# $PTXPERF_PTXAS, else the one scripts/setup.sh puts in .venv)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
sm=${1:-sm_80}
ptxas=${PTXPERF_PTXAS:-$(ls "$root"/.venv/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas 2>/dev/null | head -n1)}
if [ -z "$ptxas" ] || [ ! -x "$ptxas" ]; then
  echo "ptxas not found: run scripts/setup.sh or set PTXPERF_PTXAS" >&2
  exit 1
fi
out="$root/crates/ptx/tests/data/ptxas-registers.tsv"
version=$("$ptxas" --version | grep -o 'V[0-9][0-9.]*' | head -n1)
{
  echo "# Registers per thread that ptxas allocates for each entry of the corpus."
  echo "# ptxas $version; per file: ptxas -v --gpu-name $sm kernels/<dir>/$sm.ptx -o /dev/null"
  echo "# Regenerate with scripts/ptxas-registers.sh $sm"
  printf 'kernel\tentry\tregisters\n'
  for ptx in "$root"/kernels/*/"$sm".ptx; do
    dir=$(basename "$(dirname "$ptx")")
    # Entries only: device functions are reported too but allocated apart.
    "$ptxas" -v --gpu-name "$sm" "$ptx" -o /dev/null 2>&1 | awk -v dir="$dir" '
      /Compiling entry function/ { split($0, q, "'"'"'"); entry = q[2]; next }
      /Function properties for/ { if (entry == "") skip = 1; next }
      /Used [0-9]+ registers/ {
        if (entry != "") { match($0, /Used [0-9]+ registers/); n = substr($0, RSTART + 5, RLENGTH - 15); print dir "\t" entry "\t" n }
        entry = ""
      }'
  done
} >"$out"
echo "wrote $out" >&2
