#!/usr/bin/env bash
# The analysis pipeline on a real trace captured here by the test itself:
# `wblab run` (a short 2dd dd on a loop-mounted ext4, traced through tracefs),
# then `wblab import` of its trace, `wblab compare` of real vs imported vs
# simulated, `wblab plot` and `wblab report` of the real result.
set -u
W=${WBLAB:?set WBLAB to the wblab binary}
T=$(mktemp -d /tmp/wblab-pipeline.XXXXXX)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/real_env.sh"

why=$(real_why_not)
if [ -n "$why" ]; then
	echo "ok 1 - real trace pipeline # SKIP $why"
	exit 0
fi

C='ext4-2dd-4k-*-*-20M:10'   # small enough that the writers always throttle
"$W" run -t 4 --image-size 2G --scratch "$SCRATCH" --kernel-name real -o "$T/real" "$C" >"$T/run.out" 2>"$T/run.err"
check "real run exits 0" '[ $? -eq 0 ]' || sed 's/^/#   /' "$T/run.err"
R=$(find "$T/real" -name trace -printf '%h\n' | head -1)
check "real result has a trace with writeback events" '[ -n "$R" ] && grep -q ": global_dirty_state: " "$R/trace"'
case_name=$(awk '/^case /{print $2}' "$R/meta")
group=$(awk '/^group /{print $2}' "$R/meta")

"$W" import "$R/trace" -o "$T/imp" --case "$group/$case_name" --kernel imported >"$T/imp.out" 2>&1
check "import of the real trace exits 0" '[ $? -eq 0 ]'
I=$(find "$T/imp" -name stats -printf '%h\n' | head -1)
check "imported write_bw equals the real run's" \
	'[ "$(awk "/^write_bw /{print \$2}" "$R/stats")" = "$(awk "/^write_bw /{print \$2}" "$I/stats")" ]'

cpus=$(awk '/^cpus /{print $2}' "$R/meta"); mem=$(awk '/^mem /{print $2}' "$R/meta")
"$W" sim -t 4 -k 3.2-ioless -o "$T/sim" "$group/ext4-2dd-4k-${cpus}p-${mem}M-20M:10" >/dev/null 2>&1
"$W" compare "$T/real" "$T/imp" >"$T/cmp" 2>"$T/cmp.err"
check "compare real vs imported: one row, +0.0%" \
	'grep -q "real" "$T/cmp" && grep -q "imported" "$T/cmp" && grep -E -- "-X$" "$T/cmp" | grep -q "+0.0%"'
"$W" compare "$T/real" "$T/sim" >"$T/cmp2" 2>&1
check "compare real vs simulated (3.2-ioless) on one row" 'grep -q "3.2-ioless" "$T/cmp2" && [ "$(grep -cE -- "-X$" "$T/cmp2")" = 1 ]'
"$W" compare -e nr_dirty_max_pages "$T/real" "$T/imp" >/dev/null 2>&1
check "compare on another metric" '[ $? -eq 0 ]'

"$W" plot "$R" >"$T/plot.out" 2>&1
check "plot of the real result exits 0" '[ $? -eq 0 ]'
P=$(find "$R" -name global_dirty_state.png | head -1)
check "global_dirty_state.png is a PNG" '[ -n "$P" ] && head -c 8 "$P" | od -An -tx1 | grep -q "89 50 4e 47 0d 0a 1a 0a"'
check "balance_dirty_pages graphs from the 6.x trace" '[ -n "$(find "$R" -name "balance_dirty_pages-pages.svg")" ]'

"$W" report "$T/real" "$T/imp" -o "$T/report.html" >/dev/null 2>&1
check "report of real and imported results" '[ -s "$T/report.html" ] && grep -q "imported" "$T/report.html" && grep -q "<svg" "$T/report.html"'
