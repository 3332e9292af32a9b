#!/usr/bin/env bash
# The whole test suite: installs NVRTC once (scripts/setup.sh), then runs every
# test of the workspace. Tests that need NVRTC use the project's .venv; on CI
# (CI=true) a missing NVRTC is a failure, never a skip.
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
cd "$root"
bash scripts/setup.sh
cargo test --workspace --locked "$@"
