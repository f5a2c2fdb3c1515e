#!/usr/bin/env bash
# wblab import end to end: small hand-made traces (3.1, 3.2), the 6.18 sample in
# tests/data, stdin, path-derived case names, stats values and the error paths.
# Set WBLAB_DAT_SAMPLE to a trace-cmd .dat file to check .dat conversion too.
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
WBLAB=${WBLAB:-$PWD/build/wblab}
tmp=$(mktemp -d /tmp/wblab-import.XXXXXX)
trap 'rm -rf "$tmp"' EXIT

stat_of() { sed -n "s/^$2 //p" "$1/stats"; }

# 3.2 trace: flusher samples every second, written grows 2560 pages/s (10 MB/s);
# one dirtier with pauses 10, 20, 30 ms.
t32=$tmp/t32.trace
{
  echo "# tracer: nop"
  echo "#"
  for i in 0 1 2 3 4 5 6 7 8 9 10 11; do
    printf '      flush-8:0-900   [000] %5d.000000: global_dirty_state: dirty=200 writeback=10 unstable=0 bg_thresh=500 thresh=1000 limit=1000 dirtied=%d written=%d\n' \
      $((100 + i)) $((3000 * i)) $((2560 * i))
    if [ "$i" -lt 3 ]; then
      printf '              dd-1000  [001] %5d.500000: balance_dirty_pages: bdi 8:0: limit=1000 setpoint=800 dirty=210 bdi_setpoint=700 bdi_dirty=205 dirty_ratelimit=4000 task_ratelimit=3000 dirtied=32 dirtied_pause=32 paused=0 pause=%d\n' \
        $((100 + i)) $((10 * (i + 1)))
    fi
  done
  printf '      flush-8:0-900   [000]   112.100000: writeback_written: bdi 8:0: sb_dev 0:0 nr_pages=0 sync_mode=0 kupdate=0 range_cyclic=1 background=1 reason=background\n'
} >"$t32"

out=$tmp/out
"$WBLAB" import "$t32" -o "$out" --case ext4-1dd-4k-2p-1024M-1000M:500M >"$tmp/stdout" 2>"$tmp/stderr"; rc=$?
dir=$out/thresh=1000M/ext4-1dd-4k-2p-1024M-1000M:500M-3.2
check "import 3.2 trace exits 0" '[ $rc -eq 0 ]'
check "import prints the result directory" '[ "$(cat "$tmp/stdout")" = "$dir" ]'
check "result has trace stats meta cmdline" '[ -f "$dir/trace" ] && [ -f "$dir/stats" ] && [ -f "$dir/meta" ] && [ -f "$dir/cmdline" ]'
check "trace is copied byte for byte" 'cmp -s "$t32" "$dir/trace"'
check "kernel detected as 3.2" 'grep -qx "kernel 3.2" "$dir/meta"'
check "meta source import" 'grep -qx "source import" "$dir/meta"'
check "cmdline records the command" 'grep -q "^wblab import .*--case ext4-1dd" "$dir/cmdline"'
check "write_bw 10 MB/s (n = N/10 rule)" '[ "$(stat_of "$dir" write_bw)" = 10 ]'
check "flusher_samples 12" '[ "$(stat_of "$dir" flusher_samples)" = 12 ]'
check "nr_dirty_mean_pages 210" '[ "$(stat_of "$dir" nr_dirty_mean_pages)" = 210 ]'
check "pause_ms_p50 20, mean 20, max 30" '[ "$(stat_of "$dir" pause_ms_p50)" = 20 ] && [ "$(stat_of "$dir" pause_ms_mean)" = 20 ] && [ "$(stat_of "$dir" pause_ms_max)" = 30 ]'
check "one task, fairness 1" '[ "$(stat_of "$dir" tasks)" = 1 ] && [ "$(stat_of "$dir" fairness_jain)" = 1 ]'

# writeback-tests layout: case and kernel from the path
src=$tmp/src/thresh=100M/ext4-2dd-4k-2p-1024M-100M:10-3.2.0-rc1+
mkdir -p "$src" && cp "$t32" "$src/trace"
"$WBLAB" import "$src/trace" -o "$out" >/dev/null 2>"$tmp/stderr"; rc=$?
check "case and kernel taken from GROUP/CASE-KERNEL/trace" '[ $rc -eq 0 ] && [ -d "$out/thresh=100M/ext4-2dd-4k-2p-1024M-100M:10-3.2.0-rc1+" ]'
"$WBLAB" import "$src/trace" -o "$out" --kernel mine >/dev/null 2>&1
check "--kernel overrides the path" '[ -d "$out/thresh=100M/ext4-2dd-4k-2p-1024M-100M:10-mine" ]'
# a newline in the kernel name would split meta and the result's name
"$WBLAB" import "$src/trace" -o "$tmp/ctl" --kernel $'x\ny' >/dev/null 2>"$tmp/stderr"; rc=$?
check "--kernel with a control character: exit 2, one line, nothing made" \
  '[ $rc -eq 2 ] && [ "$(wc -l <"$tmp/stderr")" -eq 1 ] && grep -q "control character" "$tmp/stderr" && [ ! -e "$tmp/ctl" ]'
# a repeat's result (CASE-KERNEL.2): run 2 of KERNEL, not a kernel named KERNEL.2
src2=$tmp/src/thresh=100M/ext4-2dd-4k-2p-1024M-100M:10-3.2.0-rc1+.2
mkdir -p "$src2" && cp "$t32" "$src2/trace"
"$WBLAB" import "$src2/trace" -o "$out" >/dev/null 2>&1; rc=$?
d2=$out/thresh=100M/ext4-2dd-4k-2p-1024M-100M:10-3.2.0-rc1+.2
check "a repeat's trace imports as run 2 of its kernel" '[ $rc -eq 0 ] && grep -qx "kernel 3.2.0-rc1+" "$d2/meta" && grep -qx "run 2" "$d2/meta"'

# 3.1: throttle events, unstable pages, no balance_dirty_pages
t31=$tmp/t31.trace
cat >"$t31" <<'T'
      flush-8:0-900   [000]   100.000000: global_dirty_state: dirty=100 writeback=5 unstable=7 bg_thresh=500 thresh=1000 limit=1000 dirtied=0 written=0
              dd-1000  [001]   100.100000: balance_dirty_start: bdi 8:0
              dd-1000  [001]   100.200000: balance_dirty_written: bdi 8:0 written 64
              dd-1000  [001]   100.300000: balance_dirty_wait: bdi 8:0
      flush-8:0-900   [000]   101.000000: global_dirty_state: dirty=100 writeback=5 unstable=7 bg_thresh=500 thresh=1000 limit=1000 dirtied=256 written=256
T
"$WBLAB" import "$t31" -o "$out" --case xfs-1dd-4k-2p-1024M-10:5 >/dev/null 2>&1; rc=$?
d31=$out/thresh=10/xfs-1dd-4k-2p-1024M-10:5-3.1
check "import 3.1 trace, kernel 3.1" '[ $rc -eq 0 ] && grep -qx "kernel 3.1" "$d31/meta"'
check "3.1 start/wait counts and unstable max" '[ "$(stat_of "$d31" balance_dirty_start_events)" = 1 ] && [ "$(stat_of "$d31" balance_dirty_wait_events)" = 1 ] && [ "$(stat_of "$d31" unstable_max_pages)" = 7 ]'

# the 6.18 sample (2 dd on a loop device)
sample=tests/data/kernel-6.18-2dd-loop.trace
"$WBLAB" import "$sample" -o "$out" --case ext4-2dd-1M-2p-768M-24M:10 >/dev/null 2>&1; rc=$?
d6=$out/thresh=24M/ext4-2dd-1M-2p-768M-24M:10-6.x
check "import 6.18 sample, kernel 6.x" '[ $rc -eq 0 ] && grep -qx "kernel 6.x" "$d6/meta"'
check "6.18 sample: 857 gds, 94 bdp, 2 tasks" '[ "$(stat_of "$d6" gds_samples)" = 857 ] && [ "$(stat_of "$d6" bdp_events)" = 94 ] && [ "$(stat_of "$d6" tasks)" = 2 ]'

# two stray 3.x lines in the 6.18 sample: still 6.x (majority), with a warning
awk 'NR == 39 || NR == 40 { sub(/writeback=[0-9]+ /, "&unstable=0 ") } { print }' "$sample" >"$tmp/mixed.trace"
"$WBLAB" import "$tmp/mixed.trace" -o "$out/mixed" --case ext4-2dd-1M-2p-768M-24M:10 >/dev/null 2>"$tmp/stderr"; rc=$?
check "6.x trace with 2 stray 3.x lines: kernel 6.x by majority" '[ $rc -eq 0 ] && [ -d "$out/mixed/thresh=24M/ext4-2dd-1M-2p-768M-24M:10-6.x" ]'
check "... and one warning line naming the first stray line" '[ "$(wc -l <"$tmp/stderr")" -eq 1 ] && grep -q "mixed.trace:39: 2 of 857 global_dirty_state lines" "$tmp/stderr"'
# a trace spliced out of order: an error naming file:line, no result
{ tail -n +200 "$sample"; head -199 "$sample" | grep -v "^#"; } >"$tmp/reversed.trace"
"$WBLAB" import "$tmp/reversed.trace" -o "$out/rev" --case ext4-2dd-1M-2p-768M-24M:10 >/dev/null 2>"$tmp/stderr"; rc=$?
check "time-reversed trace: exit 1, one line with file:line, nothing written" '[ $rc -eq 1 ] && [ "$(wc -l <"$tmp/stderr")" -eq 1 ] && grep -q "reversed.trace:[0-9]*: timestamp .* goes back" "$tmp/stderr" && [ ! -e "$out/rev" ]'

# stdin
"$WBLAB" import - -o "$out" --case ext4-1dd-4k-2p-1024M-1000M:500M <"$t32" >/dev/null 2>&1; rc=$?
check "import from stdin: the era detected as from a file (3.2)" '[ $rc -eq 0 ] && [ -f "$out/thresh=1000M/ext4-1dd-4k-2p-1024M-1000M:500M-3.2/stats" ] && cmp -s "$t32" "$out/thresh=1000M/ext4-1dd-4k-2p-1024M-1000M:500M-3.2/trace"'
# lines with no era marker keep the neutral name
printf '      flush-8:0-900   [000]   112.100000: writeback_written: bdi 8:0: sb_dev 0:0 nr_pages=0 sync_mode=0 kupdate=0 range_cyclic=1 background=1\n' >"$tmp/plain.trace"
"$WBLAB" import - -o "$out" --case ext4-1dd-4k-2p-1024M-1000M:500M <"$tmp/plain.trace" >/dev/null 2>&1; rc=$?
check "import of a trace without era marks from stdin: kernel 'imported'" '[ $rc -eq 0 ] && [ -f "$out/thresh=1000M/ext4-1dd-4k-2p-1024M-1000M:500M-imported/stats" ]'

# .dat, when a sample is given
if [ -n "${WBLAB_DAT_SAMPLE:-}" ] && [ -f "$WBLAB_DAT_SAMPLE" ]; then
  # libtraceevent leaks a few bytes while parsing event formats (not ours)
  echo "leak:libtraceevent.so" >"$tmp/lsan.supp"
  LSAN_OPTIONS=suppressions=$tmp/lsan.supp "$WBLAB" import "$WBLAB_DAT_SAMPLE" -o "$out" --case ext4-2dd-1M-2p-768M-24M:10 --kernel dat >/dev/null 2>"$tmp/stderr"; rc=$?
  dd_=$out/thresh=24M/ext4-2dd-1M-2p-768M-24M:10-dat
  check "import .dat converts to text" '[ $rc -eq 0 ] && grep -q ": global_dirty_state: dirty=" "$dd_/trace" && [ "$(stat_of "$dd_" gds_samples)" -gt 0 ]'
else
  skip "import .dat" "no WBLAB_DAT_SAMPLE (trace-cmd samples are > 1 MB)"
fi

# errors: usage -> 2, bad input -> 1, nothing written
err=$tmp/err
"$WBLAB" import >/dev/null 2>"$err"; rc=$?
check "no arguments: exit 2" '[ $rc -eq 2 ] && [ $(wc -l <"$err") -eq 1 ]'
"$WBLAB" import "$t32" --case ext4-1dd-4k-2p-1024M-1000M:500M >/dev/null 2>"$err"; rc=$?
check "missing -o: exit 2" '[ $rc -eq 2 ]'
"$WBLAB" import "$t32" -o "$tmp/e1" --bogus >/dev/null 2>"$err"; rc=$?
check "unknown option: exit 2" '[ $rc -eq 2 ] && grep -q -- "--bogus" "$err"'
"$WBLAB" import "$t32" -o "$tmp/e1" --case nonsense >/dev/null 2>"$err"; rc=$?
check "bad case: exit 2" '[ $rc -eq 2 ] && [ ! -e "$tmp/e1" ]'
"$WBLAB" import "$t32" -o "$tmp/e1" >/dev/null 2>"$err"; rc=$?
check "no case derivable: exit 2 naming the file" '[ $rc -eq 2 ] && grep -q "t32.trace" "$err" && [ ! -e "$tmp/e1" ]'
"$WBLAB" import "$tmp/missing.trace" -o "$tmp/e1" --case ext4-1dd-4k-2p-1024M-1000M:500M >/dev/null 2>"$err"; rc=$?
check "unreadable trace: exit 1 naming the file" '[ $rc -eq 1 ] && grep -q "missing.trace" "$err" && [ $(wc -l <"$err") -eq 1 ] && [ ! -e "$tmp/e1" ]'
bad=$tmp/bad.trace
{ head -5 "$t32"; echo "      flush-8:0-900   [000]   200.000000: global_dirty_state: dirty=1 writeback=x2 bg_thresh=1 thresh=1 limit=1 dirtied=1 written=1"; tail -3 "$t32"; } >"$bad"
"$WBLAB" import "$bad" -o "$tmp/e1" --case ext4-1dd-4k-2p-1024M-1000M:500M >/dev/null 2>"$err"; rc=$?
check "malformed line: exit 1, FILE:LINE in one line" '[ $rc -eq 1 ] && grep -q "bad.trace:6: " "$err" && [ $(wc -l <"$err") -eq 1 ]'
check "malformed line: nothing written" '[ ! -e "$tmp/e1" ]'
bad2=$tmp/bad2.trace
{ head -5 "$t32"; echo "      flush-8:0-900   [000]   200.000000: global_dirty_state: dirty=1 writeback=2 bg_thresh=1 thresh=1 limit=1 dirtied=1 written=x1"; tail -3 "$t32"; } >"$bad2"
"$WBLAB" import "$bad2" -o "$tmp/e1" --case ext4-1dd-4k-2p-1024M-1000M:500M >/dev/null 2>"$err"; rc=$?
check "malformed last field: the quoted line shows it (whole, as it fits)" \
  '[ $rc -eq 1 ] && grep -qF "bad2.trace:6: " "$err" && grep -qF "'"'"'flush-8:0-900" "$err" && grep -qF "written=x1'"'"'" "$err"'
# a line too long to quote whole: from the event's name on, "..." at the cut
{ head -5 "$t32"; printf '      flush-8:0-900   [000]   200.000000: global_dirty_state: dirty=1 writeback=2 bg_thresh=1 thresh=1 limit=1 dirtied=1 written=x1%0200d\n' 0; } >"$bad2"
"$WBLAB" import "$bad2" -o "$tmp/e1" --case ext4-1dd-4k-2p-1024M-1000M:500M >/dev/null 2>"$err"; rc=$?
check "malformed long line: quoted from the event name on, cut with ..." \
  '[ $rc -eq 1 ] && grep -qF "'"'"'global_dirty_state: dirty=1 writeback=2" "$err" && grep -qF "written=x1" "$err" && grep -qF "...'"'"'" "$err" && [ $(wc -l <"$err") -eq 1 ]'
mkdir -p "$tmp/e2"
"$WBLAB" import "$bad" -o "$tmp/e2" --case ext4-1dd-4k-2p-1024M-1000M:500M >/dev/null 2>"$err"
check "malformed line: existing output dir left empty" '[ -z "$(ls -A "$tmp/e2")" ]'
printf 'hello\nworld\n' >"$tmp/none.trace"
"$WBLAB" import "$tmp/none.trace" -o "$tmp/e1" --case ext4-1dd-4k-2p-1024M-1000M:500M >/dev/null 2>"$err"; rc=$?
check "no writeback events: exit 1" '[ $rc -eq 1 ] && grep -q "no writeback trace events" "$err" && [ ! -e "$tmp/e1" ]'
"$WBLAB" help import | grep -q "usage: wblab import TRACE -o DIR"
check "help import shows the usage" '[ $? -eq 0 ]'
# a page count no machine has (INT64_MAX: the stats' sums would overflow into
# a negative mean): one line naming the file, line and field, nothing written
printf '# tracer: nop\n#\n dd-1 [000] 1.000000: global_dirty_state: dirty=9223372036854775807 writeback=0 unstable=0 bg_thresh=10 thresh=20 limit=20 dirtied=0 written=0\n' >"$tmp/huge.trace"
"$WBLAB" import "$tmp/huge.trace" -o "$tmp/huge" --case ext4-1dd-4k-2p-1024M-10M:5 >/dev/null 2>"$err"; rc=$?
check "an impossible page count: exit 1, FILE:LINE and the field, no result" \
  '[ $rc -eq 1 ] && grep -qF "huge.trace:3: dirty=9223372036854775807 pages is no machine" "$err" && [ "$(wc -l <"$err")" = 1 ] && [ ! -e "$tmp/huge" ]'
# a trace of two devices: imported, with one warning naming both bdis
awk '/balance_dirty_pages: bdi 7:0/ { n++; if (n % 3 == 0) sub(/bdi 7:0/, "bdi 8:16") } { print }' \
  tests/data/kernel-6.18-2dd-loop.trace >"$tmp/two.trace"
"$WBLAB" import "$tmp/two.trace" -o "$tmp/two" --case ext4-2dd-4k-2p-24576M-100M:10 >/dev/null 2>"$err"; rc=$?
check "two bdis in one trace: imported, one warning naming both" \
  '[ $rc -eq 0 ] && [ "$(wc -l <"$err")" = 1 ] && grep -q "warning: .* holds the writeback events of two bdis: 7:0 ([0-9]* events), 8:16 ([0-9]* events)" "$err"'
"$WBLAB" import tests/data/kernel-6.18-2dd-loop.trace -o "$tmp/one" --case ext4-2dd-4k-2p-24576M-100M:10 >/dev/null 2>"$err"
check "one bdi: no warning" '[ ! -s "$err" ]'
