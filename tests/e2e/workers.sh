#!/usr/bin/env bash
# A wblab that is killed (SIGTERM to its own pid, as `kill PID` or a
# supervisor sends it; Ctrl-C signals the whole group anyway) takes its
# forked workers with it: none keeps running, and none commits a result later.
set -u
. "$(dirname "$0")/lib.sh"
W=${WBLAB:?set WBLAB to the wblab binary}
e2e_scratch workers-e2e

# the children of PID, waiting up to 20 s for N of them
kids_of() {
  local i k
  for i in $(seq 200); do
    k=$(pgrep -P "$1" | tr '\n' ' ')
    [ "$(echo $k | wc -w)" -ge "$2" ] && { echo "$k"; return; }
    sleep 0.1
  done
  echo "$k"
}
# 0 once none of the pids runs (gone or a zombie), within 20 s
all_dead() {
  local i k st alive
  for i in $(seq 200); do
    alive=0
    for k in "$@"; do
      st=$(awk '/^State:/{print $2}' "/proc/$k/status" 2>/dev/null)
      [ -n "$st" ] && [ "$st" != Z ] && alive=1
    done
    [ $alive -eq 0 ] && return 0
    sleep 0.1
  done
  return 1
}

for what in sim seed; do
  if [ $what = sim ]; then
    "$W" sim -j2 -t 1000000 --no-trace -o "$T/$what" 'ext4-{1,2}dd-4k-8p-4096M-100M:10' >/dev/null 2>&1 &
  else
    "$W" seed -j2 -t 1000000 --no-trace -o "$T/$what" >/dev/null 2>&1 &
  fi
  P=$!
  kids=$(kids_of $P 2)
  check "$what: two workers started ($kids)" '[ "$(echo $kids | wc -w)" -eq 2 ]'
  kill -TERM $P
  wait $P
  rc=$?
  check "$what: killed by SIGTERM (exit $rc)" '[ $rc -eq 143 ]'
  check "$what: its workers end with it" 'all_dead $kids'
  for k in $kids; do kill -KILL $k 2>/dev/null; done
  check "$what: no result committed" '[ -z "$(find "$T/$what" -name stats 2>/dev/null)" ]'
  check "$what: no half-written result left (.LEAF.tmp.PID)" '[ -z "$(find "$T/$what" -name ".*.tmp.*" 2>/dev/null)" ]'
done
# SIGHUP (a closed terminal) the same
"$W" sim -j2 -t 1000000 --no-trace -o "$T/hup" 'ext4-{1,2}dd-4k-8p-4096M-100M:10' >/dev/null 2>&1 &
P=$!
kids=$(kids_of $P 2)
kill -HUP $P
wait $P
rc=$?
check "sim: SIGHUP ends it with its workers (exit $rc)" '[ $rc -eq 129 ] && all_dead $kids'
check "sim: SIGHUP leaves no half-written result" '[ -z "$(find "$T/hup" -name ".*.tmp.*" 2>/dev/null)" ]'
for k in $kids; do kill -KILL $k 2>/dev/null; done
# a run that is not stopped is not disturbed: both results, no leftovers
"$W" sim -j2 -t 5 --no-trace -o "$T/ok" 'ext4-{1,2}dd-4k-8p-4096M-100M:10' >/dev/null 2>&1; rc=$?
check "sim -j2 to the end: exit 0, four results, nothing hidden left" \
  '[ $rc -eq 0 ] && [ "$(find "$T/ok" -name stats | wc -l)" -eq 4 ] && [ -z "$(find "$T/ok" -name ".*.tmp.*")" ]'

