/* wblab jobs: a sweep as a job list for the engines people already use. */
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "sim_matrix.h"
#include "../util/shellword.h"
#include "../util/util.h"

/* What scripts/run-job.sh (Slurm, HTCondor) refuses in a line before it
 * splits it with eval; an apostrophe is among them, as shell_join quotes it
 * with a backslash.  A list any job of which cannot run is not printed. */
static const char run_job_refuses[] = "$`;|&<>()\\'";

static int runnable_everywhere(const struct sim_job *js, int n)
{
	for (int i = 0; i < n; i++)
		for (int k = 0; k < js[i].argc; k++) {
			/* a newline (any control byte) would split the job over two lines */
			int at_c = control_byte_at(js[i].argv[k]);
			if (at_c >= 0) {
				wb_error("jobs: an argument holds a control character (byte 0x%02x): "
					 "a job list has one job per line",
					 (unsigned char)js[i].argv[k][at_c]);
				return 0;
			}
			size_t at = strcspn(js[i].argv[k], run_job_refuses);
			if (js[i].argv[k][at]) {
				wb_error("jobs: '%s': scripts/run-job.sh refuses a job line holding %c "
					 "(rename it; 'wblab sim' runs it as it is)", js[i].argv[k],
					 js[i].argv[k][at]);
				return 0;
			}
		}
	return 1;
}

static int run_jobs(int argc, char **argv)
{
	static struct sim_matrix m;
	struct sim_job *js;
	int n;
	if (sim_matrix_load(&m, argc, argv, &js, &n))
		return EXIT_USAGE;
	if (!runnable_everywhere(js, n)) {
		sim_matrix_free(&m, js, n);
		return EXIT_USAGE;
	}
	for (int i = 0; i < n; i++) {
		shell_join(stdout, js[i].argc, js[i].argv);
		putchar('\n');
	}
	sim_matrix_free(&m, js, n);
	return fflush(stdout) ? 1 : 0;
}

static const char usage[] =
	"usage: wblab jobs [sim options] CASE...\n"
	"\n"
	"Prints the sweep 'wblab sim [options] CASE...' would run as a job list: one\n"
	"self-contained command per (case, model, --set sweep value, --repeat run),\n"
	"each making exactly one result directory OUT/GROUP/CASE-KERNEL[.RUN], so\n"
	"results from many machines merge into one root by copying the trees together,\n"
	"and 'wblab compare ROOT' over the merged tree gives the table one local run\n"
	"gives.  The commands call 'wblab' from PATH.  Options and CASE matrices are\n"
	"those of 'wblab sim' (see 'wblab sim --help'), so a model, case or swept\n"
	"value listed twice is refused; --shard I/N prints only the I-th of N slices.\n"
	"\n"
	"  GNU parallel:  wblab jobs -o results CASES... > jobs.txt\n"
	"                 parallel -j 8 --joblog jobs.log < jobs.txt\n"
	"                 (parallel --resume-failed --joblog jobs.log < jobs.txt reruns\n"
	"                 the failed ones)\n"
	"  Slurm array:   sbatch --array=1-$(wc -l < jobs.txt) scripts/slurm-array.sh jobs.txt\n"
	"                 (each task runs line $SLURM_ARRAY_TASK_ID; pack jobs shorter\n"
	"                 than a few seconds with parallel inside one allocation)\n"
	"  HTCondor:      executable = scripts/run-job.sh\n"
	"                 arguments  = --zero $(Process) jobs.txt\n"
	"                 queue N    (N = the number of lines; --zero: line Process + 1\n"
	"                 runs, as $(Process) counts from 0)\n"
	"  Without an engine: wblab sim --shard I/N ... on machine I of N.\n"
	"\n"
	"A job line scripts/run-job.sh would refuse (a word holding $ ` ; | & < > ( ) \\\n"
	"or ', or a control character such as a newline) is an error, and nothing is\n"
	"printed.\n"
	"\n"
	"Exit status: 0; 2 bad options or CASE.\n";

WB_COMMAND(jobs, 30) = {
	"jobs", "print a sweep as a job list (GNU parallel, Slurm, HTCondor)",
	usage, NULL, NULL, NULL, run_jobs,
};
