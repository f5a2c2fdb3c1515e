#!/usr/bin/env bash
# Regression test of the seed reproduction (issue 4's acceptance list): runs the
# 12 NFS cases under both kernels (300 simulated seconds, no traces) and checks
# every row's direction against the published table (the -0.3 % row: within
# +-10 %), the TOTAL change within +30..+60 %, the 1M/10dd peak of
# dirty+writeback+unstable >= 3x higher under vanilla, and that no parameter
# differs between rows.  Seeds 2-5 must keep the same shape.
set -u
. "$(dirname "$0")/lib.sh"
W=${WBLAB:?set WBLAB to the wblab binary}
e2e_scratch seed-e2e

"$W" seed --no-trace -o "$T/s" >"$T/table" 2>"$T/err"; rc=$?
check "seed exits 0" '[ $rc -eq 0 ]'
check "header names both seed kernels" 'head -1 "$T/table" | grep -q "3.1.0-rc8-vanilla+ *3.1.0-rc8-nfs-wq4+"'
check "12 case rows" '[ $(grep -c "NFS-thresh=.*-X$" "$T/table") -eq 12 ]'
check "TOTAL write_bw row" 'grep -q "TOTAL write_bw$" "$T/table"'
check "NFS TOTAL rows" 'grep -q "TOTAL nfs_nr_commits$" "$T/table" && grep -q "TOTAL nfs_write_queue_time$" "$T/table"'
pct() { grep -F "$1-X" "$2" | awk '{print $2}' | tr -d '%+'; }
dir_ok() { # case, sign, table
  local p; p=$(pct "$1" "$3"); [ -n "$p" ] && awk -v p="$p" -v s="$2" 'BEGIN{exit !((s > 0 && p > 0) || (s < 0 && p < 0))}'
}
shape() { # table, label
  tbl=$1
  for c in nfs-10dd-4k-32p-32768M-1M:10 nfs-1dd-4k-32p-32768M-1M:10 nfs-2dd-4k-32p-32768M-1M:10; do
    check "$2: 1M row regresses: $c" 'dir_ok "$c" -1 "$tbl"'
  done
  for c in nfs-10dd-4k-32p-32768M-1024M:10 nfs-1dd-4k-32p-32768M-1024M:10 nfs-2dd-4k-32p-32768M-1024M:10 \
           nfs-1dd-4k-32p-32768M-100M:10 nfs-2dd-4k-32p-32768M-100M:10 nfs-10dd-4k-32p-32768M-100M:10 \
           nfs-2dd-4k-32p-32768M-10M:10 nfs-10dd-4k-32p-32768M-10M:10; do
    check "$2: row improves: $c" 'dir_ok "$c" 1 "$tbl"'
  done
  local p; p=$(pct nfs-1dd-4k-32p-32768M-10M:10 "$1")
  check "$2: 10M/1dd within 10 % of the published -0.3 %: $p %" 'awk -v p="$p" "BEGIN{exit !(p >= -10.3 && p <= 9.7)}"'
  local t; t=$(grep "TOTAL write_bw$" "$1" | awk '{print $2}' | tr -d '%+')
  check "$2: TOTAL change $t % within +30..+60 % (published +45.4 %)" 'awk -v t="$t" "BEGIN{exit !(t >= 30 && t <= 60)}"'
}
shape "$T/table" "seed 1"
# seeds 2-5 keep the shape too (issue 16's acceptance: seeds 1-5)
for n in 2 3 4 5; do
  "$W" seed --no-trace --seed $n -o "$T/s$n" >"$T/table$n" 2>/dev/null
  shape "$T/table$n" "seed $n"
done
v=$(awk '/^nr_dirty_max_mb /{print $2}' "$T/s/NFS-thresh=1M/nfs-10dd-4k-32p-32768M-1M:10-3.1.0-rc8-vanilla+/stats")
w=$(awk '/^nr_dirty_max_mb /{print $2}' "$T/s/NFS-thresh=1M/nfs-10dd-4k-32p-32768M-1M:10-3.1.0-rc8-nfs-wq4+/stats")
check "1M/10dd peak dirty+writeback+unstable vanilla $v MB >= 3 x wq4 $w MB" 'awk -v v="$v" -v w="$w" "BEGIN{exit !(v >= 3 * w && w > 0)}"'
# the same model parameters for every row: params differ only in the case/kernel lines
first=""; same=1
for p in "$T"/s/*/*/params; do
  body=$(grep -vE "^(#|kernel|model|case) " "$p")
  if [ -z "$first" ]; then first=$body; elif [ "$body" != "$first" ]; then same=0; fi
done
check "no parameter differs between rows" '[ $same -eq 1 ]'
check "mountstats written for NFS results" '[ -s "$T/s/NFS-thresh=1M/nfs-1dd-4k-32p-32768M-1M:10-3.1.0-rc8-vanilla+/mountstats" ]'
check "compare tables saved" '[ -s "$T/s/compare-write_bw.txt" ] && [ -s "$T/s/compare-nfs.txt" ]'
