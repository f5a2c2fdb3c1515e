#!/usr/bin/env bash
# End-to-end checks of `wblab compare` on synthetic result directories.
# Uses $WBLAB (set by tests/run-all.sh); prints one "ok - name" or
# "not ok - name" line per check.
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
WBLAB=${WBLAB:-$PWD/build/wblab}
DATA=$PWD/tests/data/compare
e2e_scratch compare

# mkres ROOT GROUP CASE KERNEL RUN VALUE [extra stats lines...]
# Writes ROOT/GROUP/CASE-KERNEL[.RUN]/{meta,stats} as wblab producers do.
mkres() {
	local root=$1 group=$2 case=$3 kernel=$4 run=$5 value=$6; shift 6
	local leaf="$case-$kernel"; [ "$run" -ge 2 ] && leaf="$leaf.$run"
	local d="$root/$group/$leaf"
	IFS=- read -r fs job bs cpus mem tb <<<"$case"
	mkdir -p "$d"
	printf 'case %s\ngroup %s\nkernel %s\nfs %s\njob %s\nbs %s\ncpus %s\nmem %s\nthresh %s\nbg %s\nrun %s\nsource synthetic\n' \
		"$case" "$group" "$kernel" "$fs" "$job" "$bs" "${cpus%p}" "${mem%M}" "${tb%%:*}" "${tb#*:}" "$run" >"$d/meta"
	{ echo "write_bw $value"; echo "duration_s 600"; for l in "$@"; do echo "$l"; done; } >"$d/stats"
}

# --- the seed table, from 24 synthetic dirs ---
S=$T/seed
grep -v '^#' "$DATA/seed-values.tsv" | while IFS=$'\t' read -r gc base new; do
	mkres "$S/vanilla" "${gc%%/*}" "${gc#*/}" 3.1.0-rc8-vanilla+ 1 "$base"
	mkres "$S/wq4" "${gc%%/*}" "${gc#*/}" 3.1.0-rc8-nfs-wq4+ 1 "$new"
done
check_cmd "seed table byte-exact" cmp "$DATA/seed-table.golden" <("$WBLAB" compare "$S/vanilla" "$S/wq4")
check_cmd "seed table, first DIR is the baseline" cmp "$DATA/seed-table.golden" \
	<("$WBLAB" compare "$S/vanilla/NFS-thresh=1G/nfs-1dd-4k-32p-32768M-1024M:10-3.1.0-rc8-vanilla+" "$S")
mkdir -p "$T/one" && cp -r "$S"/vanilla/* "$S"/wq4/* "$T/one"   # both kernels under one group dir
check_cmd "one root: sorted order puts nfs-wq4+ first" \
	bash -c "'$WBLAB' compare '$T/one' | head -1 | grep -q '^      3.1.0-rc8-nfs-wq4+        3.1.0-rc8-vanilla+  \$'"
check_cmd "seed table as tsv" cmp "$DATA/seed-table.tsv" <("$WBLAB" compare --format tsv "$S/vanilla" "$S/wq4")
check_cmd "seed table as json" cmp "$DATA/seed-table.json" <("$WBLAB" compare --format json "$S/vanilla" "$S/wq4")
if command -v python3 >/dev/null; then
	check_cmd "json parses" python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["rows"])==12' \
		<("$WBLAB" compare --format json "$S/vanilla" "$S/wq4")
else
	skip "json parses" "no python3"
fi

# --- filters ---
out=$("$WBLAB" compare -g 'thresh=1M/' "$S/vanilla" "$S/wq4")
check_cmd "-g keeps matching rows" test "$(grep -c 'thresh=1M/' <<<"$out")" -eq 3 -a "$(wc -l <<<"$out")" -eq 6
check_cmd "-g total sums printed rows only" grep -q '^                   39.22       -40.6%        23.30  TOTAL write_bw$' <<<"$out"
out=$("$WBLAB" compare -g 'nfs-1dd' -v '100M' "$S/vanilla" "$S/wq4")
check_cmd "-g and -v combine" test "$(grep -c 'nfs-1dd' <<<"$out")" -eq 3
check_cmd "-g matches the masked key" test "$("$WBLAB" compare -g '1M:10-X$' "$S" | grep -c -- '-X$')" -eq 3
"$WBLAB" compare -v nfs-wq4 "$S" >"$T/o" 2>"$T/e"; rc=$?
check_cmd "-v KERNEL drops a column: nothing to compare, exit 1" \
	bash -c "[ $rc -eq 1 ] && grep -q 'nothing to compare' '$T/e' && [ ! -s '$T/o' ]"
"$WBLAB" compare -g '(' "$S" >/dev/null 2>"$T/e"; rc=$?
check_cmd "bad regex exits 2" bash -c "[ $rc -eq 2 ] && grep -q 'bad regex' '$T/e'"

# --- -c fs, as in the LKML btrfs/ext3/ext4/xfs table (xfs 41.764 gives its -26.1%) ---
F=$T/fs
for fs in btrfs ext3 ext4 xfs; do
	v=$(case $fs in btrfs) echo 56.55;; ext3) echo 30.66;; ext4) echo 50.42;; xfs) echo 41.764;; esac)
	mkres "$F" thresh=1G "$fs-100dd-4k-8p-4096M-1024M:10" 3.1.0-rc8-ioless6a+ 1 "$v"
done
out=$("$WBLAB" compare -c fs "$F")
check_cmd "-c fs header" grep -q '^                   btrfs                      ext3                      ext4                       xfs  $' <<<"$out"
check_cmd "-c fs row masks fs as X" grep -qF '                   56.55       -45.8%        30.66       -10.8%        50.42       -26.1%        41.76  thresh=1G/X-100dd-4k-8p-4096M-1024M:10-3.1.0-rc8-ioless6a+' <<<"$out"

# --- -c thresh: the group's thresh= is masked too ---
out=$("$WBLAB" compare -c thresh -g '1dd' "$S/vanilla")
check_cmd "-c thresh columns" grep -q '^                    100M                       10M                     1024M                        1M  $' <<<"$out"
check_cmd "-c thresh key" grep -qF '  NFS-thresh=X/nfs-1dd-4k-32p-32768M-X:10-3.1.0-rc8-vanilla+' <<<"$out"

# --- repeats averaged, --stddev, -c run ---
R=$T/rep
mkres "$R" thresh=100M ext4-1dd-4k-8p-4096M-100M:10 A 1 100
mkres "$R" thresh=100M ext4-1dd-4k-8p-4096M-100M:10 A 2 110
mkres "$R" thresh=100M ext4-1dd-4k-8p-4096M-100M:10 A 3 90
mkres "$R" thresh=100M ext4-1dd-4k-8p-4096M-100M:10 B 1 150
mkres "$R" thresh=100M ext4-1dd-4k-8p-4096M-100M:10 B 2 150
mkres "$R" thresh=100M ext4-10dd-4k-8p-4096M-100M:10 A 1 50
mkres "$R" thresh=100M ext4-10dd-4k-8p-4096M-100M:10 B 1 25
check_cmd "repeats averaged" cmp "$DATA/repeats.golden" <("$WBLAB" compare "$R")
check_cmd "--stddev" cmp "$DATA/repeats-stddev.golden" <("$WBLAB" compare --stddev "$R")
check_cmd "--geomean" cmp "$DATA/repeats-geomean.golden" <("$WBLAB" compare --geomean "$R")
out=$("$WBLAB" compare -c run -g 'A$' "$R" 2>/dev/null)
check_cmd "-c run: runs as columns" grep -q '^                  100.00       +10.0%       110.00       -10.0%        90.00  thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-A$' <<<"$out"

# --- --baseline, --order, a root's recorded order, options after DIR ---
check_cmd "--baseline B" cmp "$DATA/repeats-baseline.golden" <("$WBLAB" compare --baseline B "$R")
check_cmd "options after DIR" cmp "$DATA/repeats-baseline.golden" <("$WBLAB" compare "$R" --baseline B)
check_cmd "--order on -c fs" cmp "$DATA/fs-order.golden" <("$WBLAB" compare "$F" -c fs --order xfs,ext4)
check_cmd "--order then --baseline" bash -c "'$WBLAB' compare -c fs --order xfs,ext4 --baseline btrfs '$F' | head -1 | grep -q '^ *btrfs  *xfs  *ext4  *ext3  \$'"
"$WBLAB" compare --baseline C "$R" >"$T/o" 2>"$T/e"; rc=$?
check_cmd "--baseline not among the values exits 2" \
	bash -c "[ $rc -eq 2 ] && grep -q \"\-\-baseline: no kernel 'C' among the results (A B)\" '$T/e' && [ ! -s '$T/o' ]"
"$WBLAB" compare --order A,Z "$R" >/dev/null 2>"$T/e"; rc=$?
check_cmd "--order value not among the values exits 2" bash -c "[ $rc -eq 2 ] && grep -q \"no kernel 'Z'\" '$T/e'"
check_cmd "the seed root's recorded order: vanilla first" bash -c "
	printf 'kernel = 3.1.0-rc8-vanilla+,3.1.0-rc8-nfs-wq4+\n' >'$T/one/.wblab-order' &&
	cmp '$DATA/seed-table.golden' <('$WBLAB' compare '$T/one')"
check_cmd "a hand-written order file without its last newline is read" bash -c "
	printf 'kernel = 3.1.0-rc8-vanilla+,3.1.0-rc8-nfs-wq4+' >'$T/one/.wblab-order' &&
	cmp '$DATA/seed-table.golden' <('$WBLAB' compare '$T/one')"
check_cmd "--order overrides the recorded order" \
	bash -c "'$WBLAB' compare --order 3.1.0-rc8-nfs-wq4+ '$T/one' | head -1 | grep -q '^      3.1.0-rc8-nfs-wq4+'"
printf 'kernel = 3.1.0-rc8-vanilla+\nkernel\n' >"$T/one/.wblab-order"
"$WBLAB" compare "$T/one" >/dev/null 2>"$T/e"; rc=$?
check_cmd "malformed order file: file and line, exit 1" bash -c "[ $rc -eq 1 ] && grep -q '.wblab-order:2:' '$T/e'"
rm "$T/one/.wblab-order"

# --- significance: Welch's t-test at 95 % on repeats ---
SG=$T/sig
for r in 1 2 3 4; do
	mkres "$SG" thresh=1G ext4-1dd-4k-8p-4096M-1024M:10 A $r $((100 + r))      # 101..104
	mkres "$SG" thresh=1G ext4-1dd-4k-8p-4096M-1024M:10 B $r $((105 - r))      # 104..101: equal mean
	mkres "$SG" thresh=1G xfs-1dd-4k-8p-4096M-1024M:10 A $r $((100 + r))
	mkres "$SG" thresh=1G xfs-1dd-4k-8p-4096M-1024M:10 B $r $((120 + r))       # shifted 20, noise ~1.3
done
out=$("$WBLAB" compare "$SG")
check_cmd "equal means: not significant (~)" grep -q '^ *102.50 *+0.0% *102.50~ thresh=1G/ext4' <<<"$out"
check_cmd "shifted beyond noise: significant (*)" grep -q '^ *102.50 *+19.5% *122.50\* thresh=1G/xfs' <<<"$out"
out=$("$WBLAB" compare --format tsv "$SG")
check_cmd "tsv: p_value and significant fields" test "$(awk -F'\t' '$2=="B" && $5==4 {print substr($1,11,4), $8}' <<<"$out" | tr '\n' ' ')" = "ext4 0 xfs- 1 "
check_cmd "json: significant true/false" bash -c "'$WBLAB' compare --format json '$SG' | grep -q '\"significant\": false' && '$WBLAB' compare --format json '$SG' | grep -q '\"significant\": true'"
check_cmd "report colours only the significant change" bash -c "'$WBLAB' report --no-graphs -o '$T/sig.html' '$SG' >/dev/null 2>&1 && grep -q 'class=\"num good\">+19.5%\*' '$T/sig.html' && grep -q 'class=\"num \">+0.0%~' '$T/sig.html'"

# a change below the text table's 0.1 %: shown +0.0%, exact in tsv and json
SM=$T/small
mkres "$SM" thresh=1G ext4-1dd-4k-8p-4096M-1024M:10 A 1 10000
mkres "$SM" thresh=1G ext4-1dd-4k-8p-4096M-1024M:10 B 1 9996.4
check_cmd "text: a -0.036 % change is shown +0.0%" bash -c "'$WBLAB' compare '$SM' | grep -q '^ *10000.00 *+0.0% *9996.40 *thresh=1G/ext4'"
check_cmd "tsv: the same change is exact" bash -c "'$WBLAB' compare --format tsv '$SM' | awk -F'\t' '\$2==\"B\" {print \$6}' | grep -qx -- -0.036"
check_cmd "json: the same change is exact" bash -c "'$WBLAB' compare --format json '$SM' | grep -q '\"change_pct\": -0.036'"

# --- params key as the field ---
P=$T/params
mkres "$P/a" thresh=100M ext4-1dd-4k-8p-4096M-100M:10 sim 1 10
printf 'policy = ioless\n' >"$P/a/thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-sim/params"
mkres "$P/b" thresh=100M ext4-1dd-4k-8p-4096M-100M:10 sim 1 20
printf 'policy = legacy\n' >"$P/b/thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-sim/params"
check_cmd "-c PARAMS_KEY" grep -q '^                   10.00      +100.0%        20.00  thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-sim$' \
	<("$WBLAB" compare -c policy "$P")
"$WBLAB" compare -c nosuch "$P" >/dev/null 2>"$T/e"; rc=$?
check_cmd "unknown field exits 2" bash -c "[ $rc -eq 2 ] && grep -q \"unknown field 'nosuch'\" '$T/e'"

# --- missing cells print as 0.00 and count 0 in TOTAL ---
M=$T/miss
mkres "$M" thresh=1G ext4-1dd-4k-8p-4096M-1024M:10 A 1 10
mkres "$M" thresh=1G ext4-1dd-4k-8p-4096M-1024M:10 B 1 20
mkres "$M" thresh=1G ext4-1dd-4k-8p-4096M-1024M:10 C 1 40
mkres "$M" thresh=1G xfs-1dd-4k-8p-4096M-1024M:10 A 1 10
mkres "$M" thresh=1G xfs-1dd-4k-8p-4096M-1024M:10 C 1 5
mkres "$M" thresh=1G btrfs-1dd-4k-8p-4096M-1024M:10 B 1 99
check_cmd "missing cells" cmp "$DATA/missing.golden" <("$WBLAB" compare "$M" 2>/dev/null)
check_cmd "single-column case noted on stderr" bash -c "'$WBLAB' compare '$M' 2>&1 >/dev/null | grep -q '1 case(s) exist under one kernel only'"

# --- n/a: a result that did not measure the metric (no line in stats) ---
NA=$T/na
mkres "$NA" thresh=1G ext4-1dd-4k-8p-4096M-1024M:10 3.1 1 10
mkres "$NA" thresh=1G ext4-1dd-4k-8p-4096M-1024M:10 3.2 1 20 "pause_ms_p99 8"
mkres "$NA" thresh=1G ext4-1dd-4k-8p-4096M-1024M:10 6.x 1 30 "pause_ms_p99 6"
mkres "$NA" thresh=1G xfs-1dd-4k-8p-4096M-1024M:10 3.1 1 10 "pause_ms_p99 40"
mkres "$NA" thresh=1G xfs-1dd-4k-8p-4096M-1024M:10 3.2 1 20 "pause_ms_p99 20"
mkres "$NA" thresh=1G xfs-1dd-4k-8p-4096M-1024M:10 6.x 1 30 "pause_ms_p99 20.01"
check_cmd "n/a cells, TOTAL over fully measured rows (text)" cmp "$DATA/na.golden" \
	<("$WBLAB" compare -e pause_ms_p99 --geomean "$NA" 2>/dev/null)
check_cmd "n/a as tsv" cmp "$DATA/na.tsv" <("$WBLAB" compare -e pause_ms_p99 --format tsv "$NA" 2>/dev/null)
check_cmd "n/a as json" cmp "$DATA/na.json" <("$WBLAB" compare -e pause_ms_p99 --format json "$NA" 2>/dev/null)
check_cmd "n/a noted on stderr" bash -c "'$WBLAB' compare -e pause_ms_p99 '$NA' 2>&1 >/dev/null | grep -q 'TOTAL and GEOMEAN leave out 1 of 2 rows'"
check_cmd "a change below 0.05% is +0.0%, never -0.0%" bash -c "'$WBLAB' compare -e pause_ms_p99 --baseline 6.x '$NA' 2>/dev/null | grep -q '^ *20.01 *+99.9% *40.00 *+0.0% *20.00  thresh=1G/xfs'"
out=$("$WBLAB" compare -e pause_ms_p99 -g ext4 "$NA" 2>/dev/null)
check_cmd "every row n/a somewhere: TOTAL is n/a" grep -q '^ *n/a  *n/a  *n/a  TOTAL pause_ms_p99$' <<<"$out"
check_cmd "report shows n/a" bash -c "'$WBLAB' report --no-graphs -o '$T/na.html' '$NA' >/dev/null 2>&1; grep -q '<td class=\"num note\">n/a</td>' '$T/na.html'"

# --- what differs between the columns' results (params/env) ---
EV=$T/envdiff
c=thresh=1G/ext4-1dd-4k-8p-4096M-1024M:10
mkres "$EV/a" thresh=1G ext4-1dd-4k-8p-4096M-1024M:10 sim 1 50
printf 'seed = 1\ndisk.bw_mbps = 50\nbdi_strict_limit = 0\n' >"$EV/a/$c-sim/params"
mkres "$EV/b" thresh=1G ext4-1dd-4k-8p-4096M-1024M:10 sim 1 80
printf 'seed = 1\ndisk.bw_mbps = 80\nbdi_strict_limit = 1\n' >"$EV/b/$c-sim/params"
printf 'vm.dirty_ratio = 20\n' >"$EV/b/$c-sim/env"
mkres "$EV/c" thresh=1G ext4-1dd-4k-8p-4096M-1024M:10 sim 1 79
printf 'seed = 2\ndisk.bw_mbps = 80\nbdi_strict_limit = 0\n' >"$EV/c/$c-sim/params"
"$WBLAB" compare -c disk.bw_mbps "$EV" >"$T/o" 2>"$T/e"
check_cmd "env diff: columns differ in a params key" grep -q 'columns differ in params.bdi_strict_limit: 0 vs 1' "$T/e"
check_cmd "env diff: and in an env key" grep -q 'columns differ in env.vm.dirty_ratio: (absent) vs 20' "$T/e"
check_cmd "env diff: a column merging differing results warns" grep -q 'one disk.bw_mbps value merges results that differ in params.bdi_strict_limit' "$T/e"
check_cmd "env diff: seed (a run's identity) is not a difference" bash -c "! grep -q 'params.seed' '$T/e'"
check_cmd "env diff under the table on stdout" grep -q '^differs: params.bdi_strict_limit = 0 (50), 1 (80)$' "$T/o"
check_cmd "env diff: the merging column warns on stdout" grep -q '^warning: disk.bw_mbps 80 merges results that differ in params.bdi_strict_limit: 1 vs 0$' "$T/o"
check_cmd "env diff as tsv rows" bash -c "'$WBLAB' compare -c disk.bw_mbps --format tsv '$EV' 2>/dev/null | grep -q \"^ENV	differs	env.vm.dirty_ratio	50	(absent)	80	20\$\""
if command -v python3 >/dev/null; then
	check_cmd "env diff as json fields" bash -c "'$WBLAB' compare -c disk.bw_mbps --format json '$EV' 2>/dev/null | python3 -c 'import json,sys; d=json.load(sys.stdin)[\"env_diff\"]; assert {\"kind\":\"merges\",\"key\":\"params.bdi_strict_limit\",\"column_a\":\"80\",\"a\":\"1\",\"column_b\":\"80\",\"b\":\"0\"} in d, d'"
fi
# a real result against a simulated one: their params share no keys, and the
# real run's image path (its pid) and loop device change from run to run
RS=$T/realsim
"$WBLAB" sim -q -t 2 -k current -o "$RS/sim" ext4-1dd-4k-8p-4096M-100M:10 >/dev/null 2>&1
for n in 1 2; do
	rd="$RS/real$n/thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-6.12.0"
	mkdir -p "$rd" && cp "$RS"/sim/thresh=100M/*-current/stats "$rd/"
	sed 's/^source .*/source real/; s/^kernel .*/kernel 6.12.0/' "$RS"/sim/thresh=100M/*-current/meta >"$rd/meta"
	printf 'runtime_s = 2\ndevice_bw_mbps = 0\n' >"$rd/params"
	printf 'kernel = 6.12.0\ndevice = /dev/loop%d\nimage = /var/lib/wblab/wblab-run.%d.0/image\nbdi = 7:%d\n' $n $n $n >"$rd/env"
done
"$WBLAB" compare "$RS/real1" "$RS/real2" "$RS/sim" >"$T/o" 2>"$T/e"
check_cmd "real vs simulated: one 'differs' line (the source), no params flood" \
	bash -c "[ \"\$(grep -c '^differs:' '$T/o')\" = 1 ] && grep -q '^differs: meta.source = real (6.12.0), sim (current)' '$T/o'"
check_cmd "two real repeats: their image path, bdi and loop device are not a difference" \
	bash -c "! grep -q 'env.image\|env.bdi\|env.device' '$T/o' '$T/e'"
check_cmd "no env difference: nothing under the table" bash -c "'$WBLAB' compare '$T/seed/vanilla' '$T/seed/wq4' | tail -1 | grep -q '^ .* TOTAL write_bw\$'"

# --- report and compare give a result the same row key (result_row_key):
# under -c fs the fs value 'nfs' is also a token of the kernel 3.1-nfs-wq4,
# which report's old text masking turned into 3.1-X-wq4 for one column only
RK=$T/rowkey
mkres "$RK" thresh=1G ext4-1dd-4k-8p-4096M-1024M:10 3.1-nfs-wq4 1 50
mkres "$RK" thresh=1G nfs-1dd-4k-8p-4096M-1024M:10 3.1-nfs-wq4 1 60
printf 'disk.bw_mbps = 50\n' >"$RK/thresh=1G/ext4-1dd-4k-8p-4096M-1024M:10-3.1-nfs-wq4/params"
printf 'disk.bw_mbps = 60\n' >"$RK/thresh=1G/nfs-1dd-4k-8p-4096M-1024M:10-3.1-nfs-wq4/params"
key=$("$WBLAB" compare -c fs "$RK" 2>/dev/null | sed -n '3s/.*  //p')
check_cmd "row key: compare masks the fs token only" test "$key" = "thresh=1G/X-1dd-4k-8p-4096M-1024M:10-3.1-nfs-wq4"
"$WBLAB" report -c fs --no-graphs -o "$T/rk.html" "$RK" >/dev/null 2>&1
check_cmd "row key: report's environment differences use compare's key" grep -q "<h3>$key</h3>" "$T/rk.html"
"$WBLAB" compare "$EV" >/dev/null 2>"$T/e"; rc=$?
check_cmd "nothing to compare under kernel: suggests -c KEY" \
	bash -c "[ $rc -eq 1 ] && grep -q 'try -c disk.bw_mbps, -c bdi_strict_limit' '$T/e'"

# --- errors ---
"$WBLAB" compare -e no_such_metric "$S" >"$T/o" 2>"$T/e"; rc=$?
check_cmd "unknown metric exits 2, one line listing names" \
	bash -c "[ $rc -eq 2 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -q \"unknown metric 'no_such_metric'; available: write_bw duration_s\" '$T/e' && [ ! -s '$T/o' ]"
check_cmd "other metric" bash -c "'$WBLAB' compare -e duration_s '$S' | tail -1 | grep -q '^                 7200.00        +0.0%      7200.00  TOTAL duration_s\$'"
mkdir -p "$T/empty/sub"
"$WBLAB" compare "$T/empty" >"$T/o" 2>"$T/e"; rc=$?
check_cmd "empty selection exits 1" bash -c "[ $rc -eq 1 ] && grep -q 'no result directories' '$T/e'"
"$WBLAB" compare -g nomatch "$S" >"$T/o" 2>"$T/e"; rc=$?
check_cmd "everything filtered exits 1" bash -c "[ $rc -eq 1 ] && grep -q 'no result left after -g/-v (24 found)' '$T/e'"
"$WBLAB" compare "$T/nonexistent" >/dev/null 2>"$T/e"; rc=$?
check_cmd "missing DIR exits 1" bash -c "[ $rc -eq 1 ] && grep -q 'nonexistent' '$T/e'"
"$WBLAB" compare >/dev/null 2>&1; rc=$?
check_cmd "no DIR exits 2" test $rc -eq 2
"$WBLAB" compare --format xml "$S" >/dev/null 2>&1; rc=$?
check_cmd "bad --format exits 2" test $rc -eq 2

B=$T/bad
cp -r "$M" "$B"
printf 'write_bw 12.5\nduration_s six\n' >"$B/thresh=1G/xfs-1dd-4k-8p-4096M-1024M:10-A/stats"
"$WBLAB" compare "$B" >"$T/o" 2>"$T/e"; rc=$?
check_cmd "malformed stats: file and line, exit 1, no table" \
	bash -c "[ $rc -eq 1 ] && grep -qF 'xfs-1dd-4k-8p-4096M-1024M:10-A/stats:2: ' '$T/e' && [ ! -s '$T/o' ]"
printf 'write_bw 12.5\nwrite_bw 13\n' >"$B/thresh=1G/xfs-1dd-4k-8p-4096M-1024M:10-A/stats"
"$WBLAB" compare "$B" >/dev/null 2>"$T/e"; rc=$?
check_cmd "duplicate metric line is an error" bash -c "[ $rc -eq 1 ] && grep -q 'stats:2: .write_bw. appears twice' '$T/e'"
printf 'write_bw\n' >"$B/thresh=1G/xfs-1dd-4k-8p-4096M-1024M:10-A/stats"
"$WBLAB" compare "$B" >/dev/null 2>"$T/e"; rc=$?
check_cmd "stats line without value" bash -c "[ $rc -eq 1 ] && grep -q 'stats:1: .write_bw. has no value' '$T/e'"
# a value no metric reaches (a change overflowed to +inf%), a file cut mid-line
for bad in 'write_bw 1e308\n:stats:1: write_bw 1e308 is out of range' 'write_bw 5:stats:1: the last line has no newline'; do
	printf "${bad%%:*}" >"$B/thresh=1G/xfs-1dd-4k-8p-4096M-1024M:10-A/stats"
	"$WBLAB" compare "$B" >"$T/o" 2>"$T/e"; rc=$?
	check_cmd "stats '${bad%%:*}': exit 1, one line" bash -c "[ $rc -eq 1 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -qF '${bad#*:}' '$T/e' && ! grep -q inf '$T/o'"
done
printf 'write_bw 10\n' >"$B/thresh=1G/xfs-1dd-4k-8p-4096M-1024M:10-A/stats"
sed -i '/^kernel /d' "$B/thresh=1G/xfs-1dd-4k-8p-4096M-1024M:10-A/meta"
"$WBLAB" compare "$B" >/dev/null 2>"$T/e"; rc=$?
check_cmd "meta without kernel" bash -c "[ $rc -eq 1 ] && grep -q \"meta: no 'kernel' line\" '$T/e'"
sed -i 's/^run .*/run two/' "$B/thresh=1G/ext4-1dd-4k-8p-4096M-1024M:10-A/meta"
"$WBLAB" compare -g ext4 "$B" >/dev/null 2>"$T/e"; rc=$?
check_cmd "meta with a bad run: file and line" bash -c "[ $rc -eq 1 ] && grep -q 'meta:11: run .two.' '$T/e'"
chmod 000 "$B/thresh=1G/ext4-1dd-4k-8p-4096M-1024M:10-B/stats"
if [ "$(id -u)" -ne 0 ]; then
	"$WBLAB" compare -g 'ext4.*B' "$B" >/dev/null 2>"$T/e"; rc=$?
	check_cmd "unreadable stats" bash -c "[ $rc -eq 1 ] && grep -q 'stats: Permission denied' '$T/e'"
else
	skip "unreadable stats" "running as root"
fi
chmod 644 "$B/thresh=1G/ext4-1dd-4k-8p-4096M-1024M:10-B/stats"

# damage that used to read as a result without settings or in another column
B2=$T/bad2; cp -r "$M" "$B2"; A2="$B2/thresh=1G/xfs-1dd-4k-8p-4096M-1024M:10-A"
: >"$A2/stats"
"$WBLAB" compare "$B2" >"$T/o" 2>"$T/e"; rc=$?
check_cmd "empty stats: exit 1, one line naming the file" \
	bash -c "[ $rc -eq 1 ] && [ \$(wc -l <'$T/e') -eq 1 ] && grep -qF 'xfs-1dd-4k-8p-4096M-1024M:10-A/stats: empty' '$T/e'"
printf 'write_bw 12.5\n' >"$A2/stats"
printf 'runtime = 10\nhz = nan\n' >"$A2/params"
"$WBLAB" compare "$B2" >"$T/o" 2>"$T/e"; rc=$?
check_cmd "params with a non-finite value: exit 1, file and line (not an absent params)" \
	bash -c "[ $rc -eq 1 ] && grep -qF 'xfs-1dd-4k-8p-4096M-1024M:10-A/params:2: hz' '$T/e'"
printf 'runtime = 10\nhz\n' >"$A2/params"
"$WBLAB" compare "$B2" >"$T/o" 2>"$T/e"; rc=$?
check_cmd "params line without a value: exit 1, file and line" \
	bash -c "[ $rc -eq 1 ] && grep -qF 'A/params:2: ' '$T/e'"
rm "$A2/params"
sed -i '1i kernel foo' "$A2/meta"
"$WBLAB" compare "$B2" >"$T/o" 2>"$T/e"; rc=$?
check_cmd "meta naming its kernel twice: exit 1 (the first line would file it under foo)" \
	bash -c "[ $rc -eq 1 ] && grep -q 'meta:[0-9]*: .kernel. appears twice (first on line 1)' '$T/e'"
"$WBLAB" report --no-graphs -o "$T/r2.html" "$B2" >/dev/null 2>"$T/e"; rc=$?
check_cmd "report refuses the same meta" bash -c "[ $rc -eq 1 ] && grep -q 'appears twice' '$T/e'"

# --- no meta: fields from the directory name, with a warning; tmp dirs skipped ---
N=$T/nometa
mkres "$N" thresh=1G ext4-1dd-4k-8p-4096M-1024M:10 3.2.0-rc1 1 10
mkres "$N" thresh=1G ext4-1dd-4k-8p-4096M-1024M:10 3.2.0-rc2 1 15
mkres "$N" thresh=1G ext4-1dd-4k-8p-4096M-1024M:10 3.2.0-rc2 2 25
rm "$N"/thresh=1G/*/meta
mkdir -p "$N/thresh=1G/.ext4-1dd-4k-8p-4096M-1024M:10-3.2.0-rc3.tmp.123"
echo "write_bw 999" >"$N/thresh=1G/.ext4-1dd-4k-8p-4096M-1024M:10-3.2.0-rc3.tmp.123/stats"
out=$("$WBLAB" compare "$N" 2>"$T/e")
check_cmd "no meta: parsed from the dir name, runs averaged" grep -q '^                   10.00      +100.0%        20.00  thresh=1G/ext4-1dd-4k-8p-4096M-1024M:10-X$' <<<"$out"
check_cmd "no meta: warned" grep -q 'no meta file, fields parsed from the directory name' "$T/e"
check_cmd "hidden .tmp. result skipped" test "$(head -1 <<<"$out" | wc -w)" -eq 2

# params from another machine may hold any bytes: the JSON keeps every field
# (not UTF-8 -> '?'); a control byte (here the unit separator the env records
# are joined by) is refused by the reader, naming the file and line
"$WBLAB" sim -q -t 5 --no-trace -o "$T/u" 'ext4-1dd-4k-8p-4096M-10M:10' >/dev/null
for d in "$T"/u/*/*-3.1-vanilla; do printf 'x = caf\351\n' >>"$d/params"; done
for d in "$T"/u/*/*-3.2-ioless; do printf 'x = tea%%FAKECOL\n' >>"$d/params"; done
"$WBLAB" compare --format json "$T/u" >"$T/u.json" 2>/dev/null
check "json env diff of odd bytes: valid JSON, every field kept" \
	'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); e=[x for x in d[\"env_diff\"] if x[\"key\"]==\"params.x\"][0]; assert e[\"a\"]==\"caf?\" and e[\"b\"]==\"tea%FAKECOL\" and e[\"column_b\"]==\"3.2-ioless\", e" "$T/u.json"'
for d in "$T"/u/*/*-3.2-ioless; do printf 'y = tea\037FAKECOL\n' >>"$d/params"; done
"$WBLAB" compare --format json "$T/u" >"$T/u.json" 2>"$T/u.err"; rc=$?
check "a control byte in params: exit 1, FILE:LINE" '[ $rc = 1 ] && grep -q "params:[0-9]*: control byte 0x1f" "$T/u.err" && [ ! -s "$T/u.json" ]'

# the same run twice in a cell (a copied tree; repeats with overlapping seeds)
# is one repeat, not two: as two it would shrink the stddev
C=ext4-1dd-4k-8p-4096M-10M:10
"$WBLAB" sim -q -t 5 --no-trace -k current,3.2-ioless --repeat 3 -o "$T/dup" "$C" >/dev/null 2>&1
cp -r "$T/dup" "$T/dupcopy"
"$WBLAB" compare --format tsv "$T/dup" >"$T/dup1.tsv" 2>/dev/null
"$WBLAB" compare --format tsv "$T/dup" "$T/dupcopy" >"$T/dup2.tsv" 2>"$T/dup2.err"
check "a copied tree adds no repeats: the same runs, stddev and p as the tree alone" \
	'cmp "$T/dup1.tsv" "$T/dup2.tsv" >&2 && awk -F"\t" "NR > 1 && !/^TOTAL/ && \$5 != 3 { bad = 1 } NR > 1 && !/^TOTAL/ { n++ } END { exit bad || n != 2 }" "$T/dup2.tsv" &&
	 grep -q "6 result(s) repeat another result of their cell exactly" "$T/dup2.err"'
"$WBLAB" sim -q -t 5 --no-trace -k current,3.2-ioless --seed 3 --repeat 2 -o "$T/dup" "$C" >/dev/null 2>&1
check "repeats whose seeds overlap (3, 4, 3): two runs per cell" \
	'"$WBLAB" compare --format tsv "$T/dup" 2>/dev/null | awk -F"\t" "NR > 1 && !/^TOTAL/ && \$5 != 2 { bad = 1 } NR > 1 && !/^TOTAL/ { n++ } END { exit bad || n != 2 }"'
# "differs" names the baseline's value first, whatever order the results are read in
"$WBLAB" sim -q -t 5 --no-trace -k 3.2-ioless,3.1-vanilla --set hz=1000 -o "$T/hz" "$C" >/dev/null 2>&1
"$WBLAB" sim -q -t 5 --no-trace -k current --set hz=250 -o "$T/hz" "$C" >/dev/null 2>&1
check "differs: the baseline column's value against the other's" \
	'"$WBLAB" compare --order 3.2-ioless,current,3.1-vanilla "$T/hz" 2>/dev/null | grep -qx "differs: params.hz = 1000 (3.2-ioless), 250 (current)"'

# GEOMEAN over no row (every row has a non-positive cell) is n/a, not 0.00
mkres "$T/g0" thresh=10M ext4-1dd-4k-8p-4096M-10M:10 A 1 0
mkres "$T/g0" thresh=10M ext4-1dd-4k-8p-4096M-10M:10 B 1 50
"$WBLAB" compare --geomean "$T/g0" >"$T/g0.txt" 2>/dev/null
"$WBLAB" compare --geomean --format tsv "$T/g0" >"$T/g0.tsv" 2>/dev/null
check "GEOMEAN of no row: n/a in text and tsv" \
	'grep "GEOMEAN write_bw" "$T/g0.txt" | grep -q "n/a" && ! grep "GEOMEAN write_bw" "$T/g0.txt" | grep -q "0\.00" &&
	 [ "$(grep -c "^GEOMEAN write_bw	.*	n/a	" "$T/g0.tsv")" = 2 ]'

# json: an integral number as printed (10 digits) is an integer, also a geomean
for c in ext4-1dd-4k-8p-4096M-10M:10 ext4-2dd-4k-8p-4096M-10M:10 ext4-10dd-4k-8p-4096M-10M:10; do
	mkres "$T/gj" thresh=10M $c A 1 5; mkres "$T/gj" thresh=10M $c B 1 7
done
"$WBLAB" compare --geomean --format json "$T/gj" >"$T/gj.json" 2>/dev/null
check "json geomean of 5, 5, 5 is the integer 5" \
	'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); v=d[\"geomean\"][\"values\"]; assert v==[5,7] and all(type(x) is int for x in v), v" "$T/gj.json"'
mkres "$T/gb" thresh=10M ext4-1dd-4k-8p-4096M-10M:10 A 1 123456789012
mkres "$T/gb" thresh=10M ext4-1dd-4k-8p-4096M-10M:10 B 1 123456789013
"$WBLAB" compare --format json "$T/gb" >"$T/gb.json" 2>/dev/null
check "json keeps an integer of 12 digits whole" \
	'python3 -c "import json,sys; d=json.load(open(sys.argv[1])); v=d[\"rows\"][0][\"cells\"]; assert [c[\"mean\"] for c in v]==[123456789012,123456789013], v" "$T/gb.json"'
"$WBLAB" compare --order current,current "$T/dup" >/dev/null 2>"$T/oo.err"; rc=$?
check "--order naming a value twice: a usage error" '[ $rc = 2 ] && grep -q "^wblab compare: --order: .current. given twice" "$T/oo.err"'

check_cmd "help text" bash -c "'$WBLAB' help compare | grep -q 'usage: wblab compare'"
