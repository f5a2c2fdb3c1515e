#!/usr/bin/env bash
# scripts/policy-table.sh [-t SEC] [-e METRIC] [-j N] PLUGIN.so
#
# Runs the 24-case local matrix
#     '{ext4,xfs}-{1,2,10}dd-4k-8p-4096M-{1M,10M,100M,1G}:10'
# under the policy plug-in PLUGIN.so, 3.2-ioless and current (300 simulated s
# by default) and prints two `wblab compare` tables (write_bw unless -e):
# the plug-in against 3.2-ioless, and against current (docs/policies.md).
#
# The two baselines depend only on the wblab binary, the runtime and the seed,
# so they are kept in $WBLAB_POLICY_CACHE (default build/policy-table/) under
# a key of those and simulated once; each call reruns only the plug-in's 24
# cases.  WBLAB names the binary (default build/wblab, else wblab on PATH).
set -eu
runtime=300 metric=write_bw jobs=$(nproc 2>/dev/null || echo 2)
usage() { sed -n '2,15s/^# \{0,1\}//p' "$0"; exit 2; }
while getopts t:e:j:h o; do
	case $o in t) runtime=$OPTARG ;; e) metric=$OPTARG ;; j) jobs=$OPTARG ;; *) usage ;; esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage
plugin=$1
[ -f "$plugin" ] || { echo "policy-table: $plugin: no such file" >&2; exit 2; }
if [ -z "${WBLAB:-}" ]; then
	if [ -x build/wblab ]; then WBLAB=$PWD/build/wblab; else WBLAB=$(command -v wblab); fi
fi
MATRIX='{ext4,xfs}-{1,2,10}dd-4k-8p-4096M-{1M,10M,100M,1G}:10'
SEED=1
cache=${WBLAB_POLICY_CACHE:-build/policy-table}
key=$( { cat "$WBLAB"; echo "$runtime $SEED $MATRIX"; } | sha256sum | cut -c1-16)
base=$cache/base-$key
if [ ! -f "$base/done" ]; then
	rm -rf "$base"
	for k in 3.2-ioless current; do
		"$WBLAB" sim -q --no-trace -j "$jobs" -k "$k" -t "$runtime" --seed $SEED -o "$base/$k" "$MATRIX" >/dev/null
	done
	touch "$base/done"
fi
run=$cache/run
rm -rf "$run"
"$WBLAB" sim -q --no-trace -j "$jobs" --policy "$plugin" -t "$runtime" --seed $SEED -o "$run" "$MATRIX" >/dev/null
for k in 3.2-ioless current; do
	echo "== $metric: $(basename "$plugin") against $k ($runtime s simulated, seed $SEED)"
	"$WBLAB" compare -e "$metric" "$base/$k" "$run"
	echo
done
