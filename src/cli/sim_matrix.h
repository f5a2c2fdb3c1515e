/* The command line of `wblab sim` and `wblab jobs`: options, the models, and
 * the CASE matrix (brace lists and ranges, --cases-from FILE), turned into one
 * job per (case, model), each with the canonical command that makes exactly
 * that one result (recorded as its `cmdline`, printed by `wblab jobs`). */
#ifndef WBLAB_SIM_MATRIX_H
#define WBLAB_SIM_MATRIX_H
#include <stdint.h>
#include "parse_options.h"
#include "../sim/params.h"
#include "../sim/simulate.h"
#include "../util/case_expand.h"

#define SIM_MAX_SETS 64
#define SIM_MAX_MODELS 16
#define SIM_MAX_COMBOS 10000

struct sim_matrix {
	const char *cmd;                   /* "sim" or "jobs", for messages */
	const char *out;
	const char *kernels;                /* -k LIST as given (NULL: the default) */
	double runtime;
	uint64_t seed, jobs;
	int no_trace, text_trace, quiet;
	int repeat;                        /* --repeat N (>= 1): runs 1..N, seeds S..S+N-1 */
	int run;                           /* --run R: this one run (seed as given) */
	int shard_i, shard_n;              /* 1-based slice i of n; n 0: all */
	struct sim_params p;
	int nsets;
	const char *sets[SIM_MAX_SETS];    /* --set KEY=VAL as given, in order */
	/* --set KEY=V1,V2,...: a sweep.  sweep_n[i] > 1 marks sets[i] as one;
	 * the combinations (first sweep outermost) each get their own params
	 * and a group part KEY=V per swept key (docs/scale-out.md). */
	int sweep_n[SIM_MAX_SETS];
	int ncombos;                       /* product of the sweeps' sizes (1: none) */
	struct sim_params *pv;             /* [ncombos]: the params of each combination */
	int nm;
	const struct throttle_model *models[SIM_MAX_MODELS];
	struct case_list cases;
};

/* Parses argv (argv[0] the command name).  0, or -1 after printing a one-line
 * error (the caller exits EXIT_USAGE). */
int sim_matrix_parse(struct sim_matrix *m, int argc, char **argv);
/* The jobs of m's slice (all of them without --shard), each with its own
 * argv.  0, or -1 after printing why.  Free with sim_matrix_free. */
int sim_matrix_jobs(struct sim_matrix *m, struct sim_job **js, int *n);
void sim_matrix_free(struct sim_matrix *m, struct sim_job *js, int n);
/* Both of the above: 0, or -1 after printing why (nothing left to free). */
int sim_matrix_load(struct sim_matrix *m, int argc, char **argv, struct sim_job **js, int *n);
/* The options both commands take (their --help lines come from it). */
extern const struct po_option sim_matrix_options[];

#endif
