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
#                 PTXPERF_DEDISP_DIR -> third_party/benchmark_hub/dedisp_milo/
#
# Usage: scripts/fetch-validation-kernels.sh [DEDISP_DIR]
# Safe to run again: files already in place are left alone.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
dest="$root/third_party"
kt_version=1.5.0

# --- convolution ------------------------------------------------------------
conv_out="$dest/kernel_tuner/convolution.cu"
if [ -f "$conv_out" ]; then
  echo "convolution: $conv_out already present, left alone"
else
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  echo "convolution: pip download --no-deps --no-binary :all: kernel_tuner==$kt_version into $tmp"
  "${PYTHON:-python3}" -m pip download --quiet --disable-pip-version-check --no-deps --no-binary :all: \
    --dest "$tmp" "kernel_tuner==$kt_version"
  sdist=$(find "$tmp" -maxdepth 1 -name 'kernel_tuner-*.tar.gz' | head -n 1)
  if [ -z "$sdist" ]; then
    echo "convolution: no kernel_tuner source package was downloaded" >&2
    exit 1
  fi
  echo "convolution: unpacking $(basename "$sdist")"
  tar -xzf "$sdist" -C "$tmp"
  src=$(find "$tmp" -path '*/test/convolution.cu' | head -n 1)
  if [ -z "$src" ]; then
    echo "convolution: test/convolution.cu not found in $(basename "$sdist")" >&2
    exit 1
  fi
  mkdir -p "$dest/kernel_tuner"
  cp "$src" "$conv_out"
  # Keep the licence beside the copied file (Apache-2.0 asks for it).
  lic=$(find "$tmp" -maxdepth 2 -name 'LICENSE*' | head -n 1)
  if [ -n "$lic" ]; then cp "$lic" "$dest/kernel_tuner/LICENSE"; fi
  echo "convolution: wrote $conv_out ($(wc -c < "$conv_out") bytes)"
fi

# --- dedispersion -----------------------------------------------------------
dedisp_src=${1:-${PTXPERF_DEDISP_DIR:-}}
dedisp_out="$dest/benchmark_hub/dedisp_milo"
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
