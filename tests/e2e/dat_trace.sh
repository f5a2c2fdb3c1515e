#!/usr/bin/env bash
# trace.dat end to end: for every trace era (3.1, 3.1-rc8, 3.1-rc8 + IO-less
# (the seed's nfs-wq4), 3.2, 6.x) and NFS, small simulated runs written as
# trace.dat and as text.  Checks:
#  - `trace-cmd report trace.dat` prints the text writer's events: the same
#    comm-pid, cpu, timestamp, event name and payload.  Normalised, and only
#    that: trace-cmd's header lines (anything not an event line, e.g.
#    "cpus=4") are dropped, and on each event line the column padding before
#    the comm, between "comm-pid" and "[cpu]", between "[cpu]" and the
#    timestamp and after "event:" is cut to what the text writer puts there
#    (none, one space, one space, one space).  The payload is compared as is.
#  - `wblab trace DIR` is byte-identical to the text writer's `trace`;
#  - stats are identical, and plot and import read trace.dat as they read text;
#  - the golden tests/data/sim-3.2-ioless-1dd.dat is reproduced byte for byte;
#  - damaged .dat files are one-line errors.
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
W=${WBLAB:-$PWD/build/wblab}
T=$(mktemp -d /tmp/wblab-dat-e2e.XXXXXX)
trap 'rm -rf "$T"' EXIT

norm() {
  sed -nE 's/^ *(.*-[0-9]+) +\[([0-9]+)\] +([0-9]+\.[0-9]+): +([a-z_]+): +/\1 [\2] \3: \4: /p' "$@"
}

have_tc=1
command -v trace-cmd >/dev/null 2>&1 || have_tc=0

E=ext4-2dd-4k-8p-4096M-100M:10
N=nfs-2dd-4k-8p-4096M-100M:10
runs="3.1-vanilla:$E 3.1.0-rc8-vanilla+:$E 3.2-ioless:$E 3.1.0-rc8-nfs-wq4+:$N current:$E
      3.1-vanilla:$N 3.2-ioless:$N current:$N"
for r in $runs; do
  k=${r%%:*}; c=${r#*:}
  "$W" sim -q -t 8 -k "$k" -o "$T/dat" "$c" >/dev/null 2>"$T/err.dat" || nok "sim $k $c (dat)" "$(cat "$T/err.dat")"
  "$W" sim -q -t 8 -k "$k" --trace-format text -o "$T/txt" "$c" >/dev/null 2>"$T/err.txt" || nok "sim $k $c (text)"
  d="$T/dat/thresh=100M/$c-$k"; t="$T/txt/thresh=100M/$c-$k"
  check "$k $c: trace.dat only (no text trace), no warning" '[ -s "$d/trace.dat" ] && [ ! -e "$d/trace" ] && [ ! -s "$T/err.dat" ]'
  check "$k $c: --trace-format text writes trace only" '[ -s "$t/trace" ] && [ ! -e "$t/trace.dat" ]'
  "$W" trace "$d" >"$T/wt" 2>"$T/err"
  check "$k $c: wblab trace is byte-identical to the text trace ($(wc -l <"$t/trace") lines)" 'cmp "$T/wt" "$t/trace" >&2'
  WBLAB_DAT_THREAD=0 "$W" trace "$d" >"$T/wt0" 2>"$T/err0"
  check "$k $c: the same without the decompressing thread (WBLAB_DAT_THREAD=0)" 'cmp "$T/wt0" "$t/trace" >&2 && [ ! -s "$T/err0" ]'
  if [ $have_tc = 1 ]; then
    trace-cmd report "$d/trace.dat" >"$T/rep" 2>"$T/rep.err"
    norm "$T/rep" >"$T/a"; norm "$t/trace" >"$T/b"
    check "$k $c: trace-cmd report prints the text trace's events ($(wc -l <"$T/b") events)" \
      '[ -s "$T/b" ] && [ "$(wc -l <"$T/b")" -eq "$(grep -vc "^#" "$t/trace")" ] && diff "$T/a" "$T/b" >&2'
  else
    skip "$k $c: trace-cmd report" "no trace-cmd"
  fi
  check "$k $c: stats, params, meta identical" 'diff -r -x cmdline -x trace -x trace.dat -x plot-series "$d" "$t" >&2'
  check "$k $c: the saved graph series are the same but for the size of their trace" \
    'diff <(grep -v "^trace_bytes " "$d/plot-series") <(grep -v "^trace_bytes " "$t/plot-series") >&2 &&
     [ "$(sed -n "s/^trace_bytes //p" "$d/plot-series")" = "$(stat -c %s "$d/trace.dat")" ] &&
     [ "$(sed -n "s/^trace_bytes //p" "$t/plot-series")" = "$(stat -c %s "$t/trace")" ]'
done
echo "# trace.dat $(du -cb "$T"/dat/*/*/trace.dat | tail -1 | cut -f1) bytes, text $(du -cb "$T"/txt/*/*/trace | tail -1 | cut -f1) bytes"

# the 6.x nfs events: one nfs_writeback_done per WRITE and one
# nfs_commit_done per COMMIT that mountstats counts, each after its
# nfs_initiate_*; the 3.x models print Wu's events instead
t="$T/txt/thresh=100M/$N-current"
cnt() { grep -c " $1: " "$t/trace"; }
st() { sed -n "s/^$1 //p" "$t/stats"; }
check "current NFS: $(cnt nfs_writeback_done) nfs_writeback_done = nfs_nr_writes $(st nfs_nr_writes), $(cnt nfs_commit_done) nfs_commit_done = nfs_nr_commits $(st nfs_nr_commits)" \
  '[ "$(cnt nfs_writeback_done)" -gt 0 ] && [ "$(cnt nfs_writeback_done)" = "$(st nfs_nr_writes)" ] &&
   [ "$(cnt nfs_commit_done)" -gt 0 ] && [ "$(cnt nfs_commit_done)" = "$(st nfs_nr_commits)" ] &&
   [ "$(cnt nfs_initiate_write)" -ge "$(cnt nfs_writeback_done)" ] && [ "$(cnt nfs_initiate_commit)" -ge "$(cnt nfs_commit_done)" ]'
check "current NFS: every WRITE reply names a WRITE sent before it (fileid, offset, count)" \
  'awk "/ nfs_initiate_write: /{w[\$5\" \"\$7\" \"\$8]=1} / nfs_writeback_done: /{if (!((\$6\" \"\$8\" \"\$9) in w)) bad++; n++} END{exit bad>0 || n==0}" "$t/trace"'
check "3.2 NFS: no 6.x nfs event, Wu's nfs_commit_unstable_pages instead" \
  '! grep -qE " nfs_(initiate_write|writeback_done|initiate_commit|commit_done): " "$T/txt/thresh=100M/$N-3.2-ioless/trace" &&
   grep -q " nfs_commit_unstable_pages: " "$T/txt/thresh=100M/$N-3.2-ioless/trace"'

# readers: plot and import give the same from trace.dat as from text
d="$T/dat/thresh=100M/$N-3.1.0-rc8-nfs-wq4+"; t="$T/txt/thresh=100M/$N-3.1.0-rc8-nfs-wq4+"
if command -v gnuplot >/dev/null 2>&1; then
  "$W" plot "$d" >/dev/null 2>&1; "$W" plot "$t" >/dev/null 2>&1
  check "plot: same graph data from trace.dat and text" 'diff -r -x "*.png" -x "*.svg" -x index "$d/plots" "$t/plots" >&2'
else
  skip "plot: same graph data from trace.dat and text" "no gnuplot"
fi
"$W" import "$d/trace.dat" -o "$T/id" --case "$N" >/dev/null 2>&1; r1=$?
"$W" import "$t/trace" -o "$T/it" --case "$N" >/dev/null 2>&1; r2=$?
# (import heads a converted .dat's text with a "# converted by" comment)
check "import trace.dat: same kernel, stats and trace text as import of the text" \
  '[ $r1 -eq 0 ] && [ $r2 -eq 0 ] && diff -r -x cmdline -x trace "$T/id" "$T/it" >&2 &&
   diff <(grep -v "^#" "$T"/id/*/*/trace) <(grep -v "^#" "$T"/it/*/*/trace) >&2'

# golden file: the format does not drift, and the writer is deterministic
G=tests/data/sim-3.2-ioless-1dd.dat
"$W" sim -q -t 2 -k 3.2-ioless -o "$T/g" ext4-1dd-4k-2p-1024M-10M:5 >/dev/null 2>&1
check "golden $G reproduced byte for byte" 'cmp "$T/g/thresh=10M/ext4-1dd-4k-2p-1024M-10M:5-3.2-ioless/trace.dat" "$G" >&2'
"$W" trace "$G" >"$T/gt"
check "golden: wblab trace FILE gives the era's text" '[ "$(head -2 "$T/gt" | tr "\n" "|")" = "# tracer: nop|#|" ] && grep -q ": balance_dirty_pages: bdi 8:0: limit=" "$T/gt"'
if [ $have_tc = 1 ]; then
  check "golden: trace-cmd report reads it" 'trace-cmd report "$G" 2>/dev/null | norm | cmp - <(norm "$T/gt") >&2'
fi

# a 6.x trace.dat an earlier wblab wrote (before the 6.x nfs events joined
# the era's formats) still reads as ours: the same text, its header included
# (a file not recognised would go through libtracecmd, which has none)
G6=tests/data/sim-current-1dd-before-nfs6x.dat
"$W" trace "$G6" >"$T/g6t" 2>"$T/g6e"
# (the sha256 of the text that wblab wrote it with printed: 3837 lines)
check "an earlier wblab's 6.x trace.dat reads as its own ($(wc -l <"$T/g6t") lines)" \
  '[ "$(sha256sum <"$T/g6t" | cut -d" " -f1)" = f93a71a4473a64ed31007c8080620c2724722aa6ebc4d94171dbd5597b0bf1d2 ] && [ ! -s "$T/g6e" ]'

# damaged files
head -c 3000 "$G" >"$T/cut.dat"
"$W" trace "$T/cut.dat" >/dev/null 2>"$T/e1"; rc=$?
check "truncated trace.dat: exit 1, one line" '[ $rc -eq 1 ] && [ "$(wc -l <"$T/e1")" -eq 1 ]'
cp "$G" "$T/bad.dat"; sz=$(stat -c %s "$T/bad.dat")
printf '\377\377\377\377\377\377\377\377' | dd of="$T/bad.dat" bs=1 seek=$((sz - 40)) conv=notrunc 2>/dev/null
"$W" trace "$T/bad.dat" >/dev/null 2>"$T/e2"; rc=$?
check "corrupt chunk: exit 1, one line" '[ $rc -eq 1 ] && [ "$(wc -l <"$T/e2")" -eq 1 ]'
WBLAB_DAT_THREAD=0 "$W" trace "$T/bad.dat" >/dev/null 2>"$T/e2b"; rc=$?
check "corrupt chunk, no thread: the same exit and line" '[ $rc -eq 1 ] && cmp -s "$T/e2" "$T/e2b"'
# an empty file is no trace (it printed nothing and exited 0)
: >"$T/empty.dat"
"$W" trace "$T/empty.dat" >"$T/o0" 2>"$T/e0"; rc=$?
check "empty file: exit 1, one line naming it, nothing on stdout" \
  '[ $rc -eq 1 ] && [ "$(wc -l <"$T/e0")" -eq 1 ] && grep -qF "$T/empty.dat: empty, not a trace" "$T/e0" && [ ! -s "$T/o0" ]'
for src in /dev/null -; do
  "$W" trace "$src" </dev/null >"$T/o0" 2>"$T/e0"; rc=$?
  check "empty input ($src): exit 1, one line, nothing on stdout" \
    '[ $rc -eq 1 ] && [ "$(wc -l <"$T/e0")" -eq 1 ] && grep -q "empty, not a trace" "$T/e0" && [ ! -s "$T/o0" ]'
done
# found by fuzz_dat: a damaged cmdlines section after a good formats section
# freed the formats buffer twice
"$W" trace tests/data/damaged-cmdlines.dat >/dev/null 2>"$T/e5"; rc=$?
check "damaged cmdlines section: exit 1, one line naming it" '[ $rc -eq 1 ] && [ "$(wc -l <"$T/e5")" -eq 1 ] && grep -q "cmdlines" "$T/e5"'
# a wblab trace.dat with its era option and one record damaged (review
# helper 54's byte flips): not wblab's any more, so libtracecmd reads it, and
# crashed in tracecmd_open_fd's error path; it runs in a child process now
for cmd in trace import; do
  a=(); [ $cmd = import ] && a=(-o "$T/imp-crash" --case ext4-1dd-4k-8p-4096M-100M:10)
  "$W" $cmd tests/data/libtracecmd-crash.dat "${a[@]}" >/dev/null 2>"$T/e6"; rc=$?
  check "$cmd of a .dat that crashes libtracecmd: exit 1, one line" \
    '[ $rc -eq 1 ] && [ "$(wc -l <"$T/e6")" -eq 1 ] && grep -q "damaged trace-cmd .dat file: libtracecmd died" "$T/e6" && [ ! -e "$T/imp-crash" ]'
done
"$W" trace "$T/nonexistent" >/dev/null 2>"$T/e3"; rc=$?
check "missing file: exit 1" '[ $rc -eq 1 ]'
"$W" sim --trace-format xml -o "$T/x" "$E" >/dev/null 2>"$T/e4"; rc=$?
check "--trace-format xml: usage error" '[ $rc -eq 2 ] && grep -q "^wblab sim: --trace-format: .xml. is not dat or text" "$T/e4"'
check "help trace" '"$W" help trace | grep -q "byte for"'
