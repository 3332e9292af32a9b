#!/usr/bin/env bash
# Regenerates docs/validation/README.md and its plots: `ptxperf validate` on
# every dataset of ../shared/data/groundtruth (convolution and dedispersion),
# every model, a seeded sample of configurations per dataset; and where each
# dataset's time went (scripts/validation-timings.py, from the JSON's timings).
#
# Usage: scripts/validation-report.sh
#   SAMPLE=100     configurations sampled per convolution dataset (default 100)
#   DEDISP_SAMPLE= configurations sampled per dedispersion dataset (default SAMPLE)
#   SEED=1         seed of the sample
#   CTAS=4         CTAs emulated per configuration (--sample-ctas)
#   JOBS=<cores>   worker threads
#   BENCH=1        also time BENCH_N convolution configurations on the RTX 3090
#                  with an empty PTX cache (the issue's speed target), with
#                  their time breakdown (--timings)
#   BENCH_N=500    configurations of the benchmark
#   GROUNDTRUTH=   the data folder (default ../shared/data/groundtruth)
#   SAVE_PROFILES=DIR  also save every configuration's profile (and PTX) under
#                  DIR/<gpu>/, with the settings in DIR/settings.txt, and pack
#                  the profiles into docs/validation/profiles.tar.xz beside the
#                  report (scripts/profiles-archive.py; about 64 KB). Needs
#                  KTCONV_PROFILES, DEDISP_PROFILES, SCHOON_PROFILES and
#                  H100_PROFILES set to none, so that their sampled rows are
#                  emulated and saved (the learned model trains on them)
#   PROFILES=DIR   rescore the profiles a SAVE_PROFILES run left in DIR (or the
#                  archive, PROFILES=docs/validation/profiles.tar.xz) instead
#                  of compiling and emulating (seconds instead of most of an
#                  hour): for a change to the models only; SAMPLE, DEDISP_SAMPLE,
#                  SEED and CTAS must be the saving run's
#   GEMM_PROFILES= the GEMM rows: always rescored from this archive or folder
#                  (default docs/validation/profiles-gemm.tar.xz; `none`: no
#                  GEMM rows), with the samples, seed and CTAs of its
#                  settings.txt; scripts/gemm-profiles.sh emulates it (2,000
#                  configurations per GPU take about an hour and a half)
#   PNPOLY_PROFILES= the pnpoly rows, the same way: rescored from this archive
#                  or folder (default docs/validation/profiles-pnpoly.tar.xz;
#                  `none`: no pnpoly rows); scripts/pnpoly-profiles.sh
#                  emulates it (every configuration in about half an hour)
#   DEDISP_PROFILES= the dedispersion rows of the RTX A4000 and RTX A6000:
#                  rescored from this archive or folder (default
#                  docs/validation/profiles-dedispersion-unbudgeted.tar.xz,
#                  2,000 configurations per GPU emulated without the work
#                  budget by scripts/dedisp-unbudgeted.py;
#                  docs/validation/profiles-dedispersion.tar.xz holds the
#                  same 2,000 emulated with one by scripts/dedisp-profiles.sh),
#                  with the work budget its settings.txt names (BUDGET=N) or
#                  none (BUDGET=none), which the rescoring repeats; `none`:
#                  DEDISP_SAMPLE configurations emulated or rescored like the
#                  convolution's)
#   KTCONV_PROFILES= the whole-space rows of Kernel Tuner's convolution: the
#                  GPUs its settings.txt lists (GPUS=) are rescored from this
#                  archive or folder, every configuration (default
#                  docs/validation/profiles-kt-convolution.tar.xz; `none`: the
#                  sampled rows for every GPU); scripts/kt-convolution-profiles.sh
#                  emulates it (hours: it resumes where it was stopped)
#   SCHOON_PROFILES= the Schoonhoven convolution rows (GTX 1080 Ti, GTX TITAN
#                  X, Tesla K20m, Tesla P100, RTX 2070 SUPER): rescored from
#                  this archive or folder, with the sample, seed and CTAs of
#                  its settings.txt (default
#                  docs/validation/profiles-schoonhoven.tar.xz; `none`: SAMPLE
#                  configurations emulated or rescored like the other
#                  convolution rows); scripts/schoonhoven-profiles.sh emulates
#                  it (2,000 configurations per GPU in about 75 minutes). An
#                  archive of every configuration (SCHOON_SAMPLE=all) makes
#                  them whole-space rows, judged and split by part like the
#                  Kernel Tuner convolution's, with the transferred best of
#                  the other four GPUs
#   H100_PROFILES= the rows of the three kernels this project measured on its
#                  H100 (vector_add, dedispersion, convolution; development
#                  data, not judged): rescored from this archive or folder,
#                  with the sample, seed and CTAs of its settings.txt
#                  (default docs/validation/profiles-h100.tar.xz, every
#                  configuration; `none`: SAMPLE and DEDISP_SAMPLE
#                  configurations emulated or rescored like the others);
#                  scripts/h100-profiles.sh emulates it (about 23 minutes)
#
# Needs NVRTC (scripts/setup.sh) and the kernel sources
# (scripts/fetch-validation-kernels.sh).
set -euo pipefail
# Folders the caller names are relative to where the script was started.
absolute() { case $1 in "" | /*) printf '%s' "$1" ;; *) printf '%s/%s' "$PWD" "$1" ;; esac; }
save=$(absolute "${SAVE_PROFILES:-}")
profiles=$(absolute "${PROFILES:-}")
gemm_profiles=${GEMM_PROFILES:-}
[ "$gemm_profiles" = none ] || gemm_profiles=$(absolute "$gemm_profiles")
pnpoly_profiles=${PNPOLY_PROFILES:-}
[ "$pnpoly_profiles" = none ] || pnpoly_profiles=$(absolute "$pnpoly_profiles")
ktconv_profiles=${KTCONV_PROFILES:-}
dedisp_profiles=${DEDISP_PROFILES:-}
[ "$dedisp_profiles" = none ] || dedisp_profiles=$(absolute "$dedisp_profiles")
[ "$ktconv_profiles" = none ] || ktconv_profiles=$(absolute "$ktconv_profiles")
schoon_profiles=${SCHOON_PROFILES:-}
[ "$schoon_profiles" = none ] || schoon_profiles=$(absolute "$schoon_profiles")
h100_profiles=${H100_PROFILES:-}
[ "$h100_profiles" = none ] || h100_profiles=$(absolute "$h100_profiles")
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
sample=${SAMPLE:-100}
dedisp_sample=${DEDISP_SAMPLE:-$sample}
bench_n=${BENCH_N:-500}
seed=${SEED:-1}
ctas=${CTAS:-4}
jobs=${JOBS:-$(nproc)}
data=${GROUNDTRUTH:-$root/../shared/data/groundtruth}
out=docs/validation
plots=$out/plots
target=${CARGO_TARGET_DIR:-$root/target}
settings="SAMPLE=$sample DEDISP_SAMPLE=$dedisp_sample SEED=$seed CTAS=$ctas"
if [ -n "$save" ] && [ -n "$profiles" ]; then
  echo "SAVE_PROFILES and PROFILES exclude each other: a run either emulates (and saves) or rescores" >&2
  exit 1
fi
# profiles.tar.xz holds the samples that train the learned model for the
# GPUs no larger archive covers in training (the five Schoonhoven GPUs, the
# H100, the RTX 4000 Ada): a saving run packs only the rows it emulates, so
# every row that an archive would rescore must be emulated (docs/validation/
# learned.md, "The samples emulated again").
if [ -n "$save" ]; then
  kept=""
  for setting in KTCONV_PROFILES DEDISP_PROFILES SCHOON_PROFILES H100_PROFILES; do
    if [ "${!setting:-}" != none ]; then kept="$kept $setting"; fi
  done
  if [ -n "$kept" ]; then
    echo "SAVE_PROFILES packs docs/validation/profiles.tar.xz from the rows this run emulates, but the rows of" >&2
    echo "${kept# } would be rescored from their archives and left out of it (and out of the learned model's" >&2
    echo "training): set them to none (docs/validation/learned.md, \"The samples emulated again\")" >&2
    exit 1
  fi
fi
profiles_from=""
if [ -n "$profiles" ] && [ -f "$profiles" ]; then
  # An archive: rescore the profiles it holds from a scratch folder.
  unpacked=$(mktemp -d)
  trap 'rm -rf "$unpacked"' EXIT
  python3 scripts/profiles-archive.py unpack "$profiles" "$unpacked"
  profiles=$unpacked
fi
if [ -n "$profiles" ]; then
  if [ ! -f "$profiles/settings.txt" ]; then
    echo "PROFILES=$profiles has no settings.txt: give the folder a SAVE_PROFILES run wrote" >&2
    exit 1
  fi
  if ! grep -qxF "settings: $settings" "$profiles/settings.txt"; then
    echo "PROFILES=$profiles was saved with other settings than $settings:" >&2
    cat "$profiles/settings.txt" >&2
    exit 1
  fi
  profiles_from=$(sed -n 's/^emulated: //p' "$profiles/settings.txt")
fi

# The GEMM and pnpoly rows: rescored from their own archives (never emulated
# here). `extra_dir NAME ARCHIVE` prints the folder of the profiles (the
# archive unpacked into a scratch folder, or the folder itself), or nothing
# when ARCHIVE is `none`, or empty and docs/validation/profiles-NAME.tar.xz
# is missing.
extra_dir() {
  local name=$1 given=$2
  local default=$root/$out/profiles-$name.tar.xz
  if [ -z "$given" ] && [ -f "$default" ]; then given=$default; fi
  if [ -z "$given" ] || [ "$given" = none ]; then return 0; fi
  if [ -f "$given" ]; then
    local d
    d=$(mktemp -d)
    python3 scripts/profiles-archive.py unpack "$given" "$d" >&2
    printf '%s' "$d"
  else
    printf '%s' "$given"
  fi
}
# KEY=VALUE from the "settings: ..." line of a profiles folder's settings.txt.
folder_setting() { sed -n 's/^settings: //p' "$1/settings.txt" 2>/dev/null | tr ' ' '\n' | sed -n "s/^$2=//p"; }
folder_from() { sed -n 's/^emulated: //p' "$1/settings.txt" 2>/dev/null || true; }
gemm_dir=$(extra_dir gemm "$gemm_profiles")
if [ -n "$gemm_dir" ]; then
  gemm_sample=$(folder_setting "$gemm_dir" GEMM_SAMPLE)
  gemm_laptop_sample=$(folder_setting "$gemm_dir" GEMM_LAPTOP_SAMPLE)
  gemm_laptop_sample=${gemm_laptop_sample:-$gemm_sample}
  gemm_seed=$(folder_setting "$gemm_dir" SEED)
  gemm_ctas=$(folder_setting "$gemm_dir" CTAS)
  gemm_from=$(folder_from "$gemm_dir")
  if [ -z "$gemm_sample" ] || [ -z "$gemm_seed" ] || [ -z "$gemm_ctas" ]; then
    echo "GEMM_PROFILES=$gemm_profiles: its settings.txt must say \"settings: GEMM_SAMPLE=N SEED=S CTAS=K\" (scripts/gemm-profiles.sh)" >&2
    exit 1
  fi
fi
pnpoly_dir=$(extra_dir pnpoly "$pnpoly_profiles")
if [ -n "$pnpoly_dir" ]; then
  pnpoly_sample=$(folder_setting "$pnpoly_dir" PNPOLY_SAMPLE)
  pnpoly_seed=$(folder_setting "$pnpoly_dir" SEED)
  pnpoly_ctas=$(folder_setting "$pnpoly_dir" CTAS)
  pnpoly_from=$(folder_from "$pnpoly_dir")
  if [ -z "$pnpoly_sample" ] || [ -z "$pnpoly_seed" ] || [ -z "$pnpoly_ctas" ]; then
    echo "PNPOLY_PROFILES=$pnpoly_profiles: its settings.txt must say \"settings: PNPOLY_SAMPLE=N|all SEED=S CTAS=K\" (scripts/pnpoly-profiles.sh)" >&2
    exit 1
  fi
fi
dedisp_dir=$(extra_dir dedispersion-unbudgeted "$dedisp_profiles")
if [ -n "$dedisp_dir" ]; then
  dedisp_archive_sample=$(folder_setting "$dedisp_dir" DEDISP_SAMPLE)
  dedisp_seed=$(folder_setting "$dedisp_dir" SEED)
  dedisp_ctas=$(folder_setting "$dedisp_dir" CTAS)
  dedisp_budget=$(folder_setting "$dedisp_dir" BUDGET)
  dedisp_from=$(folder_from "$dedisp_dir")
  if [ -z "$dedisp_archive_sample" ] || [ -z "$dedisp_seed" ] || [ -z "$dedisp_ctas" ] || [ -z "$dedisp_budget" ]; then
    echo "DEDISP_PROFILES=$dedisp_profiles: its settings.txt must say \"settings: DEDISP_SAMPLE=N|all SEED=S CTAS=K BUDGET=B\" (scripts/dedisp-profiles.sh)" >&2
    exit 1
  fi
fi
schoon_dir=$(extra_dir schoonhoven "$schoon_profiles")
if [ -n "$schoon_dir" ]; then
  schoon_sample=$(folder_setting "$schoon_dir" SCHOON_SAMPLE)
  schoon_seed=$(folder_setting "$schoon_dir" SEED)
  schoon_ctas=$(folder_setting "$schoon_dir" CTAS)
  schoon_ptx_arch=$(folder_setting "$schoon_dir" PTX_ARCH)
  schoon_from=$(folder_from "$schoon_dir")
  if [ -z "$schoon_sample" ] || [ -z "$schoon_seed" ] || [ -z "$schoon_ctas" ]; then
    echo "SCHOON_PROFILES=$schoon_profiles: its settings.txt must say \"settings: SCHOON_SAMPLE=N|all SEED=S CTAS=K\" (scripts/schoonhoven-profiles.sh)" >&2
    exit 1
  fi
fi
h100_dir=$(extra_dir h100 "$h100_profiles")
if [ -n "$h100_dir" ]; then
  h100_sample=$(folder_setting "$h100_dir" H100_SAMPLE)
  h100_seed=$(folder_setting "$h100_dir" SEED)
  h100_ctas=$(folder_setting "$h100_dir" CTAS)
  h100_from=$(folder_from "$h100_dir")
  if [ -z "$h100_sample" ] || [ -z "$h100_seed" ] || [ -z "$h100_ctas" ]; then
    echo "H100_PROFILES=$h100_profiles: its settings.txt must say \"settings: H100_SAMPLE=N|all SEED=S CTAS=K\" (scripts/h100-profiles.sh)" >&2
    exit 1
  fi
fi
ktconv_dir=$(extra_dir kt-convolution "$ktconv_profiles")
ktconv_gpus=""
ktconv_ptx_arch=""
if [ -n "$ktconv_dir" ]; then
  ktconv_gpus=$(folder_setting "$ktconv_dir" GPUS)
  ktconv_ctas=$(folder_setting "$ktconv_dir" CTAS)
  ktconv_ptx_arch=$(folder_setting "$ktconv_dir" PTX_ARCH)
  ktconv_from=$(folder_from "$ktconv_dir")
  if [ -z "$ktconv_gpus" ] || [ -z "$ktconv_ctas" ]; then
    echo "KTCONV_PROFILES=$ktconv_profiles: its settings.txt must say \"settings: KTCONV_SAMPLE=all SEED=1 CTAS=K GPUS=a,b\" (scripts/kt-convolution-profiles.sh)" >&2
    exit 1
  fi
fi
# Whether the whole-space archive holds GPU $1's convolution profiles.
ktconv_has() { [ -n "$ktconv_gpus" ] && [[ ",$ktconv_gpus," == *",$1,"* ]]; }

if [ ! -f third_party/kernel_tuner/convolution.cu ]; then
  echo "third_party/kernel_tuner/convolution.cu is missing: run scripts/fetch-validation-kernels.sh" >&2
  exit 1
fi
cargo build --release -p ptxperf --quiet
bin="$target/release/ptxperf"

tmp=$(mktemp -d)
gemm_unpacked=""
[ "$gemm_dir" = "$gemm_profiles" ] || gemm_unpacked=$gemm_dir
pnpoly_unpacked=""
[ "$pnpoly_dir" = "$pnpoly_profiles" ] || pnpoly_unpacked=$pnpoly_dir
ktconv_unpacked=""
[ "$ktconv_dir" = "$ktconv_profiles" ] || ktconv_unpacked=$ktconv_dir
dedisp_unpacked=""
[ "$dedisp_dir" = "$dedisp_profiles" ] || dedisp_unpacked=$dedisp_dir
schoon_unpacked=""
[ "$schoon_dir" = "$schoon_profiles" ] || schoon_unpacked=$schoon_dir
h100_unpacked=""
[ "$h100_dir" = "$h100_profiles" ] || h100_unpacked=$h100_dir
trap 'rm -rf "$tmp" ${unpacked:+"$unpacked"} ${gemm_unpacked:+"$gemm_unpacked"} ${pnpoly_unpacked:+"$pnpoly_unpacked"} ${ktconv_unpacked:+"$ktconv_unpacked"} ${dedisp_unpacked:+"$dedisp_unpacked"} ${schoon_unpacked:+"$schoon_unpacked"} ${h100_unpacked:+"$h100_unpacked"}' EXIT
rm -rf "$plots"
mkdir -p "$plots"

# dataset file (relative to the data folder) | experiment | catalog id
datasets=(
  "kt-convolution/KT_convolution_RTX_2080_Ti.json.gz|experiments/convolution.toml|geforce-rtx-2080-ti"
  "kt-convolution/KT_convolution_RTX_3060_laptop.json.gz|experiments/convolution.toml|geforce-rtx-3060-laptop"
  "kt-convolution/KT_convolution_RTX_3090.json.gz|experiments/convolution.toml|geforce-rtx-3090"
  "kt-convolution/KT_convolution_RTX_Titan.json.gz|experiments/convolution.toml|titan-rtx"
  "schoonhoven-convolution/convolution_GTX_1080Ti.csv.gz|experiments/convolution.toml|geforce-gtx-1080-ti"
  "schoonhoven-convolution/convolution_GTX_Titan_X.csv.gz|experiments/convolution.toml|geforce-gtx-titan-x-maxwell"
  "schoonhoven-convolution/convolution_K20.csv.gz|experiments/convolution.toml|tesla-k20m"
  "schoonhoven-convolution/convolution_P100.csv.gz|experiments/convolution.toml|tesla-p100-pcie-16gb"
  "schoonhoven-convolution/convolution_RTX_2070_SUPER.csv.gz|experiments/convolution.toml|geforce-rtx-2070-super"
  "dedispersion/dedispersion_milo_A4000.json.gz|experiments/dedispersion.toml|rtx-a4000"
  "dedispersion/dedispersion_milo_A6000.json.gz|experiments/dedispersion.toml|rtx-a6000"
  "kt-vector-add/test_cache_time_energy.json|experiments/vector-add.toml|rtx-4000-ada"
  # Measured by this project (data/measured/*/README.md), held out: a path
  # starting with data/ is relative to the repository.
  "data/measured/h100-sxm5-80gb/vector_add.json|experiments/vector-add.toml|h100-sxm5-80gb"
  "data/measured/h100-sxm5-80gb/dedispersion.json.gz|experiments/dedispersion.toml|h100-sxm5-80gb"
  "data/measured/h100-sxm5-80gb/convolution.json.gz|experiments/convolution.toml|h100-sxm5-80gb"
)
if [ -n "$gemm_dir" ]; then
  datasets+=(
    "kt-gemm/KT_gemm_RTX_2080_Ti.json.gz|experiments/gemm.toml|geforce-rtx-2080-ti"
    "kt-gemm/KT_gemm_RTX_3060_laptop.json.gz|experiments/gemm.toml|geforce-rtx-3060-laptop"
    "kt-gemm/KT_gemm_RTX_3090.json.gz|experiments/gemm.toml|geforce-rtx-3090"
    "kt-gemm/KT_gemm_RTX_Titan.json.gz|experiments/gemm.toml|titan-rtx"
  )
fi
# pnpoly on the two GPUs whose files data/split.toml does not exclude.
if [ -n "$pnpoly_dir" ]; then
  datasets+=(
    "kt-pnpoly/KT_pnpoly_RTX_3060_laptop.json.gz|experiments/pnpoly.toml|geforce-rtx-3060-laptop"
    "kt-pnpoly/KT_pnpoly_RTX_3090.json.gz|experiments/pnpoly.toml|geforce-rtx-3090"
  )
fi

start=$(date +%s)
n=0
for entry in "${datasets[@]}"; do
  IFS='|' read -r file experiment gpu <<<"$entry"
  n=$((n + 1))
  section="$tmp/$(printf '%02d' "$n").md"
  path="$data/$file"
  shown_path="../shared/data/groundtruth/$file"
  case $file in data/*) path="$root/$file"; shown_path=$file ;; esac
  # Issue 9's bar holds for the ground truth of the convolution and the
  # dedispersion; the other datasets are shown in the summary, not judged.
  case $file in
    kt-convolution/* | schoonhoven-convolution/* | dedispersion/*) kind=bar ;;
    kt-gemm/*) kind=gemm ;;
    kt-pnpoly/*) kind=pnpoly ;;
    *) kind=other ;;
  esac
  if [ "$experiment" = experiments/dedispersion.toml ] && [ ! -f third_party/benchmark_hub/dedisp_milo/dedispersion.cu ]; then
    printf '## %s on %s\n\nSkipped: the dedispersion source is not in third_party/ (see scripts/fetch-validation-kernels.sh).\n' \
      "$file" "$gpu" >"$section"
    printf '%s\t%s\t-\n' "${file%%.*}" "$kind" >>"$tmp/summary.list"
    continue
  fi
  n_sample=$sample
  n_seed=$seed
  n_ctas=$ctas
  if [ "$experiment" = experiments/dedispersion.toml ]; then n_sample=$dedisp_sample; fi
  if [ "$kind" = gemm ]; then
    n_sample=$gemm_sample; n_seed=$gemm_seed; n_ctas=$gemm_ctas
    case $file in *3060_laptop*) n_sample=$gemm_laptop_sample ;; esac
  fi
  if [ "$kind" = pnpoly ]; then
    n_sample=$pnpoly_sample; n_seed=$pnpoly_seed; n_ctas=$pnpoly_ctas
  fi
  # The ground truth's dedispersion from its own archive (not the H100's).
  archived_dedisp=0
  case $file in dedispersion/*) if [ -n "$dedisp_dir" ]; then archived_dedisp=1; fi ;; esac
  budget_args=()
  if [ "$archived_dedisp" = 1 ]; then
    n_sample=$dedisp_archive_sample; n_seed=$dedisp_seed; n_ctas=$dedisp_ctas
    [ "$dedisp_budget" = none ] || budget_args=(--work-budget "$dedisp_budget")
  fi
  # The Schoonhoven convolution from its own archive.
  archived_schoon=0
  case $file in schoonhoven-convolution/*) if [ -n "$schoon_dir" ]; then archived_schoon=1; fi ;; esac
  if [ "$archived_schoon" = 1 ]; then
    n_sample=$schoon_sample; n_seed=$schoon_seed; n_ctas=$schoon_ctas
  fi
  # The H100's three kernels from their own archive.
  archived_h100=0
  case $file in data/measured/h100-sxm5-80gb/*) if [ -n "$h100_dir" ]; then archived_h100=1; fi ;; esac
  if [ "$archived_h100" = 1 ]; then
    n_sample=$h100_sample; n_seed=$h100_seed; n_ctas=$h100_ctas
  fi
  whole_conv=0
  case $file in kt-convolution/*) if ktconv_has "$gpu"; then whole_conv=1; fi ;; esac
  if [ "$whole_conv" = 1 ]; then
    n_sample=all; n_ctas=$ktconv_ctas
  fi
  # A whole space, judged against issue 26's bar and shown by part beside the
  # transferred best of every other GPU of the same campaign (the datasets
  # above in the same folder): the profiles' folder.
  whole_dir=""
  if [ "$whole_conv" = 1 ]; then
    whole_dir=$ktconv_dir
  elif [ "$archived_schoon" = 1 ] && [ "$n_sample" = all ]; then
    whole_dir=$schoon_dir
  fi
  # `all`: every configuration, no --sample.
  sample_args=(--sample "$n_sample" --seed "$n_seed")
  shown_sample="--sample $n_sample --seed $n_seed"
  if [ "$n_sample" = all ]; then sample_args=(); shown_sample=""; fi
  echo "validation-report: $file on $gpu (--sample $n_sample)" >&2
  # The command as written in the report: paths relative to the repository,
  # the data folder as ../shared/data/groundtruth.
  shown="ptxperf validate $experiment --data $shown_path --gpu $gpu${shown_sample:+ $shown_sample} --sample-ctas $n_ctas${budget_args[*]:+ ${budget_args[*]}} --jobs $jobs --svg $plots --markdown SECTION.md"
  reuse=()
  # Scatter plots, except of the GEMM's thousands of points (200 KB per model
  # and GPU; its section has the figures).
  svg=(--svg "$plots")
  if [ "$kind" = gemm ] || [ "$kind" = pnpoly ] || [ "$whole_conv" = 1 ] || [ "$archived_dedisp" = 1 ] || [ "$archived_schoon" = 1 ]; then
    svg=()
    shown=${shown/ --svg $plots/}
    if [ "$kind" = gemm ]; then
      reuse=(--profiles "$gemm_dir")
      shown="$shown --profiles GEMM_PROFILES"
    elif [ "$whole_conv" = 1 ]; then
      reuse=(--profiles "$ktconv_dir")
      shown="$shown --profiles KTCONV_PROFILES"
    elif [ "$archived_dedisp" = 1 ]; then
      reuse=(--profiles "$dedisp_dir")
      shown="$shown --profiles DEDISP_PROFILES"
    elif [ "$archived_schoon" = 1 ]; then
      reuse=(--profiles "$schoon_dir")
      shown="$shown --profiles SCHOON_PROFILES"
    else
      reuse=(--profiles "$pnpoly_dir")
      shown="$shown --profiles PNPOLY_PROFILES"
    fi
  elif [ "$archived_h100" = 1 ]; then
    # A few hundred points: the scatter plots stay.
    reuse=(--profiles "$h100_dir")
    shown="$shown --profiles H100_PROFILES"
  elif [ -n "$profiles" ]; then
    reuse=(--profiles "$profiles")
    shown="$shown --profiles PROFILES"
  elif [ -n "$save" ]; then
    reuse=(--save-profiles "$save")
  fi
  # stdout: the JSON (every figure unrounded) behind the summary table.
  if ! "$bin" validate "$experiment" --data "$path" --gpu "$gpu" ${sample_args[@]+"${sample_args[@]}"} \
      --sample-ctas "$n_ctas" ${budget_args[@]+"${budget_args[@]}"} --jobs "$jobs" "${svg[@]}" --markdown "$section" --quiet --json "${reuse[@]}" \
      >"$tmp/$n.json" 2>"$tmp/$n.err"; then
    printf '## %s on %s\n\n```\n%s\n```\n\nFailed:\n\n```\n%s\n```\n' "$file" "$gpu" "$shown" "$(cat "$tmp/$n.err")" >"$section"
    printf '%s\t%s\t-\n' "${file%%.*}" "$kind" >>"$tmp/summary.list"
    continue
  fi
  row_kind=$kind
  [ -z "$whole_dir" ] || row_kind=whole
  printf '%s\t%s\t%s\n' "${file%%.*}" "$row_kind" "$tmp/$n.json" >>"$tmp/summary.list"
  if [ -n "$whole_dir" ]; then
    # The whole space by part of the split, each beside the transferred-best
    # baseline of every other GPU of this convolution (a run per GPU: the
    # baseline takes one --transfer-from; intervals on the first only).
    for part in development check; do
      line="${file%%.*}	$part"
      bootstrap=1000
      for other_entry in "${datasets[@]}"; do
        other=${other_entry%%|*}
        [ "${other%%/*}" = "${file%%/*}" ] && [ "$other" != "$file" ] || continue
        j="$tmp/$n-$part-$(basename "${other%%.*}").json"
        "$bin" validate "$experiment" --data "$path" --gpu "$gpu" --sample-ctas "$n_ctas" --jobs "$jobs" \
          --part "$part" --transfer-from "$data/$other" --model timing \
          --bootstrap "$bootstrap" --quiet --json --profiles "$whole_dir" >"$j"
        line="$line	$j"
        bootstrap=0
      done
      printf '%s\n' "$line" >>"$tmp/whole.list"
    done
  fi
  # Replace the machine-specific command line by the portable one.
  python3 - "$section" "$shown" "$root" "$profiles" "$gemm_dir" "$pnpoly_dir" "$ktconv_dir" "$dedisp_dir" "$schoon_dir" "$h100_dir" <<'EOF'
import sys
path, shown, root, profiles, gemm, pnpoly, ktconv, dedisp, schoon, h100 = sys.argv[1:11]
text = open(path).read()
# The saved profiles' folder is this machine's: name it as the command does.
# (Failures cite a profile's path: named the same way.)
if profiles:
    text = text.replace("rescored from " + profiles, "rescored from PROFILES")
    text = text.replace(profiles.rstrip("/") + "/", "PROFILES/")
for folder, name in ((gemm, "GEMM_PROFILES"), (pnpoly, "PNPOLY_PROFILES"), (ktconv, "KTCONV_PROFILES"), (dedisp, "DEDISP_PROFILES"), (schoon, "SCHOON_PROFILES"), (h100, "H100_PROFILES")):
    if folder:
        text = text.replace("rescored from " + folder, "rescored from " + name)
        text = text.replace(folder.rstrip("/") + "/", name + "/")
# Data paths inside the repository, relative to it (not this machine's).
text = text.replace(root.rstrip("/") + "/", "")
start = text.index("```\n") + 4
end = text.index("\n```", start)
text = text[:start] + shown + text[end:]
# Plot links relative to docs/validation/README.md.
text = text.replace("](docs/validation/plots/", "](plots/")
open(path, "w").write(text)
EOF
done
total=$(( $(date +%s) - start ))
if [ -n "$save" ]; then
  mkdir -p "$save"
  printf 'settings: %s\nemulated: commit %s (plus the working tree) on %s, %s s\n' \
    "$settings" "$(git rev-parse --short HEAD 2>/dev/null || echo unknown)" "$(date -u +%Y-%m-%d)" "$total" \
    >"$save/settings.txt"
  # The report's inputs go with it: anyone (and crates/cli/tests/validation_report.rs)
  # can rescore them in seconds.
  python3 scripts/profiles-archive.py pack "$save" "$out/profiles.tar.xz"
fi

bench=""
if [ "${BENCH:-0}" = 1 ]; then
  echo "validation-report: benchmark, $bench_n configurations on geforce-rtx-3090, empty PTX cache" >&2
  bench_load=$(cut -d' ' -f1-3 /proc/loadavg)
  b0=$(date +%s)
  "$bin" validate experiments/convolution.toml --data "$data/kt-convolution/KT_convolution_RTX_3090.json.gz" \
    --gpu geforce-rtx-3090 --sample "$bench_n" --seed "$seed" --sample-ctas "$ctas" --jobs "$jobs" --no-cache --quiet \
    --timings >"$tmp/bench.txt"
  bench=$(( $(date +%s) - b0 ))
fi

machine="$(lscpu 2>/dev/null | sed -n 's/^Model name: *//p' | head -n 1), $(nproc) cores, $(uname -sr)"
commit=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
{
  echo "# Validation: predicted against measured kernel times"
  echo
  echo "Generated by \`scripts/validation-report.sh\` (SAMPLE=$sample DEDISP_SAMPLE=$dedisp_sample SEED=$seed CTAS=$ctas JOBS=$jobs) on $(date -u +%Y-%m-%d)"
  echo "at commit $commit (plus the working tree), on: $machine."
  echo "All $n datasets took $total s."
  if [ -n "$profiles" ]; then
    echo "Rescored from saved profiles (PROFILES): the profiles were emulated at $profiles_from;"
    echo "the models ran on them at the commit above, and nothing was compiled or emulated."
    # validate replays each sampled CTA's earlier neighbours into L2 since
    # 2026-11-28; older profiles hold the cache figures of the bare sample.
    emulated_on=$(printf '%s' "$profiles_from" | grep -o '20[0-9][0-9]-[0-9][0-9]-[0-9][0-9]' | head -n 1)
    if [ -n "$emulated_on" ] && [[ "$emulated_on" < "2026-11-28" ]]; then
      echo "These profiles predate validate's neighbour warm-up (docs/timing-model.md, \"neighbour_warmup\"): their L2 and DRAM"
      echo "figures are those of the sampled CTAs alone, without the L2 reuse of their earlier neighbours; a fresh run differs there."
    fi
  fi
  if [ -f "$out/profiles.tar.xz" ]; then
    echo "The profiles behind every figure are in \`profiles.tar.xz\` beside this file:"
    echo "\`PROFILES=docs/validation/profiles.tar.xz SAMPLE=$sample DEDISP_SAMPLE=$dedisp_sample SEED=$seed CTAS=$ctas bash scripts/validation-report.sh\`"
    echo "rescores them with the models of the working tree in seconds, and a test checks that the summary below is what they give."
  fi
  if [ -n "$gemm_dir" ]; then
    echo "The GEMM rows ($gemm_sample configurations per GPU, $gemm_laptop_sample on the RTX 3060 Laptop; seed $gemm_seed, $gemm_ctas CTAs) are always rescored from"
    echo "\`profiles-gemm.tar.xz\` beside this file (GEMM_PROFILES), emulated at $gemm_from by \`scripts/gemm-profiles.sh\`."
  fi
  if [ -n "$pnpoly_dir" ]; then
    what="$pnpoly_sample configurations per GPU, seed $pnpoly_seed"
    [ "$pnpoly_sample" != all ] || what="every configuration"
    echo "The pnpoly rows ($what, $pnpoly_ctas CTAs) are always rescored from"
    echo "\`profiles-pnpoly.tar.xz\` beside this file (PNPOLY_PROFILES), emulated at $pnpoly_from by \`scripts/pnpoly-profiles.sh\`."
  fi
  if [ -n "$dedisp_dir" ]; then
    what="$dedisp_archive_sample configurations per GPU, seed $dedisp_seed"
    [ "$dedisp_archive_sample" != all ] || what="every configuration"
    if [ "$dedisp_budget" = none ]; then
      echo "The dedispersion rows of the RTX A4000 and RTX A6000 ($what, $dedisp_ctas CTAs, no work budget) are always rescored from"
    else
      echo "The dedispersion rows of the RTX A4000 and RTX A6000 ($what, $dedisp_ctas CTAs, at most $dedisp_budget warp instructions of"
      echo "working CTAs per configuration: \`--work-budget\`, docs/speed.md \"Huge grids\") are always rescored from"
    fi
    if [ -z "$dedisp_profiles" ]; then
      echo "\`profiles-dedispersion-unbudgeted.tar.xz\` beside this file (DEDISP_PROFILES); emulated: $dedisp_from."
    else
      echo "\`$(basename "$dedisp_profiles")\` (DEDISP_PROFILES); emulated: $dedisp_from."
    fi
  fi
  if [ -n "$schoon_dir" ]; then
    what="$schoon_sample configurations per GPU, seed $schoon_seed"
    [ "$schoon_sample" != all ] || what="every configuration"
    echo "The Schoonhoven convolution rows ($what, $schoon_ctas CTAs${schoon_ptx_arch:+, PTX compiled once for $schoon_ptx_arch: \`--ptx-arch\`}) are always rescored from"
    echo "\`profiles-schoonhoven.tar.xz\` beside this file (SCHOON_PROFILES), emulated at $schoon_from by \`scripts/schoonhoven-profiles.sh\`."
  fi
  if [ -n "$h100_dir" ]; then
    what="$h100_sample configurations per file, seed $h100_seed"
    [ "$h100_sample" != all ] || what="every configuration"
    echo "The H100 rows (vector_add, dedispersion and convolution; $what, $h100_ctas CTAs; development data, not judged) are always rescored from"
    echo "\`profiles-h100.tar.xz\` beside this file (H100_PROFILES), emulated at $h100_from by \`scripts/h100-profiles.sh\`."
  fi
  if [ -n "$ktconv_gpus" ]; then
    echo "The Kernel Tuner convolution rows of ${ktconv_gpus//,/, } (every configuration, $ktconv_ctas CTAs${ktconv_ptx_arch:+, PTX compiled once for $ktconv_ptx_arch: \`--ptx-arch\`}) are always rescored from"
    echo "\`profiles-kt-convolution.tar.xz\` beside this file (KTCONV_PROFILES), emulated at $ktconv_from by \`scripts/kt-convolution-profiles.sh\`."
  fi
  if [ -n "$bench" ]; then
    echo
    echo "Speed: $bench_n convolution configurations (KT_convolution_RTX_3090, --sample $bench_n, --no-cache so every"
    echo "configuration is compiled by NVRTC, --sample-ctas $ctas, --jobs $jobs) took $bench s on this machine"
    echo "(load average before the run: $bench_load; other engineers' jobs shared the cores)."
    echo "Where its time went (\`--timings\`; wall seconds on the worker threads, docs/json.md, \"Time breakdown\"):"
    echo
    echo '```'
    sed -n '/^time breakdown:/,$p' "$tmp/bench.txt"
    echo '```'
  fi
  cat <<EOF

How to read this:
- Each dataset is a measured search space of one kernel on one real GPU (../shared/data/groundtruth,
  see its README; the H100 datasets were measured by this project, data/measured/h100-sxm5-80gb/README.md). The rows
  rescored from an archive named above score what its settings say; the others \`--sample $sample\` (convolution; \`--sample $dedisp_sample\`
  for dedispersion), all of a file that holds fewer. A sample is drawn with its seed (SplitMix64, the same on every machine),
  and the summary says which rows score every configuration. Configurations Kernel Tuner measured as failed are
  counted in "measured failed" and not scored; those ptxperf could not compile, emulate or
  predict are counted apart, per model, in "ptxperf failed".
- Each configuration is rebuilt as Kernel Tuner built it (experiments/*.toml), compiled by
  NVRTC, emulated on $ctas CTAs spread over the grid (growing to 16x while they disagree) and extrapolated to the whole grid, and predicted by
  every model for the catalog GPU named in the heading.
- MAPE and median APE: absolute error relative to the measured time, percent. Median
  pred/meas: the median of predicted over measured time, the sign of the error (below 1:
  the model predicts a typical configuration faster than it ran). Spearman and
  Kendall (tau-b): rank correlation of predicted and measured times over the scored
  configurations. Top-1 % overlap: share of the measured best 1 % (at least one configuration)
  that are also in the predicted best 1 %. Best ratio: measured time of the configuration the
  model ranks fastest, over the fastest measured (1.000 = the model would pick the optimum);
  where several tie for the fastest prediction (within 0.5 %: a padding that changes no address, say),
  their mean measured time, since the model cannot tell which to pick (before 2026-12-02 the
  first in the data file was taken).
- ptxperf predicts the kernel's execution time; Kernel Tuner's \`time\` is the mean of
  CUDA-event timings around each launch, so it also holds the launch overhead (a few
  microseconds). No constant is fitted to the measurements: every figure is the models' own,
  and a model that is far off is shown far off.
- The noise floor (data README): about 1 % per configuration, and two independent campaigns
  of this convolution on the same GPU differ by about 14 % MAPE.
- Each section's \`measured\` line says, where the data keep every launch in order and they
  drift by 2 % or more, how much a configuration's last quarter of launches took over its first
  (median): the GPU did not run at one speed through its runs, most often a clock held down by
  its power limit (the RTX A6000's dedispersion: docs/validation/timing-effects.md; pnpoly's
  reads of host memory may drift for reasons of the host), and the models run at one clock.

EOF
  if [ -f "$tmp/summary.list" ]; then
    whole_list=()
    [ ! -f "$tmp/whole.list" ] || whole_list=("$tmp/whole.list")
    python3 "$root/scripts/validation-summary.py" "$tmp/summary.list" ${whole_list[@]+"${whole_list[@]}"}
    echo
    if [ -n "$profiles" ]; then
      # Rescored: nothing was compiled or emulated, so there is no breakdown
      # of this run's time to show.
      echo "## Where the time went"
      echo
      echo "Not measured in this run: it rescored saved profiles, so nothing was compiled or emulated."
      echo "docs/speed.md has the measured costs of each stage; a run without PROFILES writes this section."
    else
      python3 "$root/scripts/validation-timings.py" "$tmp/summary.list"
    fi
    echo
  fi
  # Hand-written notes kept across regenerations (what moved the timing model).
  if [ -f "$out/timing-effects.md" ]; then
    cat "$out/timing-effects.md"
    echo
  fi
  # The tuning picks on the same data (issue 10), produced by scripts/tune-study.sh.
  if [ -f "$root/docs/tune/groundtruth/tables.md" ]; then
    echo "## Tuning picks on the ground truth (ptxperf tune)"
    echo
    echo "Each cell: rank of the measured-best configuration in the model's top 10 (\">10 (r)\": its rank r)"
    echo "/ measured time of the model's pick over the measured best. Commands and settings: docs/tune/README.md."
    echo
    cat "$root/docs/tune/groundtruth/tables.md"
    echo
  fi
  for f in "$tmp"/[0-9][0-9].md; do
    cat "$f"
    echo
  done
} >"$out/README.md"
echo "validation-report: wrote $out/README.md and $(find "$plots" -name '*.svg' | wc -l) plots in ${total} s" >&2
