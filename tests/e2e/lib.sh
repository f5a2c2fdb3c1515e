# TAP helpers of the end-to-end scripts; source it first thing, before any cd:
#     . "$(dirname "$0")/lib.sh"
# Each check prints one line, "ok N - NAME" or "not ok N - NAME" (details as
# "#" comments below it), and a skipped one "ok N - NAME # SKIP WHY"; this is
# what tests/run-all.sh counts.
#
#   ok NAME                  a check that passed
#   nok NAME [DETAIL...]     a check that failed; each DETAIL on a "#" line
#   skip NAME WHY            a check that could not run here
#   check NAME 'SHELL'       ok when the shell text succeeds (eval'd, so it sees
#                            the script's variables and may set them)
#   check_cmd NAME CMD ARG.. ok when the command succeeds; when it fails, the
#                            first 20 lines of its output as "#" lines
#   e2e_scratch NAME         a scratch directory in $T, removed on exit
#
# The count is TAP_N; nothing else is defined.

TAP_N=0

ok() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - $1"; }

nok() {
	TAP_N=$((TAP_N + 1)); echo "not ok $TAP_N - $1"; shift
	local l
	for l in "$@"; do echo "#   $l"; done
}

skip() { TAP_N=$((TAP_N + 1)); echo "ok $TAP_N - $1 # SKIP $2"; }

check() { if eval "$2"; then ok "$1"; else nok "$1"; fi; }

check_cmd() {
	local name=$1 out; shift
	if out=$("$@" 2>&1); then ok "$name"
	else nok "$name"; [ -n "$out" ] && head -20 <<<"$out" | sed 's/^/#   /'; fi
	return 0
}

e2e_scratch() {
	T=$(mktemp -d "/tmp/wblab-$1.XXXXXX") || exit 1
	trap 'rm -rf "$T"' EXIT
}
