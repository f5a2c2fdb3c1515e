#!/usr/bin/env bash
# Output that cannot be written (a full disk, /dev/full) is a failure with one
# line naming standard output, never a silent exit 0; `help` of help works.
set -u
. "$(dirname "$0")/lib.sh"
W=${WBLAB:?set WBLAB to the wblab binary}
e2e_scratch cli-output-e2e

"$W" seed -t 1 --no-plots --no-trace -o "$T/s" >/dev/full 2>"$T/err"; rc=$?
check "seed > /dev/full exits 1 (exit $rc)" '[ $rc -eq 1 ]'
check "seed > /dev/full says so in one line" '[ "$(wc -l <"$T/err")" -eq 1 ] && grep -q "^wblab seed: cannot write to standard output" "$T/err"'
"$W" sim -t 1 --no-trace -o "$T/m" ext4-1dd-4k-8p-4096M-100M:10 >/dev/null 2>&1
"$W" compare -e write_bw "$T/m" >/dev/full 2>"$T/err2"; rc=$?
check "compare > /dev/full exits 1 with one line (exit $rc)" '[ $rc -eq 1 ] && [ "$(wc -l <"$T/err2")" -eq 1 ]'
"$W" --version >/dev/full 2>"$T/err3"; rc=$?
check "--version > /dev/full exits 1 (exit $rc)" '[ $rc -eq 1 ] && grep -q "cannot write to standard output" "$T/err3"'
"$W" --version >"$T/v"; rc=$?
check "--version to a file exits 0" '[ $rc -eq 0 ] && grep -q "^wblab " "$T/v"'
for h in help --help -h; do
  "$W" help $h >"$T/h" 2>&1; rc=$?
  check "'wblab help $h' prints the overview (exit $rc)" '[ $rc -eq 0 ] && grep -q "^usage: wblab COMMAND" "$T/h"'
done
# rerun names only paths that still exist, and says which side lacks a file
R=$(dirname "$(find "$T/m" -name stats | head -1)")
echo "write_bw 0" >>"$R/stats"
"$W" rerun "$R" >"$T/r1" 2>&1; rc=$?
check "rerun without -k: stats differs, no path to a removed rerun (exit $rc)" \
  '[ $rc -eq 1 ] && grep -q "stats differs from the rerun (-k keeps it)" "$T/r1" && ! grep -q "wblab-rerun" "$T/r1"'
"$W" rerun -k "$R" >"$T/r2" 2>&1; rc=$?
kept=$(sed -n 's/^rerun kept in //p' "$T/r2")
check "rerun -k: names the kept copy, which exists (exit $rc)" \
  '[ $rc -eq 1 ] && [ -n "$kept" ] && [ -d "$kept" ] && grep -q "stats differs from the rerun ($kept/stats)" "$T/r2"'
kroot=$(printf '%s\n' "$kept" | grep -o '^/tmp/wblab-rerun\.[A-Za-z0-9]*')
[ -n "$kroot" ] && rm -rf -- "$kroot"
rm "$R/stats"
"$W" rerun "$R" >"$T/r3" 2>&1; rc=$?
check "rerun: a missing stats is missing, not 'differs' (exit $rc)" '[ $rc -eq 1 ] && grep -q "stats is missing, the rerun made one" "$T/r3"'
# a command without its DIR says so in one line, as compare and plot do
for c in validate calibrate compare plot; do
  "$W" $c >"$T/o" 2>"$T/e"; rc=$?
  check "$c without DIR: exit 2, one line" '[ $rc -eq 2 ] && [ "$(wc -l <"$T/e")" -eq 1 ] && grep -q "no DIR given" "$T/e"'
done
# import --kernel '' is refused, not taken as "detect it"
"$W" sim -t 1 -o "$T/tr" --trace-format text ext4-1dd-4k-8p-4096M-100M:10 >/dev/null 2>&1
TR=$(find "$T/tr" -name trace | head -1)
"$W" import "$TR" -o "$T/imp" --kernel '' >"$T/o" 2>"$T/e"; rc=$?
check "import --kernel '': exit 2, one line naming --kernel, nothing written" \
  '[ $rc -eq 2 ] && [ "$(wc -l <"$T/e")" -eq 1 ] && grep -q -- "--kernel" "$T/e" && [ ! -e "$T/imp" ]'
# a --set key that changes nothing for a case is warned of once, and the run goes on
"$W" sim -k 3.2-ioless,current -t 1 --no-trace -o "$T/w" --set disk.bw_mbps=20 \
  nfs-1dd-4k-8p-4096M-100M:10 ext4-1dd-4k-8p-4096M-100M:10 >/dev/null 2>"$T/we"; rc=$?
check "sim: disk.bw_mbps on an NFS case: one warning line, exit 0 (exit $rc)" \
  '[ $rc -eq 0 ] && [ "$(grep -c "warning: --set disk.bw_mbps has no effect on nfs-1dd" "$T/we")" -eq 1 ] && [ "$(wc -l <"$T/we")" -eq 1 ]'
"$W" sim -k 3.2-ioless -t 1 --no-trace -o "$T/w2" --set dev.model=hdd-2011 --set disk.bw_mbps=20 \
  ext4-1dd-4k-8p-4096M-100M:10 >/dev/null 2>"$T/we2"
check "sim: disk.* beside dev.model=hdd-2011 is warned of" 'grep -q "disk.bw_mbps has no effect.*describe dev.model=fifo" "$T/we2"'
"$W" sim -k 3.2-ioless -t 1 --no-trace -o "$T/w3" --set disk.bw_mbps=20 ext4-1dd-4k-8p-4096M-100M:10 >/dev/null 2>"$T/we3"
check "sim: disk.* alone on a local case: no warning" '[ ! -s "$T/we3" ]'
# the fifo disk has no block layer: a dev.* key beside a disk.* key (which
# selects it) did nothing, silently (review helper 54)
"$W" sim -k current -t 1 --no-trace -o "$T/w4" --set dev.throttle_mbps=10 --set disk.bw_mbps=57 \
  ext4-1dd-4k-8p-4096M-10M:10 >/dev/null 2>"$T/wf"
check "sim: dev.throttle_mbps beside disk.* (the fifo disk) is warned of" \
  'grep -q "dev.throttle_mbps has no effect.*fifo.*no block layer" "$T/wf" && [ "$(wc -l <"$T/wf")" -eq 1 ]'
"$W" sim -k current -t 1 --no-trace -o "$T/w5" --set dev.model=ssd --set dev.rpm=5400 --set dev.parallel=8 \
  ext4-1dd-4k-8p-4096M-10M:10 >/dev/null 2>"$T/ws"
"$W" sim -k current -t 1 --no-trace -o "$T/w6" --set dev.model=ssd --set dev.capacity_gb=100 \
  ext4-1dd-4k-8p-4096M-10M:10 >/dev/null 2>"$T/wc"
check "sim: dev.capacity_gb on an ssd is not warned of (the allocator reads it)" '[ ! -s "$T/wc" ]'
check "sim: dev.rpm on an ssd is warned of, dev.parallel is not" \
  'grep -q "dev.rpm has no effect.*ssd/nvme device model does not read it" "$T/ws" && [ "$(wc -l <"$T/ws")" -eq 1 ]'
# --help takes a unique abbreviation like every long option
"$W" sim --he >"$T/hh" 2>&1; rc=$?
check "sim --he prints the usage, exit 0" '[ $rc -eq 0 ] && head -1 "$T/hh" | grep -q "^usage: wblab sim"'
"$W" compare --hel >"$T/hh" 2>&1; rc=$?
check "compare --hel prints the usage, exit 0" '[ $rc -eq 0 ] && head -1 "$T/hh" | grep -q "^usage: wblab compare"'
# without gnuplot: one line naming each command's own option, before any work
PATH=/nonexistent "$W" seed -q -t 1 -o "$T/nogp-seed" >/dev/null 2>"$T/ng1"; rc=$?
check "seed without gnuplot: exit 1, one line naming --no-plots, nothing made" \
  '[ $rc -eq 1 ] && [ "$(wc -l <"$T/ng1")" -eq 1 ] && grep -q "gnuplot not found.*--no-plots" "$T/ng1" && [ ! -e "$T/nogp-seed" ]'
"$W" sim -q -k current -t 1 -o "$T/wt" ext4-1dd-4k-8p-4096M-100M:10 >/dev/null 2>&1
PATH=/nonexistent "$W" report -q -o "$T/nogp.html" "$T/wt" >/dev/null 2>"$T/ng2"; rc=$?
check "report without gnuplot: exit 1 naming --no-graphs" \
  '[ $rc -eq 1 ] && grep -q "gnuplot not found.*--no-graphs" "$T/ng2" && ! grep -q -- "--no-gnuplot" "$T/ng2"'
"$W" seed --no-trace -t 1 -o "$T/afile-seed" --set bdi_strict_limit=1 >/dev/null 2>"$T/we4"
check "seed: bdi_strict_limit warned of once, not per case" '[ "$(grep -c "bdi_strict_limit has no effect" "$T/we4")" -eq 1 ]'
touch "$T/plainfile"
"$W" seed --no-trace -t 1 -o "$T/plainfile" >/dev/null 2>"$T/we5"; rc=$?
check "seed -o FILE: exit 2, one line (exit $rc)" '[ $rc -eq 2 ] && [ "$(wc -l <"$T/we5")" -eq 1 ] && grep -q "not a directory" "$T/we5"'
# calibrate and validate of a run made without a trace say so in one line
"$W" sim -t 2 -k current --no-trace -o "$T/nt" ext4-1dd-4k-8p-4096M-100M:10 >/dev/null 2>&1
NT=$(dirname "$(find "$T/nt" -name stats | head -1)")
sed -i 's/^source .*/source real/' "$NT/meta"
for c in calibrate validate; do
  "$W" $c "$NT" >"$T/o" 2>"$T/e"; rc=$?
  check "$c of an untraced run: exit 1, one line saying there is no trace (exit $rc)" \
    '[ $rc -eq 1 ] && [ "$(wc -l <"$T/e")" -eq 1 ] && grep -q "no trace (a run made with --no-trace)" "$T/e"'
done
# plot --overlay says which run came from its saved plot-series
"$W" sim -t 2 -k current -o "$T/po" ext4-1dd-4k-8p-4096M-100M:10 >/dev/null 2>&1
PS=$(dirname "$(find "$T/po" -name stats | head -1)")
cp -r "$PS" "$PS-copy" && rm "$PS-copy/plot-series"
"$W" plot --no-gnuplot -o "$T/po1" --overlay "$PS" "$PS-copy" >"$T/o" 2>&1
check "plot: a DIR read from its trace, the overlay from its series: said so" 'grep -q "the overlay.s from its saved plot-series)" "$T/o"'
"$W" plot --no-gnuplot -o "$T/po2" --overlay "$PS-copy" "$PS" >"$T/o" 2>&1
check "plot: the DIR from its series, the overlay from its trace: said so" 'grep -q "the result.s from its saved plot-series)" "$T/o"'
# option numbers are decimal, as --set values are
"$W" sim -t 0x10 --no-trace -o "$T/hex" ext4-1dd-4k-8p-4096M-100M:10 >/dev/null 2>"$T/e"; rc=$?
check "sim -t 0x10: exit 2, one line naming --runtime (exit $rc)" '[ $rc -eq 2 ] && grep -q -- "--runtime" "$T/e" && [ ! -e "$T/hex" ]'
