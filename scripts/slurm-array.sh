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
# sbatch runs a copy of this script from its spool: find the checkout from the
# directory sbatch was called in
exec "${SLURM_SUBMIT_DIR:-.}/scripts/run-job.sh" "$SLURM_ARRAY_TASK_ID" "${1:?usage: slurm-array.sh JOBS.txt}"
