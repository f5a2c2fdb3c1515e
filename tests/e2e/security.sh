#!/usr/bin/env bash
# `wblab run` against a hostile local user and careless paths (root runs):
# a journal planted by an unprivileged user is never obeyed; files already in
# --scratch survive; odd --scratch spellings leave nothing behind; a second run
# in another network namespace is refused; --dev through a symlink to a
# mounted device is refused; a full scratch file system fails the run with no
# result; a stuck undo step does not stick; -o inside --scratch is refused;
# a CASE group through untrusted dirs, an -o too long for the journal, a
# umask of 000, Ctrl-C with a new multi-level -o, a crash then a refused run.
# After each, the machine is as before (sysctls, mounts, loop devices, bdi
# knobs, block throttling, tracefs).  Counts of what was tried are printed.
set -u
WBLAB=${WBLAB:?set WBLAB to the wblab binary}
T=$(mktemp -d /tmp/wblab-security.XXXXXX)
. "$(dirname "$0")/lib.sh"
. "$(dirname "$0")/real_env.sh"
C='ext4-1dd-4k-*-*-20M:10'
RUN=("$WBLAB" run -t 1 --image-size 512M --buffer-kb 4096 --no-trace)
hostile=0 faults=0

why=$(real_why_not)
[ -z "$why" ] && ! command -v setpriv >/dev/null && why="setpriv not installed"
[ -z "$why" ] && ! command -v unshare >/dev/null && why="unshare not installed"
if [ -n "$why" ]; then skip "security suite" "$why"; exit 0; fi
as_nobody() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
# the test's own loop devices: attaching one sets its bdi's read_ahead_kb (and the
# bdi outlives the attachment), so put it back after the detach, as wblab does
own_loop() {  # IMAGE VAR: attaches IMAGE, sets VAR to the device
	local d; d=$(losetup -f)
	ra_saved="$ra_saved ${d#/dev/loop}=$(cat "/sys/class/bdi/7:${d#/dev/loop}/read_ahead_kb")"
	losetup "$d" "$1" && printf -v "$2" '%s' "$d"
}
own_loop_detach() {  # DEVICE
	local n=${1#/dev/loop} kv
	losetup -d "$1"
	for kv in $ra_saved; do [ "${kv%%=*}" = "$n" ] && echo "${kv#*=}" >"/sys/class/bdi/7:$n/read_ahead_kb"; done
}
ra_saved=""
snapshot >"$T/before"

# --- 1. a journal planted by another user --------------------------------------
victim=$T/rootfile; echo keep >"$victim"
sleep 300 & bystander=$!
bst=$(awk '{ print $22 }' /proc/$bystander/stat)
core=$(cat /proc/sys/kernel/core_pattern)
mkdir -p "$T/planted-tmpfs" && mount -t tmpfs none "$T/planted-tmpfs"
rm -rf /var/tmp/wblab
as_nobody mkdir -m 0777 /var/tmp/wblab
for line in "file	$victim" "+	file	$victim" "sysctl	kernel.core_pattern	|/bin/false	vm.dirty_bytes	0" \
	"+	sysctl	kernel.core_pattern	|/bin/false	vm.dirty_bytes	0" "writer	$bystander	$bst" \
	"+	writer	$bystander	$bst" "mount	$T/planted-tmpfs	x" "+	mount	$T/planted-tmpfs	tmpfs"; do
	printf '%s\n' "$line"
done | as_nobody tee /var/tmp/wblab/journal >/dev/null
hostile=$((hostile + 8))
as_nobody mkdir /run/wblab 2>/dev/null; rc=$?
check_cmd "an unprivileged user cannot create the state dir" [ "$rc" != 0 ]
"$WBLAB" run --cleanup >"$T/o" 2>&1
"$WBLAB" run --cleanup --scratch /var/tmp/wblab >>"$T/o" 2>&1
"${RUN[@]}" --scratch /var/tmp/wblab -o "$T/r1" "$C" >>"$T/o" 2>&1; rc=$?
check_cmd "a run on a scratch dir another user owns is refused" eval '[ "$rc" = 1 ] && grep -q "not owned by root\|writable by group or others" "$T/o"'
check_cmd "the planted journal's file is untouched" eval '[ "$(cat "$victim")" = keep ]'
check_cmd "the planted journal's process is alive" kill -0 "$bystander"
check_cmd "kernel.core_pattern unchanged" eval '[ "$(cat /proc/sys/kernel/core_pattern)" = "$core" ]'
check_cmd "the planted journal's tmpfs is still mounted" mountpoint -q "$T/planted-tmpfs"
kill "$bystander"; umount "$T/planted-tmpfs"; rm -rf /var/tmp/wblab
# the state dir itself must be root-only; a widened one is refused
if [ -d /run/wblab ]; then
	chmod 0755 /run/wblab
	"${RUN[@]}" --scratch "$SCRATCH" -o "$T/r2" "$C" >"$T/o" 2>&1; rc=$?
	chmod 0700 /run/wblab
	check_cmd "a state dir others can read is refused" eval '[ "$rc" = 1 ] && grep -q "root-only" "$T/o"'
	hostile=$((hostile + 1))
fi
same_as_before "planted journal: machine as before"

# --- 2. files already in --scratch survive --------------------------------------
mkdir -p -m 0700 "$SCRATCH/mnt" "$SCRATCH/tracefs"
echo mine >"$SCRATCH/image"; echo mine >"$SCRATCH/mnt/f"; echo mine >"$SCRATCH/journal"
"$WBLAB" run -t 1 --image-size 512M --buffer-kb 4096 --scratch "$SCRATCH" -o "$T/r3" "$C" >"$T/o" 2>&1; rc=$?
check_cmd "a run in a scratch dir holding files exits 0" [ "$rc" = 0 ]
check_cmd "its files survive as they were" \
	eval '[ "$(cat "$SCRATCH/image" "$SCRATCH/mnt/f" "$SCRATCH/journal")" = "$(printf "mine\nmine\nmine")" ] && [ -d "$SCRATCH/tracefs" ]'
check_cmd "the scratch dir it did not create is kept, with nothing of wblab left" \
	eval '[ -d "$SCRATCH" ] && ! ls "$SCRATCH" | grep -q wblab-run'
rm -rf "$SCRATCH"
hostile=$((hostile + 4))
same_as_before "pre-existing scratch files: machine as before"

# --- 3. trailing slash, symlink, / ------------------------------------------------
mkdir -m 0700 "$T/s"; ln -s "$T/s" "$T/slink"
as_nobody ln -s /var/lib "$T/nobody-link" 2>/dev/null || { chmod 1777 "$T"; as_nobody ln -s /var/lib "$T/nobody-link"; chmod 0700 "$T"; }
for sc in "$T/s/" "$T/slink" "$T/s//" /; do
	"${RUN[@]}" --scratch "$sc" -o "$T/r4" "$C" >"$T/o" 2>&1; rc=$?
	check_cmd "--scratch '$sc': the run exits 0" [ "$rc" = 0 ]
	check_cmd "--scratch '$sc': no run dir left" eval '! ls -d "$T"/s/wblab-run.* /wblab-run.* 2>/dev/null | grep -q .'
	same_as_before "--scratch '$sc': machine as before"
	hostile=$((hostile + 1))
done
"${RUN[@]}" --scratch "$T/nobody-link" -o "$T/r4" "$C" >"$T/o" 2>&1; rc=$?
check_cmd "--scratch through another user's symlink is refused" eval '[ "$rc" = 1 ] && grep -q "symlink owned by uid 65534" "$T/o"'
hostile=$((hostile + 1))
mkdir -p "$T/s/wblab-run.1.0/mnt"
"${RUN[@]}" --scratch "$T/s" -o "$T/s/wblab-run.1.0/mnt/out" "$C" >"$T/o" 2>&1; rc=$?
check_cmd "-o inside a run dir of --scratch is refused up front" eval '[ "$rc" = 2 ] && grep -q "inside a run dir" "$T/o" && [ ! -e "$T/s/wblab-run.1.0/mnt/out" ]'
rm -r "$T/s/wblab-run.1.0"
"${RUN[@]}" --scratch "$T/s" -o "" "$C" >"$T/o" 2>&1; rc=$?
check_cmd "-o '' is refused" [ "$rc" = 2 ]
"${RUN[@]}" --scratch "$T/s" -o "$T/new/../r5" "$C" >"$T/o" 2>&1; rc=$?
check_cmd "-o with '..' in the part still to be made is refused up front" eval '[ "$rc" = 2 ] && grep -q "'"'"'..'"'"'" "$T/o" && [ ! -e "$T/new" ] && [ ! -e "$T/r5" ]'
"${RUN[@]}" --scratch "$T/s" -o "$T/r	6" "$C" >"$T/o" 2>&1; rc=$?
check_cmd "-o with a tab in it is refused up front, naming the rule" eval '[ "$rc" = 2 ] && grep -q "letters, digits" "$T/o" && [ ! -e "$T/r	6" ]'
"${RUN[@]}" --scratch "$T/a b" -o "$T/r4" "$C" >"$T/o" 2>&1; rc=$?
check_cmd "a --scratch with a blank in it is refused clearly" eval '[ "$rc" = 1 ] && grep -q "letters, digits" "$T/o"'
# -o where another user could steer root's result writes: a directory that
# user owns (a planted symlink inside it would redirect them), or a new name
# in sticky /tmp (the user could create it first, as a symlink)
mkdir "$T/nobody-out" && chown 65534:65534 "$T/nobody-out"
"${RUN[@]}" --scratch "$T/s" -o "$T/nobody-out/res" "$C" >"$T/o" 2>&1; rc=$?
check_cmd "-o inside a directory another user owns is refused up front" \
  eval '[ "$rc" = 2 ] && grep -q "^wblab run: -o .*nobody-out.*owned by" "$T/o" && [ ! -e "$T/nobody-out/res" ]'
tmpout=/tmp/wblab-untrusted-out.$$
"${RUN[@]}" --scratch "$T/s" -o "$tmpout" "$C" >"$T/o" 2>&1; rc=$?
check_cmd "-o to be created in sticky /tmp is refused up front" \
  eval '[ "$rc" = 2 ] && grep -q "^wblab run: -o .*/tmp" "$T/o" && [ ! -e "$tmpout" ]'
# a symlink another user made, to a root-owned place: the link chose it
mkdir "$T/root-out"
chmod 1777 "$T"; as_nobody ln -s "$T/root-out" "$T/nobody-out-link"; chmod 0700 "$T"
"${RUN[@]}" --scratch "$T/s" -o "$T/nobody-out-link" "$C" >"$T/o" 2>&1; rc=$?
check_cmd "-o through a symlink another user owns is refused up front" \
  eval '[ "$rc" = 2 ] && grep -q "symlink owned by uid 65534" "$T/o" && [ -z "$(ls -A "$T/root-out")" ]'
rm -rf "$T/nobody-out" "$tmpout" "$T/root-out" "$T/nobody-out-link"
hostile=$((hostile + 6))
same_as_before "odd paths: machine as before"

# --- 3b. a CASE's group is a path below -o too ---------------------------------------
# its existing part must be as trusted as -o: a directory another user owns,
# another user's symlink, sticky /tmp (-o / with the group tmp/...)
mkdir -m 0755 "$T/gout" && mkdir "$T/gout/nobody" && chown 65534:65534 "$T/gout/nobody"
"${RUN[@]}" --scratch "$T/s" -o "$T/gout" "nobody/$C" >"$T/o" 2>&1; rc=$?
check_cmd "a group inside a directory another user owns is refused up front" \
  eval '[ "$rc" = 2 ] && grep -q "group .*nobody.*owned by" "$T/o" && [ -z "$(ls -A "$T/gout/nobody")" ]'
mkdir "$T/root-out2"
lnk=/tmp/wblab-group-link.$$
as_nobody ln -s "$T/root-out2" "$lnk"
"${RUN[@]}" --scratch "$T/s" -o / "${lnk#/}/$C" >"$T/o" 2>&1; rc=$?
check_cmd "a group through a symlink another user owns is refused up front" \
  eval '[ "$rc" = 2 ] && grep -q "symlink owned by uid 65534" "$T/o" && [ -z "$(ls -A "$T/root-out2")" ]'
"${RUN[@]}" --scratch "$T/s" -o / "tmp/wblab-group-new.$$/$C" >"$T/o" 2>&1; rc=$?
check_cmd "a group to be created in sticky /tmp is refused up front" \
  eval '[ "$rc" = 2 ] && grep -q "group .*/tmp.*writable by group or others" "$T/o" && [ ! -e "/tmp/wblab-group-new.$$" ]'
rm -f "$lnk"; rm -rf "$T/gout" "$T/root-out2"
# an -o whose result paths would not fit the undo journal: refused before any change
l250=$(printf 'd%.0s' $(seq 250))
"${RUN[@]}" --scratch "$T/s" -o "$T/$l250/$l250/$l250/$l250" "$C" >"$T/o" 2>&1; rc=$?
check_cmd "an -o too long for the journal is refused up front, nothing made (rc $rc)" \
  eval '[ "$rc" = 2 ] && grep -q "result path is too long" "$T/o" && [ ! -e "$T/$l250" ]'
# the caller's umask does not make root's results writable by others
( umask 000; "${RUN[@]}" --scratch "$T/s" -o "$T/r-umask" "$C" >"$T/o" 2>&1 ); rc=$?
check_cmd "a run under umask 000 writes results no one else can change (rc $rc)" \
  eval '[ "$rc" = 0 ] && [ -n "$(find "$T/r-umask" -name stats)" ] && [ -z "$(find "$T/r-umask" -perm /022)" ]'
rm -rf "$T/r-umask"
# Ctrl-C with -o three levels new: all three go, not only the last
"$WBLAB" run -t 20 --image-size 512M --no-trace --scratch "$T/s" -o "$T/new1/new2/out" "$C" >"$T/o" 2>&1 &
pid=$!
for _ in $(seq 200); do grep -q "run 1: untraced" "$T/o" && break; sleep 0.1; done
kill -INT "$pid"; wait "$pid"
check_cmd "Ctrl-C: every directory of a new multi-level -o is removed" eval '[ ! -e "$T/new1" ]'
# a crashed run, then a run refused for its -o: the crash is undone first
"$WBLAB" run -t 20 --image-size 512M --no-trace --scratch "$T/s" -o "$T/r-crash" "$C" >"$T/o" 2>&1 &
pid=$!
for _ in $(seq 200); do grep -q "run 1: untraced" "$T/o" && break; sleep 0.1; done
kill -9 "$pid"; wait "$pid" 2>/dev/null
faults=$((faults + 2))
"${RUN[@]}" --scratch "$T/s" -o "/tmp/wblab-untrusted-out.$$" "$C" >"$T/o" 2>&1; rc=$?
check_cmd "a run refused after a crash undoes the crashed run first (rc $rc)" \
  eval '[ "$rc" = 2 ] && grep -q "undoing what an interrupted run left" "$T/o" && [ ! -e "$T/r-crash" ]'
rm -rf "$T/s"
hostile=$((hostile + 5))
same_as_before "groups, long -o, umask, Ctrl-C, crash then refusal: machine as before"

# --- 4. a second run in another network namespace ---------------------------------
"$WBLAB" run -t 20 --image-size 512M --no-trace --scratch "$SCRATCH" -o "$T/r5" "$C" >"$T/o1" 2>&1 &
first=$!
for _ in $(seq 100); do grep -q "$SCRATCH/wblab-run" /proc/mounts && break; sleep 0.1; done
unshare -n "${RUN[@]}" --scratch "$T/s" -o "$T/r6" "$C" >"$T/o" 2>&1; rc=$?
check_cmd "a second run in another network namespace is refused" eval '[ "$rc" = 1 ] && grep -q "another .wblab run. is running" "$T/o"'
kill -INT "$first"; wait "$first"
same_as_before "two runs: machine as before"
hostile=$((hostile + 1))

# --- 5. --dev through a symlink to a mounted device ----------------------------------
truncate -s 64M "$T/dev.img"
own_loop "$T/dev.img" dev
mkfs.ext4 -q "$dev" && mkdir "$T/devmnt" && mount "$dev" "$T/devmnt"
ln -s "$dev" "$T/devlink"
"${RUN[@]}" --dev "$T/devlink" --yes-destroy -o "$T/r7" "$C" >"$T/o" 2>&1; rc=$?
check_cmd "--dev via a symlink to a mounted device is refused" eval '[ "$rc" = 1 ] && grep -q "is mounted" "$T/o"'
check_cmd "and the device's file system is intact" eval 'mountpoint -q "$T/devmnt" && [ -d "$T/devmnt/lost+found" ]'
umount "$T/devmnt"
# a device with a mounted partition, and a device in use as swap
if command -v sfdisk >/dev/null && command -v mkswap >/dev/null; then
	echo ',' | sfdisk -q "$dev" >/dev/null 2>&1 && partx -a "$dev" 2>/dev/null
	if [ -b "${dev}p1" ]; then
		mkfs.ext4 -q "${dev}p1" && mount "${dev}p1" "$T/devmnt"
		"${RUN[@]}" --dev "$dev" --yes-destroy -o "$T/r7" "$C" >"$T/o" 2>&1; rc=$?
		check_cmd "--dev whose partition is mounted is refused" eval '[ "$rc" = 1 ] && grep -q "has partition" "$T/o"'
		umount "$T/devmnt"; partx -d "$dev" 2>/dev/null
		hostile=$((hostile + 1))
	else
		skip "--dev with a mounted partition" "no partition device appeared"
	fi
	wipefs -qa "$dev" >/dev/null 2>&1; mkswap -q "$dev" >/dev/null 2>&1
	if swapon "$dev" 2>/dev/null; then
		"${RUN[@]}" --dev "$dev" --yes-destroy -o "$T/r7" "$C" >"$T/o" 2>&1; rc=$?
		swapoff "$dev"
		check_cmd "--dev in use as swap is refused" eval '[ "$rc" = 1 ] && grep -q "swap" "$T/o"'
		hostile=$((hostile + 1))
	else
		skip "--dev in use as swap" "swapon refused here"
	fi
else
	skip "--dev with a mounted partition or as swap" "sfdisk or mkswap missing"
fi
own_loop_detach "$dev"
hostile=$((hostile + 1))

# --- 6. a full scratch file system ---------------------------------------------------
truncate -s 450M "$T/small.img"
own_loop "$T/small.img" sdev
mkfs.ext4 -q -m 0 "$sdev" && mkdir -m 0700 "$T/small" && mount "$sdev" "$T/small" && chmod 0700 "$T/small"
snapshot >"$T/before"
"${RUN[@]}" --image-size 1G --scratch "$T/small/s" -o "$T/r8" "$C" >"$T/o" 2>&1; rc=$?
check_cmd "too little free space for --image-size: refused before any change" \
	eval '[ "$rc" = 1 ] && grep -q "MiB free" "$T/o" && [ ! -e "$T/small/s" ]'
same_as_before "refused for space: machine as before"
# a 20 MiB/s device cap keeps the image growing for the whole run, so the
# writeback after the fill needs blocks the scratch fs no longer has
"$WBLAB" run -t 8 --image-size 300M --device-bw 20 --no-trace --scratch "$T/small/s" -o "$T/r9" "$C" >"$T/o" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "$T/small/s/wblab-run" /proc/mounts && break; sleep 0.1; done
fallocate -l "$(df --output=avail -B1 "$T/small" | tail -1)" "$T/small/fill" 2>/dev/null
dd if=/dev/zero of="$T/small/fill2" bs=4k conv=fsync 2>/dev/null   # the last blocks
faults=$((faults + 1))
wait "$pid"; rc=$?
check_cmd "the scratch fs filled during the run: the run fails" eval '[ "$rc" = 1 ] && grep -qi "I/O error" "$T/o"'
[ "$rc" = 1 ] || sed "s/^/#   /" "$T/o"
check_cmd "and keeps no result" eval '[ -z "$(find "$T/r9" -name stats 2>/dev/null)" ]'
rm -f "$T/small/fill" "$T/small/fill2"
same_as_before "full scratch fs: machine as before"
umount "$T/small"; own_loop_detach "$sdev"
snapshot >"$T/before"

# --- 7. an undo step that cannot finish does not stick -----------------------------------
"$WBLAB" run -t 30 --image-size 512M --no-trace --scratch "$SCRATCH" -o "$T/r10" "$C" >"$T/o" 2>&1 &
pid=$!
for _ in $(seq 100); do grep -q "$SCRATCH/wblab-run" /proc/mounts && break; sleep 0.1; done
sleep 0.5
kill -KILL "$pid"; wait "$pid" 2>/dev/null
faults=$((faults + 1))
mnt=$(awk -v s="$SCRATCH/wblab-run" 'index($2, s) == 1 && $2 ~ /\/mnt$/ { print $2 }' /proc/mounts)
umount -l "$mnt" && echo other >"$mnt/someone-elses"
"$WBLAB" run --cleanup >"$T/o" 2>&1; rc=$?
check_cmd "--cleanup with a non-empty mount dir still completes" eval '[ "$rc" = 0 ] && grep -q "left .* in place" "$T/o"'
"$WBLAB" run --cleanup >"$T/o" 2>&1; rc=$?
check_cmd "a second --cleanup has nothing left to do" eval '[ "$rc" = 0 ] && grep -q "nothing to clean up" "$T/o"'
check_cmd "the file wblab did not make is kept" [ -f "$mnt/someone-elses" ]
rm -rf "$SCRATCH"
same_as_before "stuck undo: machine as before"

# a ratio of 0 in force (legal, with the bytes at 0) comes back as 0: the
# undo does not take the 0 for "the bytes were in force"
old_bg=$(sysctl -n vm.dirty_background_ratio); old_bgb=$(sysctl -n vm.dirty_background_bytes)
sysctl -qw vm.dirty_background_ratio=0
"${RUN[@]}" --scratch "$T/s" -o "$T/r7" "$C" >"$T/o" 2>&1; rc=$?
check_cmd "a background ratio of 0 is restored as 0 (rc $rc, now $(sysctl -n vm.dirty_background_ratio)/$(sysctl -n vm.dirty_background_bytes))" \
  eval '[ "$rc" = 0 ] && [ "$(sysctl -n vm.dirty_background_ratio)" = 0 ] && [ "$(sysctl -n vm.dirty_background_bytes)" = 0 ]'
if [ "$old_bgb" != 0 ]; then sysctl -qw vm.dirty_background_bytes="$old_bgb"; else sysctl -qw vm.dirty_background_ratio="$old_bg"; fi

# a tracefs instance of the run's name that someone else made first (the
# instances are one namespace across tracefs mounts): the run fails and
# leaves it alone
mkdir -p -m 0700 "$T/tm"
if mount -t tracefs nodev "$T/tm" 2>/dev/null; then
	(mkdir "$T/tm/instances/wblab-$BASHPID" && exec "$WBLAB" run -t 1 --image-size 512M --buffer-kb 4096 --scratch "$T/s" -o "$T/r8" "$C") >"$T/o" 2>&1; rc=$?
	check_cmd "an instance wblab did not make is kept (rc $rc)" \
	  eval '[ "$rc" = 1 ] && grep -q "File exists" "$T/o" && [ -n "$(ls -d "$T"/tm/instances/wblab-* 2>/dev/null)" ]'
	rmdir "$T"/tm/instances/wblab-* 2>/dev/null
	umount "$T/tm"
	hostile=$((hostile + 1))
fi

# --- inputs the kernel would refuse only after setup: refused before it ------
for bad in "--image-size 2000T" "--set bdi.read_ahead_kb=2000000"; do
	"$WBLAB" run -t 1 $bad --scratch "$T/s9" -o "$T/r9" "$C" >"$T/o" 2>&1; rc=$?
	check_cmd "'$bad' is a usage error (rc $rc)" eval '[ "$rc" = 2 ] && [ ! -e "$T/s9" ]'
done
"${RUN[@]}" --scratch "$T/s9" -o "$T/r9" 'ext4-1dd-4k-*-*-4K:10' >"$T/o" 2>&1; rc=$?
check_cmd "a dirty_bytes threshold below two pages is refused up front (rc $rc)" \
  eval '[ "$rc" = 2 ] && grep -q "floor for vm.dirty_bytes" "$T/o" && [ ! -e "$T/s9" ]'
"$WBLAB" run -t 1 --image-size 256M --no-trace --scratch "$T/s9" -o "$T/r9" 'xfs-1dd-4k-*-*-20M:10' >"$T/o" 2>&1; rc=$?
check_cmd "an image too small for mkfs.xfs is refused up front (rc $rc)" \
  eval '[ "$rc" = 2 ] && grep -q "mkfs.xfs needs at least 300 MiB" "$T/o" && [ ! -e "$T/s9" ]'
hostile=$((hostile + 4))
# a --scratch too long for the journal's fields is refused before it is made
long=$T/long/$(printf 'd%.0s' $(seq 1 200))/$(printf 'e%.0s' $(seq 1 200))/$(printf 'f%.0s' $(seq 1 200))/$(printf 'g%.0s' $(seq 1 200))/$(printf 'h%.0s' $(seq 1 200))
mkdir -p "${long%/*}"
"${RUN[@]}" --scratch "$long" -o "$T/r9" "$C" >"$T/o" 2>&1; rc=$?
check_cmd "a --scratch of ${#long} characters is refused, nothing made (rc $rc)" \
  eval '[ "$rc" = 1 ] && grep -q "at most" "$T/o" && [ ! -e "$long" ] && [ ! -s /run/wblab/journal ]'
rm -rf "$T/long"
# a journal left holding only the scratch dir (a run that failed between the
# two mkdirs) is undone by --cleanup, not stuck for good
mkdir -p -m 0700 /var/lib/wblab-e2e-lone-$$
printf '+\tscratch\t/var/lib/wblab-e2e-lone-%s\n' $$ >/run/wblab/journal; chmod 0600 /run/wblab/journal
"$WBLAB" run --cleanup >"$T/o" 2>&1; rc=$?
check_cmd "a lone scratch entry is undone (rc $rc)" \
  eval '[ "$rc" = 0 ] && [ ! -e /var/lib/wblab-e2e-lone-$$ ] && [ ! -e /run/wblab/journal ]'
rm -rf /var/lib/wblab-e2e-lone-$$ /run/wblab/journal
faults=$((faults + 2))

# run dirs a reboot left (their journal went with /run): the next run with the
# same --scratch removes those of this machine's other boots holding only what
# a run makes, and keeps one of this boot, one with a file of someone else's,
# one without an owner file, one of another machine, one in the owner format
# without a machine id, one whose image a loop device still holds, one whose
# owner is a FIFO and one whose owner file holds more than the format
mid=$(cat /etc/machine-id 2>/dev/null || echo -)
mkrundir() {  # DIR BOOT_ID [EXTRA [MACHINE_ID]]
	local d=$1
	mkdir -m 0700 "$d" "$d/mnt" "$d/tracefs"
	[ -n "$2" ] && printf 'wblab run dir\nmachine_id %s\nboot_id %s\n' "${4:-$mid}" "$2" >"$d/owner"
	truncate -s 64M "$d/image"
	[ -n "${3:-}" ] && echo theirs >"$d/$3"
	return 0
}
gone=00000000-0000-4000-8000-000000000000
if [[ $mid =~ ^[0-9a-f]{32}$ ]]; then
rm -rf "$T/s"; mkdir -p -m 0700 "$T/s"
mkrundir "$T/s/wblab-run.1.0" $gone; mkrundir "$T/s/wblab-run.1.1" "$(cat /proc/sys/kernel/random/boot_id)"
mkrundir "$T/s/wblab-run.1.2" $gone notes; mkrundir "$T/s/wblab-run.1.3" ""
mkrundir "$T/s/wblab-run.1.4" $gone "" 0123456789abcdef0123456789abcdef
mkrundir "$T/s/wblab-run.1.5" ""; printf 'wblab run dir\nboot_id %s\n' $gone >"$T/s/wblab-run.1.5/owner"
mkrundir "$T/s/wblab-run.1.6" $gone; own_loop "$T/s/wblab-run.1.6/image" held
mkrundir "$T/s/wblab-run.1.7" ""; mkfifo "$T/s/wblab-run.1.7/owner"   # must not hang the run
mkrundir "$T/s/wblab-run.1.8" $gone; echo extra >>"$T/s/wblab-run.1.8/owner"
timeout 120 "${RUN[@]}" --scratch "$T/s" -o "$T/r10" "$C" >"$T/o" 2>&1; rc=$?
own_loop_detach "$held"
check_cmd "a run dir of an earlier boot is removed (rc $rc)" \
  eval '[ "$rc" = 0 ] && [ ! -e "$T/s/wblab-run.1.0" ] && grep -q "before the last reboot" "$T/o"'
check_cmd "this boot's, a foreign file's and an unmarked run dir are kept" \
  eval '[ -f "$T/s/wblab-run.1.1/image" ] && [ -f "$T/s/wblab-run.1.2/notes" ] && [ -f "$T/s/wblab-run.1.3/image" ]'
check_cmd "another machine's, an owner file without machine id, a run dir whose image a loop device holds, a FIFO owner and an owner file with more text are kept" \
  eval '[ -f "$T/s/wblab-run.1.4/image" ] && [ -f "$T/s/wblab-run.1.5/image" ] && [ -f "$T/s/wblab-run.1.6/image" ] && [ -p "$T/s/wblab-run.1.7/owner" ] && [ -f "$T/s/wblab-run.1.8/image" ] && [ "$(ls "$T/s" | wc -l)" = 8 ]'
rm -rf "$T/s"
hostile=$((hostile + 8))
else
	skip "run dirs an earlier boot left" "/etc/machine-id does not hold a machine id (then none is removed)"
fi
# on a file system not known to be local (an overlay here; NFS, 9p, virtiofs
# in the case it stands for) an earlier boot's run dir is only named
mkdir -p "$T/ov/lo" "$T/ov/up" "$T/ov/m"
if [[ $mid =~ ^[0-9a-f]{32}$ ]] && mount -t tmpfs -o size=1G tmpfs "$T/ov/up" && mkdir "$T/ov/up/u" "$T/ov/up/w" &&
   mount -t overlay overlay -o lowerdir="$T/ov/lo",upperdir="$T/ov/up/u",workdir="$T/ov/up/w" "$T/ov/m"; then
	chmod 0755 "$T/ov/m"; mkdir -m 0700 "$T/ov/m/s"; mkrundir "$T/ov/m/s/wblab-run.1.0" $gone
	"${RUN[@]}" --scratch "$T/ov/m/s" -o "$T/r10b" "$C" >"$T/o" 2>&1; rc=$?
	check_cmd "on an overlay --scratch an earlier boot's run dir is kept, with a note (rc $rc)" \
	  eval '[ "$rc" = 0 ] && [ -f "$T/ov/m/s/wblab-run.1.0/image" ] && grep -q "not on a local file system" "$T/o"'
	hostile=$((hostile + 1))
else
	skip "overlay --scratch" "no machine id, or cannot mount an overlay"
fi
umount "$T/ov/m" 2>/dev/null; umount "$T/ov/up" 2>/dev/null; rm -rf "$T/ov"

# a loop bdi whose min_ratio another user raised: --set bdi.max_ratio below
# it must lower the min first, and the undo put both back
mkdir -p "$T/bd" && truncate -s 64M "$T/bd/img"
own_loop "$T/bd/img" bdl; n=${bdl#/dev/loop}; own_loop_detach "$bdl"
old_min=$(cat /sys/class/bdi/7:$n/min_ratio); old_max=$(cat /sys/class/bdi/7:$n/max_ratio)
if [ "$(losetup -f)" = "$bdl" ] && echo 30 >/sys/class/bdi/7:$n/min_ratio; then
	"${RUN[@]}" --set bdi.max_ratio=10 --scratch "$T/s" -o "$T/r11" "$C" >"$T/o" 2>&1; rc=$?
	check_cmd "max_ratio 10 on a bdi with min_ratio 30 runs, and both come back (rc $rc, $(cat /sys/class/bdi/7:$n/min_ratio)/$(cat /sys/class/bdi/7:$n/max_ratio))" \
	  eval '[ "$rc" = 0 ] && grep -q "bdi.max_ratio_fine = 100000" "$T"/r11/*/*/params && [ "$(cat /sys/class/bdi/7:$n/min_ratio)" = 30 ] && [ "$(cat /sys/class/bdi/7:$n/max_ratio)" = "$old_max" ]'
	echo "$old_min" >/sys/class/bdi/7:$n/min_ratio
	faults=$((faults + 1))
fi
# the kernel keeps the sum of all bdis' min ratios below 100 %: a min that
# would not fit beside another bdi's is refused before anything changes.
# The other bdi is a loop device of ours that the run cannot take.
truncate -s 1200M "$T/bd/mr"; mrl=""
own_loop "$T/bd/mr" mrl; m=${mrl#/dev/loop}
if [ -n "$mrl" ] && old_mr=$(cat /sys/class/bdi/7:$m/min_ratio) && echo 60 >/sys/class/bdi/7:$m/min_ratio; then
	"${RUN[@]}" --set bdi.min_ratio=40 --scratch "$T/s13" -o "$T/r13" "$C" >"$T/o" 2>&1; rc=$?
	check_cmd "min_ratio 40 beside a bdi holding 60 % is refused up front (rc $rc)" \
	  eval '[ "$rc" = 1 ] && grep -q "7:$m 60.0000 %" "$T/o" && grep -q "nothing was changed" "$T/o" && [ ! -e "$T/s13" ] && [ ! -e "$T/r13" ]'
	"${RUN[@]}" --set bdi.min_ratio=39 --scratch "$T/s13" -o "$T/r13" "$C" >"$T/o" 2>&1; rc=$?
	check_cmd "min_ratio 39 beside it runs (rc $rc)" eval '[ "$rc" = 0 ]'
	# the device's own min is replaced, not added to: --dev on that device
	# with min_ratio 50 runs, and its 60 comes back
	"$WBLAB" run -t 1 --no-trace --buffer-kb 4096 --dev "$mrl" --yes-destroy --set bdi.min_ratio=50 \
		-o "$T/r14" "$C" >"$T/o" 2>&1; rc=$?
	check_cmd "--dev with min_ratio 50 on a device holding 60 % runs, and 60 comes back (rc $rc, $(cat /sys/class/bdi/7:$m/min_ratio))" \
	  eval '[ "$rc" = 0 ] && [ "$(cat /sys/class/bdi/7:$m/min_ratio)" = 60 ]'
	echo "$old_mr" >/sys/class/bdi/7:$m/min_ratio
	rm -rf "$T/s13" "$T/r13" "$T/r14"
	hostile=$((hostile + 3))
else
	skip "min_ratio sum" "no loop device of our own, or its min_ratio cannot be set"
fi
[ -n "$mrl" ] && own_loop_detach "$mrl"
rm -f "$T/bd/mr"

# --dev a partition with bdi knobs or a throttle: refused (they are the disk's)
truncate -s 1200M "$T/bd/disk"
pd=""
if command -v sfdisk >/dev/null && echo ',1150M' | sfdisk -q "$T/bd/disk" >/dev/null 2>&1; then
	pd=$(losetup -f); ra_saved="$ra_saved ${pd#/dev/loop}=$(cat "/sys/class/bdi/7:${pd#/dev/loop}/read_ahead_kb")"
	losetup -P "$pd" "$T/bd/disk" || pd=""
	for i in 1 2 3 4 5 6 7 8 9 10; do  # the scan may lag; partx adds what it missed
		[ -z "$pd" ] || [ -b "${pd}p1" ] && break
		partx -a "$pd" 2>/dev/null; sleep 0.2
	done
fi
if [ -n "$pd" ] && [ -b "${pd}p1" ]; then
	"$WBLAB" run -t 1 --no-trace --dev "${pd}p1" --yes-destroy -o "$T/r12" "$C" >"$T/o" 2>&1; rc=$?
	check_cmd "--dev PARTITION is refused up front (rc $rc)" \
	  eval '[ "$rc" = 1 ] && grep -q "is a partition" "$T/o" && [ ! -e "$T/r12" ]'
	hostile=$((hostile + 1))
else
	skip "--dev PARTITION" "no partitioned loop device (sfdisk, losetup -P)"
fi
[ -n "$pd" ] && own_loop_detach "$pd"
rm -rf "$T/bd"
same_as_before "refusals, stale run dirs, bdi order: machine as before"

# SIGKILL while mkfs runs: mkfs dies with wblab (it went on writing the
# device the cleanup detaches), and --cleanup restores the machine.  The
# device is capped at 50 MiB/s so that mkfs's ~200 MB take seconds; mkfs may
# be in an uninterruptible wait for that I/O, so "dies" is: gone, or SIGKILL
# pending (/proc/PID/status), within a second
"$WBLAB" run -t 1 --image-size 8G --device-bw 50 --no-trace --scratch "$T/s" -o "$T/r13" "$C" >"$T/o" 2>&1 &
wpid=$! mk=""
for i in $(seq 1 1000); do
	mk=$(pgrep -x mkfs.ext4 | head -1); [ -n "$mk" ] && break
	kill -0 "$wpid" 2>/dev/null || break; sleep 0.01
done
if [ -n "$mk" ]; then
	kill -9 "$wpid"; wait "$wpid" 2>/dev/null
	killed() {  # gone, or SIGKILL (bit 9, mask 0x100) pending
		local pnd
		pnd=$(awk '/^(SigPnd|ShdPnd):/ { print $2 }' "/proc/$mk/status" 2>/dev/null) || return 0
		[ -z "$pnd" ] && return 0
		for p in $pnd; do (( 0x$p & 0x100 )) && return 0; done
		return 1
	}
	for i in $(seq 1 50); do killed && break; sleep 0.02; done
	check_cmd "mkfs dies with a SIGKILLed run" killed
	for i in $(seq 1 300); do kill -0 "$mk" 2>/dev/null || break; sleep 0.1; done
	faults=$((faults + 1))
else
	wait "$wpid"
	skip "mkfs dies with a SIGKILLed run" "mkfs not seen running (no block throttling?)"
fi
"$WBLAB" run --cleanup >"$T/o" 2>&1
rm -rf "$T/s"
same_as_before "SIGKILL during mkfs, --cleanup: machine as before"

echo "# hostile or odd inputs tried: $hostile; faults injected: $faults"
