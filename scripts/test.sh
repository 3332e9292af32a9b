#!/usr/bin/env bash
# The whole test suite: installs NVRTC once (scripts/setup.sh), then runs every
# test of the workspace twice, in debug and in release: the optimiser once
# removed a NaN canonicalisation, so a test passed in debug and failed in
# release. Tests that need NVRTC use the project's .venv; on CI (CI=true) a
# missing NVRTC is a failure, never a skip. The convolution kernel of the
# ground-truth data is fetched into third_party/ (ignored by git).
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/setup.sh
# The validation tests compile the real Kernel Tuner convolution kernel, which
# is fetched at run time (PyPI source package) and never committed.
bash scripts/fetch-validation-kernels.sh > /dev/null
cargo test --workspace --locked "$@"
cargo test --release --workspace --locked "$@"
