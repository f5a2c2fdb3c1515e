#!/usr/bin/env bash
# Builds the libFuzzer harnesses (fuzz/) into build-fuzz/ and runs each for a
# bounded time from its seed corpus fuzz/corpus/<target>/: the trace reader
# for FUZZ_TIME seconds (default 10), the other readers of user input (kv
# files, CASE names, --set and its sweeps, the run journal, CASE matrices and case files, a
# result's cmdline, trace.dat files, saved graph series, the svg graphs a report inlines) for
# FUZZ_TIME/2 each: ~60 s.
set -u
cd "$(dirname "$0")/../.."
out=build-fuzz
time=${FUZZ_TIME:-10}
short=$(( time / 2 > 0 ? time / 2 : 1 ))
log=$(mktemp /tmp/wblab-fuzz.XXXXXX)
trap 'rm -f "$log"' EXIT
targets="trace_read kv case params set_sweep journal case_list cmdline dat plot_series svg_inline"

if ! command -v "${CLANG:-clang}" >/dev/null; then
  for t in $targets; do echo "ok - fuzz_$t # SKIP no clang"; done; exit 0
fi
if make -s -C fuzz FUZZ_BUILD="$PWD/$out" >"$log" 2>&1; then
  echo "ok - fuzz harnesses build"
else
  echo "not ok - fuzz harnesses build"; sed 's/^/# /' "$log" | tail -20; exit 0
fi
for t in $targets; do
  s=$short; [ "$t" = trace_read ] && s=$time
  if make -s -C fuzz "run-$t" FUZZ_BUILD="$PWD/$out" FUZZ_TIME="$s" >"$log" 2>&1; then
    runs=$(sed -n 's/^Done \([0-9]*\) runs.*/\1/p' "$log")
    echo "ok - fuzz_$t ${s}s, ${runs:-?} runs, no crash"
  else
    echo "not ok - fuzz_$t found a crash (inputs in $out/artifacts-$t/)"
    grep -E 'ERROR|SUMMARY|runtime error' "$log" | head -10 | sed 's/^/# /'
  fi
done
