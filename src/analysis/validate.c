#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "validate.h"
#include "calibrate.h"
#include "../result/result.h"
#include "../sim/simulate.h"
#include "../throttle/throttle.h"
#include "stats.h"
#include "../trace/trace_read.h"
#include "../util/util.h"
#include "../result/metrics.h"

struct stat_want { const char *key; double v; int found; };

static int stat_pick(void *arg, const char *key, const char *val)
{
	for (struct stat_want *w = arg; w->key; w++)
		if (strcmp(w->key, key) == 0) {
			w->v = atof(val);
			w->found = 1;
		}
	return 0;
}

/* The trace's stats computed now by the shared stats code, as text: for
 * results written before a metric existed. */
static int stats_text_of_trace(const char *dir, char **text, char *err, size_t errlen)
{
	char path[4400];
	size_t len = 0;
	struct stats_acc *st = stats_new();
	FILE *f = open_memstream(text, &len);
	trace_result_path(dir, path, sizeof(path));
	int rc = !st || !f ? -1 : stats_feed_trace(st, path, err, errlen);
	if (!rc && stats_write(st, f))
		rc = -1;
	if (f)
		fclose(f);
	stats_free(st);
	return rc;
}

static void pick_text(char *text, struct stat_want *w)
{
	for (char *save = NULL, *l = strtok_r(text, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		char *sp = strchr(l, ' ');
		if (sp) {
			*sp = 0;
			stat_pick(w, l, sp + 1);
		}
	}
}

/* The metrics, all from the result's `stats` (one definition for real and
 * simulated runs); recomputed from its trace if that file predates one. */
static int collect(const char *dir, double out[VALIDATE_METRICS], char *err, size_t errlen)
{
	char path[4400];
	struct stat_want w[] = {
		{ METRIC_KEY(WRITE_BW), 0, 0 }, { METRIC_KEY(NR_DIRTY_MEAN_PAGES), 0, 0 },
		{ METRIC_KEY(NR_DIRTY_P95_PAGES), 0, 0 }, { METRIC_KEY(PAUSE_MS_MEAN), 0, 0 },
		{ METRIC_KEY(TASK_RATELIMIT_STEADY_KBPS), 0, 0 }, { METRIC_KEY(FAIRNESS_JAIN), 0, 0 },
		{ METRIC_KEY(PAUSE_COUNT), 0, 0 }, { METRIC_KEY(BDP_EVENTS), 0, 0 },
		{ METRIC_KEY(DEV_WRITE_BW), 0, 0 }, { METRIC_KEY(WRITTEN_MB), 0, 0 },
		{ METRIC_KEY(DURATION_S), 0, 0 }, { METRIC_KEY(STALL_COUNT), 0, 0 },
		{ METRIC_KEY(STALL_S_TOTAL), 0, 0 }, { METRIC_KEY(STALL_MS_MAX), 0, 0 },
		{ NULL, 0, 0 }
	};
	struct kvfile f;
	snprintf(path, sizeof(path), "%s/stats", dir);
	int rc = kvf_load(&f, path, err, errlen);
	for (struct stat_want *x = w; !rc && x->key; x++) {
		const struct kv *e = kvf_get(&f, x->key);
		x->found = e != NULL;
		if (e && kvf_number(&f, e, &x->v, err, errlen))
			rc = -1;
	}
	kvf_free(&f);
	if (rc)
		return -1;
	if (!w[2].found || !w[4].found || !w[11].found) {
		char *text = NULL;
		struct stat_want more[] = { { METRIC_KEY(NR_DIRTY_P95_PAGES), 0, 0 },
					    { METRIC_KEY(TASK_RATELIMIT_STEADY_KBPS), 0, 0 },
					    { METRIC_KEY(STALL_COUNT), 0, 0 },
					    { METRIC_KEY(STALL_S_TOTAL), 0, 0 },
					    { METRIC_KEY(STALL_MS_MAX), 0, 0 }, { NULL, 0, 0 } };
		if (stats_text_of_trace(dir, &text, err, errlen)) {
			free(text);
			return -1;
		}
		pick_text(text, more);
		free(text);
		w[2].v = more[0].v;
		w[2].found = more[0].found;
		w[4].v = more[1].v;
		w[4].found = more[1].found;
		for (int i = 0; i < 3; i++)
			w[11 + i].v = more[2 + i].v;
	}
	/* a metric the stats lack was not measured (write_bw of a run too
	 * short for two flusher samples): n/a, not 0 */
	for (int i = 0; i < 6; i++)
		out[i] = w[i].found ? w[i].v : NAN;
	/* what reached the device: a real run's own device counter (the global
	 * written counter behind write_bw also counts the burst into the page
	 * cache a short run ends with and other writers' writeback); in a
	 * simulated run nothing else writes, so its written pages are the device's */
	for (int i = 0; i < 3; i++)
		out[7 + i] = w[11 + i].v;   /* device stalls (docs/stats.md): shown, not marked */
	out[6] = w[8].found ? w[8].v : w[10].v > 0 ? w[9].v / w[10].v : NAN;
	/* a run that never paused has no pause mean, and one with no
	 * balance_dirty_pages event has no ratelimit: not measured is not 0 */
	if (w[6].found && w[6].v == 0)
		out[3] = NAN;
	if ((w[7].found && w[7].v == 0) || out[4] == 0)
		out[4] = NAN;
	return 0;
}

/* the metrics validate reports: stats keys by id; -1 is device_bw, which is
 * dev_write_bw or written_mb / duration_s (see collect) */
static const int metric_ids[VALIDATE_METRICS] = {
	M_WRITE_BW, M_NR_DIRTY_MEAN_PAGES, M_NR_DIRTY_P95_PAGES, M_PAUSE_MS_MEAN,
	M_TASK_RATELIMIT_STEADY_KBPS, M_FAIRNESS_JAIN, -1, M_STALL_COUNT, M_STALL_S_TOTAL,
	M_STALL_MS_MAX,
};
/* the targets: write_bw and the device's rate 10 %, mean dirty 15 %, mean pause 25 % */
static const double metric_tol[VALIDATE_METRICS] = { 0.10, 0.15, 0, 0.25, 0, 0, 0.10, 0, 0, 0 };

int validate_dir(const char *dir, const struct validate_opts *o, struct validate_result *vr,
		 char *err, size_t errlen)
{
	struct calibration cal;
	struct sim_params p;
	memset(vr, 0, sizeof(*vr));
	if (calibrate_dir(dir, o->hz, &cal, err, errlen))
		return -1;
	params_defaults(&p);
	if (calibration_apply(&cal, &p, err, errlen))
		return -1;
	snprintf(vr->case_name, sizeof(vr->case_name), "%s/%s", cal.c.group, cal.c.name);
	int run = 1;
	for (int i = 0; i < o->nprev; i++)
		run += !strcmp(o->prev[i].case_name, vr->case_name);
	vr->run = run;
	struct sim_job j = { .c = cal.c, .model = throttle_lookup("current"), .kernel_name = "current",
			     .p = &p, .seed = o->seed, .run = run, .runtime = cal.runtime_s,
			     .out = o->out, .no_trace = 0 };
	/* the result's cmdline is the `wblab sim` that remakes it, calibration
	 * and all (rerun reads it), not the validate command */
	char sets[CAL_MAX_SETS][CAL_SET_LEN];
	const char *setp[CAL_MAX_SETS];
	int nsets = calibration_sets(&cal, sets);
	for (int i = 0; i < nsets; i++)
		setp[i] = sets[i];
	if (j.model && !(j.argv = sim_job_cmdline(&j, setp, nsets, &j.argc))) {
		snprintf(err, errlen, "%s: out of memory", dir);
		return -1;
	}
	int failed = !j.model || simulate_one(&j);
	sim_jobs_free_cmdlines(&j, 1);
	if (failed) {
		snprintf(err, errlen, "%s: the simulation failed", dir);
		return -1;
	}
	char leaf[600];
	result_name_format(leaf, sizeof(leaf), cal.c.name, "current", run);
	snprintf(vr->sim_dir, sizeof(vr->sim_dir), "%s/%s/%s", o->out, cal.c.group, leaf);
	double real[VALIDATE_METRICS], sim[VALIDATE_METRICS];
	if (collect(dir, real, err, errlen) || collect(vr->sim_dir, sim, err, errlen))
		return -1;
	for (int i = 0; i < VALIDATE_METRICS; i++)
		vr->m[i] = (struct validate_metric){
			metric_ids[i] >= 0 ? metric_table[metric_ids[i]].name : "device_bw", real[i],
			sim[i], metric_tol[i] };
	return 0;
}

double validate_ratio(const struct validate_metric *m)
{
	return m->real != 0 && isfinite(m->real) && isfinite(m->sim) ? m->sim / m->real : NAN;
}

/* A marked metric misses when its ratio is off by more than the tolerance,
 * or when only one of the runs measured it (the real writer paused 140
 * times, the simulated one never): that is a disagreement, not a gap.
 * Neither measuring it (neither paused) is agreement. */
static int metric_missed(const struct validate_metric *m)
{
	double r = validate_ratio(m);
	if (m->tolerance <= 0)
		return 0;
	if (isfinite(m->real) != isfinite(m->sim))
		return 1;
	if (isfinite(m->real) && m->real == 0)
		return m->sim != 0;     /* no ratio, but 0 against something is off */
	return isfinite(r) && fabs(r - 1) > m->tolerance;
}

/* v in fmt, or "n/a" in width when it was not measured */
static void put_value(FILE *f, double v, const char *fmt, int width)
{
	if (isfinite(v))
		fprintf(f, fmt, v);
	else
		fprintf(f, "%*s", width, "n/a");
}

void validate_print_table(FILE *f, const struct validate_result *vr, int n)
{
	for (int i = 0; i < n; i++) {
		/* a case's second real result in one call: say which simulation it is */
		if (vr[i].run > 1)
			fprintf(f, "%s (real result %d of it: simulated as current.%d)\n", vr[i].case_name,
				vr[i].run, vr[i].run);
		else
			fprintf(f, "%s\n", vr[i].case_name);
		fprintf(f, "  %-28s %14s %14s %8s\n", "metric", "real", "sim", "sim/real");
		for (int k = 0; k < VALIDATE_METRICS; k++) {
			const struct validate_metric *m = &vr[i].m[k];
			double r = validate_ratio(m);
			const char *mark = "";
			if (m->tolerance > 0)
				mark = metric_missed(m) ? "  MISS" : !isfinite(r) ? "  n/a" : "  ok";
			fprintf(f, "  %-28s", m->name);
			put_value(f, m->real, " %14.4g", 15);
			put_value(f, m->sim, " %14.4g", 15);
			if (isfinite(r))
				fprintf(f, " %8.3f%s\n", r, mark);
			else
				fprintf(f, " %8s%s\n", "n/a", mark);
		}
	}
}

void validate_print_tsv(FILE *f, const struct validate_result *vr, int n)
{
	for (int i = 0; i < n; i++)
		for (int k = 0; k < VALIDATE_METRICS; k++) {
			const struct validate_metric *m = &vr[i].m[k];
			/* a case's Nth real result is GROUP/CASE.N, as its simulation's name */
			if (vr[i].run > 1)
				fprintf(f, "%s.%d\t%s\t", vr[i].case_name, vr[i].run, m->name);
			else
				fprintf(f, "%s\t%s\t", vr[i].case_name, m->name);
			put_value(f, m->real, "%.6g", 0);
			fputc('\t', f);
			put_value(f, m->sim, "%.6g", 0);
			fputc('\t', f);
			put_value(f, validate_ratio(m), "%.6g", 0);
			fputc('\n', f);
		}
}

int validate_misses(const struct validate_result *vr, int n)
{
	int misses = 0;
	for (int i = 0; i < n; i++)
		for (int k = 0; k < VALIDATE_METRICS; k++) {
			const struct validate_metric *m = &vr[i].m[k];
			misses += metric_missed(m);
		}
	return misses;
}
