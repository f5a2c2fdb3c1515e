#!/usr/bin/env bash
# Builds the libFuzzer harness of the trace reader into build-fuzz/ and runs it
# for a bounded time (FUZZ_TIME, default 20 s) from the seed corpus.
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
out=build-fuzz
time=${FUZZ_TIME:-20}
log=$(mktemp /tmp/wblab-fuzz.XXXXXX)
trap 'rm -f "$log"' EXIT

if ! command -v "${CLANG:-clang}" >/dev/null; then
  skip "fuzz_trace_read" "no clang"; exit 0
fi
if make -s -C fuzz FUZZ_BUILD="$PWD/$out" >"$log" 2>&1; then
  ok "fuzz_trace_read builds"
else
  nok "fuzz_trace_read builds"; sed 's/^/#   /' "$log" | tail -20; exit 0
fi
if make -s -C fuzz run FUZZ_BUILD="$PWD/$out" FUZZ_TIME="$time" >"$log" 2>&1; then
  runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log")
  ok "fuzz_trace_read ${time}s, ${runs:-?} runs, no crash"
else
  nok "fuzz_trace_read found a crash (inputs in $out/artifacts/)"
  grep -E 'ERROR|SUMMARY|runtime error' "$log" | head -10 | sed 's/^/#   /'
fi
