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
# each seed result's cmdline is the one `wblab sim` that makes it (rerun checks it)
R1="$T/s/NFS-thresh=1M/nfs-1dd-4k-32p-32768M-1M:10-3.1.0-rc8-nfs-wq4+"
check "a seed result's cmdline is its own wblab sim command" \
  'grep -qxF -- "wblab sim -k 3.1.0-rc8-nfs-wq4+ -t 300 --seed 1 --no-trace -o $T/s NFS-thresh=1M/nfs-1dd-4k-32p-32768M-1M:10" "$R1/cmdline"'
check_cmd "a seed result reruns identically" "$W" rerun "$R1"
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
# issue 16's acceptance for the RPC times: the TOTAL change vanilla -> wq4 of
# the right sign and within 20 points of the published one (the WRITE queue
# and RTT and the COMMIT queue hold on seeds 1-5; the COMMIT RTT does not yet,
# docs/nfs-model.md)
rpc_times() { # table, label
  local m pub c
  for m in "nfs_write_queue_time -84.3" "nfs_write_rtt_time -34.4" "nfs_commit_queue_time -88.6"; do
    set -- "$1" "$2" $m
    c=$(grep "TOTAL $3$" "$1" | awk '{print $2}' | tr -d '%+')
    pub=$4
    check "$2: TOTAL $3 change $c % of the published sign, within 20 points of $pub %" \
      'awk -v c="$c" -v p="$pub" "BEGIN{exit !(c != \"\" && c * p > 0 && c - p <= 20 && p - c <= 20)}"'
  done
}
# issue 16: the 1M/10dd peak levels within +-50 % of the published ~18 and
# ~3 MB, read as writeback-tests' global_dirty_state-500 graph shows them
# (the first dd's last 500 samples: nr_dirty_tail_max_mb, docs/stats.md)
tail_peaks() { # results dir, label
  local v w
  v=$(awk '/^nr_dirty_tail_max_mb /{print $2}' "$1/NFS-thresh=1M/nfs-10dd-4k-32p-32768M-1M:10-3.1.0-rc8-vanilla+/stats")
  w=$(awk '/^nr_dirty_tail_max_mb /{print $2}' "$1/NFS-thresh=1M/nfs-10dd-4k-32p-32768M-1M:10-3.1.0-rc8-nfs-wq4+/stats")
  check "$2: 1M/10dd tail peak vanilla $v MB within 9..27 (~18), wq4 $w MB within 1.5..4.5 (~3)" \
    'awk -v v="$v" -v w="$w" "BEGIN{exit !(v != \"\" && w != \"\" && v >= 9 && v <= 27 && w >= 1.5 && w <= 4.5)}"'
}
shape "$T/table" "seed 1"
rpc_times "$T/table" "seed 1"
tail_peaks "$T/s" "seed 1"
# seeds 2-5 keep the shape too (issue 16's acceptance: seeds 1-5)
for n in 2 3 4 5; do
  "$W" seed --no-trace --seed $n -o "$T/s$n" >"$T/table$n" 2>/dev/null
  shape "$T/table$n" "seed $n"
  rpc_times "$T/table$n" "seed $n"
  tail_peaks "$T/s$n" "seed $n"
done
# the block layer under the NFS server's disk (issue 12's acceptance): the
# seed table (seed 1) keeps its shape and its 1M/10dd peak ratio
"$W" seed --no-trace --set nfs.server_dev=hdd-2011 -o "$T/sb" >"$T/tableb" 2>/dev/null; rc=$?
check "server disk on the block layer: seed exits 0" '[ $rc -eq 0 ]'
shape "$T/tableb" "server disk on the block layer"
vb=$(awk '/^nr_dirty_max_mb /{print $2}' "$T/sb/NFS-thresh=1M/nfs-10dd-4k-32p-32768M-1M:10-3.1.0-rc8-vanilla+/stats")
wb=$(awk '/^nr_dirty_max_mb /{print $2}' "$T/sb/NFS-thresh=1M/nfs-10dd-4k-32p-32768M-1M:10-3.1.0-rc8-nfs-wq4+/stats")
check "server disk on the block layer: 1M/10dd peak vanilla $vb MB >= 3 x wq4 $wb MB" 'awk -v v="$vb" -v w="$wb" "BEGIN{exit !(v >= 3 * w && w > 0)}"'
check "server disk on the block layer: results say so" 'grep -q "^nfs.server_dev = hdd-2011$" "$T/sb/NFS-thresh=1M/nfs-10dd-4k-32p-32768M-1M:10-3.1.0-rc8-vanilla+/params"'
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
# issue 16's numbers that hold today (seed 1): cells within +-35 % of the
# published MB/s (published table, docs/seed-reproduction.md), and the
# vanilla 100M/10dd row, whose ten dd's take turns on the 3.1 transport's
# priority backlog (a FIFO backlog gave 12.4 MB/s and 503 COMMITs)
cells=$(awk 'BEGIN {
	split("21.85 43.23 51.38 73.26 28.81 70.68 13.74 21.59 29.11 29.02 16.68 31.78 48.88 69.01 57.85 76.74 47.13 76.87 9.82 6.58 13.72 11.24 15.68 5.48", p, " ") }
	/-X$/ { v = $1; w = $3; i = 2 * n + 1; n++
		if (v >= 0.65 * p[i] && v <= 1.35 * p[i]) c++
		if (w >= 0.65 * p[i + 1] && w <= 1.35 * p[i + 1]) c++ }
	END { print c + 0 }' "$T/s/compare-write_bw.txt")
check "seed 1: $cells of 24 cells within 35 % of the published MB/s (>= 17)" '[ "$cells" -ge 17 ]'
V10="$T/s/NFS-thresh=100M/nfs-10dd-4k-32p-32768M-100M:10-3.1.0-rc8-vanilla+/stats"
vb=$(awk '/^write_bw /{print $2}' "$V10"); vc=$(awk '/^nfs_nr_commits /{print $2}' "$V10")
check "vanilla 100M/10dd: $vb MB/s and $vc COMMITs within 35 % of the published 21.85 and 834" \
  'awk -v b="$vb" -v c="$vc" "BEGIN{exit !(b >= 0.65 * 21.85 && b <= 1.35 * 21.85 && c >= 0.65 * 834 && c <= 1.35 * 834)}"'

# The whole seed as `bash scripts/seed.sh` runs it: traces, graphs, report.
# Sizes are checked (issue 13: report <= 5 MB, results <= 150 MB); times are
# printed, not tested (a shared machine).
s0=$(date +%s.%N)
"$W" seed -o "$T/full" >"$T/table-full" 2>"$T/err-full"; rc=$?
s1=$(date +%s.%N)
echo "# full seed: $(awk -v a="$s0" -v b="$s1" 'BEGIN {printf "%.1f", b - a}') s wall"
check "full seed (traces, graphs, report) exits 0" '[ $rc -eq 0 ] && [ -s "$T/full/report.html" ]'
check "full seed prints the tables of --no-trace byte for byte" 'cmp -s "$T/table" "$T/table-full"'
H="$T/full/report.html"
sz=$(stat -c %s "$H" 2>/dev/null || echo 0)
echo "# seed report.html: $sz bytes"
check "seed report.html is at most 5 MB ($sz bytes)" '[ "$sz" -gt 0 ] && [ "$sz" -le 5242880 ]'
tot=$(du -sb "$T/full" | cut -f1)
check "seed results fit in 150 MB ($tot bytes)" '[ "$tot" -le 157286400 ]'
made=$(find "$T/full" -name index -path '*/plots/*' -exec cat {} + | grep -c '^made ')
check "report inlines every graph made ($made, overlays included)" '[ "$made" -ge 160 ] && [ "$(grep -c "<svg" "$H")" -eq "$made" ]'
check "3.1 results get the per-file writeback progress graph" '[ -s "$T/full/NFS-thresh=1M/nfs-10dd-4k-32p-32768M-1M:10-3.1.0-rc8-vanilla+/plots/writeback-file-progress.svg" ]'
# points per block: data lines, or for markers (each a 2-line stroke between
# blank lines) the strokes
n=$(find "$T/full" -name '*.dat' -path '*/plots/*' -print0 | xargs -0 awk '
  function end() { p = s > 1 ? s : b; if (p > m) m = p; b = s = 0 }
  FNR == 1 || /^# index/ { end() }
  !/^#/ && NF { b++; if (!prev) s++ }
  { prev = !/^#/ && NF }
  END { end(); print m + 0 }')
check "no plotted series has more than 2 points per pixel column ($n)" '[ "$n" -le 992 ] && [ "$n" -gt 0 ]'
CHR=$(command -v chromium || command -v chromium-browser || true)
if [ -n "$CHR" ]; then
  c0=$(date +%s.%N)
  timeout 120 "$CHR" --headless --no-sandbox --disable-gpu --no-first-run --disable-background-networking \
    --user-data-dir="$(mktemp -d "$T/chr.XXXXXX")" --window-size=1300,3000 --screenshot="$T/seed.png" \
    "file://$H" >/dev/null 2>&1
  c1=$(date +%s.%N)
  echo "# headless Chromium screenshot of the seed report: $(awk -v a="$c0" -v b="$c1" 'BEGIN {printf "%.1f", b - a}') s (including its start)"
  check "Chromium renders the seed report" '[ -s "$T/seed.png" ]'
fi
