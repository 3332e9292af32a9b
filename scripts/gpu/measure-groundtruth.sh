#!/usr/bin/env bash
# Re-measures the ground-truth kernels on the GPU of this machine (run there,
# not in CI): Kernel Tuner's convolution and vector_add and the dedispersion
# kernel, over the configuration spaces of the ground-truth files, plus the
# shared-load/FMA issue microbenchmark. Writes Kernel Tuner cache files that
# `ptxperf validate --data` reads, and the environment, into OUT.
#
# Usage: scripts/gpu/measure-groundtruth.sh OUT SPACEDIR [PART...]
#   SPACEDIR holds the ground-truth files whose spaces are re-measured
#   (KT_convolution_RTX_3090.json.gz, dedispersion_milo_A4000.json.gz,
#   test_cache_time_energy.json: ../shared/data/groundtruth/*/).
#   PART: env microbench vector-add dedispersion convolution (default: all),
#   gemm pnpoly (SPACEDIR then holds KT_gemm_RTX_3090.json.gz and
#   KT_pnpoly_RTX_3090.json.gz: kt-gemm/ and kt-pnpoly/).
#   CONV_SAMPLE / DEDISP_SAMPLE / GEMM_SAMPLE / PNPOLY_SAMPLE: configurations
#   drawn (seed 1); 0 = all.
#   KERNELS: the folder holding benchmark_hub/{gemm,gemm_milo,pnpoly} (the
#   experiments read them from ../shared/data/groundtruth/kernels, which a
#   lent machine does not have).
#   BUDGET: seconds of timing per part at most (default 420).
#   COMPILE_BUDGET: seconds of compiling per part at most (default 150): the
#   convolution's 6,768 configurations do not all compile in one 10-minute
#   call of a lent machine (a first attempt ran past it and left nothing).
# Needs: nvidia-smi, nvcc, cuobjdump, python3 with CuPy and cuda-bindings,
# and the kernel sources in third_party/ (scripts/fetch-validation-kernels.sh).
set -euo pipefail
out=$1
space=$2
shift 2
parts=${*:-env microbench vector-add dedispersion convolution}
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
mkdir -p "$out"
export PYTHONUNBUFFERED=1
budget=${BUDGET:-420}
# The experiment, its kernel paths pointed at $KERNELS when that is set.
experiment() {
  if [ -z "${KERNELS:-}" ]; then echo "experiments/$1.toml"; return; fi
  local kernels copy
  kernels=$(cd "$KERNELS" && pwd)
  copy=$(mktemp -d)/$1.toml
  sed "s#\.\./\.\./shared/data/groundtruth/kernels#$kernels#g" "experiments/$1.toml" >"$copy"
  echo "$copy"
}
compile_budget=${COMPILE_BUDGET:-150}
for part in $parts; do
  case $part in
    env)
      { nvidia-smi; nvidia-smi -q -d CLOCK,POWER,PERFORMANCE; nvcc --version
        python3 -c 'import cupy, numpy; print("cupy", cupy.__version__, "numpy", numpy.__version__)'
        python3 -c 'from cuda.bindings import nvrtc; print("nvrtc", nvrtc.nvrtcVersion())'
      } >"$out/env.txt" 2>&1 || true ;;
    microbench)
      python3 scripts/gpu/microbench-issue.py "$out" ;;
    vector-add)
      python3 scripts/gpu/measure-kt.py experiments/vector-add.toml --drop-param nvml_gr_clock \
        --space "$space/test_cache_time_energy.json" --out "$out/vector_add.json" --budget "$budget" ;;
    dedispersion)
      python3 scripts/gpu/measure-kt.py experiments/dedispersion.toml --sample "${DEDISP_SAMPLE:-300}" --seed 1 \
        --space "$space/dedispersion_milo_A4000.json.gz" --out "$out/dedispersion.json.gz" --budget "$budget" --compile-budget "$compile_budget" ;;
    convolution)
      python3 scripts/gpu/measure-kt.py experiments/convolution.toml --sample "${CONV_SAMPLE:-0}" --seed 1 \
        --space "$space/KT_convolution_RTX_3090.json.gz" --out "$out/convolution.json.gz" --budget "$budget" --compile-budget "$compile_budget" ;;
    gemm)
      python3 scripts/gpu/measure-kt.py "$(experiment gemm)" --sample "${GEMM_SAMPLE:-0}" --seed 1 \
        --space "$space/KT_gemm_RTX_3090.json.gz" --out "$out/gemm.json.gz" --budget "$budget" --compile-budget "$compile_budget" ;;
    pnpoly)
      # A point on an edge may be decided differently by the between_method
      # variants: one in a million may differ.
      python3 scripts/gpu/measure-kt.py "$(experiment pnpoly)" --sample "${PNPOLY_SAMPLE:-0}" --seed 1 --max-mismatch 1e-6 \
        --space "$space/KT_pnpoly_RTX_3090.json.gz" --out "$out/pnpoly.json.gz" --budget "$budget" --compile-budget "$compile_budget" ;;
    *) echo "unknown part $part" >&2; exit 2 ;;
  esac
done
