#!/usr/bin/env bash
# The benches' own failure paths (they print figures, never assert on them):
# a `wblab sim` run that bench/sim_speed starts and that fails shows wblab's
# own error message (its stderr goes to a counts file while it runs).
set -u
. "$(dirname "$0")/lib.sh"
cd "$(dirname "$0")/../.."
W=${WBLAB:-$PWD/build/wblab}
e2e_scratch bench

if ! cc -O2 -std=c11 -Wall -Wextra -Werror -Isrc -o "$T/sim_speed" bench/sim_speed.c bench/loop_limit.c \
	build/libwblab.a $(pkg-config --libs gsl jansson 2>/dev/null) -lzstd -lm -lpthread -ldl \
	$(pkg-config --libs libtracecmd libtracefs libtraceevent 2>/dev/null) 2>"$T/cc.log"; then
  nok "bench/sim_speed builds" "$(head -5 "$T/cc.log")"
  exit 0
fi
"$T/sim_speed" "$W" 1 --set nonsense=1 >"$T/out" 2>"$T/err"
rc=$?
check "sim_speed: a failing run exits 1" '[ "$rc" = 1 ]'
if grep -q "^sim-speed: .*unknown parameter 'nonsense'" "$T/err"; then
  ok "sim_speed: a failing run's error message is shown"
else
  nok "sim_speed: a failing run's error message is shown" "$(cat "$T/err")"
fi
check "sim_speed: the counts lines stay out of it" '! grep -q wblab-bench-counts "$T/err"'
