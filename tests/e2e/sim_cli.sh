#!/usr/bin/env bash
# End-to-end checks of `wblab sim`: layout, trace formats, determinism, errors.
set -u
. "$(dirname "$0")/lib.sh"
W=${WBLAB:?set WBLAB to the wblab binary}
e2e_scratch sim-e2e

C=ext4-2dd-4k-4p-4096M-10M:10
"$W" sim -t 20 -j 2 -o "$T/a" "$C" >"$T/out" 2>"$T/err"; rc=$?
check "sim exits 0" '[ $rc -eq 0 ]'
D31="$T/a/thresh=10M/$C-3.1-vanilla"; D32="$T/a/thresh=10M/$C-3.2-ioless"
check "result dirs of both kernels" '[ -d "$D31" ] && [ -d "$D32" ]'
for f in trace.dat stats params meta cmdline; do
  check "3.2 result has $f" '[ -s "$D32/$f" ]'
done
check "no temporary dirs left" '[ -z "$(find "$T/a" -name ".*tmp*")" ]'
check "stdout lists the result dirs" 'grep -qF "$C-3.2-ioless" "$T/out"'
check "meta names kernel and case" 'grep -qx "kernel 3.2-ioless" "$D32/meta" && grep -qx "case $C" "$D32/meta"'
# an -o ending in "/" (as "/" does): the listed paths have no empty component
"$W" sim -q -t 1 -k 3.2-ioless -o "$T/slash/" "$C" >"$T/out2" 2>/dev/null
check "-o DIR/ lists DIR/thresh=10M/..., no '//'" 'grep -qx "$T/slash/thresh=10M/$C-3.2-ioless" "$T/out2"'
# every parameter `sim --help` lists, at the default it shows, and no other
"$W" sim --help | sed -n '/^parameters/,$s/^  \([a-z][a-z0-9_.]*\)  *\([^ ]*\)  .*/\1 = \2/p' >"$T/help_params"
sed -n '/^hz = /,$p' "$D32/params" >"$T/run_params"
check "help lists the parameters, hz first" '[ "$(head -1 "$T/help_params")" = "hz = 1000" ] && [ "$(wc -l <"$T/help_params")" -ge 30 ]'
check "params has every parameter of --help, at its default, and no other" 'diff "$T/help_params" "$T/run_params" >&2'
check "params records seed, runtime and model" 'grep -qx "seed = 1" "$D32/params" && grep -qx "runtime = 20" "$D32/params" && grep -qx "model = 3.2-ioless" "$D32/params"'
check "stats has write_bw > 0" 'awk "/^write_bw /{exit !(\$2 > 0)}" "$D32/stats"'
for m in write_bw dirtied_pages written_pages task_bw_0 fairness_jain nr_dirty_max_pages nr_dirty_max_mb nr_dirty_mean_pages time_over_limit_s pause_count pause_ms_p50 pause_ms_p90 pause_ms_p99 pause_ms_max dirtier_written_pages flusher_io_count flusher_io_mean_kb; do
  check "stats has $m" 'grep -q "^$m " "$D32/stats"'
done
# kernel-format trace lines: "%16s-%-5d [%03d] %5lu.%06lu: event: payload",
# as `wblab trace` prints the trace.dat
"$W" trace "$D31" >"$T/t31.txt"; "$W" trace "$D32" >"$T/t32.txt"
check "3.2 trace has balance_dirty_pages in 3.2 layout" \
  'grep -qE "^ +dd-30[0-9]{2} +\[[0-9]{3}\] +[0-9]+\.[0-9]{6}: balance_dirty_pages: bdi 8:0: limit=[0-9]+ setpoint=[0-9]+ dirty=[0-9]+ bdi_setpoint=[0-9]+ bdi_dirty=[0-9]+ dirty_ratelimit=[0-9]+ task_ratelimit=[0-9]+ dirtied=[0-9]+ dirtied_pause=[0-9]+ paused=[0-9]+ pause=[0-9-]+$" "$T/t32.txt"'
check "3.2 trace has bdi_dirty_ratelimit" 'grep -qE ": bdi_dirty_ratelimit: bdi 8:0: write_bw=[0-9]+ awrite_bw=[0-9]+ dirty_rate=[0-9]+ dirty_ratelimit=[0-9]+ task_ratelimit=[0-9]+ balanced_dirty_ratelimit=[0-9]+$" "$T/t32.txt"'
check "flusher global_dirty_state lines" 'grep -qE "^ +flush-8:0-[0-9]+ +\[[0-9]{3}\] +[0-9.]+: global_dirty_state: dirty=[0-9]+ writeback=[0-9]+ unstable=0 bg_thresh=1280 thresh=2560 limit=[0-9]+ dirtied=[0-9]+ written=[0-9]+$" "$T/t32.txt"'
check "3.1 trace has balance_dirty_start/wait, no balance_dirty_pages" \
  'grep -q ": balance_dirty_start: bdi 8:0$" "$T/t31.txt" && grep -q ": balance_dirty_wait: bdi 8:0$" "$T/t31.txt" && ! grep -q ": balance_dirty_pages:" "$T/t31.txt"'
check "3.1 trace has balance_dirty_written" 'grep -qE ": balance_dirty_written: bdi 8:0 written [0-9]+$" "$T/t31.txt"'
check "3.1 dirtiers wrote pages themselves" 'awk "/^dirtier_written_pages /{exit !(\$2 > 0)}" "$D31/stats"'

# the seed's wq4 kernel: 3.1-rc8 writeback events (age in ms, no dirtied_when,
# no reason=) beside 3.2's IO-less tracepoints; import recognises the mix
CN=nfs-2dd-4k-4p-4096M-10M:10
"$W" sim -k 3.1.0-rc8-nfs-wq4+ -t 5 -o "$T/q" "$CN" >/dev/null 2>&1
DQ="$T/q/thresh=10M/$CN-3.1.0-rc8-nfs-wq4+"
"$W" trace "$DQ" >"$T/tq.txt"
check "wq4 trace: writeback_single_inode in 3.1-rc8 layout" \
  'grep -qE ": writeback_single_inode: bdi 0:[0-9]+: ino=[0-9]+ state=[A-Z_|]+ age=[0-9]+ index=[0-9]+ to_write=[0-9]+ wrote=[0-9]+$" "$T/tq.txt"'
check "wq4 trace: balance_dirty_pages present, no reason=" \
  'grep -q ": balance_dirty_pages: " "$T/tq.txt" && ! grep -q "reason=" "$T/tq.txt"'
"$W" import "$DQ/trace.dat" -o "$T/qi" --case "$CN" >/dev/null 2>&1
check "import detects the wq4 trace as 3.1-rc8-ioless" 'grep -qx "kernel 3.1-rc8-ioless" "$T/qi/thresh=10M/$CN-3.1-rc8-ioless/meta"'

# determinism: same seed -> identical bytes; another seed -> different trace
"$W" sim -t 20 -j 1 -o "$T/b" "$C" >/dev/null 2>&1
check "same case and seed give byte-identical results (all but cmdline, -j 2 vs -j 1)" 'diff -r -x cmdline "$T/a" "$T/b" >/dev/null'
"$W" sim -t 20 --seed 7 -o "$T/c" "$C" >/dev/null 2>&1
check "another seed gives another trace" '! cmp -s "$D32/trace.dat" "$T/c/thresh=10M/$C-3.2-ioless/trace.dat"'

# --no-trace still computes stats
"$W" sim -t 10 --no-trace -k 3.2-ioless -o "$T/d" "$C" >/dev/null 2>&1
check "--no-trace: no trace, same stats keys" '[ ! -e "$T/d/thresh=10M/$C-3.2-ioless/trace" ] && [ ! -e "$T/d/thresh=10M/$C-3.2-ioless/trace.dat" ] && grep -q "^write_bw " "$T/d/thresh=10M/$C-3.2-ioless/stats"'

# --set overrides land in params and change the outcome
"$W" sim -t 20 -k 3.2-ioless --set disk.bw_mbps=20 -o "$T/e" "$C" >/dev/null 2>&1
check "--set disk.bw_mbps=20 is recorded and slows the disk" 'grep -qx "disk.bw_mbps = 20" "$T/e/thresh=10M/$C-3.2-ioless/params" && awk "/^write_bw /{exit !(\$2 < 22)}" "$T/e/thresh=10M/$C-3.2-ioless/stats"'

# bad input: one line, exit 2, nothing written
bad() {
  local what=$1; shift
  local name; name=$(printf '%s' "$*" | tr -c '[:print:]' '?' | cut -c1-140)
  rm -rf "$T/bad"
  "$W" sim -o "$T/bad" "$@" >"$T/bo" 2>"$T/be"; local rc=$?
  if [ $rc -eq 2 ] && [ "$(wc -l <"$T/be")" -eq 1 ] && grep -qF -- "$what" "$T/be" && [ ! -e "$T/bad" ]; then
    ok "bad input rejected: $name"; else nok "bad input rejected: $name (rc=$rc: $(head -c 200 "$T/be"))"; fi
}
bad "ext4-xdd" ext4-xdd-4k-4p-4096M-10M:10
bad "threshold" ext4-1dd-4k-4p-4096M-10M
bad "wblab sim: --kernel: unknown kernel model '2.6'" -k 2.6 "$C"
bad "wblab sim: --kernel: 'current' is listed twice" -k current,current "$C"
bad "wblab sim: --kernel: 'current,' has an empty item" -k current, "$C"
bad "wblab sim: --kernel: ',current' has an empty item" -k ,current "$C"
bad "case thresh=10M/$C is listed twice" -k current "$C" "thresh=10M/$C"
bad "control character (byte 0x0a at offset 1)" $'a\nb/'"$C"
bad "control character (byte 0x7f" $'a\x7f/'"$C"
bad "--seed 18446744073709551615 with --repeat 2" --seed 18446744073709551615 --repeat 2 "$C"
bad "the key is too long" --set "$(printf 'a%.0s' {1..600})=1,2" "$C"
bad "'40' is listed twice (as '40.0')" --set disk.bw_mbps=40,40.0,80 "$C"
bad "bad value '0x3e8'" --set hz=0x3e8 "$C"
bad "unknown parameter 'disk.nope'" --set disk.nope=1 "$C"
bad "bad value" --set hz=fast "$C"
bad "multiple of 4k" ext4-1dd-3k-4p-4096M-10M:10
bad "no '*'" 'ext4-1dd-4k-*-4096M-10M:10'
bad "writeback_inode_ns: value '0' out of range 1..10000000" --set writeback_inode_ns=0 "$C"
bad "jitter_pct" --set nfs.server_jitter_pct=300 "$C"
bad "disk.seek_ms: value '1e300' out of range 0..1000" --set disk.seek_ms=1e300 "$C"
bad "stack_kb: value '99999999' out of range 64..16384" --set stack_kb=99999999 "$C"
bad "nfs.min_slots=8 must not exceed nfs.max_slots=4" --set nfs.min_slots=8 --set nfs.max_slots=4 "$C"
bad "--runtime" -t -5 "$C"
bad "unknown file system" zfs-1dd-4k-4p-4096M-10M:10
bad "dirty threshold 100M is not below MEM 64M" ext4-1dd-4k-8p-64M-100M:10
bad "group '../../x'" "../../x/$C"
check "a '..' group wrote nothing outside -o" '[ ! -e "$T/x" ] && [ ! -e "$T/../x/$C-3.1-vanilla" ]'
bad "must not start with '/'" "/abs/$C"
"$W" sim -o '' "$C" >"$T/bo" 2>"$T/be"; rc=$?
check "-o '' is refused (exit 2, one line), nothing written to /" '[ $rc -eq 2 ] && [ "$(wc -l <"$T/be")" -eq 1 ] && grep -qF -- "--out: DIR must not be empty" "$T/be" && [ ! -e "/thresh=10M/$C-3.1-vanilla" ]'
# -o that cannot hold results: one line before any job runs, not one per job
: >"$T/file"
for o in "$T/file" "$T/file/sub"; do
  "$W" sim -t 5 -o "$o" 'ext4-{1,2}dd-4k-4p-4096M-{1M,10M}:10' >"$T/bo" 2>"$T/be"; rc=$?
  check "-o ${o#$T/} (a regular file, or below one): exit 2, one line naming it, nothing run" \
    '[ $rc -eq 2 ] && [ "$(wc -l <"$T/be")" -eq 1 ] && grep -qF "wblab sim: --out: " "$T/be" && grep -qF "'"'"'$T/file'"'"' is not a directory" "$T/be" && [ ! -s "$T/bo" ] && [ ! -s "$T/file" ]'
done
# root may write everywhere by access(); /proc takes no new directory: one
# line before any job, not one error per job
if [ "$(id -u)" = 0 ] && [ -d /proc/self ]; then
  "$W" sim -t 5 -o /proc/wblab-x 'ext4-{1,2}dd-4k-4p-4096M-{1M,10M}:10' >"$T/bo" 2>"$T/be"; rc=$?
  check "-o under /proc (root): exit 2, one line, nothing run" \
    '[ $rc -eq 2 ] && [ "$(wc -l <"$T/be")" -eq 1 ] && grep -qF "wblab sim: --out: '"'"'/proc/wblab-x'"'"': '"'"'/proc'"'"': cannot create a directory" "$T/be" && [ ! -s "$T/bo" ]'
fi
"$W" sim -q -t 0.1 --no-trace -o "$T/probe" "$C" >/dev/null 2>&1
check "the -o probe leaves nothing behind" '[ -z "$(ls -A "$T/probe" | grep -v "^thresh=10M$")" ] && [ -z "$(ls -A "$T/probe/thresh=10M" | grep -v -- "^$C-")" ]'
# -t as given in cmdline (the shortest form that reads back the same)
"$W" sim -q -t 0.1 -k current --no-trace -o "$T/t01" "$C" >/dev/null 2>&1
check "-t 0.1 is written '-t 0.1' in cmdline" 'grep -q -- " -t 0.1 --seed 1 " "$T/t01/thresh=10M/$C-current/cmdline"'
# the same result from several processes at once (a job list with a repeated
# line, two sims into one root): every commit succeeds, the result is whole
# and no temporary or moved-aside dir stays behind
fails=0
for round in $(seq 1 20); do
  pids=
  for p in 1 2 3 4 5 6; do
    "$W" sim -q -t 0.05 -j 1 -k current -o "$T/race" "$C" >/dev/null 2>>"$T/race.err.$p" & pids="$pids $!"
  done
  for p in $pids; do wait "$p" || fails=$((fails + 1)); done
done
RD="$T/race/thresh=10M/$C-current"
check "6 concurrent sims of one case, 20 times: all exit 0 ($fails failed)" '[ $fails -eq 0 ] && ! grep -q . "$T"/race.err.*'
check "... the result is whole" 'for f in trace.dat stats params meta cmdline plot-series; do [ -s "$RD/$f" ] || exit 1; done'
check "... and nothing else is left in its group" '[ "$(ls -A "$T/race/thresh=10M")" = "$C-current" ]'
# fault injection: the trace write fails (file size limit); the new OUT/GROUP goes too
( trap '' XFSZ; ulimit -f 8; "$W" sim -t 20 -k 3.2-ioless -o "$T/fsz" "$C" ) >"$T/bo" 2>"$T/be"; rc=$?
check "a failed sim run exits 1 and leaves no empty OUT/GROUP" '[ $rc -eq 1 ] && grep -q "writing the trace" "$T/be" && [ ! -e "$T/fsz" ]'
mkdir -p "$T/keep/thresh=10M/other"
( trap '' XFSZ; ulimit -f 8; "$W" sim -t 20 -k 3.2-ioless -o "$T/keep" "$C" ) >/dev/null 2>&1
check "a failed sim run keeps directories it did not create" '[ -d "$T/keep/thresh=10M/other" ] && [ -z "$(find "$T/keep" -name ".*")" ]'
check "help lists models and parameters" '"$W" help sim | grep -q "3.2-ioless" && "$W" sim --help | grep -q "disk.seek_ms"'
check "--version" '"$W" --version | grep -q "^wblab "'

# --repeat N: runs 1..N with seeds S..S+N-1, dirs CASE-KERNEL[.R]; each cmdline remakes its result
RP="$T/rep"
"$W" sim -q --repeat 3 --seed 5 -t 20 -k 3.2-ioless --no-trace -o "$RP" ext4-1dd-4k-8p-4096M-100M:10 >"$T/rep.out" 2>&1
D="$RP/thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-3.2-ioless"
check "--repeat 3: three result dirs, runs 1..3 in meta" '[ -d "$D" ] && [ -d "$D.2" ] && [ -d "$D.3" ] && [ ! -e "$D.4" ] && grep -qx "run 3" "$D.3/meta" && grep -qx "run 1" "$D/meta"'
check "--repeat: run R uses seed S+R-1 and --run R in its cmdline" 'grep -q -- "--seed 7 --run 3 " "$D.3/cmdline" && grep -q -- "--seed 5 " "$D/cmdline" && ! grep -q -- "--run" "$D/cmdline"'
check "--repeat: sim prints each result's own path (CASE-KERNEL, .2, .3)" \
  'printf "%s\n" "$D" "$D.2" "$D.3" | cmp -s - "$T/rep.out"'
check "--repeat: the repeats differ" '! cmp -s "$D/stats" "$D.2/stats"'
eval "set -- $(sed "s|-o $RP|-o $T/rep2|" "$D.3/cmdline")"; shift
"$W" "$@" >/dev/null 2>&1
check "--repeat: a repeat's cmdline reproduces that one result" 'cmp "$D.3/stats" "$T/rep2/thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-3.2-ioless.3/stats" && [ ! -e "$T/rep2/thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-3.2-ioless" ]'
check "--run with --repeat is a usage error" '! "$W" sim --run 2 --repeat 2 -o "$T/x" ext4-1dd-4k-8p-4096M-100M:10 2>/dev/null'

# kupdate (wb_writeback for_kupdate) writes only inodes dirtied more than
# dirty_expire_centisecs ago: the run starts long after boot, so in its first
# 30 s no inode the dd dirtied at t = 0 has expired.  The 3.1 NFS client keeps
# the inode I_DIRTY_DATASYNC, so it stays on the dirty list with its first
# dirtied_when and expires at 30 s.
"$W" sim -q -t 40 -k 3.1.0-rc8-nfs-wq4+ --trace-format text -o "$T/kup" nfs-1dd-4k-32p-32768M-100M:10 >/dev/null 2>&1
KT=$(find "$T/kup" -name trace)
kup() { awk -v a="$1" -v b="$2" '/writeback_start:/ { k = ($0 ~ /kupdate=1/) }
	/writeback_single_inode:/ && k && $3 + 0 >= a && $3 + 0 < b && $0 !~ / wrote=0$/ { n++ } END { print n + 0 }' "$KT"; }
k1=$(kup 0 10); k4=$(kup 30 40)
check "kupdate writes no inode in the run's first 10 s ($k1), but does once it expired ($k4 in 30-40 s)" '[ -n "$KT" ] && [ "$k1" -eq 0 ] && [ "$k4" -gt 0 ]'
# a run too short for two flusher samples has no write_bw (not a measured 0)
"$W" sim -q -t 0.001 -k 3.2-ioless -o "$T/short" ext4-1dd-4k-8p-4096M-10M:10 >/dev/null 2>&1; rc=$?
SS=$(find "$T/short" -name stats)
check "a 1 ms run: stats without write_bw, flusher_samples 1" '[ $rc -eq 0 ] && [ -n "$SS" ] && ! grep -q "^write_bw " "$SS" && grep -qx "flusher_samples 1" "$SS"'

# what one writepages call writes (docs/storage-model.md): 3.x ext4 raises
# nr_to_write to the file's contiguous dirty pages (at most 128 MiB) and takes
# the raise off again, so a flusher visit writes beyond its chunk; not with
# the raise set to 0, not on xfs, not under current (3.10 dropped it).  btrfs
# sets nr_to_write to 8192 when the dirty range is 16384 pages or more and
# gives nothing back: `wrote` counts against 8192, the index moves on 8192.
wsi() { "$W" sim -q -t 10 --trace-format text -o "$T/wp-$1" "${@:2}" >/dev/null 2>&1
	awk '/writeback_single_inode:/ && !/ dd-[0-9]/ { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
		if (v["wrote"] + 0 > v["to_write"] + 0) over++
		if (v["ino"] in last && v["index"] - last[v["ino"]] == 8192 && v["wrote"] + 0 < 8192) moved++
		last[v["ino"]] = v["index"]; n++ }
		END { print n + 0, over + 0, moved + 0 }' "$(find "$T/wp-$1" -name trace)"; }
# "visits over moved" fields: $1 of them, the field $2 is 0 (z) or above (p)
field() { echo "$1" | cut -d' ' -f"$2"; }
none_over() { [ "$(field "$1" 1)" -gt 0 ] && [ "$(field "$1" 2)" -eq 0 ]; }
e32=$(wsi e32 -k 3.2-ioless ext4-2dd-4k-8p-4096M-400M:10)
e31=$(wsi e31 -k 3.1-vanilla ext4-2dd-4k-8p-4096M-400M:10)
e0=$(wsi e0 -k 3.2-ioless --set ext4_max_writeback_mb_bump=0 ext4-2dd-4k-8p-4096M-400M:10)
x=$(wsi x -k 3.2-ioless xfs-2dd-4k-8p-4096M-400M:10)
# current's trace has no writeback_single_inode: the raise's parameter must change nothing
"$W" sim -q -t 10 --no-trace -k current -o "$T/wp-c" ext4-2dd-4k-8p-4096M-400M:10 >/dev/null 2>&1
"$W" sim -q -t 10 --no-trace -k current --set ext4_max_writeback_mb_bump=0 -o "$T/wp-c0" ext4-2dd-4k-8p-4096M-400M:10 >/dev/null 2>"$T/wp-c0.err"
c=$(cmp "$T"/wp-c/*/*/stats "$T"/wp-c0/*/*/stats >/dev/null 2>&1 && grep -q "has no effect" "$T/wp-c0.err" && echo same)
b=$(wsi b -k 3.2-ioless btrfs-2dd-4k-8p-4096M-1024M:10)
check "3.x ext4 writes beyond the chunk ($e32; 3.1: $e31), not at bump 0 ($e0), xfs ($x) or current (${c:-differs})" \
  '[ "$(field "$e32" 2)" -gt 0 ] && [ "$(field "$e31" 2)" -gt 0 ] &&
   none_over "$e0" && none_over "$x" && [ "$c" = same ]'
check "btrfs: nr_to_write set to 8192 and not given back ($b: visits, over the chunk, index +8192 with wrote < 8192)" \
  '[ "$(field "$b" 1)" -gt 0 ] && [ "$(field "$b" 2)" -eq 0 ] && [ "$(field "$b" 3)" -gt 0 ]'
