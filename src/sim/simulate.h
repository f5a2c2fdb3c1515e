/* One simulated (case, kernel) run into a result directory: used by
 * `wblab sim` and `wblab seed`. */
#ifndef WBLAB_SIMULATE_H
#define WBLAB_SIMULATE_H
#include "params.h"
#include "../util/case.h"

struct throttle_model;

struct sim_job {
	struct wb_case c;
	const struct throttle_model *model;
	const char *kernel_name;   /* result/column name; the model's name by default */
	const struct sim_params *p;
	uint64_t seed;
	int run;                   /* run number: 0/1 -> CASE-KERNEL, N >= 2 -> CASE-KERNEL.N */
	double runtime;
	const char *out;
	int no_trace;
	int text_trace;            /* --trace-format text: `trace` instead of `trace.dat` */
	int argc;
	char **argv;               /* recorded in `cmdline` */
};

/* Returns 0, or 1 with a one-line message printed. */
int simulate_one(const struct sim_job *j);
/* The canonical command that makes exactly job j's result (`wblab sim`
 * with its model, runtime, seed, run, the --set KEY=VAL strings given, trace
 * format, -o and GROUP/CASE), recorded as the result's `cmdline`; NULL when
 * out of memory.  Each string and the array are malloc'ed. */
char **sim_job_cmdline(const struct sim_job *j, const char *const *sets, int nsets, int *argc);
/* Frees the cmdlines sim_job_cmdline gave js[0..n). */
void sim_jobs_free_cmdlines(struct sim_job *js, int n);
/* Runs jobs on up to `jobs` processes; returns the number that failed.
 * With show_progress, a "N/M cases, ETA" line on stderr when it is a terminal. */
int simulate_all(const struct sim_job *js, int n, int jobs, int show_progress);

#endif
