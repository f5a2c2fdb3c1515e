#!/usr/bin/env bash
# End-to-end check of `wblab calibrate` and `wblab validate`, and of the
# device knobs a real run must not inherit: an earlier user's strict_limit and
# max_ratio are left on the next free loop device's bdi; a 10 s real run
# (ext4, 1 dd, 20M) on that device capped at 50 MiB/s must run under the
# kernel defaults, leave the knobs as it found them, and give finite sim/real
# ratios for every metric.  The tolerances of docs/current-model.md are
# checked by bench/validate-matrix, not here: this test must hold on a busy
# machine too, so it asserts what a short capped run shows whatever the load.
# Needs $WBLAB; the real run is skipped (with the reason) without root.
set -u
WBLAB=${WBLAB:?set WBLAB to the wblab binary}
T=$(mktemp -d /tmp/wblab-validate-e2e.XXXXXX)
trap 'rm -rf "$T"' EXIT
. "$(dirname "$0")/lib.sh"

# usage errors need no root
"$WBLAB" validate >"$T/o" 2>&1; rc=$?
check_cmd "validate without DIR exits 2" [ "$rc" = 2 ]
"$WBLAB" validate --format xml "$T" >"$T/o" 2>&1; rc=$?
check_cmd "bad --format exits 2 and says why" eval '[ "$rc" = 2 ] && grep -q "format" "$T/o"'
"$WBLAB" calibrate "$T/nothing" >"$T/o" 2>&1; rc=$?
check_cmd "calibrate of a missing dir exits 1 with a reason" eval '[ "$rc" = 1 ] && grep -q "nothing" "$T/o"'

if [ "$(id -u)" != 0 ]; then
	skip "real run, calibrate and validate" "not root"
	exit 0
fi

. "$(dirname "$0")/real_env.sh"
why=$(real_why_not)
[ -z "$why" ] && [ ! -e /sys/fs/cgroup/blkio/blkio.throttle.write_bps_device ] && why="no blkio throttling"
if [ -n "$why" ]; then skip "real run, calibrate and validate" "$why"; exit 0; fi

# what an earlier user of the next loop device left on its bdi
bdi=/sys/class/bdi/7:$(losetup -f | sed 's/.*loop//')
old_strict=$(cat "$bdi/strict_limit"); old_max=$(cat "$bdi/max_ratio_fine")
echo 1 >"$bdi/strict_limit"; echo 10000 >"$bdi/max_ratio_fine"
restore_knobs() { echo "$old_max" >"$bdi/max_ratio_fine"; echo "$old_strict" >"$bdi/strict_limit"; }
snapshot >"$T/before"
"$WBLAB" run -t 10 --image-size 1G --buffer-kb 16384 --device-bw 50 --scratch "$SCRATCH" -o "$T/real" \
	'ext4-1dd-4k-*-*-20M:10' >"$T/run.out" 2>&1; rc=$?
check_cmd "real run on a device with stale knobs succeeded" [ "$rc" = 0 ]
[ "$rc" = 0 ] || sed 's/^/#   /' "$T/run.out"
same_as_before "sysctls, mounts, loop devices, bdi knobs, throttle rules restored"
check_cmd "the stale knobs are back as the run found them" \
	eval '[ "$(cat "$bdi/strict_limit")" = 1 ] && [ "$(cat "$bdi/max_ratio_fine")" = 10000 ]'
D=$(find "$T/real" -mindepth 2 -maxdepth 2 -type d | head -1)
[ -n "$D" ] || { nok "real result exists"; restore_knobs; exit 0; }
check_cmd "the run ran under the kernel defaults (env)" \
	eval 'grep -qx "bdi.strict_limit = 0" "$D/env" && grep -qx "bdi.max_ratio = 100" "$D/env"'
stat_of() { awk -v k="$1" '$1 == k { print $2 }' "$D/stats"; }
check_cmd "the 50 MiB/s cap held on the device" awk -v v="$(stat_of dev_write_bw)" 'BEGIN { exit !(v > 0 && v <= 55) }'
check_cmd "the capped writer was throttled" awk -v v="$(stat_of pause_count)" 'BEGIN { exit !(v > 0) }'
check_cmd "the writers' CPU time was recorded" awk -v v="$(stat_of writers_cpu_s)" 'BEGIN { exit !(v > 0) }'

# a knob the run is asked for is set for the run and restored after it
"$WBLAB" run -t 1 --image-size 512M --no-trace --set bdi.strict_limit=1 --set bdi.max_ratio=50 \
	--scratch "$SCRATCH" -o "$T/asked" 'ext4-1dd-4k-*-*-20M:10' >"$T/o" 2>&1; rc=$?
A=$(find "$T/asked" -name env | head -1)
check_cmd "--set bdi.KNOB=V: the run exits 0 and ran under the asked knobs" \
	eval '[ "$rc" = 0 ] && grep -qx "bdi.strict_limit = 1" "$A" && grep -qx "bdi.max_ratio = 50" "$A"'
same_as_before "--set bdi.KNOB=V: everything restored"
restore_knobs

"$WBLAB" calibrate "$D" >"$T/cal" 2>&1; rc=$?
check_cmd "calibrate exits 0" [ "$rc" = 0 ]
check_cmd "calibrate prints --set lines" grep -qE '^--set cpu_page_ns=[0-9.]+$' "$T/cal"
check_cmd "calibrate writes DIR/calibration" grep -qE '^cpu_page_ns = [0-9.]+$' "$D/calibration"
set_args=$(grep '^--set' "$T/cal" | tr '\n' ' ')
# shellcheck disable=SC2086
"$WBLAB" sim -k current -t 5 --no-trace -o "$T/sim" $set_args 'ext4-1dd-4k-2p-4096M-100M:10' >"$T/o" 2>&1
check_cmd "the --set lines are accepted by wblab sim" [ $? = 0 ]

"$WBLAB" validate --format tsv -o "$T/val" "$D" >"$T/tsv" 2>"$T/err"; rc=$?
# 0 when every marked metric is within its target, 3 when one MISSed (a short
# run on a busy machine may): either, and consistent with the table below
check_cmd "validate exits 0 or 3" eval '[ "$rc" = 0 ] || [ "$rc" = 3 ]'
check_cmd "validate prints 10 tsv lines" [ "$(wc -l <"$T/tsv")" = 10 ]
check_cmd "tsv lines have 5 fields" awk -F'\t' 'NF != 5 { exit 1 }' "$T/tsv"
check_cmd "the simulated result is kept under -o" test -s "$(find "$T/val" -name stats | head -1)"
# its cmdline is the wblab sim that remakes it, calibration and all
VS=$(dirname "$(find "$T/val" -name stats | head -1)")
check_cmd "the simulated result's cmdline is a calibrated 'wblab sim'" \
  eval 'grep -q "^wblab sim -k current -t .* --set dev.model=loop .*-o " "$VS/cmdline"'
"$WBLAB" rerun "$VS" >"$T/rr" 2>&1; rc=$?
check_cmd "rerun of the validate result reproduces it (rc $rc)" [ "$rc" = 0 ]
# the cap is blk-throttle's rate in front of the device (or, without the
# device's busy time, the device's own rate)
check_cmd "calibrate takes the cap as the device rate" grep -qxE -- '--set dev\.(throttle|bw)_mbps=50' "$T/cal"
# every ratio finite and positive: both writers were throttled by the capped device
finite() {  # metric
	awk -F'\t' -v m="$1" '$2 == m { found = 1; r = $5
		if (r == "nan" || r == "-nan" || r == "inf" || r + 0 <= 0) bad = 1 }
		END { exit !(found && !bad) }' "$T/tsv"
}
for m in write_bw nr_dirty_mean_pages nr_dirty_p95_pages pause_ms_mean task_ratelimit_steady_kbps fairness_jain device_bw; do
	check_cmd "$m ratio finite and > 0" finite "$m"
done
ls -d /tmp/wblab-validate.* 2>/dev/null | sort >"$T/tmp.before"
"$WBLAB" validate "$D" >"$T/table" 2>&1; vrc=$?
ls -d /tmp/wblab-validate.* 2>/dev/null | sort >"$T/tmp.after"
check_cmd "table form marks the targets" grep -qE ' (ok|MISS)$' "$T/table"
check_cmd "exit 3 exactly when the table has a MISS" \
	eval '{ [ "$vrc" = 3 ] && grep -q " MISS$" "$T/table"; } || { [ "$vrc" = 0 ] && ! grep -q " MISS$" "$T/table"; }'
"$WBLAB" validate "$(find "$T/sim" -name meta -printf '%h\n' | head -1)" >"$T/o" 2>&1; rc=$?
check_cmd "validate refuses a simulated result" eval '[ "$rc" = 1 ] && grep -q "not a result of .wblab run." "$T/o"' 
check_cmd "validate without -o removes its temporary results" eval '! comm -13 "$T/tmp.before" "$T/tmp.after" | grep -q .'
"$WBLAB" validate --report "$T/val.html" "$D" >/dev/null 2>"$T/rep.err"; rc=$?
check_cmd "validate --report exits 0 or 3" eval '[ "$rc" = 0 ] || [ "$rc" = 3 ]'
check_cmd "report overlays the simulated run on the real graphs" \
	eval 'grep -q "Overlay: current" "$T/val.html" && [ -s "$D/plots/overlay-current/global_dirty_state.svg" ]'
check_cmd "report holds the real and the simulated result" \
	eval 'grep -q "$(uname -r)" "$T/val.html" && grep -q ">current<\|kernel <b>current" "$T/val.html"'
