#!/usr/bin/env bash
# End-to-end checks of policy plug-ins (docs/policies.md): `make install` of
# the header and pkg-config file, a plug-in built against them, the load and
# contract errors (tiny bad plug-ins built here with cc -shared -fPIC), the
# example policies' tables (they run, differ from 3.2 where the idea should
# change something, and are deterministic), jobs/rerun of a policy result.
# Uses $WBLAB (default build/wblab).
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
WBLAB=${WBLAB:-$PWD/build/wblab}
e2e_scratch policy
CASE='ext4-2dd-4k-8p-4096M-1M:10'

# --- install, and a plug-in built from the installed header alone ---
# (install-headers: `make install` would also rebuild the binary with the
# default flags, e.g. over an ASan build)
check_cmd "make install-headers PREFIX" make -s install-headers PREFIX="$T/prefix"
check "header and pkg-config file installed" \
	'[ -f "$T/prefix/include/wblab/policy.h" ] && [ -f "$T/prefix/lib/pkgconfig/wblab-policy.pc" ]'
CFL=$(PKG_CONFIG_PATH=$T/prefix/lib/pkgconfig pkg-config --cflags wblab-policy | sed "s/ *$//")
check "pkg-config gives the installed include dir" '[ "$CFL" = "-I$T/prefix/include" ]'

# so NAME 'C TEXT': builds $T/NAME.so from the text, against the installed header
so() { printf '#include <wblab/policy.h>\n%s\n' "$2" >"$T/$1.c" &&
	cc -std=c11 -Wall -Wextra -Werror -shared -fPIC $CFL -o "$T/$1.so" "$T/$1.c"; }

check_cmd "empty policy builds" so empty \
	'static const struct wblab_policy p = { WBLAB_POLICY_HEADER("empty", "3.2 as is") }; WBLAB_POLICY(p)'
check_cmd "empty policy runs" "$WBLAB" sim -q -j2 --policy "$T/empty.so" -k 3.2-ioless -t 30 -o "$T/e" "$CASE"
E=$T/e/thresh=1M/$CASE
check "a policy without hooks is 3.2-ioless, stat for stat" 'cmp "$E-policy-empty/stats" "$E-3.2-ioless/stats"'
check "params record the plug-in" \
	'grep -qx "policy = $T/empty.so" "$E-policy-empty/params" && grep -q "^policy_fnv1a64 = " "$E-policy-empty/params"'
check "cmdline names the plug-in by absolute path, no -k" \
	'[ "$(cat "$E-policy-empty/cmdline")" = "wblab sim --policy $T/empty.so -t 30 --seed 1 -o $T/e thresh=1M/$CASE" ]'
check "the built-in result's cmdline is unchanged" \
	'[ "$(cat "$E-3.2-ioless/cmdline")" = "wblab sim -k 3.2-ioless -t 30 --seed 1 -o $T/e thresh=1M/$CASE" ]'
"$WBLAB" rerun "$E-policy-empty" >"$T/o" 2>&1; rc=$?
check "rerun refuses to load a result's plug-in without --allow-policy" \
	'[ $rc = 1 ] && grep -q "allow-policy" "$T/o" && grep -q "empty.so" "$T/o" && [ "$(wc -l <"$T/o")" = 1 ]'
check_cmd "wblab rerun --allow-policy of a policy result" "$WBLAB" rerun --allow-policy "$E-policy-empty"
J=$("$WBLAB" jobs --policy "$T/empty.so" -k current -t 30 -o R "$CASE")
check "wblab jobs --policy" '[ "$J" = "wblab sim -k current -t 30 --seed 1 -o R thresh=1M/$CASE
wblab sim --policy $T/empty.so -t 30 --seed 1 -o R thresh=1M/$CASE" ]'
check "-k may name the plug-in's model" \
	'[ "$("$WBLAB" jobs --policy "$T/empty.so" -k policy-empty -o R "$CASE" | wc -l)" = 1 ]'
check "--help documents --policy" '"$WBLAB" sim --help | grep -q -- "--policy FILE"'

# expect NAME STATUS VIOLATION ARGS...: fails with STATUS and one line naming VIOLATION
expect() {
	local name=$1 want=$2 what=$3 out rc; shift 3
	out=$("$@" 2>&1 >/dev/null); rc=$?
	if [ "$rc" = "$want" ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -q "$what" <<<"$out"; then ok "$name"
	else nok "$name" "exit $rc (want $want)" "$out"; fi
}
run() { "$WBLAB" sim -q -j1 --policy "$@" -t 30 -o "$T/bad" "$CASE"; }

so nosym 'int unrelated(void); int unrelated(void) { return 0; }'
expect "missing symbol" 2 "missing-symbol: no 'wblab_policy_abi'" run "$T/nosym.so"
so noinit '__attribute__((visibility("default"))) const uint32_t wblab_policy_abi = WBLAB_POLICY_ABI;'
expect "missing init symbol" 2 "missing-symbol: no 'wblab_policy_init'" run "$T/noinit.so"
so abi '__attribute__((visibility("default"))) const uint32_t wblab_policy_abi = 999;'
expect "wrong ABI version" 2 "abi-version: built against policy ABI 999" run "$T/abi.so"
so badname 'static const struct wblab_policy p = { WBLAB_POLICY_HEADER("Bad/Name", "") }; WBLAB_POLICY(p)'
expect "bad name" 2 "bad-name" run "$T/badname.so"
expect "no such plug-in" 2 "policy $T/none.so: No such file" run "$T/none.so"
so neg 'static int64_t pz(const struct wblab_api *wb, const struct wblab_pass *p) { (void)wb; (void)p; return -5; }
static const struct wblab_policy p = { WBLAB_POLICY_HEADER("neg", "negative pauses"), .pause = pz }; WBLAB_POLICY(p)'
expect "negative pause" 1 "policy-neg: policy contract violated at .* s: pause-range: pause() returned -5 jiffies" run "$T/neg.so"
so long 'static int64_t pz(const struct wblab_api *wb, const struct wblab_pass *p) { (void)wb; return (int64_t)p->max_pause_limit + 1; }
static const struct wblab_policy p = { WBLAB_POLICY_HEADER("long", "too long pauses"), .pause = pz }; WBLAB_POLICY(p)'
expect "pause beyond MAX_PAUSE" 1 "pause-range: pause() returned 201 jiffies, outside \[0, 200\]" run "$T/long.so"
so norl 'static void up(const struct wblab_api *wb, const struct wblab_ratelimit_update *u) { (void)wb; (void)u; }
static const struct wblab_policy p = { WBLAB_POLICY_HEADER("norl", "no ratelimit update"), .update_dirty_ratelimit = up }; WBLAB_POLICY(p)'
expect "a policy that never updates the ratelimit" 1 "ratelimit-update: update_dirty_ratelimit() ran [0-9]* times and never called" run "$T/norl.so"
so nobdp 'static void b(const struct wblab_api *wb, struct wblab_sim *s, struct wblab_task *t, uint64_t n) { (void)wb; (void)s; (void)t; (void)n; }
static const struct wblab_policy p = { WBLAB_POLICY_HEADER("nobdp", "never throttles"), .balance_dirty_pages = b }; WBLAB_POLICY(p)'
expect "a loop hook that never runs the loop" 1 "no-throttle: balance_dirty_pages() ran [0-9]* times" run "$T/nobdp.so"
so sp 'static uint64_t s0(const struct wblab_api *wb, struct wblab_sim *s, const struct wblab_dtc *d) { (void)wb; (void)s; return d->thresh * 2; }
static const struct wblab_policy p = { WBLAB_POLICY_HEADER("sp", "setpoint past the limit"), .setpoint = s0 }; WBLAB_POLICY(p)'
expect "setpoint beyond the hard limit" 1 "setpoint-range" run "$T/sp.so"
# a plug-in that crashes or exits: one line naming the job, exit 1, nothing left
# behind (no result, no hidden .tmp dir)
so segv 'static int64_t pz(const struct wblab_api *wb, const struct wblab_pass *p) { (void)wb; (void)p; return *(volatile int64_t *)0; }
static const struct wblab_policy p = { WBLAB_POLICY_HEADER("segv", "crashes"), .pause = pz }; WBLAB_POLICY(p)'
ASAN_OPTIONS=handle_segv=0 expect "a crashing hook: one line naming the job and the signal" 1 "thresh=1M/$CASE under policy-segv: the run died of signal 11" run "$T/segv.so"
so ex0 '#include <stdlib.h>
static int64_t pz(const struct wblab_api *wb, const struct wblab_pass *p) { (void)wb; (void)p; exit(0); }
static const struct wblab_policy p = { WBLAB_POLICY_HEADER("ex0", "exits"), .pause = pz }; WBLAB_POLICY(p)'
expect "a hook calling exit(0): exit 1, one line" 1 "under policy-ex0: exit(0) was called during the run" run "$T/ex0.so"
so uex0 '#include <unistd.h>
static int64_t pz(const struct wblab_api *wb, const struct wblab_pass *p) { (void)wb; (void)p; _exit(0); }
static const struct wblab_policy p = { WBLAB_POLICY_HEADER("uex0", "exits at once"), .pause = pz }; WBLAB_POLICY(p)'
expect "a hook calling _exit(0): exit 1, one line" 1 "under policy-uex0: the run ended (status 0) without writing its result" run "$T/uex0.so"
so ctor 'static void boom(void) __attribute__((constructor)); static void boom(void) { *(volatile int *)0 = 1; }
static const struct wblab_policy p = { WBLAB_POLICY_HEADER("ctor", "crashes when loaded") }; WBLAB_POLICY(p)'
ASAN_OPTIONS=handle_segv=0 expect "a constructor that crashes: exit 2, one line" 2 "policy $T/ctor.so: crashed while loading (signal 11" run "$T/ctor.so"
so pos 'static uint64_t pr(const struct wblab_api *wb, struct wblab_sim *s, const struct wblab_dtc *d) { (void)wb; (void)s; (void)d; return 1ULL << 40; }
static const struct wblab_policy p = { WBLAB_POLICY_HEADER("pos", "huge ratio"), .position_ratio = pr }; WBLAB_POLICY(p)'
expect "a position ratio of 2^32 or more" 1 "position-range: position_ratio() returned 1099511627776" run "$T/pos.so"
so free 'static uint64_t pr(const struct wblab_api *wb, struct wblab_sim *s, const struct wblab_dtc *d) { (void)wb; (void)s; (void)d; return 1U << 20; }
static const struct wblab_policy p = { WBLAB_POLICY_HEADER("free", "1024 x the rate"), .position_ratio = pr }; WBLAB_POLICY(p)'
expect "a throttle that lets dirty pages pass memory" 1 "dirty-beyond-memory: [0-9]* pages dirty, under writeback or unstable, more than twice the machine's 1048576" run "$T/free.so"
check "a failed policy run leaves no result" '! ls "$T/bad"/*/* >/dev/null 2>&1'
# _exit(0) over an older result of the same name: a failure, the old result kept as it was
so same 'static const struct wblab_policy p = { WBLAB_POLICY_HEADER("twin", "3.2 as is") }; WBLAB_POLICY(p)'
so same_exit '#include <unistd.h>
static int64_t pz(const struct wblab_api *wb, const struct wblab_pass *p) { (void)wb; (void)p; _exit(0); }
static const struct wblab_policy p = { WBLAB_POLICY_HEADER("twin", "exits at once"), .pause = pz }; WBLAB_POLICY(p)'
"$WBLAB" sim -q -j1 --policy "$T/same.so" -t 30 -o "$T/twin" "$CASE" >/dev/null 2>&1
expect "_exit(0) with an older result of that name: still a failure" 1 "under policy-twin: the run ended (status 0) without writing its result" \
	"$WBLAB" sim -q -j1 --policy "$T/same_exit.so" -t 30 -o "$T/twin" "$CASE"
check "... the older result is untouched, no temporary dir" \
	'grep -qx "policy = $T/same.so" "$T/twin/thresh=1M/$CASE-policy-twin/params" && [ -z "$(find "$T/twin" -name ".*tmp*")" ]'
# 3.2's own loop passes memory by a little with 100 writers at a limit near it: no violation
check_cmd "a hookless policy runs where 3.2 runs (100 dd at 1020M of 1024M)" \
	"$WBLAB" sim -q -j1 --policy "$T/empty.so" -t 10 --no-trace -o "$T/mem" ext4-100dd-4k-8p-1024M-1020M:10
check "... and no temporary dir" '[ -z "$(find "$T/bad" -name ".*tmp*")" ]'
so rlok 'static void up(const struct wblab_api *wb, const struct wblab_ratelimit_update *u) {
	struct wblab_dtc d = *u->dtc; wb->update_dirty_ratelimit_32(u, wb->setpoint_32(u->sim, &d), wb->position_ratio(u->sim, &d)); }
static int64_t pz(const struct wblab_api *wb, const struct wblab_pass *p) { (void)wb; return p->pause; }
static void b(const struct wblab_api *wb, struct wblab_sim *s, struct wblab_task *t, uint64_t n) { wb->balance_dirty_pages_32(s, t, n); }
static const struct wblab_policy p = { WBLAB_POLICY_HEADER("rlok", "every hook, all 3.2"), .update_dirty_ratelimit = up, .pause = pz, .balance_dirty_pages = b };
WBLAB_POLICY(p)'
check_cmd "hooks that call the library are 3.2 again" "$WBLAB" sim -q --policy "$T/rlok.so" -t 30 -o "$T/e" "$CASE"
check "... stat for stat" 'cmp "$E-policy-rlok/stats" "$E-3.2-ioless/stats"'

# --- the example policies ---
check_cmd "make examples" make -s examples BUILD="$(dirname "$WBLAB")"
M='{ext4,xfs}-{1,2,10}dd-4k-8p-4096M-{1M,1G}:10'
for p in pause_cap bg_setpoint; do
	check_cmd "$p: runs with 3.2-ioless" "$WBLAB" sim -q -j2 --no-trace --policy examples/policies/$p.so \
		-k 3.2-ioless -t 60 -o "$T/x1" "$M"
	check_cmd "$p: same seed, byte-identical results (trace.dat too)" bash -c \
		"'$WBLAB' sim -q -j2 --policy examples/policies/$p.so -t 60 -o '$T/d1' '$CASE' >/dev/null &&
		 '$WBLAB' sim -q -j2 --policy examples/policies/$p.so -t 60 -o '$T/d2' '$CASE' >/dev/null &&
		 diff -r -x cmdline '$T/d1' '$T/d2'"
	rm -rf "$T/d1" "$T/d2"
done
X=$T/x1
pm() { awk -v k="$2" '$1 == k { print $2 }' "$1/stats"; }
# a cap of 10 ms x dirtiers: 10 dds sleep longer than 3.2's 20 ms + 20 ms per doubling allows at 1M
A=$X/thresh=1M/ext4-10dd-4k-8p-4096M-1M:10
check "pause_cap: 10 dd pause longer than under 3.2" \
	'awk "BEGIN { exit !($(pm "$A-policy-pause_cap" pause_ms_mean) > 2 * $(pm "$A-3.2-ioless" pause_ms_mean)) }"'
# a setpoint lower toward bg: fewer pages dirty when thresh is far above bg
B=$X/thresh=1G/xfs-2dd-4k-8p-4096M-1G:10
check "bg_setpoint: fewer dirty pages than 3.2 at 1G" \
	'awk "BEGIN { exit !($(pm "$B-policy-bg_setpoint" nr_dirty_mean_pages) < 0.95 * $(pm "$B-3.2-ioless" nr_dirty_mean_pages)) }"'
check "bg_setpoint: write_bw within 1% of 3.2 at 1G" \
	'awk "BEGIN { r = $(pm "$B-policy-bg_setpoint" write_bw) / $(pm "$B-3.2-ioless" write_bw); exit !(r > 0.99 && r < 1.01) }"'
OUT=$(WBLAB_POLICY_CACHE=$T/cache scripts/policy-table.sh -t 20 -j2 examples/policies/bg_setpoint.so)
check "policy-table.sh: under each table, the policy parameters that differ" \
	'[ "$(grep -c "^differs: params.policy_fnv1a64 = (absent) " <<<"$OUT")" = 2 ]'
OUT=$(grep -v "^differs: \|^warning: " <<<"$OUT")   # the tables themselves
check "policy-table.sh prints both tables" \
	'[ "$(grep -c "TOTAL write_bw" <<<"$OUT")" = 2 ] && grep -q "against current" <<<"$OUT" &&
	 [ "$(grep -c "policy-bg_setpoint" <<<"$OUT")" = 2 ] && [ "$(grep -c "thresh=" <<<"$OUT")" = 48 ]'
# a plug-in rebuilt since its result was made: rerun lists every differing
# file and names the changed plug-in by its hash
so rb 'static const struct wblab_policy p = { WBLAB_POLICY_HEADER("rb", "3.2 as is") }; WBLAB_POLICY(p)'
"$WBLAB" sim -q -j1 --policy "$T/rb.so" -t 5 -o "$T/rb" "$CASE" >/dev/null 2>&1
so rb 'int rb_extra(void); int rb_extra(void) { return 1; }
static const struct wblab_policy p = { WBLAB_POLICY_HEADER("rb", "3.2 as is") }; WBLAB_POLICY(p)'
"$WBLAB" rerun --allow-policy "$T/rb/thresh=1M/$CASE-policy-rb" >"$T/rb.out" 2>&1; rc=$?
check "rerun of a rebuilt plug-in: exit 1, params differs, the plug-in's hash named" \
	'[ $rc = 1 ] && grep -q "params differs from the rerun" "$T/rb.out" && grep -q "the plug-in file changed since the result was made (policy_fnv1a64 [0-9a-f]*, now [0-9a-f]*)" "$T/rb.out"'
echo "1..$TAP_N"
