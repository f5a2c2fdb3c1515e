#!/usr/bin/env bash
# wblab import of a real trace-cmd .dat made here: the running kernel's
# writeback events, captured in a private tracefs instance while dd writes
# and fsyncs a file, saved by `trace-cmd extract` (trace-cmd record needs the
# function tracer, which this VM refuses) and, before that, as the instance's
# text.  The .dat goes through libtracecmd's field accessors, the text through
# the text parser: both must give the same stats.  Skips without root,
# tracefs or trace-cmd; leaves no instance (and unmounts a tracefs it mounted).
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
W=${WBLAB:?set WBLAB to the wblab binary}
e2e_scratch import-real-dat

why=""
[ "$(id -u)" -eq 0 ] || why="not root"
[ -z "$why" ] && ! command -v trace-cmd >/dev/null && why="no trace-cmd"
[ -z "$why" ] && ! grep -qw tracefs /proc/filesystems && why="kernel has no tracefs"
if [ -n "$why" ]; then
  skip "real .dat import" "$why"
  exit 0
fi

# tracefs mounts before: any other one at the end was made for this test
# (by it, or by trace-cmd looking for tracefs) and is unmounted again
tracefs_mounts() { awk '$3 == "tracefs" { print $2 }' /proc/mounts | sort; }
before=$(tracefs_mounts)
tr=$(tracefs_mounts | head -1)
if [ -z "$tr" ]; then
  tr=/sys/kernel/tracing
  mount -t tracefs nodev "$tr" || { skip "real .dat import" "cannot mount tracefs"; exit 0; }
fi
inst=$tr/instances/wblab-e2e-import-$$
cleanup() {
  [ -d "$inst" ] && { echo 0 >"$inst/tracing_on"; rmdir "$inst"; } 2>/dev/null
  local m
  for m in $(comm -13 <(echo "$before") <(tracefs_mounts) | sort -r); do umount "$m" 2>/dev/null; done
  rm -rf "$T"
}
trap cleanup EXIT

if ! mkdir "$inst" 2>/dev/null; then
  skip "real .dat import" "cannot make a tracefs instance"
  exit 0
fi
echo 8192 >"$inst/buffer_size_kb"
echo 1 >"$inst/events/writeback/enable"
echo 1 >"$inst/tracing_on"
# 64 MiB written and fsynced: throttling entries, flusher rounds, completions
dd if=/dev/zero of="$T/f" bs=1M count=64 conv=fsync status=none
sleep 0.2
echo 0 >"$inst/tracing_on"
cat "$inst/trace" >"$T/real.txt"
( cd "$T" && trace-cmd extract -B "$(basename "$inst")" -o "$T/real.dat" >/dev/null 2>"$T/extract.err" )
check "trace-cmd extract wrote a .dat" '[ -s "$T/real.dat" ] && [ "$(head -c 3 "$T/real.dat" | od -An -tx1 | tr -d " ")" = 170844 ]'
check "the instance's text holds writeback events" 'grep -q ": global_dirty_state: " "$T/real.txt"'

C=ext4-1dd-1M-2p-4096M-20:10
# libtraceevent leaks a few bytes while parsing event formats (not ours)
echo "leak:libtraceevent.so" >"$T/lsan.supp"
LSAN_OPTIONS=suppressions=$T/lsan.supp "$W" import "$T/real.dat" -o "$T/o" --case "$C" --kernel dat >/dev/null 2>"$T/e1"; rc1=$?
"$W" import "$T/real.txt" -o "$T/o" --case "$C" --kernel text >/dev/null 2>"$T/e2"; rc2=$?
D1="$T/o/thresh=20/$C-dat"; D2="$T/o/thresh=20/$C-text"
check "import of the real .dat and of its text exit 0" '[ $rc1 -eq 0 ] && [ $rc2 -eq 0 ]'
gds=$(sed -n 's/^gds_samples //p' "$D1/stats" 2>/dev/null)
check "the .dat import found the samples (${gds:-none} global_dirty_state)" '[ "${gds:-0}" -gt 0 ]'
check "the .dat and the text give the same stats" 'cmp -s "$D1/stats" "$D2/stats"'
check "the .dat import keeps the trace as kernel text" 'grep -q ": global_dirty_state: dirty=" "$D1/trace"'
"$W" compare -e gds_samples "$T/o" >"$T/cmp" 2>"$T/ec"; rc=$?
# (gds_samples: no vm.dirty_* is changed here, so the dd runs freely and
# the flusher may sample too seldom for a write_bw, which is then absent)
check "compare reads both: one row, the same value in each column" \
  '[ $rc -eq 0 ] && awk "/-X\$/ { n++; v = (\$2 ~ /%\$/) ? \$3 : \$2; if (\$1 != v) bad = 1 } END { exit !(n == 1 && !bad) }" "$T/cmp"'
