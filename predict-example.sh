#!/usr/bin/env bash
# Quick start: build everything (./build.sh), then predict the bundled
# example, a 2D Jacobi solver (tests/apps/jacobi2d.c), on the paper's
# 16-core target while running it on this machine.
#   ./predict-example.sh [RANKS] [TARGET]     (defaults: 16 paper-16)
set -euo pipefail
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
ranks=${1:-16}
target=${2:-paper-16}
"$ROOT/build.sh"
mkdir -p "$ROOT/build/examples"
"$ROOT/install/vaced/bin/mpicc" -O2 -g -o "$ROOT/build/examples/jacobi2d" "$ROOT/tests/apps/jacobi2d.c" -lm
echo "predicting jacobi2d with $ranks ranks on target $target:"
VACED_TARGET=$target VACED_QUIET=${VACED_QUIET:-1} \
    "$ROOT/install/vaced/bin/mpiexec" -n "$ranks" "$ROOT/build/examples/jacobi2d" 1024 200
