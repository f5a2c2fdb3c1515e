#!/usr/bin/env bash
# Hostile result directories for every reader of result files (compare,
# report, plot, calibrate, validate): symlinks to /dev/zero, FIFOs, huge
# files, NaN/inf values, a missing stats.  Each must end in one error line
# naming the file (and line), exit 1, quickly; never a hang or a number.
# validate here only calibrates and simulates: it touches no kernel state.
set -u
cd "$(dirname "$0")/../.."
W=${WBLAB:-$PWD/build/wblab}
T=$(mktemp -d /tmp/wblab-hostile.XXXXXX)
trap 'rm -rf "$T"' EXIT
tried=0

ok() { echo "ok - $1"; }
nok() { echo "not ok - $1"; }

# expect_error NAME PATTERN CMD...: exit 1 within 20 s, one stderr line matching PATTERN
expect_error() {
	local name=$1 pat=$2; shift 2
	tried=$((tried + 1))
	timeout 20 "$@" >"$T/out" 2>"$T/err"; local rc=$?
	if [ $rc -eq 1 ] && [ "$(wc -l <"$T/err")" -eq 1 ] && grep -qE -- "$pat" "$T/err"; then
		ok "$name"
	else
		nok "$name (rc=$rc: $(head -c 300 "$T/err"))"
	fi
}

C=ext4-2dd-4k-2p-1024M-10M:10
# text traces: the cases below put a link or a FIFO in place of `trace`
"$W" sim -t 10 -k 3.2-ioless,current --trace-format text -o "$T/good" "$C" >/dev/null 2>&1 || nok "sim for the fixtures"
G="$T/good/thresh=10M"
# calibrate and validate take real runs only: the fixtures say they are one
sed -i 's/^source sim$/source real/' "$G"/*/meta
A="$G/$C-3.2-ioless"

# fresh copy of the good results with one change: fixture NAME
fixture() { rm -rf "$T/$1"; cp -r "$T/good" "$T/$1"; echo "$T/$1/thresh=10M/$C-3.2-ioless"; }

for f in stats meta params; do
	D=$(fixture "zero-$f"); rm "$D/$f"; ln -s /dev/zero "$D/$f"
	expect_error "compare: $f -> /dev/zero" "$f: is a symbolic link" "$W" compare -c runtime "$T/zero-$f"
	expect_error "report: $f -> /dev/zero" "$f: is a symbolic link" \
		"$W" report --no-graphs -o "$T/r.html" "$T/zero-$f"
done
D=$(fixture fifo); rm "$D/stats"; mkfifo "$D/stats"
expect_error "compare: stats is a FIFO (no hang)" "stats: not a regular file" "$W" compare "$T/fifo"
expect_error "report: stats is a FIFO (no hang)" "stats: not a regular file" \
	"$W" report --no-graphs -o "$T/r.html" "$T/fifo"
D=$(fixture dirstats); rm "$D/stats"; mkdir "$D/stats"
expect_error "compare: stats is a directory" "stats: not a regular file" "$W" compare "$T/dirstats"
D=$(fixture big); truncate -s 17M "$D/env"
expect_error "report: a 17 MiB env is refused" "env: larger than 16 MiB" \
	"$W" report --no-graphs -o "$T/r.html" "$T/big"
D=$(fixture zero-trace); rm "$D/trace"; ln -s /dev/zero "$D/trace"
expect_error "plot: trace -> /dev/zero" "trace: is a symbolic link" "$W" plot --no-gnuplot "$D"
expect_error "report: trace -> /dev/zero" "trace: is a symbolic link" \
	"$W" report -o "$T/r.html" "$T/zero-trace"
expect_error "calibrate: trace -> /dev/zero" "trace: is a symbolic link" "$W" calibrate -n "$D"
# the same with a trace.dat (the default format) in its place
"$W" sim -t 2 -k 3.2-ioless -o "$T/gdat" "$C" >/dev/null 2>&1
D=$(ls -d "$T"/gdat/*/*); rm "$D/trace.dat"; ln -s /dev/zero "$D/trace.dat"
expect_error "plot: trace.dat -> /dev/zero" "trace.dat: is a symbolic link" "$W" plot --no-gnuplot "$D"
"$W" sim -t 2 -k 3.2-ioless -o "$T/gser" "$C" >/dev/null 2>&1
D=$(ls -d "$T"/gser/*/*); rm "$D/plot-series"; ln -s /dev/zero "$D/plot-series"
expect_error "plot: plot-series -> /dev/zero" "plot-series: is a symbolic link" "$W" plot --no-gnuplot "$D"

# NaN and inf, in each file each reader takes numbers or fields from
D=$(fixture nan-stats); sed -i 's/^write_bw .*/write_bw nan/' "$D/stats"
expect_error "compare: write_bw nan" "stats:1: write_bw 'nan' is not a finite number" "$W" compare "$T/nan-stats"
expect_error "report: write_bw nan" "stats:1: write_bw 'nan'" \
	"$W" report --no-graphs -o "$T/r.html" "$T/nan-stats"
expect_error "calibrate: write_bw nan" "stats:1: write_bw 'nan'" "$W" calibrate -n "$D"
expect_error "validate: write_bw nan" "stats:1: write_bw 'nan'" "$W" validate "$D"
D=$(fixture inf-stats); sed -i 's/^duration_s .*/duration_s -inf/' "$D/stats"
expect_error "compare: duration_s -inf" "stats:[0-9]+: duration_s '-inf'" "$W" compare "$T/inf-stats"
D=$(fixture nan-params); echo "runtime_s nan" >>"$D/params"
n=$(wc -l <"$D/params")
expect_error "calibrate: params runtime_s nan" "params:$n: runtime_s 'nan'" "$W" calibrate -n "$D"
expect_error "compare -c runtime_s: params nan" "params:$n: runtime_s 'nan'" \
	"$W" compare -c runtime_s "$T/nan-params"
expect_error "report: params nan" "params:$n: runtime_s 'nan'" \
	"$W" report --no-graphs -o "$T/r.html" "$T/nan-params"
D=$(fixture inf-meta); sed -i 's/^run .*/run inf/' "$D/meta"
expect_error "compare: meta run inf" "meta:[0-9]+: run 'inf'" "$W" compare "$T/inf-meta"
expect_error "report: meta run inf" "meta:[0-9]+: run 'inf'" \
	"$W" report --no-graphs -o "$T/r.html" "$T/inf-meta"
D=$(fixture empty-kernel); sed -i 's/^kernel .*/kernel =/' "$D/meta"
expect_error "compare: meta 'kernel =' is empty" "meta:[0-9]+: 'kernel' is empty" "$W" compare "$T/empty-kernel"

# one walker: with stats gone from one of two results, both count one
D=$(fixture nostats); rm "$D/stats"
"$W" report --no-graphs -o "$T/r.html" "$T/nostats" >"$T/out" 2>&1
"$W" compare "$T/nostats" >"$T/cmp" 2>&1
tried=$((tried + 1))
if grep -q ": 1 result, " "$T/out" && grep -q "(1 value(s) found)" "$T/cmp"; then
	ok "report and compare find the same single result"
else
	nok "report and compare find the same results ($(cat "$T/out" "$T/cmp" | head -c 300))"
fi
# a symlinked result dir below the DIR argument is not followed, by either
mkdir -p "$T/linked/g" && ln -s "$A" "$T/linked/g/link"
cp -r "$G/$C-current" "$T/linked/g/"
"$W" report --no-graphs -o "$T/r.html" "$T/linked" >"$T/out" 2>&1
tried=$((tried + 1))
if grep -q ": 1 result, " "$T/out"; then ok "report does not follow a symlink below DIR"
else nok "report does not follow a symlink below DIR ($(head -c 200 "$T/out"))"; fi

# a plotted result whose SVG was given a script, an event handler, a link out
# of the page and a path beyond any graph: the report inlines none of it
H=$T/svg/g/$C-current
mkdir -p "$T/svg/g" && cp -r "$G/$C-current" "$T/svg/g/"
"$W" plot -q "$H" >/dev/null 2>&1
S=$H/plots/global_dirty_state.svg
sed -i 's|<svg |<svg onload="alert(1)" |' "$S"
"$W" report -q -o "$T/svg.html" "$T/svg" >"$T/out" 2>"$T/err"; rc=$?
tried=$((tried + 1))
if [ $rc = 0 ] && ! grep -qi "alert(1)" "$T/svg.html" && grep -q "not inlined: .*global_dirty_state.svg holds an attribute .\{1,6\}onload" "$T/svg.html" &&
	grep -q "not inlined" "$T/err"; then ok "report does not inline an SVG with an event handler"
else nok "report does not inline an SVG with an event handler (rc=$rc: $(head -c 200 "$T/err"))"; fi
# and what a blocklist let through: a payload split by what the inlining
# drops, handlers without a space before them, HTML elements, references
for bad in '<script>alert(2)</script>' '<a href="https://example.org/x">x</a>' '<foreignObject><div>x</div></foreignObject>' '<image href="data:x"/>' \
	'<scr xmlns="http://www.w3.org/2000/svg"ipt>alert(4)</scr xmlns="http://www.w3.org/2000/svg"ipt>' '<scr<g></g>ipt>alert(5)</script>' \
	'<rect/onmouseover=alert(6) width="9" height="9"/>' '<rect x="0"onclick="alert(7)"/>' '<img src="http://example.org/t.png">' \
	'<meta http-equiv="refresh" content="5">' '<rect style="fill:url(http://example.org/)"/>' '<rect fill="url&#40;http://example.org/)"/>' \
	'<!--><meta http-equiv="refresh" content="0;url=https://example.org/"><!-- -->' '<!-- --!><img src="http://example.org/t.png"> -->' \
	'<!---><img src="http://example.org/t.png"><!-- -->'; do
	"$W" plot -q "$H" >/dev/null 2>&1
	sed -i "s|</svg>|$bad</svg>|" "$S"
	"$W" report -q -o "$T/svg.html" "$T/svg" >"$T/out" 2>"$T/err"
	tried=$((tried + 1))
	if ! grep -qF "$bad" "$T/svg.html" && ! grep -qiE "<script|alert\(|<img|<meta http-equiv=.refresh|example\.org" "$T/svg.html" &&
		grep -q "not inlined" "$T/svg.html"; then ok "report does not inline an SVG holding ${bad:0:40}"
	else nok "report does not inline an SVG holding ${bad:0:40}"; fi
done
"$W" plot -q "$H" >/dev/null 2>&1
sed -i -E "0,/ d=['\"]M[^'\"]*['\"]/s// d=\"M 1e300,2 L 3,4\"/" "$S"
"$W" report -q -o "$T/svg.html" "$T/svg" >"$T/out" 2>"$T/err"; rc=$?
tried=$((tried + 1))
if [ $rc = 0 ] && grep -q 'd="M 1e300,2 L 3,4"' "$T/svg.html"; then ok "a path with a coordinate beyond any graph is copied as it is"
else nok "a path with a coordinate beyond any graph is copied as it is (rc=$rc)"; fi

# ... while text that merely reads like a handler, a group "onset=1" in every
# graph's title, is inlined, and the page forbids scripts and fetches itself
"$W" sim -q -t 5 -k current -o "$T/on" 'onset=1/ext4-1dd-4k-8p-4096M-100M:10' >/dev/null 2>&1
"$W" report -q -o "$T/on.html" "$T/on" >"$T/out" 2>"$T/err"; rc=$?
tried=$((tried + 1))
if [ $rc = 0 ] && ! grep -q "not inlined" "$T/on.html" && [ "$(grep -c "<svg" "$T/on.html")" -ge 5 ] &&
	grep -q "Content-Security-Policy\" content=\"default-src 'none'" "$T/on.html"; then ok "an 'onset=1' group is text, inlined; the page carries a no-script policy"
else nok "an 'onset=1' group is text, inlined; the page carries a no-script policy (rc=$rc)"; fi

# a stats file with a NUL in a value, or a byte-order mark: one line naming
# FILE:LINE, never a value cut at the NUL or a metric silently n/a
"$W" sim -q -t 2 --no-trace -k current,3.2-ioless -o "$T/nul" ext4-1dd-4k-8p-4096M-100M:10 >/dev/null 2>&1
NS=$(find "$T/nul" -path "*current/stats")
for form in nul bom; do
	cp "$NS" "$T/stats.orig"
	if [ $form = nul ]; then printf 'write_bw 5\0junk\n' >"$NS"; else { printf '\xef\xbb\xbf'; cat "$T/stats.orig"; } >"$NS"; fi
	"$W" compare "$T/nul" >"$T/out" 2>"$T/err"; rc=$?
	tried=$((tried + 1))
	want=$([ $form = nul ] && echo "stats:1: control byte 0x00 at column 11" || echo "stats:1: starts with a UTF-8 byte-order mark")
	if [ $rc = 1 ] && [ "$(wc -l <"$T/err")" = 1 ] && grep -q "$want" "$T/err" && [ ! -s "$T/out" ]; then
		ok "stats with a $form: exit 1, one line naming FILE:LINE"
	else nok "stats with a $form: exit 1, one line naming FILE:LINE (rc=$rc)" "$(cat "$T/err")"; fi
	cp "$T/stats.orig" "$NS"
done

# `wblab trace DIR` reads the result's trace as plot and report do: no symlink
mkdir -p "$T/sl"
ln -s "$PWD/tests/data/sim-3.2-ioless-1dd.dat" "$T/sl/trace.dat"
"$W" trace "$T/sl" >"$T/out" 2>"$T/err"; rc=$?
tried=$((tried + 1))
if [ $rc = 1 ] && grep -q "is a symbolic link" "$T/err" && [ ! -s "$T/out" ]; then ok "trace DIR refuses a symlinked trace.dat"
else nok "trace DIR refuses a symlinked trace.dat (rc=$rc)" "$(cat "$T/err")"; fi

echo "# $tried hostile result inputs tried"
