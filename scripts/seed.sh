#!/usr/bin/env bash
# The main job from a fresh machine: install dependencies, build, and reproduce
# the seed table in simulation (table on stdout, graphs and report.html under
# ./seed-results, or the directory given as $1, both from where it is called).
set -euo pipefail
# the output directory is the caller's: resolved before moving to the checkout
out=$(realpath -m -- "${1:-seed-results}")
cd "$(dirname "$0")/.."
bash scripts/setup.sh
make -s -j2 build/wblab
exec build/wblab seed -o "$out"
