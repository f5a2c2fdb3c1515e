#!/usr/bin/env bash
# The main job from a fresh machine: install dependencies, build, and reproduce
# the seed table in simulation (table on stdout, graphs and report.html under
# ./seed-results, or the directory given as $1).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
make -s -j2 build/wblab
exec build/wblab seed -o "${1:-seed-results}"
