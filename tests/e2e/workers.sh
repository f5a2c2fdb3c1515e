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

# stop WHAT (sim or seed, into $T/LABEL) with SIG once its two workers run,
# and check it dies of SIG (exit EXPECT) with them and leaves nothing
stop_with() { # what label sig expect
  local what=$1 out="$T/$2" sig=$3 want=$4 P kids rc
  if [ "$what" = sim ]; then
    "$W" sim -j2 -t 1000000 --no-trace -o "$out" 'ext4-{1,2}dd-4k-8p-4096M-100M:10' >/dev/null 2>&1 &
  else
    "$W" seed -j2 -t 1000000 --no-trace -o "$out" >/dev/null 2>&1 &
  fi
  P=$!
  kids=$(kids_of $P 2)
  check "$what $sig: two workers started ($kids)" '[ "$(echo $kids | wc -w)" -eq 2 ]'
  kill -"$sig" $P
  wait $P 2>/dev/null
  rc=$?
  check "$what $sig: it dies of the signal (exit $rc)" '[ $rc -eq $want ]'
  check "$what $sig: its workers end with it" 'all_dead $kids'
  for k in $kids; do kill -KILL $k 2>/dev/null || true; done
  check "$what $sig: no result committed" '[ -z "$(find "$out" -name stats 2>/dev/null)" ]'
  check "$what $sig: no half-written result left (.LEAF.tmp.PID)" '[ -z "$(find "$out" -name ".*.tmp.*" 2>/dev/null)" ]'
}
stop_with sim sim TERM 143
stop_with seed seed TERM 143
stop_with sim hup HUP 129   # a closed terminal
# -j1 runs its one job in a worker too: a stop removes its half-written result
"$W" sim -j1 -t 1000000 --no-trace -o "$T/j1" ext4-2dd-4k-8p-4096M-100M:10 >/dev/null 2>&1 &
P=$!
kids=$(kids_of $P 1)
check "sim -j1 TERM: its job runs in a worker ($kids)" '[ "$(echo $kids | wc -w)" -eq 1 ]'
kill -TERM $P; wait $P 2>/dev/null; rc=$?
check "sim -j1 TERM: it dies of the signal, the worker with it" '[ $rc -eq 143 ] && all_dead $kids'
check "sim -j1 TERM: no half-written result left" '[ -z "$(find "$T/j1" -name ".*.tmp.*" 2>/dev/null)" ] && [ -z "$(find "$T/j1" -name stats 2>/dev/null)" ]'
# a run that is not stopped is not disturbed: both results, no leftovers
"$W" sim -j2 -t 5 --no-trace -o "$T/ok" 'ext4-{1,2}dd-4k-8p-4096M-100M:10' >/dev/null 2>&1; rc=$?
check "sim -j2 to the end: exit 0, four results, nothing hidden left" \
  '[ $rc -eq 0 ] && [ "$(find "$T/ok" -name stats | wc -l)" -eq 4 ] && [ -z "$(find "$T/ok" -name ".*.tmp.*")" ]'

# started with SIGHUP ignored (nohup): a SIGHUP stops neither it nor its workers
(trap '' HUP; exec "$W" sim -j2 -t 1000000 --no-trace -o "$T/nohup" 'ext4-{1,2}dd-4k-8p-4096M-100M:10' >/dev/null 2>&1) &
P=$!
kids=$(kids_of $P 2)
kill -HUP $P; for k in $kids; do kill -HUP $k 2>/dev/null; done
sleep 0.5
alive=1; for k in $P $kids; do kill -0 $k 2>/dev/null || alive=0; done
check "nohup: an ignored SIGHUP leaves it and its workers running" '[ $alive -eq 1 ] && [ "$(echo $kids | wc -w)" -eq 2 ]'
kill -TERM $P; wait $P 2>/dev/null
check "nohup: SIGTERM still ends them and leaves nothing" 'all_dead $kids && [ -z "$(find "$T/nohup" -name ".*.tmp.*" 2>/dev/null)" ]'
for k in $kids; do kill -KILL $k 2>/dev/null || true; done
