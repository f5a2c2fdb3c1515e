#!/usr/bin/env bash
# Runs line N (1-based) of a job list made by 'wblab jobs' - for HTCondor
# ("arguments = --zero $(Process) jobs.txt": $(Process) counts from 0, and
# --zero takes line N + 1) and anything else that hands out job numbers.
#   scripts/run-job.sh [--zero] N JOBS.txt
set -euo pipefail
zero=0
if [ "${1:-}" = --zero ]; then zero=1; shift; fi
n=${1:?usage: run-job.sh [--zero] N JOBS.txt}
jobs=${2:?usage: run-job.sh [--zero] N JOBS.txt}
case $n in ''|*[!0-9]*) echo "run-job.sh: N must be a number, got '$n'" >&2; exit 2 ;; esac
n=$((10#$n + zero))
[ "$n" -ge 1 ] || { echo "run-job.sh: N counts lines from 1 (pass --zero when it counts from 0, as HTCondor's \$(Process))" >&2; exit 2; }
line=$(sed -n "${n}p" "$jobs")
[ -n "$line" ] || { echo "run-job.sh: $jobs has no line $n" >&2; exit 2; }
# a job line is one plain wblab command: words, single quotes, nothing a shell
# would run, so it may be split by eval
case $line in *[\$\`\;\|\&\<\>\(\)\\]*)
	echo "run-job.sh: line $n of $jobs holds shell constructs; refusing it" >&2; exit 2 ;;
esac
eval "set -- $line"
[ "$1" = wblab ] || { echo "run-job.sh: line $n of $jobs is not a wblab command" >&2; exit 2; }
exec "$@"
