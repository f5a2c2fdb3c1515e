#!/usr/bin/env bash
# Writers that look ahead (writer_lookahead=1, the default: a dd's burst runs
# past other writers' unseen burst ends, src/sim/engine.c) give byte-identical
# results to writers cut at every event (writer_lookahead=0), with far fewer
# events.  The cases are the ones where the rules matter: two and ten dd's
# (ten on 8 CPUs share CPUs and migrate), five on 2 CPUs pinned, xfs's
# reservations, 3.1's task-proportion periods (10M: a period every 4096
# pages), every model, a fast tick (hz=10000: the jiffy a clean inode is
# dirtied in shows where the first burst into it ended).
set -u
. "$(dirname "$0")/lib.sh"
W=${WBLAB:?set WBLAB to the wblab binary}
e2e_scratch lookahead-e2e

same() {   # same NAME DIR0 DIR1: every result's trace.dat, stats and plot-series equal
	local n=0 bad=0 r
	for r in "$2"/*/*; do
		n=$((n + 1))
		for f in trace.dat stats plot-series; do
			cmp -s "$r/$f" "$3/${r#"$2"/}/$f" || { bad=$((bad + 1)); echo "# differs: ${r#"$2"/} $f"; break; }
		done
	done
	check "$1 ($n results)" '[ $n -gt 0 ] && [ $bad -eq 0 ]'
}

run() {   # run NAME ARGS...: both modes into $T/NAME.0 and $T/NAME.1
	local name=$1; shift
	"$W" sim -q -j 2 --set writer_lookahead=0 -o "$T/$name.0" "$@" >/dev/null 2>"$T/$name.err0"
	"$W" sim -q -j 2 -o "$T/$name.1" "$@" >/dev/null 2>"$T/$name.err1"
}

run m -t 15 -k all '{ext4,xfs}-{2,10}dd-4k-8p-4096M-{10M,1024M}:10'
same "2 and 10 dd's, ext4 and xfs, every model: lookahead changes nothing" "$T/m.0" "$T/m.1"
run p -t 15 -k all ext4-5dd-4k-2p-4096M-1M:10 ext4-3dd-64k-2p-4096M-100M:10
same "5 dd's on 2 CPUs and 64k writes: lookahead changes nothing" "$T/p.0" "$T/p.1"
run c -t 20 -k all --set cpu_migrate=0 ext4-5dd-4k-2p-4096M-1M:10
same "pinned writers sharing CPUs: lookahead changes nothing" "$T/c.0" "$T/c.1"
run h -t 15 -k all --set hz=10000 'ext4-{2,10}dd-4k-8p-4096M-{10M,100M}:10'
same "hz=10000: lookahead changes nothing" "$T/h.0" "$T/h.1"
run d -t 8 -k 3.1-vanilla,current --set debug_checks=1 ext4-10dd-4k-8p-4096M-10M:10 xfs-2dd-4k-8p-4096M-100M:10
same "with debug_checks: no invariant broke, lookahead changes nothing" "$T/d.0" "$T/d.1"
check "no run failed" '! grep -q . "$T"/*.err0 "$T"/*.err1'

# what it is for: the events a run dispatches
e0=$(WBLAB_BENCH_COUNTS=1 "$W" sim -q -j 1 -t 15 -k 3.2-ioless --set writer_lookahead=0 -o "$T/e0" ext4-2dd-4k-8p-4096M-1024M:10 2>&1 >/dev/null | awk '/^wblab-bench-counts: events /{print $3}')
e1=$(WBLAB_BENCH_COUNTS=1 "$W" sim -q -j 1 -t 15 -k 3.2-ioless -o "$T/e1" ext4-2dd-4k-8p-4096M-1024M:10 2>&1 >/dev/null | awk '/^wblab-bench-counts: events /{print $3}')
echo "# 3.2 2dd 1024M, 15 s: $e0 events cut at every event, $e1 looking ahead"
check "two dd's looking ahead dispatch under a fifth of the events" '[ -n "$e0" ] && [ -n "$e1" ] && [ $((e1 * 5)) -lt "$e0" ]'
same "and the same result" "$T/e0" "$T/e1"
exit 0
