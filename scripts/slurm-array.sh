#!/usr/bin/env bash
# A Slurm job array over a job list made by 'wblab jobs':
#   wblab jobs -o results CASES... > jobs.txt
#   sbatch --array=1-$(wc -l < jobs.txt) scripts/slurm-array.sh jobs.txt
# Each array task runs line $SLURM_ARRAY_TASK_ID.  Jobs of a few seconds are
# better packed: one allocation running 'parallel < jobs.txt'.
#SBATCH --job-name=wblab
#SBATCH --ntasks=1
#SBATCH --cpus-per-task=1
set -euo pipefail
: "${SLURM_ARRAY_TASK_ID:?run me with sbatch --array=1-N}"
jobs=${1:?usage: slurm-array.sh JOBS.txt}
# sbatch runs a copy of this script from its spool, so $0 does not lead to
# the checkout: WBLAB_HOME if set (sbatch --export=ALL,WBLAB_HOME=DIR), else
# the directory sbatch was called in, else the checkout of the wblab in PATH
for home in "${WBLAB_HOME:-}" "${SLURM_SUBMIT_DIR:-}" \
	"$(dirname "$(readlink -f "$(command -v wblab 2>/dev/null || echo /nonexistent)")")/.."; do
	if [ -n "$home" ] && [ -x "$home/scripts/run-job.sh" ]; then
		exec "$home/scripts/run-job.sh" "$SLURM_ARRAY_TASK_ID" "$jobs"
	fi
done
echo "slurm-array.sh: cannot find scripts/run-job.sh: set WBLAB_HOME to the wblab checkout (sbatch --export=ALL,WBLAB_HOME=DIR)" >&2
exit 2
