# Sourced (after lib.sh) by the end-to-end scripts that run the real kernel.  One real-kernel
# test at a time on this machine (flock), a scratch dir of the script's own
# under a root-only parent, a cleanup trap, and `snapshot`: everything a run
# may touch, as text, to compare before and after.  Needs $WBLAB and $T.
: "${WBLAB:?set WBLAB to the wblab binary}" "${T:?set T to a temp dir}"
SCRATCH=/var/lib/wblab-e2e-$$
exec 9>/tmp/wblab-run-real.lock
flock 9
real_cleanup() {
	[ -s /run/wblab/journal ] && "$WBLAB" run --cleanup >/dev/null 2>&1
	rm -rf "$SCRATCH" "$T"
}
trap real_cleanup EXIT

# Why real runs cannot happen here, or "" when they can.
real_why_not() {
	[ "$(id -u)" = 0 ] || { echo "not root"; return; }
	grep -qw tracefs /proc/filesystems || { echo "kernel has no tracefs"; return; }
	[ -e /dev/loop-control ] || { echo "no loop device support"; return; }
	command -v mkfs.ext4 >/dev/null || { echo "mkfs.ext4 not installed"; return; }
	echo ""
}

# sysctls, mounts, loop devices, every loop bdi's knobs, block throttling
# rules and the global tracefs settings/instances.
snapshot() {
	local f tr
	for f in /proc/sys/vm/dirty*; do echo "$f=$(cat "$f")"; done
	cat /proc/mounts
	losetup -a 2>/dev/null | sort
	for f in /sys/class/bdi/7:*/{strict_limit,min_ratio_fine,max_ratio_fine,read_ahead_kb}; do
		[ -e "$f" ] && echo "$f=$(cat "$f")"
	done
	for f in /sys/fs/cgroup/blkio/blkio.throttle.write_{bps,iops}_device; do
		[ -e "$f" ] && echo "$f: $(cat "$f" | tr '\n' ' ')"
	done
	tr=$(awk '$3 == "tracefs" { print $2; exit }' /proc/mounts)
	if [ -n "$tr" ]; then
		ls "$tr/instances"
		for f in tracing_on current_tracer buffer_size_kb trace_clock set_event; do
			echo "$f=$(cat "$tr/$f" 2>/dev/null)"
		done
	fi
}
# ok when the machine is as in $T/before, else not ok with the diff (lib.sh).
same_as_before() {
	snapshot >"$T/after"
	if diff "$T/before" "$T/after" >"$T/diff"; then ok "$1"
	else nok "$1" "$(head -20 "$T/diff")"; fi
}
