/* Sim-vs-real validation: re-run a real result in the simulator with the
 * `current` model and the calibrated device, and compare the metrics. */
#ifndef WBLAB_VALIDATE_H
#define WBLAB_VALIDATE_H
#include <stdint.h>
#include <stdio.h>

#define VALIDATE_METRICS 10

struct validate_result;

struct validate_opts {
	const char *out;        /* results root for the simulated runs */
	double hz;              /* the real kernel's HZ */
	uint64_t seed;
	/* the real results validated before this one in the same call: the
	 * Nth of one GROUP/CASE is simulated as CASE-current.N (run N), so
	 * several real runs of a case keep their own simulations */
	const struct validate_result *prev;
	int nprev;
};

struct validate_metric {
	const char *name;       /* as in `stats` where it exists there */
	double real, sim;
	double tolerance;       /* the target as a fraction (0: none) */
};

struct validate_result {
	char case_name[260];    /* GROUP/CASE */
	int run;                /* the Nth real result of GROUP/CASE in this call */
	char sim_dir[4300];
	struct validate_metric m[VALIDATE_METRICS];
};

/* Returns 0, or -1 with a one-line reason in err. */
int validate_dir(const char *dir, const struct validate_opts *o, struct validate_result *vr,
		 char *err, size_t errlen);
/* sim / real; NAN when real is 0 */
double validate_ratio(const struct validate_metric *m);
void validate_print_table(FILE *f, const struct validate_result *vr, int n);
void validate_print_tsv(FILE *f, const struct validate_result *vr, int n);

/* (case, metric) cells with a target whose ratio misses it, or that only one
 * of the two runs measured (a cell neither measured is agreement). */
int validate_misses(const struct validate_result *vr, int n);

#endif
