#!/usr/bin/env bash
# End-to-end checks of `wblab run` on the running kernel: short real runs
# (ext4, 1dd and 2dd, 3 s each on 1 GiB sparse loop images) and the safety
# model: after every run, Ctrl-C, SIGKILL + --cleanup, and refused runs, every
# vm.dirty_* sysctl, mount, loop device and tracefs setting is as before.
# Needs $WBLAB.  Real runs are skipped (with the reason) only where root,
# tracefs or loop devices are really absent.
set -u
WBLAB=${WBLAB:?set WBLAB to the wblab binary}
T=$(mktemp -d /tmp/wblab-run-real.XXXXXX)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/real_env.sh"
OUT=$T/results
# 20M: small enough that even a fast loop device throttles the writers within
# the 3 s (at 100M a quick device kept them below freerun on a busy machine)
CASES=('ext4-1dd-4k-*-*-20M:10' 'ext4-2dd-4k-*-*-20M:10')
RUN=("$WBLAB" run -t 3 --image-size 1G --buffer-kb 16384 --scratch "$SCRATCH")


stat_of() { awk -v k="$2" '$1 == k { print $2 }' "$1/stats"; }
gt0() { awk -v v="$1" 'BEGIN { exit !(v + 0 > 0) }'; }

# --- refused runs: clear errors, nothing changed -----------------------------
snapshot >"$T/before"
"$WBLAB" run --runtime 3 --bogus ext4-1dd-4k-*-*-100M:10 >"$T/o" 2>&1; rc=$?
check_cmd "bad option exits 2" [ "$rc" = 2 ]
check_cmd "bad option is named" grep -q "^wblab run: unknown option '--bogus'" "$T/o"
"$WBLAB" run -t abc 'ext4-1dd-4k-*-*-100M:10' >"$T/o" 2>&1; rc=$?
check_cmd "bad --runtime exits 2 with a reason" eval '[ "$rc" = 2 ] && grep -q "^wblab run: --runtime: .abc. is not a number" "$T/o"'
"$WBLAB" run >"$T/o" 2>&1; rc=$?
check_cmd "no CASE exits 2" eval '[ "$rc" = 2 ] && grep -q "no CASE" "$T/o"'
"$WBLAB" run --scratch "$SCRATCH" 'ext4-1dd-4k-4096p-*-100M:10' >"$T/o" 2>&1; rc=$?
check_cmd "CPU mismatch exits 2" [ "$rc" = 2 ]
check_cmd "CPU mismatch says what the machine has" grep -q "this machine has $(nproc)p" "$T/o"
"$WBLAB" run --scratch "$SCRATCH" 'ext4-1dd-4k-*-64M-10M:10' >"$T/o" 2>&1; rc=$?
check_cmd "memory mismatch exits 2 and names the memory" \
	eval '[ "$rc" = 2 ] && grep -q "different memory size" "$T/o"'
"$WBLAB" run --scratch "$SCRATCH" 'nfs-1dd-4k-*-*-100M:10' >"$T/o" 2>&1; rc=$?
check_cmd "nfs is refused clearly" eval '[ "$rc" = 2 ] && grep -q "no NFS" "$T/o"'
"$WBLAB" run --dev /dev/null 'ext4-1dd-4k-*-*-100M:10' >"$T/o" 2>&1; rc=$?
check_cmd "--dev without --yes-destroy is refused" eval '[ "$rc" = 2 ] && grep -q "yes-destroy" "$T/o"'
"$WBLAB" run -t 1 --set bdi.strict_limit=7 'ext4-1dd-4k-*-*-100M:10' >"$T/o" 2>&1; rc=$?
check_cmd "a bdi knob out of the kernel's range is a usage error up front" eval '[ "$rc" = 2 ] && grep -q "out of range" "$T/o" && [ "$(wc -l <"$T/o")" = 1 ]'
"$WBLAB" run -t 1 --set bdi.min_ratio=50 --set bdi.max_ratio=10 'ext4-1dd-4k-*-*-100M:10' >"$T/o" 2>&1; rc=$?
check_cmd "bdi min_ratio above max_ratio is a usage error up front" eval '[ "$rc" = 2 ] && grep -q "min_ratio above max_ratio" "$T/o"'
if [ "$(id -u)" = 0 ] && free_loop=$(losetup -f 2>/dev/null) && [ -b "$free_loop" ]; then
	"$WBLAB" run -t 1 --scratch "$SCRATCH" --dev "$free_loop" --yes-destroy -o "$T/zero" 'ext4-1dd-4k-*-*-100M:10' >"$T/o" 2>&1; rc=$?
	check_cmd "--dev of 0 bytes (an unattached loop device) is refused up front" \
		eval '[ "$rc" = 1 ] && grep -q "holds 0 MiB" "$T/o" && [ "$(wc -l <"$T/o")" = 1 ] && [ ! -e "$T/zero" ]'
fi
# a threshold the writers never reach (they rewrite half the image) is warned of
"$WBLAB" run -t 1 --image-size 1G --dev /dev/null --yes-destroy 'ext4-1dd-4k-*-*-600M:10' 'ext4-1dd-4k-*-*-100M:10' >"$T/o" 2>&1
check_cmd "a dirty threshold above the writers' working set is warned of, once, naming the case" \
	eval '[ "$(grep -c "warning: .*will not throttle" "$T/o")" = 1 ] && grep -q "600M:10: its dirty threshold (600M, 600 MiB) is at or above the 512 MiB" "$T/o"'
"$WBLAB" run --help >"$T/o" 2>&1
check_cmd "--help documents --cleanup and --no-trace" eval 'grep -q -- "--cleanup" "$T/o" && grep -q -- "--no-trace" "$T/o"'

if command -v setpriv >/dev/null; then
	chmod 755 "$T"
	setpriv --reuid=65534 --regid=65534 --clear-groups "${RUN[@]}" -o "$T/nobody" "${CASES[0]}" \
		>"$T/o" 2>&1; rc=$?
	check_cmd "not root: exit 1" [ "$rc" = 1 ]
	check_cmd "not root: one clear error" eval 'grep -q "must run as root" "$T/o" && [ "$(wc -l <"$T/o")" = 1 ]'
	check_cmd "not root: no scratch dir, no results" eval '[ ! -e "$SCRATCH" ] && [ ! -e "$T/nobody" ]'
	same_as_before "not root: machine as before"
else
	skip "not root: clear error" "setpriv not installed"
fi
same_as_before "refused runs: machine as before"

# --- real runs ----------------------------------------------------------------
why=$(real_why_not)
if [ -n "$why" ]; then
	for n in "real run" "Ctrl-C" "SIGKILL and --cleanup"; do skip "$n" "$why"; done
	exit 0
fi

"${RUN[@]}" -o "$OUT" "${CASES[@]}" >"$T/run.out" 2>"$T/run.err"; rc=$?
check_cmd "real run of ext4 1dd and 2dd exits 0" [ "$rc" = 0 ]
[ "$rc" = 0 ] || sed 's/^/#   /' "$T/run.err"
same_as_before "real run: sysctls, mounts, loop devices, tracefs as before"
check_cmd "real run: scratch dir it created removed, journal gone" eval '[ ! -e "$SCRATCH" ] && [ ! -e /run/wblab/journal ]' 
for n in 1 2; do
	d=$(ls -d "$OUT"/thresh=20M/ext4-${n}dd-4k-$(nproc)p-*M-20M:10-"$(uname -r)" 2>/dev/null | head -1)
	if [ -z "$d" ]; then nok "${n}dd: result dir with the machine's CPUs and MEM" "$(ls -R "$OUT")"; continue; fi
	ok "${n}dd: result dir with the machine's CPUs and MEM"
	for f in trace stats params env meta cmdline; do
		check_cmd "${n}dd: has $f" [ -s "$d/$f" ]
	done
	check_cmd "${n}dd: cmdline reads 'wblab run ...'" grep -q '^wblab run ' "$d/cmdline"
	check_cmd "${n}dd: trace has global_dirty_state" grep -q ' global_dirty_state: dirty=' "$d/trace"
	check_cmd "${n}dd: trace has balance_dirty_pages" grep -q ' balance_dirty_pages: bdi 7:' "$d/trace"
	check_cmd "${n}dd: trace has writeback_written" grep -q ' writeback_written: bdi 7:' "$d/trace"
	check_cmd "${n}dd: stats write_bw > 0" gt0 "$(stat_of "$d" write_bw)"
	check_cmd "${n}dd: stats gds_samples > 0" gt0 "$(stat_of "$d" gds_samples)"
	check_cmd "${n}dd: stats tasks = $n" [ "$(stat_of "$d" tasks)" = "$n" ]
	check_cmd "${n}dd: stats device writes > 0" gt0 "$(stat_of "$d" dev_written_mb)"
	check_cmd "${n}dd: meta source real" grep -qx 'source real' "$d/meta"
	check_cmd "${n}dd: env has the case's dirty_bytes" grep -qx 'vm.dirty_bytes = 20971520' "$d/env"
	check_cmd "${n}dd: env has scheduler, mount and bdi knobs" \
		eval 'grep -q "^io_scheduler = " "$d/env" && grep -q "^mount_options = " "$d/env" && grep -q "^bdi.max_ratio = " "$d/env"'
	check_cmd "${n}dd: params has writers = $n" grep -qx "writers = $n" "$d/params"
	# the trace-derived stats are those `wblab import` computes from the same trace
	"$WBLAB" import "$d/trace" -o "$T/imp$n" --case "${n}dd/ext4-${n}dd-4k-1p-1024M-20M:10" \
		--kernel k >/dev/null 2>&1
	imp=$(ls -d "$T/imp$n"/*/* 2>/dev/null | head -1)
	same=1
	for k in write_bw gds_samples flusher_samples written_pages nr_dirty_max_pages bdp_events pause_ms_p90; do
		[ -n "$imp" ] && [ "$(stat_of "$d" $k)" = "$(stat_of "$imp" $k)" ] || same=0
	done
	check_cmd "${n}dd: stats match 'wblab import' of its trace" [ "$same" = 1 ]
done

# --- Ctrl-C mid-run -------------------------------------------------------------
"$WBLAB" run -t 30 --image-size 1G --scratch "$SCRATCH" -o "$T/int" "${CASES[1]}" \
	>"$T/o" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "$SCRATCH/wblab-run\.[0-9.]*/mnt" /proc/mounts && break; sleep 0.1; done
sleep 1
check_cmd "Ctrl-C: the run had mounted and set the sysctl" \
	eval 'grep -q "$SCRATCH/wblab-run\.[0-9.]*/mnt" /proc/mounts && [ "$(cat /proc/sys/vm/dirty_bytes)" = 20971520 ]'
kill -INT "$pid"; wait "$pid"; rc=$?
check_cmd "Ctrl-C: exit 1 saying all was undone" eval '[ "$rc" = 1 ] && grep -q "every change was undone" "$T/o"'
same_as_before "Ctrl-C: machine as before"
check_cmd "Ctrl-C: no journal, no half result" eval '[ ! -e "$SCRATCH" ] && [ -z "$(find "$T/int" -name "*.tmp.*" 2>/dev/null)" ]'

# --- a closed stdout (`wblab run ... | head -1`) -----------------------------------
# the closed pipe (SIGPIPE) must not kill the run before its undo
( "$WBLAB" run -t 1 --image-size 1G --buffer-kb 4096 --scratch "$SCRATCH" -o "$T/pipe" \
	"${CASES[0]}" 2>&1; echo "rc=$?" >"$T/pipe.rc" ) | head -c 1 >/dev/null
for _ in $(seq 200); do [ -s "$T/pipe.rc" ] && break; sleep 0.1; done
check_cmd "closed stdout: the run did not die of SIGPIPE ($(cat "$T/pipe.rc" 2>/dev/null))" \
	eval '[ -s "$T/pipe.rc" ] && ! grep -q "rc=141" "$T/pipe.rc"'
same_as_before "closed stdout: machine as before"
check_cmd "closed stdout: no journal left" eval '[ ! -e "$SCRATCH" ] && [ ! -e /run/wblab/journal ]'

# --- Ctrl-C around the end of the runtime, while stats are written ----------------
# Whenever the signal lands, a printed result path names a complete result and
# an unprinted one left nothing behind (signals wait while a result commits).
consistent=1
for d in 0.8 0.95 1.0 1.05 1.1 1.2; do
	rm -rf "$T/late"
	"$WBLAB" run -t 1 --image-size 1G --buffer-kb 4096 --scratch "$SCRATCH" -o "$T/late" \
		"${CASES[0]}" >"$T/late.out" 2>"$T/late.err" &
	pid=$!
	for _ in $(seq 100); do grep -q "$SCRATCH/wblab-run\.[0-9.]*/mnt" /proc/mounts && break; sleep 0.05; done
	sleep "$d"
	kill -INT "$pid" 2>/dev/null; wait "$pid"
	printed=$(grep -c "write_bw" "$T/late.out")
	stats=$(find "$T/late" -name stats 2>/dev/null | wc -l)
	tmps=$(find "$T/late" -name "*.tmp.*" 2>/dev/null | wc -l)
	[ "$printed" = "$stats" ] && [ "$tmps" = 0 ] || { consistent=0; echo "# at +${d}s: printed $printed, stats $stats, tmp $tmps"; }
	# and an interrupted run that printed its result says that result is kept
	if [ "$printed" = 1 ] && grep -q "interrupted" "$T/late.err" && ! grep -q "are kept" "$T/late.err"; then
		consistent=0; echo "# at +${d}s: printed a result, then said nothing was kept"
	fi
done
check_cmd "Ctrl-C near the end: a printed result exists whole, an unprinted one left nothing" [ "$consistent" = 1 ]
same_as_before "Ctrl-C near the end: machine as before"

# --- SIGKILL, then --cleanup ------------------------------------------------------
"$WBLAB" run -t 30 --image-size 1G --scratch "$SCRATCH" -o "$T/kill" "${CASES[1]}" \
	>"$T/o" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "$SCRATCH/wblab-run\.[0-9.]*/mnt" /proc/mounts && break; sleep 0.1; done
sleep 1
kill -KILL "$pid"; wait "$pid" 2>/dev/null
sleep 0.3
check_cmd "SIGKILL: changes left behind, journaled in the root-only state dir" \
	eval 'grep -q "$SCRATCH/wblab-run\.[0-9.]*/mnt" /proc/mounts && grep -q "^+	sysctl" /run/wblab/journal &&
	      [ "$(stat -c %U:%a /run/wblab)" = root:700 ] && [ "$(stat -c %U:%a /run/wblab/journal)" = root:600 ]'
"$WBLAB" run --cleanup >"$T/o" 2>&1; rc=$?
check_cmd "SIGKILL: --cleanup exits 0" [ "$rc" = 0 ]
check_cmd "SIGKILL: --cleanup says it undid the run" grep -q "cleaned up" "$T/o"
same_as_before "SIGKILL + --cleanup: machine as before"
check_cmd "SIGKILL + --cleanup: scratch, half result and the -o dirs the run made gone" \
	eval '[ ! -e "$SCRATCH" ] && [ ! -e "$T/kill" ]'
check_cmd "SIGKILL + --cleanup: writers gone" eval '! pgrep -x dd -P 1 >/dev/null || ! pgrep -f "$SCRATCH" >/dev/null'
"$WBLAB" run --cleanup >"$T/o" 2>&1; rc=$?
check_cmd "--cleanup with nothing to do exits 0" eval '[ "$rc" = 0 ] && grep -q "nothing to clean up" "$T/o"'

# --- SIGKILL while another process holds the loop device open -------------------
# LOOP_CLR_FD then only marks the device; the detach on the last close sets its
# bdi's read_ahead_kb again, so the cleanup must wait for it before restoring
"$WBLAB" run -t 30 --image-size 1G --scratch "$SCRATCH" -o "$T/hold" "${CASES[0]}" >"$T/o" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "$SCRATCH/wblab-run\.[0-9.]*/mnt" /proc/mounts && break; sleep 0.1; done
dev=$(awk -v s="$SCRATCH/wblab-run" 'index($2, s) == 1 && $2 ~ /\/mnt$/ { print $1; exit }' /proc/mounts)
if [ -b "${dev:-/nonexistent}" ]; then
	sleep 3 <"$dev" & holder=$!
	kill -KILL "$pid"; wait "$pid" 2>/dev/null
	t0=$(date +%s.%N)
	"$WBLAB" run --cleanup >"$T/o" 2>&1; rc=$?
	t1=$(date +%s.%N)
	wait "$holder" 2>/dev/null
	check_cmd "device held open: --cleanup waits for the detach ($(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }') s) and exits 0" \
		eval '[ "$rc" = 0 ] && awk -v a="$t0" -v b="$t1" "BEGIN { exit !(b - a > 1) }"'
	sleep 0.5
	same_as_before "device held open, SIGKILL + --cleanup: machine as before (read_ahead_kb too)"
else
	kill -KILL "$pid"; wait "$pid" 2>/dev/null; "$WBLAB" run --cleanup >/dev/null 2>&1
	skip "device held open: --cleanup waits for the detach" "the run's device was not found mounted"
fi

# --- SIGKILL, then the run's scratch dir removed by hand -------------------------
# the tracefs instance lives on in tracefs though the private mount it was made
# through is gone: --cleanup removes it through a mount of its own
"$WBLAB" run -t 30 --image-size 1G --scratch "$SCRATCH" -o "$T/gone" "${CASES[0]}" >"$T/o" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "traced" "$T/o" && break; sleep 0.1; done
sleep 0.5
SYS_TR=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
inst=wblab-$pid
kill -KILL "$pid"; wait "$pid" 2>/dev/null
if [ -n "$SYS_TR" ] && [ -d "$SYS_TR/instances/$inst" ]; then
	for m in $(awk -v s="$SCRATCH/" 'index($2, s) == 1 { print $2 }' /proc/mounts | sort -r); do umount -l "$m"; done
	rm -rf "$SCRATCH"
	"$WBLAB" run --cleanup >"$T/o" 2>&1; rc=$?
	check_cmd "scratch removed after SIGKILL: --cleanup removes the still-tracing instance $inst" \
		eval '[ ! -e "$SYS_TR/instances/$inst" ] && [ ! -e /run/wblab/tracefs-undo ]'
	same_as_before "scratch removed after SIGKILL, --cleanup: machine as before"
else
	"$WBLAB" run --cleanup >/dev/null 2>&1
	skip "scratch removed after SIGKILL: --cleanup removes the instance" "no system tracefs mount, or the instance was not seen"
fi

# --- Ctrl-C under a slow cap with much dirty data: undone in seconds ------------
# the discarded run skips its syncfs, and the undo lifts the cap before the
# unmount flushes (it took 16-90 s at 10 MiB/s)
"$WBLAB" run -t 20 --no-trace --device-bw 10 --scratch "$SCRATCH" -o "$T/slow" \
	'ext4-2dd-4k-*-*-1000M:10' >"$T/o" 2>&1 &
pid=$!
for _ in $(seq 150); do grep -q "traced\|untraced" "$T/o" && break; sleep 0.1; done
sleep 3
t0=$(date +%s.%N); kill -INT "$pid"; wait "$pid"; rc=$?; t1=$(date +%s.%N)
secs=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", b - a }')
check_cmd "Ctrl-C with dirty data under a 10 MiB/s cap: undone in ${secs} s (< 8; 16-90 s before), exit 1, no result kept" \
	eval '[ "$rc" = 1 ] && awk -v s="$secs" "BEGIN { exit !(s < 8) }" && grep -q "every change was undone; no result was kept" "$T/o"'
same_as_before "Ctrl-C under a slow cap: machine as before"

# --- tracing overhead: the same case untraced, then traced, in one run ---------
"$WBLAB" run -t 2 --image-size 1G --buffer-kb 16384 --scratch "$SCRATCH" --overhead -o "$T/ovh" \
	"${CASES[0]}" >"$T/o" 2>&1; rc=$?
d=$(ls -d "$T"/ovh/*/* 2>/dev/null | head -1)
check_cmd "--overhead run exits 0" [ "$rc" = 0 ]
check_cmd "--overhead records both figures" \
	eval '[ -n "$d" ] && gt0 "$(stat_of "$d" untraced_vmstat_write_bw)" && grep -q "^tracing_overhead_pct " "$d/stats"'
check_cmd "--overhead prints the overhead" grep -q "tracing overhead" "$T/o"
"$WBLAB" run -t 2 --image-size 1G --scratch "$SCRATCH" --no-trace -o "$T/nt" "${CASES[0]}" >"$T/o" 2>&1; rc=$?
d=$(ls -d "$T"/nt/*/* 2>/dev/null | head -1)
check_cmd "--no-trace run: write_bw from the written counter, no trace" \
	eval '[ "$rc" = 0 ] && [ ! -e "$d/trace" ] && gt0 "$(stat_of "$d" write_bw)" && [ "$(stat_of "$d" traced)" = 0 ]'
same_as_before "overhead and untraced runs: machine as before"
