#!/usr/bin/env bash
# The whole test suite from a fresh machine: install dependencies, build
# normally and with ASan+UBSan, run every suite.  Last line: "N passed, N failed".
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
make -j2 tests >/dev/null
make -j2 asan >/dev/null
BUILDS="build build-asan" exec tests/run-all.sh
