#!/usr/bin/env bash
# End-to-end checks of `wblab plot` and `wblab report`: graph files are valid
# PNG/SVG, skipped graphs are reported, --overlay, errors, a long trace plots
# quickly, and the HTML report renders in headless Chromium with what a reader
# should see.  Prints one "ok - ..." / "not ok - ..." line per check.
set -u
. "$(dirname "$0")/lib.sh"
W=${WBLAB:?set WBLAB to the wblab binary}
cd "$(dirname "$0")/../.."
e2e_scratch plot-e2e

# PNG: 8-byte signature, then the IHDR chunk with big-endian width and height.
png_ok() {
  [ "$(head -c 8 "$1" | od -An -tx1 | tr -d ' \n')" = "89504e470d0a1a0a" ] || return 1
  [ "$(dd if="$1" bs=1 skip=12 count=4 2>/dev/null)" = "IHDR" ] || return 1
  local w h
  w=$(dd if="$1" bs=1 skip=16 count=4 2>/dev/null | od -An -tu1 | awk '{print $1*16777216+$2*65536+$3*256+$4}')
  h=$(dd if="$1" bs=1 skip=20 count=4 2>/dev/null | od -An -tu1 | awk '{print $1*16777216+$2*65536+$3*256+$4}')
  [ "$w" = 1024 ] && [ "$h" = 640 ]
}
# SVG: well-formed XML whose root element is <svg>.
svg_ok() {
  if command -v xmllint >/dev/null; then
    xmllint --noout "$1" 2>/dev/null && [ "$(xmllint --xpath 'local-name(/*)' "$1" 2>/dev/null)" = svg ]
  else
    grep -q '<svg' "$1" && grep -q '</svg>' "$1"
  fi
}
# Largest number of points in one index block of a .dat file.
max_block() { awk '/^#/ {next} NF==0 {if (c>m) m=c; c=0; next} {c++} END {if (c>m) m=c; print m+0}' "$1"; }

C=ext4-10dd-4k-8p-4096M-100M:10
"$W" sim -t 20 -o "$T/a" "$C" >/dev/null 2>&1
D31="$T/a/thresh=100M/$C-3.1-vanilla"; D32="$T/a/thresh=100M/$C-3.2-ioless"
check "sim results to plot" '[ -s "$D31/trace.dat" ] && [ -s "$D32/trace.dat" ]'

ALL="global_dirty_state global_dirtied_written balance_dirty_pages-pages balance_dirty_pages-bandwidth balance_dirty_pages-pause balance_dirty_pages-task-bw writeback-file-progress"
"$W" plot "$D32" >"$T/out32" 2>"$T/err32"; rc=$?
check "plot 3.2 exits 0, quiet on stderr" '[ $rc -eq 0 ] && [ ! -s "$T/err32" ]'
check "plot 3.2 reports 7 graphs in DIR/plots" 'grep -q "7 graphs in $D32/plots" "$T/out32"'
for g in $ALL; do
  check "3.2 $g.png is a 1024x640 PNG" 'png_ok "$D32/plots/$g.png"'
  check "3.2 $g.svg is XML with an <svg> root" 'svg_ok "$D32/plots/$g.svg"'
  check "3.2 $g.dat and $g.gp kept beside the images" '[ -s "$D32/plots/$g.dat" ] && grep -q "^plot" "$D32/plots/$g.gp"'
done
command -v file >/dev/null && check "file(1) agrees on PNG and SVG" 'file "$D32/plots/global_dirty_state.png" | grep -q "PNG image data, 1024 x 640" && file "$D32/plots/global_dirty_state.svg" | grep -qi "SVG"'
check "nfs-commit skipped with a note on 3.2" 'grep -qx "  skipped nfs-commit: no nfs_commit_unstable_pages/nfs_commit_release events" "$T/out32" && [ ! -e "$D32/plots/nfs-commit.png" ]'
check "pages graph names the task followed" 'grep -q "pid 30" "$D32/plots/balance_dirty_pages-pages.gp"'
check "task-bw graph has one line per dd (10)" '[ "$(grep -c "^# index" "$D32/plots/balance_dirty_pages-task-bw.dat")" -eq 10 ]'
( cd "$D32/plots" && rm -f global_dirty_state.png && gnuplot global_dirty_state.gp >/dev/null 2>&1 )
check "a kept .gp redraws its graph when run by hand" 'png_ok "$D32/plots/global_dirty_state.png"'

"$W" plot "$D31" >"$T/out31" 2>&1; rc=$?
check "plot 3.1 exits 0" '[ $rc -eq 0 ]'
check "3.1: 3 graphs (file progress included), 5 skipped, each on one line" 'grep -q ": 3 graphs in" "$T/out31" && [ "$(grep -c "^  skipped " "$T/out31")" -eq 5 ]'
check "3.1: balance_dirty_pages graphs skipped for lack of events" 'grep -qx "  skipped balance_dirty_pages-pages: no balance_dirty_pages events" "$T/out31" && [ ! -e "$D31/plots/balance_dirty_pages-pages.png" ]'
check "3.1: index lists made and skipped graphs" 'grep -qx "made global_dirty_state" "$D31/plots/index" && grep -q "^skipped balance_dirty_pages-pause: " "$D31/plots/index"'
check "3.1 global_dirty_state PNG and SVG valid" 'png_ok "$D31/plots/global_dirty_state.png" && svg_ok "$D31/plots/global_dirty_state.svg"'
check "3.1 sum line keeps its unstable name" 'grep -q "dirty+writeback+unstable" "$D31/plots/global_dirty_state.gp"'

# --overlay: both runs on one set of axes, keys by meta kernel.
"$W" plot --overlay "$D31" "$D32" >"$T/outov" 2>&1; rc=$?
OV="$D32/plots/overlay-3.1-vanilla"
check "overlay exits 0 into DIR/plots/overlay-KERNEL2" '[ $rc -eq 0 ] && [ -d "$OV" ]'
check "overlay graphs valid" 'png_ok "$OV/global_dirty_state.png" && svg_ok "$OV/global_dirty_state.svg"'
check "overlay keys name both kernels, once each" 'grep -q "title .solid: 3.2-ioless." "$OV/global_dirty_state.gp" && grep -q "title .dashed: 3.1-vanilla." "$OV/global_dirty_state.gp" && ! grep -q "(3.1-vanilla)" "$OV/global_dirty_state.gp"'
check "overlay SVG shows both kernels" 'grep -q "solid: 3.2-ioless" "$OV/global_dirty_state.svg" && grep -q "dashed: 3.1-vanilla" "$OV/global_dirty_state.svg"'
check "overlay PNG by pngcairo (gd draws no dashes), a single run's by gd" 'grep -q "^set terminal pngcairo" "$OV/global_dirty_state.gp" && grep -q "^set terminal png " "$D32/plots/global_dirty_state.gp"'
check "overlay: second run dashed" 'grep -q "dt 2" "$OV/global_dirtied_written.gp"'
check "overlay notes graphs only one run has" 'grep -q "note balance_dirty_pages-pages: drawn for one run only (3.1-vanilla: no balance_dirty_pages events)" "$T/outov"'
"$W" plot -o "$T/ov2" --overlay "$D32" "$D31" >/dev/null 2>&1
check "-o puts an overlay where asked" 'png_ok "$T/ov2/balance_dirty_pages-pause.png"'

# Imported traces: a real 6.18 trace, and a hand-made NFS one.
"$W" import tests/data/kernel-6.18-2dd-loop.trace -o "$T/imp" --case ext4-2dd-1M-2p-768M-24M:10 >/dev/null 2>&1
D6=$(dirname "$(find "$T/imp" -name trace | head -1)")
"$W" plot "$D6" >"$T/out6" 2>&1; rc=$?
check "plot a real 6.18 trace (no unstable field)" '[ $rc -eq 0 ] && png_ok "$D6/plots/balance_dirty_pages-pages.png" && grep -q "dirty+writeback'"'"'" "$D6/plots/global_dirty_state.gp"'
"$W" import tests/data/plot/small-nfs.trace -o "$T/nfs" --case nfs-1dd-4k-2p-1024M-10M:5 --kernel 3.1 >/dev/null 2>&1
DN=$(dirname "$(find "$T/nfs" -name trace | head -1)")
"$W" plot "$DN" >"$T/outn" 2>&1; rc=$?
check "nfs-commit drawn where its events exist" '[ $rc -eq 0 ] && png_ok "$DN/plots/nfs-commit.png" && svg_ok "$DN/plots/nfs-commit.svg"'

# the saved series hold what the trace holds: under current the trace has no
# Wu NFS events, so neither path draws nfs-commit (the series had them)
"$W" sim -q -t 20 -k current -o "$T/n6" nfs-1dd-4k-8p-4096M-100M:10 >/dev/null 2>&1
DN6="$T/n6/thresh=100M/nfs-1dd-4k-8p-4096M-100M:10-current"
"$W" plot "$DN6" >/dev/null 2>&1; "$W" plot --from-trace -o "$T/n6t" "$DN6" >/dev/null 2>&1
check "current NFS: the saved series and the trace draw the same graphs" \
  '[ -n "$(ls "$DN6/plots"/*.png 2>/dev/null)" ] && [ "$(cd "$DN6/plots" && ls *.png)" = "$(cd "$T/n6t" && ls *.png)" ] && [ ! -e "$DN6/plots/nfs-commit.png" ]'

# Decimation: display only, capped per series.
"$W" plot --max-points 500 -o "$T/dec" "$D31" >/dev/null 2>&1
check "--max-points 500 caps every series" '[ "$(max_block "$T/dec/global_dirty_state.dat")" -le 500 ] && [ "$(max_block "$T/dec/global_dirty_state.dat")" -ge 200 ]'
check "decimation keeps the peak" '[ "$(awk "!/^#/ && NF {if (\$2>m) m=\$2} END {print m}" "$T/dec/global_dirty_state.dat")" = "$(awk "!/^#/ && NF {if (\$2>m) m=\$2} END {print m}" "$D31/plots/global_dirty_state.dat")" ]'
check "stats untouched by plotting" 'cmp -s "$D31/stats" <(cd "$T" && cat "$D31/stats")'

# A long trace streams and plots in seconds.
"$W" sim -t 240 -k 3.1-vanilla --trace-format text -o "$T/big" "$C" >/dev/null 2>&1
DB="$T/big/thresh=100M/$C-3.1-vanilla"
mb=$(( $(stat -c %s "$DB/trace" 2>/dev/null || echo 0) / 1048576 ))
s0=$(date +%s.%N); "$W" plot --from-trace "$DB" >"$T/outb" 2>&1; rc=$?; s1=$(date +%s.%N)
secs=$(awk -v a="$s0" -v b="$s1" 'BEGIN {printf "%.2f", b - a}')
echo "# plotting a $mb MB trace took $secs s"
check "a $mb MB trace plots in under 15 s ($secs s)" '[ $rc -eq 0 ] && awk -v s="$secs" "BEGIN {exit !(s < 15)}"'
check "long trace: no series has more than 2 points per pixel column (992)" '[ "$(max_block "$DB/plots/global_dirty_state.dat")" -le 992 ]'
check "--from-trace reads the trace" '[ $rc -eq 0 ] && ! grep -q "from the saved plot-series" "$T/outb"'
cp "$DB/plots/global_dirty_state.dat" "$T/gds-trace.dat"
"$W" plot "$DB" >"$T/outs" 2>&1; rc=$?
check "a simulated result plots from its saved plot-series" '[ $rc -eq 0 ] && [ -s "$DB/plot-series" ] && grep -q "from the saved plot-series" "$T/outs"'
blockmax() { awk -v want="$2" '/^# index/ {on = index($0, want)} on && !/^#/ && NF {if ($2 > m) m = $2} END {print m + 0}' "$1"; }
check "saved series and trace give the same peak dirty+writeback" '[ "$(blockmax "$T/gds-trace.dat" "dirty+writeback")" = "$(blockmax "$DB/plots/global_dirty_state.dat" "dirty+writeback")" ] && [ "$(blockmax "$T/gds-trace.dat" "dirty+writeback")" != 0 ]'
"$W" plot --max-points 4000 "$DB" >"$T/outm" 2>&1
check "--max-points above what was saved reads the trace" '! grep -q "from the saved plot-series" "$T/outm"'
# the saved series stand for the trace of the size they record, whatever the
# files' times: a copy that does not keep them still uses the series, and
# a trace that changed since is read instead
touch -d '2001-01-01' "$DB/plot-series"
"$W" plot "$DB" >"$T/outo" 2>&1
check "an old-looking plot-series of the same trace is still used" 'grep -q "from the saved plot-series" "$T/outo"'
TR=$(ls "$DB"/trace.dat "$DB"/trace 2>/dev/null | head -1)
cp "$TR" "$T/keep-trace" && printf 'x' >>"$TR"
"$W" plot "$DB" >"$T/outc" 2>&1
check "a trace whose size changed since the series were saved is read instead" '! grep -q "from the saved plot-series" "$T/outc"'
cp "$T/keep-trace" "$TR"
rm -rf "$T/big"

# Errors: one line naming the culprit, non-zero exit.
"$W" plot "$T/nope" >/dev/null 2>"$T/e1"; rc=$?
check "missing DIR: exit 1, one line naming it" '[ $rc -eq 1 ] && [ "$(wc -l <"$T/e1")" -eq 1 ] && grep -q "$T/nope" "$T/e1"'
mkdir -p "$T/notrace"; cp "$D31/stats" "$D31/meta" "$D31/params" "$T/notrace/"
"$W" plot "$T/notrace" >/dev/null 2>"$T/e2"; rc=$?
check "DIR without trace: exit 1, one line naming it" '[ $rc -eq 1 ] && [ "$(wc -l <"$T/e2")" -eq 1 ] && grep -q "notrace: no readable trace" "$T/e2"'
PATH=/nonexistent "$W" plot "$D32" >/dev/null 2>"$T/e3"; rc=$?
check "gnuplot missing: exit 1, one line naming gnuplot" '[ $rc -eq 1 ] && [ "$(wc -l <"$T/e3")" -eq 1 ] && grep -q "gnuplot not found" "$T/e3"'
PATH=/nonexistent "$W" plot --no-gnuplot -o "$T/nogp" "$D32" >/dev/null 2>&1; rc=$?
check "--no-gnuplot writes data and scripts only" '[ $rc -eq 0 ] && [ -s "$T/nogp/global_dirty_state.gp" ] && [ ! -e "$T/nogp/global_dirty_state.png" ]'
"$W" plot >/dev/null 2>&1; rc=$?
check "no DIR: usage error (2)" '[ $rc -eq 2 ]'
# Progress: a line on a terminal's stderr, nothing with -q or without a terminal.
if command -v script >/dev/null; then
  script -qc "'$W' plot -o '$T/prog' '$D32' '$D31' >/dev/null" /dev/null | tr '\r' '\n' >"$T/tty"
  check "plot shows N/M graphs on a terminal" 'grep -q "^plot: 10/10 graphs, 2/2 results" "$T/tty"'
  script -qc "'$W' plot -q -o '$T/prog' '$D32' >/dev/null" /dev/null >"$T/ttyq"
  check "plot -q is silent on a terminal" '[ ! -s "$T/ttyq" ]'
  script -qc "'$W' seed -t 1 --no-plots -o '$T/sq1' >/dev/null" /dev/null | tr '\r' '\n' >"$T/stty"
  check "seed shows N/M cases on a terminal" 'grep -q "^24/24 cases in " "$T/stty"'
  script -qc "'$W' seed -q -t 1 --no-plots -o '$T/sq2' >/dev/null" /dev/null >"$T/sttyq"
  check "seed -q is silent on a terminal" '[ ! -s "$T/sttyq" ]'
fi
"$W" plot -o "$T/prog" "$D32" >/dev/null 2>"$T/notty"
check "plot is silent on stderr without a terminal" '[ ! -s "$T/notty" ]'
check "help plot describes every graph" '"$W" help plot | grep -q "balance_dirty_pages-task-bw" && "$W" help plot | grep -q -- "--overlay DIR2"'

# Report.  Fake an `env` (as real runs write) to see the sysctl diff.
printf 'vm.dirty_bytes = 104857600\nvm.dirty_background_bytes = 0\nkernel_release = 3.1.0\n' >"$D31/env"
printf 'vm.dirty_bytes = 104857600\nvm.dirty_background_bytes = 10485760\nkernel_release = 3.2.0\n' >"$D32/env"
rm -rf "$D31/plots"
"$W" plot --no-gnuplot "$D32" >/dev/null 2>&1   # index but no images: the report redraws
H="$T/report.html"
"$W" report "$T/a" -o "$H" >"$T/outr" 2>"$T/errr"; rc=$?
check "report exits 0, quiet on stderr" '[ $rc -eq 0 ] && [ ! -s "$T/errr" ]'
check "report plotted the results whose plots were missing or incomplete" 'grep -q "(2 results plotted now)" "$T/outr" && [ -s "$D31/plots/index" ] && svg_ok "$D32/plots/global_dirty_state.svg"'
check "report is one file with no external URLs" '[ -s "$H" ] && ! grep -qiE "(src|href)=.https?:|url\(.?https?:|@import" "$H" && ! grep -q "http://\|https://" "$H"'
check "report has no <img>, <script> or <link>" '! grep -qiE "<(img|script|link)[ >]" "$H"'
check "report names each result's command once as wblab (not 'wblab wblab')" \
  'grep -q "command: <code>wblab sim " "$H" && ! grep -q "wblab wblab" "$H"'
links_ok() {
  local n=0 l
  for l in $(grep -o 'class="png" href="[^"]*"' "$1" | sed 's/.*href="//; s/"$//'); do
    # a relative URL, never one a browser reads as a scheme ("ext4-...-1M:10/..."),
    # percent-decoded to the file it names
    case $l in ./*|../*) ;; *) return 1 ;; esac
    l=$(printf '%b' "$(printf '%s' "$l" | sed 's/%\([0-9A-F][0-9A-F]\)/\\x\1/g')")
    [ -s "$(dirname "$1")/$l" ] || return 1
    n=$((n + 1))
  done
  [ "$n" -eq "$(grep -c '<figure class="graph"' "$1")" ]
}
check "every report graph links its PNG, relative to the page, and the link resolves" 'links_ok "$H"'
check "report header: a few DIRs are named as given" 'grep -q "results from <code>$T/a</code>" "$H"'

check "report starts as HTML5 and ends closed" 'head -1 "$H" | grep -qx "<!DOCTYPE html>" && tail -1 "$H" | grep -qx "</body></html>"'

CHR=$(command -v chromium || command -v chromium-browser || true)
if [ -z "$CHR" ]; then
  skip "report renders in headless Chromium" "chromium not installed"
else
  chrome() {
    timeout 120 "$CHR" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
      --disable-background-networking --disable-component-update --disable-sync \
      --user-data-dir="$(mktemp -d "$T/chr.XXXXXX")" "$@" 2>/dev/null
  }
  chrome --dump-dom "file://$H" >"$T/dom.html"
  check "Chromium dumps the rendered DOM" '[ -s "$T/dom.html" ] && grep -q "</html>" "$T/dom.html"'
  K="thresh=100M/$C-X"
  check "DOM: compare table row for the case, masked" 'grep -q "<td>$K</td><td class=\"num\">" "$T/dom.html"'
  check "DOM: TOTAL write_bw row with both kernels" 'grep -q "TOTAL write_bw" "$T/dom.html" && grep -q "<th>3.1-vanilla</th><th colspan=\"2\">3.2-ioless</th>" "$T/dom.html"'
  bw31=$(awk '/^write_bw /{printf "%.2f", $2}' "$D31/stats"); bw32=$(awk '/^write_bw /{printf "%.2f", $2}' "$D32/stats")
  check "DOM: write_bw cells hold the stats values ($bw31, $bw32)" 'grep -q ">$bw31</td>" "$T/dom.html" && grep -q ">$bw32</td>" "$T/dom.html"'
  check "DOM: other key metrics tabled" 'grep -q "id=\"cmp-pause_ms_p99\"" "$T/dom.html" && grep -q "id=\"cmp-fairness_jain\"" "$T/dom.html"'
  check "DOM: mailing-list text table" 'grep -q "TOTAL write_bw" "$T/dom.html" && grep -q "^------------------------  ------------------------" "$T/dom.html"'
  check "DOM: both case names as headings" 'grep -q "<h2>thresh=100M/$C-3.1-vanilla</h2>" "$T/dom.html" && grep -q "<h2>thresh=100M/$C-3.2-ioless</h2>" "$T/dom.html"'
  nov=$(find "$D31/plots" "$D32/plots" -path "*overlay-*" -name "*.svg" 2>/dev/null | wc -l)
  check "DOM: 10 inline graph SVGs (7 + 3) plus $nov overlay SVGs" '[ "$(grep -o "<svg" "$T/dom.html" | wc -l)" -eq $((10 + nov)) ]'
  check "DOM: overlays under their own heading" '[ "$nov" -eq 0 ] || grep -q "Overlay: " "$T/dom.html"'
  for g in global_dirty_state balance_dirty_pages-pause balance_dirty_pages-task-bw; do
    check "DOM: figure $g with its SVG" 'grep -A2 "data-graph=\"$g\"" "$T/dom.html" | grep -q "<svg"'
  done
  check "DOM: skipped graphs listed for 3.1" 'grep -q "skipped balance_dirty_pages-pages: no balance_dirty_pages events" "$T/dom.html"'
  check "DOM: key stats of each result" '[ "$(grep -c "<td>pause_ms_p99</td>" "$T/dom.html")" -ge 2 ]'
  check "DOM: params a reader would see" 'grep -q "<td>disk.bw_mbps</td><td>57</td>" "$T/dom.html" && grep -q "<td>dirty_expire_centisecs</td>" "$T/dom.html"'
  check "DOM: environment diff shows params and sysctls that differ" 'grep -q "<td>model</td><td>3.1-vanilla</td><td>3.2-ioless</td>" "$T/dom.html" && grep -q "<td>env: vm.dirty_background_bytes</td><td>0</td><td>10485760</td>" "$T/dom.html"'
  check "DOM: equal sysctls are not in the diff" '! grep -q "<td>env: vm.dirty_bytes</td>" "$T/dom.html"'
  chrome --window-size=1300,3000 --screenshot="$T/shot.png" "file://$H" >/dev/null
  check "Chromium screenshot of the report" '[ "$(head -c 8 "$T/shot.png" | od -An -tx1 | tr -d " \n")" = "89504e470d0a1a0a" ] && [ "$(stat -c %s "$T/shot.png")" -gt 50000 ]'
fi

# Report errors and options.
"$W" report "$T/nope" -o "$T/x.html" >/dev/null 2>"$T/e4"; rc=$?
check "report: missing DIR is a one-line error" '[ $rc -eq 1 ] && [ "$(wc -l <"$T/e4")" -eq 1 ] && grep -q "$T/nope" "$T/e4" && [ ! -e "$T/x.html" ]'
"$W" report "$T/notrace" -o "$T/x.html" >/dev/null 2>"$T/e5"; rc=$?
check "report: result without trace is a one-line error" '[ $rc -eq 1 ] && [ "$(wc -l <"$T/e5")" -eq 1 ] && grep -q "notrace: no trace" "$T/e5"'
"$W" report --no-graphs "$T/notrace" -o "$T/x.html" >/dev/null 2>&1; rc=$?
check "report --no-graphs: stats-only page" '[ $rc -eq 0 ] && grep -q "nothing to compare" "$T/x.html" && grep -q "<td>write_bw</td>" "$T/x.html" && ! grep -q "<svg" "$T/x.html"'
mkdir -p "$T/empty"
"$W" report "$T/empty" -o "$T/x.html" >/dev/null 2>"$T/e6"; rc=$?
check "report: DIR with no result is a one-line error" '[ $rc -eq 1 ] && grep -q "empty: no result directory" "$T/e6"'
rm -rf "$D32/plots"
PATH=/nonexistent "$W" report "$T/a" -o "$T/x.html" >/dev/null 2>"$T/e7"; rc=$?
check "report: gnuplot missing when plots are needed" '[ $rc -eq 1 ] && grep -q "gnuplot not found" "$T/e7"'

# plot -o with several DIRs whose basenames clash (a --set sweep): each result
# gets its own subdirectory, named by its path below the common directory.
"$W" sim -t 3 -k 3.2-ioless --set disk.bw_mbps=40,80 -o "$T/sw" 'ext4-{1,2}dd-4k-8p-4096M-10M:10' >/dev/null 2>&1
"$W" plot --no-gnuplot -o "$T/swp" "$T"/sw/thresh=10M/*/* >"$T/osw" 2>&1; rc=$?
L1="ext4-1dd-4k-8p-4096M-10M:10-3.2-ioless"
check "plot -o: clashing basenames get their path below the common directory" '[ $rc -eq 0 ] && [ "$(find "$T/swp" -name index | wc -l)" -eq 4 ] && grep -q "7 graphs in $T/swp/disk.bw_mbps=40/$L1 " "$T/osw" && grep -q "7 graphs in $T/swp/disk.bw_mbps=80/$L1 " "$T/osw"'
check "plot -o: the 40 and 80 MB/s graphs are their own" '[ -s "$T/swp/disk.bw_mbps=40/$L1/global_dirty_state.dat" ] && ! cmp -s "$T/swp/disk.bw_mbps=40/$L1/global_dirty_state.dat" "$T/swp/disk.bw_mbps=80/$L1/global_dirty_state.dat"'
"$W" plot --no-gnuplot -o "$T/swq" "$T"/sw/thresh=10M/disk.bw_mbps=40/* >"$T/osw2" 2>&1
check "plot -o: distinct basenames keep OUTDIR/<basename>" '[ -s "$T/swq/$L1/index" ] && [ -s "$T/swq/ext4-2dd-4k-8p-4096M-10M:10-3.2-ioless/index" ]'
"$W" plot --no-gnuplot -o "$T/swr" "$T/sw/thresh=10M/disk.bw_mbps=40/$L1" "$T/sw/thresh=10M/disk.bw_mbps=40/../disk.bw_mbps=40/$L1/" >/dev/null 2>"$T/esw"; rc=$?
check "plot -o: one result given twice is refused, naming both DIRs" '[ $rc -eq 2 ] && [ "$(wc -l <"$T/esw")" -eq 1 ] && grep -q "are one result" "$T/esw" && grep -q "/\.\./" "$T/esw" && [ ! -e "$T/swr" ]'
L2="ext4-2dd-4k-8p-4096M-10M:10-3.2-ioless"
ln -s "$T/sw/thresh=10M/disk.bw_mbps=40/$L1" "$T/swlink"
"$W" plot --no-gnuplot -o "$T/sws" "$T/sw/thresh=10M/disk.bw_mbps=40/$L1" "$T/swlink" >/dev/null 2>"$T/esws"; rc=$?
check "plot -o: a result and a symlink to it (other basenames) are one result: refused" \
  '[ $rc -eq 2 ] && grep -q "are one result" "$T/esws" && [ ! -e "$T/sws" ]'
(cd "$T/sw/thresh=10M/disk.bw_mbps=40/$L1" && "$W" plot --no-gnuplot -o "$T/swd" . "../$L2" >/dev/null 2>&1); rc=$?
check "plot -o: '.' is named by the directory it is, inside OUTDIR" \
  '[ $rc -eq 0 ] && [ -s "$T/swd/$L1/index" ] && [ -s "$T/swd/$L2/index" ] && [ ! -e "$T/swd/index" ]'

# report -c FIELD: an unknown field is compare's usage error.
"$W" compare -c kernal "$T/sw" >/dev/null 2>"$T/ec"; rcc=$?
"$W" report -c kernal --no-graphs -o "$T/k.html" "$T/sw" >/dev/null 2>"$T/ek"; rc=$?
check "report -c UNKNOWN: exit 2, compare's one-line error, no page" '[ $rc -eq 2 ] && [ $rcc -eq 2 ] && [ "$(wc -l <"$T/ek")" -eq 1 ] && [ "$(sed "s/^wblab report: //" "$T/ek")" = "$(sed "s/^wblab compare: //" "$T/ec")" ] && [ ! -e "$T/k.html" ]'
# report: overlapping DIRs and one DIR twice, like compare; each result once.
"$W" report --no-graphs -o "$T/ovl.html" "$T/sw" "$T/sw/thresh=10M" "$T/sw" >"$T/oovl" 2>"$T/eovl"; rc=$?
check "report: overlapping DIRs and a DIR twice show each result once" '[ $rc -eq 0 ] && grep -q "4 results" "$T/oovl" && [ "$(grep -c "<li><a href=\"#r" "$T/ovl.html")" -eq 4 ]'
"$W" report --no-graphs -o "$T/ovl.html" "$T/sw" "$T/empty" >/dev/null 2>"$T/eovl2"; rc=$?
check "report: beside others, a DIR with no result is still an error" '[ $rc -eq 1 ] && grep -q "empty: no result directory" "$T/eovl2"'

# --max-points: the default is the saved series, not 20000 (which reads the trace).
DS="$T/sw/thresh=10M/disk.bw_mbps=40/$L1"
"$W" plot --no-gnuplot -o "$T/mp0" "$DS" >"$T/omp0" 2>&1
"$W" plot --no-gnuplot --max-points 20000 -o "$T/mp1" "$DS" >"$T/omp1" 2>&1
check "--max-points: default from the saved series, an explicit 20000 from the trace" 'grep -q "from the saved plot-series" "$T/omp0" && ! grep -q "from the saved plot-series" "$T/omp1"'
check "--max-points: help and docs say what the default is" '"$W" help plot | grep -q "Default: a simulated result'"'"'s saved plot-series" && "$W" help report | grep -q "default: a simulated result'"'"'s saved plot-series" && ! "$W" help plot | grep -q "default 20000" && ! "$W" help report | grep -q "default 20000" && ! grep -q "default 20000" docs/plot-report.md'

# A real 6.x trace has writeback_single_inode with index; simulated current
# has not: overlaid, the file-progress graph is drawn for the real run only,
# with the note docs/plot-report.md quotes.
"$W" sim -t 3 -k current -o "$T/cur" ext4-2dd-1M-2p-768M-24M:10 >/dev/null 2>&1
DC=$(dirname "$(find "$T/cur" -name stats | head -1)")
"$W" plot --no-gnuplot --overlay "$DC" -o "$T/ov6" "$D6" >"$T/oov6" 2>&1; rc=$?
note=$(sed -n 's/^  note \(writeback-file-progress: drawn for one run only .*\)/\1/p' "$T/oov6")
check "real 6.18 on simulated current: file progress drawn for the real run only" '[ $rc -eq 0 ] && [ -s "$T/ov6/writeback-file-progress.dat" ] && [ -n "$note" ]'
check "docs/plot-report.md quotes that note and no longer says 6.x traces lack the event" '[ -n "$note" ] && tr "\n" " " <docs/plot-report.md | sed "s/  */ /g" | grep -qF "$note" && ! grep -q "6.x traces$" docs/plot-report.md'

# validate (simulated only: fake real runs are simulated results marked
# `source real`): two real runs of one case, 3 s and 6 s long, each get their
# own simulation (CASE-current, CASE-current.2), each overlay its own, and
# --report takes them (it used to find one result twice and stop).
VC=ext4-1dd-4k-2p-1024M-10M:10
"$W" sim -t 3 -k current -o "$T/vr1" "$VC" >/dev/null 2>&1
"$W" sim -t 6 -k current -o "$T/vr2" "$VC" >/dev/null 2>&1
sed -i 's/^source sim$/source real/; s/^kernel current$/kernel 6.99-fake/' "$T"/vr[12]/*/*/meta
R1="$T/vr1/thresh=10M/$VC-current"; R2="$T/vr2/thresh=10M/$VC-current"
"$W" validate -o "$T/vs" --report "$T/v.html" "$R1" "$R2" >"$T/ov" 2>"$T/ev"; rc=$?
check "validate: two real runs of one case, two simulations" '[ $rc -ne 1 ] && [ -s "$T/vs/thresh=10M/$VC-current/stats" ] && [ -s "$T/vs/thresh=10M/$VC-current.2/stats" ]'
check "validate: the second real run's block says it is simulated as current.2" \
  '[ "$(grep -c "^thresh=10M/$VC" "$T/ov")" -eq 2 ] && grep -q "^thresh=10M/$VC (real result 2 of it: simulated as current.2)$" "$T/ov"'
"$W" validate --format tsv "$R1" "$R2" >"$T/ovt" 2>/dev/null
check "validate --format tsv: the second real run's rows are GROUP/CASE.2" \
  '[ "$(grep -c "^thresh=10M/$VC	" "$T/ovt")" -eq 10 ] && [ "$(grep -c "^thresh=10M/$VC.2	" "$T/ovt")" -eq 10 ]'
check "validate --report: the page has the 2 real and 2 simulated results" 'grep -q "report: $T/v.html (4 results" "$T/ev" && [ -s "$T/v.html" ]'
# the dashed (simulated) run's last time in each overlay: about 3 and 6 s
lastsim() { awk '/^# index/ {on = index($0, "run current ")} on && !/^#/ && NF {if ($1 > m) m = $1} END {print m + 0}' "$1/plots/overlay-current/global_dirty_state.dat"; }
check "validate --report: each real run is overlaid with its own simulation ($(lastsim "$R1") s, $(lastsim "$R2") s)" 'awk -v a="$(lastsim "$R1")" -v b="$(lastsim "$R2")" "BEGIN {exit !(a > 2 && a < 4 && b > 5 && b < 7)}"'
# a task_ratelimit of 0 (over the hard limit) has no place on the log2 axis:
# drawn on a floor the y2 label names, not dropped
"$WBLAB" sim -q -t 30 -k 3.2-ioless -o "$T/rl0" nfs-2dd-4k-8p-4096M-100M:10 >/dev/null 2>&1
"$WBLAB" plot "$T"/rl0/*/* >/dev/null 2>&1
P0=$(find "$T/rl0" -name balance_dirty_pages-pages.gp)
Z=$(awk '/task ratelimit/ {on = 1; next} /^# index/ {on = 0} on && NF == 2 && $2 + 0 > 0 && $2 + 0 < 0.002 {n++} END {print n + 0}' "${P0%.gp}.dat")
check "zero ratelimits drawn at the axis floor the label names ($Z points)" \
  'grep -q "set y2label .ratelimit (MB/s, log2); 0 drawn at 0.000977." "$P0" && [ "$Z" -gt 10 ]'
