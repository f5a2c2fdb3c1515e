#!/usr/bin/env bash
# Runs every unit suite (cmocka) of each build in $BUILDS, then every end-to-end
# script in tests/e2e/ against the first build's wblab binary.  e2e scripts
# print TAP-style "ok N - ..." / "not ok N - ..." / "ok N - ... # SKIP ..." lines
# (the helpers, sourced and without a #! line, are tests/e2e/lib.sh and real_env.sh).
# Last line: "N passed, N failed".
set -u
cd "$(dirname "$0")/.."
BUILDS=${BUILDS:-${BUILD:-build}}
passed=0; failed=0; skipped=0
log=$(mktemp -d /tmp/wblab-tests.XXXXXX)
trap 'rm -rf "$log"' EXIT

for b in $BUILDS; do
  for t in "$b"/tests/test_*; do
    [ -x "$t" ] || continue
    name="$b/$(basename "$t")"
    out="$log/$(echo "$name" | tr / _).out"
    "$t" >"$out" 2>&1; rc=$?
    p=$(sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
    f=$(sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' "$out" | tail -1)
    p=${p:-0}; f=${f:-0}
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi   # crashed before its summary
    passed=$((passed + p)); failed=$((failed + f))
    if [ "$f" -ne 0 ]; then echo "FAIL $name"; grep -E 'FAILED|ERROR|error|Assert|runtime error|Sanitizer' "$out" | head -20
    else echo "pass $name ($p)"; fi
  done
done

first=${BUILDS%% *}
export WBLAB="$PWD/$first/wblab"
for s in tests/e2e/*.sh; do
  [ -f "$s" ] || continue
  head -c2 "$s" | grep -q "#!" || continue   # sourced helpers (lib.sh, real_env.sh) have no #! line
  out="$log/$(basename "$s").out"
  bash "$s" >"$out" 2>&1; rc=$?
  p=$(grep -cE '^ok ' "$out" | tr -d ' ')
  k=$(grep -cE '^ok .*# SKIP' "$out" | tr -d ' ')
  f=$(grep -cE '^not ok ' "$out" | tr -d ' ')
  p=$((p - k))
  if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; echo "  $s exited $rc"; tail -5 "$out"; fi
  passed=$((passed + p)); failed=$((failed + f)); skipped=$((skipped + k))
  if [ "$f" -ne 0 ]; then echo "FAIL $s"; grep -E '^not ok|^#' "$out" | head -20
  else echo "pass $s ($p${k:+, $k skipped})"; fi
  grep -E '^ok .*# SKIP' "$out" | sed 's/^/  /'
done

# the skipped checks on a line of their own: the last line is always
# "N passed, N failed"
[ "$skipped" -gt 0 ] && echo "$skipped skipped (listed above; not counted as passed)"
echo "$passed passed, $failed failed"
[ "$failed" -eq 0 ]
