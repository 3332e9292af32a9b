#!/usr/bin/env bash
# Fetches, at run time, the CUDA sources of the kernels behind the ground-truth
# measurements (../shared/data/groundtruth/README.md) into third_party/, which
# git ignores: these sources are third-party code and are never committed.
#
#   convolution   kernel_tuner 1.5.0 source package from PyPI (Apache-2.0),
#                 test/convolution.cu -> third_party/kernel_tuner/convolution.cu
#   dedispersion  AutoTuningAssociation/benchmark_hub, kernels/dedisp_milo/
#                 (MIT). It lives only on GitHub, which CI cannot reach, so it is
#                 copied from a local directory holding dedispersion.cu and
#                 dedispersion.h, given as the first argument or in
#                 PTXPERF_DEDISP_DIR, else the ground truth's copy
#                 (../shared/data/groundtruth/kernels/benchmark_hub/dedisp_milo,
#                 or $GROUNDTRUTH/kernels/...) where it is there
#                 -> third_party/benchmark_hub/dedisp_milo/
#   hotspot       AutoTuningAssociation/benchmark_hub, kernels/hotspot_milo.cu
#                 (MIT; experiments/hotspot-milo.toml), GitHub only as well:
#                 copied from the folder PTXPERF_HOTSPOT_DIR names (benchmark_hub's
#                 kernels/) -> third_party/benchmark_hub/hotspot_milo.cu
#
# Usage: scripts/fetch-validation-kernels.sh [DEDISP_DIR]
# Safe to run again: files already in place are left alone.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/third_party"
kt_version=1.5.0

# --- convolution ------------------------------------------------------------
conv_out="$dest/kernel_tuner/convolution.cu"
vadd_out="$dest/kernel_tuner/vector_add.cu"
if [ -f "$conv_out" ] && [ -f "$vadd_out" ]; then
  echo "kernel_tuner: $conv_out and $vadd_out already present, left alone"
else
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  echo "kernel_tuner: pip download --no-deps --no-binary :all: kernel_tuner==$kt_version into $tmp"
  "${PYTHON:-python3}" -m pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: \
    --dest "$tmp" "kernel_tuner==$kt_version"
  sdist=$(find "$tmp" -maxdepth 1 -name 'kernel_tuner-*.tar.gz' | head -n 1)
  if [ -z "$sdist" ]; then
    echo "kernel_tuner: no kernel_tuner source package was downloaded" >&2
    exit 1
  fi
  echo "kernel_tuner: unpacking $(basename "$sdist")"
  tar -xzf "$sdist" -C "$tmp"
  src=$(find "$tmp" -path '*/test/convolution.cu' | head -n 1)
  if [ -z "$src" ]; then
    echo "convolution: test/convolution.cu not found in $(basename "$sdist")" >&2
    exit 1
  fi
  mkdir -p "$dest/kernel_tuner"
  cp "$src" "$conv_out"
  # Keep the licence beside the copied files (Apache-2.0 asks for it).
  lic=$(find "$tmp" -maxdepth 2 -name 'LICENSE*' | head -n 1)
  if [ -n "$lic" ]; then cp "$lic" "$dest/kernel_tuner/LICENSE"; fi
  echo "convolution: wrote $conv_out ($(wc -c < "$conv_out") bytes)"
  # vector_add (the kt-vector-add ground truth) is a Python string in the
  # strategies test: the first kernel_string = """...""" of the file.
  strat=$(find "$tmp" -path '*/test/strategies/test_strategies.py' | head -n 1)
  if [ -z "$strat" ]; then
    echo "vector_add: test/strategies/test_strategies.py not found in $(basename "$sdist")" >&2
    exit 1
  fi
  "${PYTHON:-python3}" - "$strat" "$vadd_out" <<'PY'
import re, sys
text = open(sys.argv[1]).read()
m = re.search(r'kernel_string = """(.*?)"""', text, re.S)
if not m or "vector_add" not in m.group(1):
    sys.exit("vector_add: no vector_add kernel string in " + sys.argv[1])
open(sys.argv[2], "w").write(m.group(1).strip() + "\n")
PY
  echo "vector_add: wrote $vadd_out ($(wc -c < "$vadd_out") bytes)"
fi

dedisp_src=${1:-${PTXPERF_DEDISP_DIR:-}}
dedisp_out="$dest/benchmark_hub/dedisp_milo"
# The ground truth's copy of benchmark_hub's kernels (its README), where the
# shared data folder is beside the checkout (CI has it): the default.
shared_dedisp="${GROUNDTRUTH:-$root/../shared/data/groundtruth}/kernels/benchmark_hub/dedisp_milo"
if [ -z "$dedisp_src" ] && [ ! -f "$dedisp_out/dedispersion.cu" ] && [ -f "$shared_dedisp/dedispersion.cu" ]; then
  dedisp_src=$shared_dedisp
fi
if [ -z "$dedisp_src" ]; then
  if [ -f "$dedisp_out/dedispersion.cu" ]; then
    echo "dedispersion: $dedisp_out/dedispersion.cu already present, left alone"
  else
    cat <<EOF
dedispersion: skipped. Its source exists only on GitHub
  (https://github.com/AutoTuningAssociation/benchmark_hub, kernels/dedisp_milo/,
  MIT), which this script does not reach (CI has no GitHub access). Clone it
  where you can, then run:
    scripts/fetch-validation-kernels.sh /path/to/benchmark_hub/kernels/dedisp_milo
  or set PTXPERF_DEDISP_DIR to that directory.
EOF
  fi
else
  for f in dedispersion.cu dedispersion.h; do
    if [ ! -f "$dedisp_src/$f" ]; then
      echo "dedispersion: $dedisp_src/$f not found (expected kernels/dedisp_milo of benchmark_hub)" >&2
      exit 1
    fi
  done
  mkdir -p "$dedisp_out"
  cp "$dedisp_src/dedispersion.cu" "$dedisp_src/dedispersion.h" "$dedisp_out/"
  echo "dedispersion: copied dedispersion.cu and dedispersion.h from $dedisp_src to $dedisp_out"
fi

hotspot_src=${PTXPERF_HOTSPOT_DIR:-}
hotspot_out="$dest/benchmark_hub/hotspot_milo.cu"
if [ -z "$hotspot_src" ]; then
  if [ -f "$hotspot_out" ]; then
    echo "hotspot: $hotspot_out already present, left alone"
  else
    cat <<EOF
hotspot: skipped. Its source exists only on GitHub
  (https://github.com/AutoTuningAssociation/benchmark_hub, kernels/hotspot_milo.cu,
  MIT). Clone it where you can, then run:
    PTXPERF_HOTSPOT_DIR=/path/to/benchmark_hub/kernels scripts/fetch-validation-kernels.sh
EOF
  fi
else
  if [ ! -f "$hotspot_src/hotspot_milo.cu" ]; then
    echo "hotspot: $hotspot_src/hotspot_milo.cu not found (expected benchmark_hub's kernels/ folder)" >&2
    exit 1
  fi
  mkdir -p "$dest/benchmark_hub"
  cp "$hotspot_src/hotspot_milo.cu" "$hotspot_out"
  echo "hotspot: copied hotspot_milo.cu from $hotspot_src to $hotspot_out"
fi
