#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "validate.h"
#include "calibrate.h"
#include "../result/result.h"
#include "../sim/simulate.h"
#include "../throttle/throttle.h"
#include "../trace/trace_read.h"
#include "../util/util.h"

struct level { double value, weight; };

static int cmp_level(const void *a, const void *b)
{
	double x = ((const struct level *)a)->value, y = ((const struct level *)b)->value;
	return x < y ? -1 : x > y;
}

/* nearest-rank over time weights: each sample holds until the next */
static double weighted_p95(struct level *lv, size_t n)
{
	double total = 0, seen = 0;
	for (size_t i = 0; i < n; i++)
		total += lv[i].weight;
	if (!n || total <= 0)
		return n ? lv[n - 1].value : 0;
	qsort(lv, n, sizeof(*lv), cmp_level);
	for (size_t i = 0; i < n; i++) {
		seen += lv[i].weight;
		if (seen >= 0.95 * total)
			return lv[i].value;
	}
	return lv[n - 1].value;
}

int trace_dirty_p95_and_steady_rl(const char *trace, double *p95, double *steady_rl,
				  char *err, size_t errlen)
{
	struct trace_reader *r = trace_reader_open(trace, err, errlen);
	if (!r)
		return -1;
	size_t n = 0, cap = 0, nrl = 0;
	struct level *lv = NULL;
	int64_t *rl_ts = NULL;
	double *rl = NULL;
	size_t rl_cap = 0;
	int64_t prev_ts = 0, first = -1, last = 0;
	struct wb_event e;
	int rc;
	while ((rc = trace_reader_next(r, &e, err, errlen)) == 1) {
		if (first < 0)
			first = e.ts_us;
		last = e.ts_us;
		if (e.type == EV_BALANCE_DIRTY_PAGES) {
			if (nrl == rl_cap) {
				rl_cap = rl_cap ? 2 * rl_cap : 1024;
				double *a = realloc(rl, rl_cap * sizeof(*rl));
				int64_t *b = realloc(rl_ts, rl_cap * sizeof(*rl_ts));
				rl = a ? a : rl;
				rl_ts = b ? b : rl_ts;
				if (!a || !b)
					goto oom;
			}
			rl[nrl] = (double)e.v[F_TASK_RATELIMIT];
			rl_ts[nrl++] = e.ts_us;
		}
		if (e.type != EV_GLOBAL_DIRTY_STATE)
			continue;
		if (n == cap) {
			cap = cap ? 2 * cap : 4096;
			struct level *a = realloc(lv, cap * sizeof(*lv));
			if (!a)
				goto oom;
			lv = a;
		}
		if (n)
			lv[n - 1].weight = (double)(e.ts_us - prev_ts);
		lv[n].value = (double)(e.v[F_DIRTY] + e.v[F_WRITEBACK] +
				       (wb_event_has(&e, F_UNSTABLE) ? e.v[F_UNSTABLE] : 0));
		lv[n++].weight = 0;
		prev_ts = e.ts_us;
	}
	trace_reader_close(r);
	*p95 = weighted_p95(lv, n);
	int64_t mid = first + (last - first) / 2;
	double sum = 0;
	size_t k = 0;
	for (size_t i = 0; i < nrl; i++)
		if (rl_ts[i] >= mid) {
			sum += rl[i];
			k++;
		}
	*steady_rl = k ? sum / (double)k : 0;
	free(lv);
	free(rl);
	free(rl_ts);
	return rc < 0 ? -1 : 0;
oom:
	trace_reader_close(r);
	free(lv);
	free(rl);
	free(rl_ts);
	snprintf(err, errlen, "out of memory reading %s", trace);
	return -1;
}

struct stat_want { const char *key; double v; };

static int stat_pick(void *arg, const char *key, const char *val)
{
	for (struct stat_want *w = arg; w->key; w++)
		if (strcmp(w->key, key) == 0)
			w->v = atof(val);
	return 0;
}

/* The stats-file metrics plus the two read from the trace. */
static int collect(const char *dir, double out[VALIDATE_METRICS], char *err, size_t errlen)
{
	char path[4400];
	struct stat_want w[] = { { "write_bw", 0 }, { "nr_dirty_mean_pages", 0 },
				 { "pause_ms_mean", 0 }, { "fairness_jain", 0 }, { NULL, 0 } };
	snprintf(path, sizeof(path), "%s/stats", dir);
	if (kv_read(path, stat_pick, w, err, errlen))
		return -1;
	snprintf(path, sizeof(path), "%s/trace", dir);
	double p95 = 0, srl = 0;
	if (trace_dirty_p95_and_steady_rl(path, &p95, &srl, err, errlen))
		return -1;
	out[0] = w[0].v;
	out[1] = w[1].v;
	out[2] = p95;
	out[3] = w[2].v;
	out[4] = srl;
	out[5] = w[3].v;
	return 0;
}

static const char *const metric_names[VALIDATE_METRICS] = {
	"write_bw", "nr_dirty_mean_pages", "nr_dirty_p95_pages", "pause_ms_mean",
	"task_ratelimit_steady_kbps", "fairness_jain",
};
/* the targets: write_bw 10%, mean dirty 15%, mean pause 25% */
static const double metric_tol[VALIDATE_METRICS] = { 0.10, 0.15, 0, 0.25, 0, 0 };

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
	struct sim_job j = { .c = cal.c, .model = throttle_lookup("current"), .kernel_name = "current",
			     .p = &p, .seed = o->seed, .runtime = cal.runtime_s, .out = o->out,
			     .no_trace = 0, .argc = o->argc, .argv = o->argv };
	if (!j.model || simulate_one(&j)) {
		snprintf(err, errlen, "%s: the simulation failed", dir);
		return -1;
	}
	snprintf(vr->sim_dir, sizeof(vr->sim_dir), "%s/%s/%s-current", o->out, cal.c.group, cal.c.name);
	double real[VALIDATE_METRICS], sim[VALIDATE_METRICS];
	if (collect(dir, real, err, errlen) || collect(vr->sim_dir, sim, err, errlen))
		return -1;
	for (int i = 0; i < VALIDATE_METRICS; i++)
		vr->m[i] = (struct validate_metric){ metric_names[i], real[i], sim[i], metric_tol[i] };
	return 0;
}

double validate_ratio(const struct validate_metric *m)
{
	return m->real != 0 ? m->sim / m->real : NAN;
}

void validate_print_table(FILE *f, const struct validate_result *vr, int n)
{
	for (int i = 0; i < n; i++) {
		fprintf(f, "%s\n  %-28s %14s %14s %8s\n", vr[i].case_name, "metric", "real", "sim",
			"sim/real");
		for (int k = 0; k < VALIDATE_METRICS; k++) {
			const struct validate_metric *m = &vr[i].m[k];
			double r = validate_ratio(m);
			const char *mark = "";
			if (m->tolerance > 0)
				mark = isfinite(r) && fabs(r - 1) <= m->tolerance ? "  ok" : "  MISS";
			fprintf(f, "  %-28s %14.4g %14.4g %8.3f%s\n", m->name, m->real, m->sim, r, mark);
		}
	}
}

void validate_print_tsv(FILE *f, const struct validate_result *vr, int n)
{
	for (int i = 0; i < n; i++)
		for (int k = 0; k < VALIDATE_METRICS; k++) {
			const struct validate_metric *m = &vr[i].m[k];
			fprintf(f, "%s\t%s\t%.6g\t%.6g\t%.6g\n", vr[i].case_name, m->name, m->real, m->sim,
				validate_ratio(m));
		}
}
