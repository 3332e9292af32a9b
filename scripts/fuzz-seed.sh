#!/usr/bin/env bash
# Fills fuzz/corpus/<target>/ (ignored by git) with seed inputs taken from
# the repository, so each fuzz target starts from valid, varied inputs:
#   parse        kernels/*/*.ptx
#   launch_spec  kernels/*/spec.toml
#   gpu_catalog  gpus/*.toml
#   emulate      each kernel's sm_80.ptx, NUL, its spec.toml (the target's
#                input format), and the PTX alone (the target then builds a
#                spec around its first kernel)
#   addresses_only  the same seeds as emulate (the same input format)
#   experiment_data  experiments/*.toml, NUL, each measured-data fixture of
#                crates/validate/tests/fixtures (and each experiment alone)
#   cubin        each kernel's sm_80.ptx built by ptxas (where ptxas is on
#                PATH or in .venv), a newline and its first entry's name
# Safe to run again: seeds are rewritten, whatever the fuzzer added is kept.
# Then, e.g.: cd fuzz && cargo +nightly fuzz run -s none emulate -- -max_total_time=600
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
corpus="$root/fuzz/corpus"
mkdir -p "$corpus"/{parse,launch_spec,gpu_catalog,emulate,addresses_only,experiment_data,cubin}
for dir in "$root"/kernels/*/; do
  name=$(basename "$dir")
  for ptx in "$dir"*.ptx; do
    [ -f "$ptx" ] && cp "$ptx" "$corpus/parse/seed-$name-$(basename "$ptx")"
  done
  spec="$dir/spec.toml"
  [ -f "$spec" ] && cp "$spec" "$corpus/launch_spec/seed-$name.toml"
  ptx="$dir/sm_80.ptx"
  if [ -f "$ptx" ]; then
    cp "$ptx" "$corpus/emulate/seed-$name.ptx"
    if [ -f "$spec" ]; then
      { cat "$ptx"; printf '\0'; cat "$spec"; } > "$corpus/emulate/seed-$name.ptx+spec"
    fi
  fi
done
for gpu in "$root"/gpus/*.toml; do
  cp "$gpu" "$corpus/gpu_catalog/seed-$(basename "$gpu")"
done
# Each experiment file with each small measured file of the tests' fixtures
# (Kernel Tuner cache, Schoonhoven CSV, T4 results), and each alone.
for exp in "$root"/experiments/*.toml; do
  e=$(basename "$exp" .toml)
  cp "$exp" "$corpus/experiment_data/seed-$e.toml"
  for data in "$root"/crates/validate/tests/fixtures/*; do
    { cat "$exp"; printf '\0'; cat "$data"; } > "$corpus/experiment_data/seed-$e+$(basename "$data")"
  done
done
# Cubins ptxas builds, each followed by the line naming its first entry.
ptxas=$(command -v ptxas || ls "$root"/.venv/lib/python3*/site-packages/nvidia/cuda_nvcc/bin/ptxas 2>/dev/null | head -n 1 || true)
if [ -n "$ptxas" ]; then
  for dir in "$root"/kernels/*/; do
    ptx="$dir/sm_80.ptx"
    entry=$(sed -n 's/^\.visible \.entry \([A-Za-z0-9_$]*\).*/\1/p' "$ptx" | head -n 1)
    out="$corpus/cubin/seed-$(basename "$dir").cubin"
    if [ -n "$entry" ] && "$ptxas" -arch sm_80 "$ptx" -o "$out" 2>/dev/null; then
      printf '\n%s' "$entry" >> "$out"
    fi
  done
else
  echo "fuzz-seed: no ptxas (bash scripts/setup.sh installs it): fuzz/corpus/cubin gets no seeds" >&2
fi
# The run for addresses alone is checked against the full run on the
# emulation's inputs.
cp "$corpus"/emulate/seed-* "$corpus/addresses_only/"
for t in parse launch_spec gpu_catalog emulate addresses_only experiment_data cubin; do
  echo "fuzz/corpus/$t: $(find "$corpus/$t" -type f | wc -l) files"
done
