#!/usr/bin/env bash
# bench/policy-idea-to-table.sh: "idea to table" wall time of a policy plug-in
# (docs/policies.md): an edit of examples/policies/pause_cap.c (its per-dirtier
# cap changes from 10 ms to 11 ms), `make examples`, and
# scripts/policy-table.sh on the result, timed end to end.  The first call
# of the table simulates the two baselines (cold); the timed rounds reuse
# them (warm), as an edit-run loop does.  The file is restored on exit.
# A benchmark, not a test: it prints the times and fails only if a step fails.
set -eu
cd "$(dirname "$0")/.."
rounds=${1:-3}
src=examples/policies/pause_cap.c
orig=$(mktemp)
cp -p "$src" "$orig"
export WBLAB_POLICY_CACHE=$(mktemp -d /tmp/wblab-policy-bench.XXXXXX)   # a cold start
trap 'cp -p "$orig" "$src"; rm -f "$orig"; rm -rf "$WBLAB_POLICY_CACHE"; make -s examples >/dev/null' EXIT
now() { date +%s.%N; }
make -s -j2 build/wblab examples >/dev/null
t0=$(now)
scripts/policy-table.sh examples/policies/pause_cap.so >/dev/null
t1=$(now)
printf 'cold (baselines simulated too): %.1f s\n' "$(echo "$t1 - $t0" | bc)"
for i in $(seq "$rounds"); do
	t0=$(now)
	# the edit: another constant each round
	sed "s|p->hz / 100;|p->hz * $((10 + i)) / 1000;|" "$orig" >"$src"
	make -s examples >/dev/null
	grep -q "p->hz \* $((10 + i)) / 1000;" "$src"
	scripts/policy-table.sh examples/policies/pause_cap.so >/dev/null
	t1=$(now)
	printf 'round %d (edit, make examples, table): %.1f s\n' "$i" "$(echo "$t1 - $t0" | bc)"
done
