/* wblab plot: series extraction, display decimation, gnuplot data and scripts.
 * See plot.h for the contract and docs/plot-report.md for the graphs. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "../trace/dat_read.h"
#include "decimate.h"
#include "plot.h"
#include "stats.h"
#include "../result/result.h"
#include "../trace/trace_read.h"
#include "../util/util.h"

/* ---- decimation ------------------------------------------------------------ */

void plot_series_init(struct plot_series *s, int max_points)
{
	memset(s, 0, sizeof(*s));
	s->max_points = max_points <= 0 ? PLOT_MAX_POINTS : max_points < 4 ? 4 : max_points;
	s->width0 = 1;
}

void plot_series_expect_span(struct plot_series *s, int64_t span_us)
{
	int64_t cap = s->max_points / 2, w = 1;
	while (span_us > 0 && span_us / w >= cap && w < (INT64_C(1) << 52))
		w *= 2;
	s->width0 = w;
}

void plot_series_free(struct plot_series *s)
{
	free(s->b);
	s->b = NULL;
	s->cap = 0;
}

static inline __attribute__((always_inline)) void bucket_put(struct plot_bucket *b, int64_t t, double v)
{
	if (!b->n || v < b->vmin) {
		b->vmin = v;
		b->tmin = t;
	}
	if (!b->n || v > b->vmax) {
		b->vmax = v;
		b->tmax = t;
	}
	b->n++;
}

static void bucket_merge(struct plot_bucket *d, const struct plot_bucket *a)
{
	if (!a->n)
		return;
	if (!d->n) {
		*d = *a;
		return;
	}
	bucket_put(d, a->tmin, a->vmin);
	bucket_put(d, a->tmax, a->vmax);
	d->n += a->n - 2;
}

/* bucket_put for a bucket that has points: vmin <= vmax, so a new point is
 * below, above or between them (one or two compares) */
static inline __attribute__((always_inline)) void bucket_put_more(struct plot_bucket *b, int64_t t,
								   double v)
{
	if (v < b->vmin) {
		b->vmin = v;
		b->tmin = t;
	} else if (v > b->vmax) {
		b->vmax = v;
		b->tmax = t;
	}
	b->n++;
}

#define PLOT_T_LIMIT (INT64_C(1) << 53)

/* Doubles the bucket width: bucket i takes buckets 2i and 2i+1. */
static void series_coarsen(struct plot_series *s)
{
	int half = (s->used + 1) / 2;
	for (int i = 0; i < half; i++) {
		struct plot_bucket m = s->b[2 * i];
		if (2 * i + 1 < s->used)
			bucket_merge(&m, &s->b[2 * i + 1]);
		s->b[i] = m;
	}
	/* buckets from `used` on are not read: plot_series_add clears each
	 * one as `used` grows over it */
	s->used = half;
	s->width *= 2;
	s->last_hi = s->last_lo = 0;    /* the cached bucket moved */
}

int plot_series_add(struct plot_series *s, int64_t t, double v)
{
	/* no trace has a timestamp beyond +-2^53 us (285 years): such a point is
	 * not drawn, which keeps t - t0 and t0 + i * width far from overflow (a
	 * saved series holding one is an error, plot_run_load_series) */
	if (t < -PLOT_T_LIMIT || t > PLOT_T_LIMIT)
		return 0;
	if (!s->b) {
		s->cap = s->max_points / 2;
		s->b = malloc((size_t)s->cap * sizeof(*s->b));   /* cleared as used */
		s->used = 0;
		if (!s->b)
			return -1;
		s->t0 = t;
		s->width = s->width0 > 0 ? s->width0 : 1;
	}
	/* (the common case, a point in the cached bucket, is series_add's) */
	/* Out-of-order timestamps (per-CPU buffers) before the start go to bucket 0. */
	int64_t i = t <= s->t0 ? 0 : (t - s->t0) / s->width;
	while (i >= s->cap) {
		series_coarsen(s);
		i = (t - s->t0) / s->width;
	}
	if (i >= s->used) {
		memset(s->b + s->used, 0, (size_t)(i + 1 - s->used) * sizeof(*s->b));
		s->used = (int)i + 1;
	}
	bucket_put(&s->b[i], t, v);
	s->last = (int)i;
	/* bucket 0 takes all earlier; the span is kept within +-2^53 so that
	 * a point inside it is a point plot_series_add takes (series_add) */
	s->last_lo = i ? s->t0 + i * s->width : -PLOT_T_LIMIT;
	s->last_hi = s->t0 + (i + 1) * s->width;
	if (s->last_hi > PLOT_T_LIMIT)
		s->last_hi = PLOT_T_LIMIT + 1;
	s->fed++;
	return 0;
}

/* plot_series_add's common case inline: the point falls in the bucket of
 * the previous one (the simulator feeds every event, several series each) */
static inline __attribute__((always_inline)) int series_add(struct plot_series *s, int64_t t, double v)
{
	/* an empty span (0, 0) until the first point and after coarsening */
	if (t >= s->last_lo && t < s->last_hi) {
		bucket_put_more(&s->b[s->last], t, v);   /* the cached bucket has points */
		s->fed++;
		return 0;
	}
	return plot_series_add(s, t, v);
}

/* A bucket's points in time order: its min and max, or one point when
 * they coincide; returns how many (0 for an empty bucket). */
static inline __attribute__((always_inline)) int bucket_npoints(const struct plot_bucket *b)
{
	return !b->n ? 0 : b->n == 1 || (b->tmin == b->tmax && b->vmin == b->vmax) ? 1 : 2;
}

static inline __attribute__((always_inline)) int bucket_points(const struct plot_bucket *b, int64_t t[2],
							       double v[2])
{
	int np = bucket_npoints(b);
	if (!np)
		return 0;
	int min_first = b->tmin <= b->tmax;
	t[0] = min_first ? b->tmin : b->tmax;
	v[0] = min_first ? b->vmin : b->vmax;
	t[1] = min_first ? b->tmax : b->tmin;
	v[1] = min_first ? b->vmax : b->vmin;
	return np;
}

size_t plot_series_each(const struct plot_series *s,
			int (*cb)(void *arg, int64_t t_us, double v), void *arg)
{
	size_t n = 0;
	int64_t t[2];
	double v[2];
	for (int i = 0; i < s->used; i++)
		for (int k = 0, np = bucket_points(&s->b[i], t, v); k < np; k++) {
			n++;
			if (cb(arg, t[k], v[k]))
				return n;
		}
	return n;
}

/* ---- graph and series definitions ----------------------------------------- */

struct gdef {
	const char *name, *ylabel, *y2label;
	int y2log;
	const char *missing;    /* why it is skipped */
};

static const struct gdef gdefs[PG_COUNT] = {
	[PG_GLOBAL_DIRTY_STATE] = { "global_dirty_state", "MB", NULL, 0,
				    "no global_dirty_state events" },
	[PG_GLOBAL_DIRTIED_WRITTEN] = { "global_dirtied_written", "MB since the first event", NULL,
					0, "no global_dirty_state events with dirtied/written" },
	[PG_BDP_PAGES] = { "balance_dirty_pages-pages", "MB", "ratelimit (MB/s, log2)", 1,
			   "no balance_dirty_pages events" },
	[PG_BDP_BANDWIDTH] = { "balance_dirty_pages-bandwidth", "MB/s", NULL, 0,
			       "no bdi_dirty_ratelimit events" },
	[PG_BDP_PAUSE] = { "balance_dirty_pages-pause", "ms", "pages", 0,
			   "no balance_dirty_pages events" },
	[PG_BDP_TASK_BW] = { "balance_dirty_pages-task-bw", "MB dirtied (cumulative)", NULL, 0,
			     "no balance_dirty_pages events from writer tasks" },
	[PG_NFS_COMMIT] = { "nfs-commit", "MB", NULL, 0,
			    "no nfs_commit_unstable_pages/nfs_commit_release events" },
	[PG_FILE_PROGRESS] = { "writeback-file-progress", "MB written back (file offset)", NULL, 0,
			       "no writeback_single_inode events with index" },
};

enum sid {
	S_LIMIT, S_THRESH, S_BG, S_DIRTY, S_WRITEBACK, S_UNSTABLE, S_SUM,
	S_DIRTIED, S_WRITTEN,
	S_P_LIMIT, S_P_SETPOINT, S_P_DIRTY, S_P_BDI_SETPOINT, S_P_BDI_DIRTY,
	S_P_TASK_RL, S_P_DIRTY_RL, S_P_BALANCED_RL,
	S_B_WRITE_BW, S_B_AWRITE_BW, S_B_TASK_RL, S_B_BALANCED, S_B_DIRTY_RL,
	S_PAUSE, S_PAUSED, S_DIRTIED_EV, S_DIRTIED_PAUSE,
	S_N_COMMIT, S_N_CHUNK, S_N_RELEASE,
	S_COUNT
};

struct sdef {
	enum plot_graph g;
	const char *title;
	int y2;
	const char *with;       /* gnuplot style after "with" */
	const char *color;
};

#define PTS "points pt 7 ps 0.4"
static const struct sdef sdefs[S_COUNT] = {
	[S_LIMIT] = { PG_GLOBAL_DIRTY_STATE, "limit", 0, "lines lw 2", "#d62728" },
	[S_THRESH] = { PG_GLOBAL_DIRTY_STATE, "thresh", 0, "lines lw 2", "#ff7f0e" },
	[S_BG] = { PG_GLOBAL_DIRTY_STATE, "bg_thresh", 0, "lines lw 2", "#bcbd22" },
	[S_DIRTY] = { PG_GLOBAL_DIRTY_STATE, "dirty", 0, "lines", "#1f77b4" },
	[S_WRITEBACK] = { PG_GLOBAL_DIRTY_STATE, "writeback", 0, "lines", "#2ca02c" },
	[S_UNSTABLE] = { PG_GLOBAL_DIRTY_STATE, "unstable", 0, "lines", "#9467bd" },
	[S_SUM] = { PG_GLOBAL_DIRTY_STATE, "dirty+writeback+unstable", 0, "lines", "#000000" },
	[S_DIRTIED] = { PG_GLOBAL_DIRTIED_WRITTEN, "dirtied", 0, "lines lw 2", "#1f77b4" },
	[S_WRITTEN] = { PG_GLOBAL_DIRTIED_WRITTEN, "written", 0, "lines lw 2", "#2ca02c" },
	[S_P_LIMIT] = { PG_BDP_PAGES, "limit", 0, "lines lw 2", "#d62728" },
	[S_P_SETPOINT] = { PG_BDP_PAGES, "setpoint", 0, "lines lw 2", "#ff7f0e" },
	[S_P_DIRTY] = { PG_BDP_PAGES, "dirty", 0, "lines", "#1f77b4" },
	[S_P_BDI_SETPOINT] = { PG_BDP_PAGES, "bdi setpoint", 0, "lines", "#8c564b" },
	[S_P_BDI_DIRTY] = { PG_BDP_PAGES, "bdi dirty", 0, "lines", "#17becf" },
	[S_P_TASK_RL] = { PG_BDP_PAGES, "task ratelimit", 1, PTS, "#e377c2" },
	[S_P_DIRTY_RL] = { PG_BDP_PAGES, "dirty ratelimit", 1, "steps lw 2", "#2ca02c" },
	[S_P_BALANCED_RL] = { PG_BDP_PAGES, "balanced ratelimit", 1, PTS, "#9467bd" },
	[S_B_WRITE_BW] = { PG_BDP_BANDWIDTH, "write bandwidth", 0, "lines", "#1f77b4" },
	[S_B_AWRITE_BW] = { PG_BDP_BANDWIDTH, "avg write bandwidth", 0, "lines lw 2", "#17becf" },
	[S_B_TASK_RL] = { PG_BDP_BANDWIDTH, "task ratelimit", 0, PTS, "#e377c2" },
	[S_B_BALANCED] = { PG_BDP_BANDWIDTH, "balanced dirty ratelimit", 0, PTS, "#9467bd" },
	[S_B_DIRTY_RL] = { PG_BDP_BANDWIDTH, "dirty ratelimit", 0, "steps lw 2", "#2ca02c" },
	[S_PAUSE] = { PG_BDP_PAUSE, "pause", 0, PTS, "#d62728" },
	[S_PAUSED] = { PG_BDP_PAUSE, "paused", 0, PTS, "#ff7f0e" },
	[S_DIRTIED_EV] = { PG_BDP_PAUSE, "dirtied", 1, PTS, "#1f77b4" },
	[S_DIRTIED_PAUSE] = { PG_BDP_PAUSE, "dirtied_pause (target)", 1, "steps", "#2ca02c" },
	[S_N_COMMIT] = { PG_NFS_COMMIT, "send commit", 0, PTS, "#d62728" },
	[S_N_CHUNK] = { PG_NFS_COMMIT, "write chunk", 0, "steps", "#2ca02c" },
	[S_N_RELEASE] = { PG_NFS_COMMIT, "release commit", 0, PTS, "#1f77b4" },
};

static const char *const task_colors[PLOT_MAX_TASKS] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd",
	"#8c564b", "#e377c2", "#7f7f7f", "#bcbd22", "#17becf",
};

const char *plot_graph_name(enum plot_graph g)
{
	return g < PG_COUNT ? gdefs[g].name : "?";
}

int plot_graph_lookup(const char *name)
{
	for (int g = 0; g < PG_COUNT; g++)
		if (!strcmp(gdefs[g].name, name))
			return g;
	return -1;
}

/* ---- extraction ------------------------------------------------------------- */

struct task {
	int pid;
	uint64_t ino;           /* the file-progress lines: the inode (any 64-bit number) */
	char title[WB_COMM_LEN + 16];
	int64_t base;           /* nr_dirtied already counted (not reset since) */
	double pages;           /* cumulative pages dirtied */
	struct plot_series s;
};

struct plot_run {
	char label[128];
	int max_points;
	int64_t span_us;        /* plot_run_expect_span's, 0: none */
	int have_t0;
	int64_t t0;
	uint64_t nev[EV_TYPE_COUNT];
	uint64_t events;
	struct plot_series s[S_COUNT];
	int bdp_pid;
	int have_dw0;
	int64_t dirtied0, written0;
	int ntasks;
	struct task tasks[PLOT_MAX_TASKS];
	int ninodes;
	struct task inodes[PLOT_MAX_TASKS];     /* pid holds the inode number */
};

#define PAGES_TO_MB ((double)PAGE_SIZE_BYTES / 1048576.0)

struct plot_run *plot_run_new(const char *label, int max_points)
{
	struct plot_run *r = calloc(1, sizeof(*r));
	if (!r)
		return NULL;
	snprintf(r->label, sizeof(r->label), "%s", label ? label : "");
	r->max_points = max_points;
	for (int i = 0; i < S_COUNT; i++)
		plot_series_init(&r->s[i], max_points);
	return r;
}

void plot_run_expect_span(struct plot_run *r, int64_t span_us)
{
	r->span_us = span_us;
	for (int i = 0; i < S_COUNT; i++)
		plot_series_expect_span(&r->s[i], span_us);
}

/* a task's or file's series: a quarter of the points (cumulative lines only rise) */
static void run_series_init(const struct plot_run *r, struct plot_series *s)
{
	int mp = r->max_points > 0 ? r->max_points : PLOT_MAX_POINTS;
	plot_series_init(s, mp / 4);
	if (r->span_us > 0)
		plot_series_expect_span(s, r->span_us);
}

void plot_run_free(struct plot_run *r)
{
	if (!r)
		return;
	for (int i = 0; i < S_COUNT; i++)
		plot_series_free(&r->s[i]);
	for (int i = 0; i < r->ntasks; i++)
		plot_series_free(&r->tasks[i].s);
	for (int i = 0; i < r->ninodes; i++)
		plot_series_free(&r->inodes[i].s);
	free(r);
}

/* The feeders stay out of line: plot_run_feed then dispatches by tail
 * call, without saving registers for the many events no graph shows. */
#define NOINLINE __attribute__((noinline))

/* Adds field f of e, scaled, to series id when the event carries it. */
static inline __attribute__((always_inline)) int put(struct plot_run *r, enum sid id,
						      const struct wb_event *e, enum wb_field f,
						      double scale)
{
	if (!wb_event_has(e, f))
		return 0;
	return series_add(&r->s[id], e->ts_us, (double)e->v[f] * scale);
}

static NOINLINE int feed_gds(struct plot_run *r, const struct wb_event *e)
{
	int rc = put(r, S_DIRTY, e, F_DIRTY, PAGES_TO_MB) | put(r, S_WRITEBACK, e, F_WRITEBACK, PAGES_TO_MB) |
		 put(r, S_UNSTABLE, e, F_UNSTABLE, PAGES_TO_MB) | put(r, S_BG, e, F_BG_THRESH, PAGES_TO_MB) |
		 put(r, S_THRESH, e, F_THRESH, PAGES_TO_MB) | put(r, S_LIMIT, e, F_LIMIT, PAGES_TO_MB);
	/* 6.x dropped unstable: the sum is then dirty + writeback. */
	double sum = (double)(e->v[F_DIRTY] + e->v[F_WRITEBACK]) +
		     (wb_event_has(e, F_UNSTABLE) ? (double)e->v[F_UNSTABLE] : 0);
	if (wb_event_has(e, F_DIRTY) && wb_event_has(e, F_WRITEBACK))
		rc |= series_add(&r->s[S_SUM], e->ts_us, sum * PAGES_TO_MB);
	if (!wb_event_has(e, F_DIRTIED) || !wb_event_has(e, F_WRITTEN))
		return rc;
	/* The counters run since boot on a real kernel: show them from the start. */
	if (!r->have_dw0) {
		r->have_dw0 = 1;
		r->dirtied0 = e->v[F_DIRTIED];
		r->written0 = e->v[F_WRITTEN];
	}
	rc |= series_add(&r->s[S_DIRTIED], e->ts_us,
			      (double)(e->v[F_DIRTIED] - r->dirtied0) * PAGES_TO_MB);
	rc |= series_add(&r->s[S_WRITTEN], e->ts_us,
			      (double)(e->v[F_WRITTEN] - r->written0) * PAGES_TO_MB);
	return rc;
}

static struct task *task_get(struct plot_run *r, const struct wb_event *e)
{
	for (int i = 0; i < r->ntasks; i++)
		if (r->tasks[i].pid == e->pid)
			return &r->tasks[i];
	if (r->ntasks == PLOT_MAX_TASKS)
		return NULL;
	struct task *t = &r->tasks[r->ntasks++];
	memset(t, 0, sizeof(*t));
	t->pid = e->pid;
	snprintf(t->title, sizeof(t->title), "%s-%d", e->comm[0] ? e->comm : "task", e->pid);
	run_series_init(r, &t->s);
	return t;
}

/* balance_dirty_pages' `dirtied` is the task's nr_dirtied, reset to 0 after
 * the call on 3.2 (always) and on 3.3+ (period printed) after a sleep or when
 * period != 0; otherwise the next event counts on from it. */
static int feed_task(struct plot_run *r, const struct wb_event *e)
{
	if (!wb_event_has(e, F_DIRTIED) || stats_is_flusher(e->comm))
		return 0;
	struct task *t = task_get(r, e);
	if (!t)
		return 0;
	int64_t d = e->v[F_DIRTIED];
	t->pages += (double)(d >= t->base ? d - t->base : d);
	int reset = !wb_event_has(e, F_PERIOD) || e->v[F_PERIOD] != 0 ||
		    (wb_event_has(e, F_PAUSE) && e->v[F_PAUSE] < -1000);
	t->base = reset ? 0 : d;
	return series_add(&t->s, e->ts_us, t->pages * PAGES_TO_MB);
}

static NOINLINE int feed_bdp(struct plot_run *r, const struct wb_event *e)
{
	int rc = feed_task(r, e);
	if (!r->bdp_pid && !stats_is_flusher(e->comm))
		r->bdp_pid = e->pid;
	if (e->pid != r->bdp_pid)
		return rc;
	const double kbps = 1.0 / 1024;
	rc |= put(r, S_P_LIMIT, e, F_LIMIT, PAGES_TO_MB) | put(r, S_P_SETPOINT, e, F_SETPOINT, PAGES_TO_MB) |
	      put(r, S_P_DIRTY, e, F_DIRTY, PAGES_TO_MB) |
	      put(r, S_P_BDI_SETPOINT, e, F_BDI_SETPOINT, PAGES_TO_MB) |
	      put(r, S_P_BDI_DIRTY, e, F_BDI_DIRTY, PAGES_TO_MB) |
	      put(r, S_P_TASK_RL, e, F_TASK_RATELIMIT, kbps) |
	      put(r, S_P_DIRTY_RL, e, F_DIRTY_RATELIMIT, kbps);
	rc |= put(r, S_PAUSE, e, F_PAUSE, 1) | put(r, S_PAUSED, e, F_PAUSED, 1) |
	      put(r, S_DIRTIED_EV, e, F_DIRTIED, 1) | put(r, S_DIRTIED_PAUSE, e, F_DIRTIED_PAUSE, 1);
	return rc;
}

static NOINLINE int feed_bdr(struct plot_run *r, const struct wb_event *e)
{
	const double kbps = 1.0 / 1024;
	return put(r, S_B_WRITE_BW, e, F_WRITE_BW, kbps) | put(r, S_B_AWRITE_BW, e, F_AWRITE_BW, kbps) |
	       put(r, S_B_TASK_RL, e, F_TASK_RATELIMIT, kbps) |
	       put(r, S_B_BALANCED, e, F_BALANCED_DIRTY_RATELIMIT, kbps) |
	       put(r, S_B_DIRTY_RL, e, F_DIRTY_RATELIMIT, kbps) |
	       put(r, S_P_BALANCED_RL, e, F_BALANCED_DIRTY_RATELIMIT, kbps);
}

/* As writeback-tests' nfs-commit plot: calls that sent no COMMIT (ret=0) are left out. */
static NOINLINE int feed_nfs_commit(struct plot_run *r, const struct wb_event *e)
{
	if (!wb_event_has(e, F_RET) || e->v[F_RET] <= 0)
		return 0;
	return put(r, S_N_COMMIT, e, F_RET, PAGES_TO_MB) | put(r, S_N_CHUNK, e, F_WRITE_CHUNK, PAGES_TO_MB);
}

static NOINLINE int feed_nfs_release(struct plot_run *r, const struct wb_event *e)
{
	return put(r, S_N_RELEASE, e, F_LEN, PAGES_TO_MB);
}

/* writeback_single_inode's index is where writeback stands in the file: with
 * one writer per file (dd), each file's line is its writer's progress as
 * written back, the task progress a 3.1 trace shows (it has no per-task
 * dirtied counts).  The first PLOT_MAX_TASKS inodes are followed. */
static NOINLINE int feed_wsi(struct plot_run *r, const struct wb_event *e)
{
	if (!wb_event_has(e, F_INO) || !wb_event_has(e, F_INDEX))
		return 0;
	struct task *t = NULL;
	for (int i = 0; i < r->ninodes && !t; i++)
		if (r->inodes[i].ino == (uint64_t)e->v[F_INO])
			t = &r->inodes[i];
	if (!t) {
		if (r->ninodes == PLOT_MAX_TASKS)
			return 0;
		t = &r->inodes[r->ninodes++];
		memset(t, 0, sizeof(*t));
		t->ino = (uint64_t)e->v[F_INO];
		snprintf(t->title, sizeof(t->title), "ino %llu", (unsigned long long)t->ino);
		run_series_init(r, &t->s);
	}
	return series_add(&t->s, e->ts_us, (double)e->v[F_INDEX] * PAGES_TO_MB);
}

int plot_run_feed(struct plot_run *r, const struct wb_event *e)
{
	if (!r->have_t0) {
		r->have_t0 = 1;
		r->t0 = e->ts_us;
	}
	r->events++;
	if (e->type > EV_UNKNOWN && e->type < EV_TYPE_COUNT)
		r->nev[e->type]++;
	switch (e->type) {
	case EV_GLOBAL_DIRTY_STATE:
		return feed_gds(r, e);
	case EV_BALANCE_DIRTY_PAGES:
		return feed_bdp(r, e);
	case EV_BDI_DIRTY_RATELIMIT:
		return feed_bdr(r, e);
	case EV_NFS_COMMIT_UNSTABLE_PAGES:
		return feed_nfs_commit(r, e);
	case EV_NFS_COMMIT_RELEASE:
		return feed_nfs_release(r, e);
	case EV_WRITEBACK_SINGLE_INODE:
		return feed_wsi(r, e);
	default:
		return 0;
	}
}

int plot_run_load(struct plot_run *r, const char *trace, char *err, size_t errlen)
{
	struct trace_reader *tr = trace_reader_open_result(trace, err, errlen);
	if (!tr)
		return -1;
	struct wb_event e;
	int rc;
	while ((rc = trace_reader_next(tr, &e, err, errlen)) == 1) {
		if (plot_run_feed(r, &e)) {
			snprintf(err, errlen, "%s: out of memory", trace);
			rc = -1;
			break;
		}
	}
	trace_reader_close(tr);
	return rc < 0 ? -1 : 0;
}

int64_t plot_run_t0(const struct plot_run *r)
{
	return r->t0;
}

int plot_run_bdp_pid(const struct plot_run *r)
{
	return r->bdp_pid;
}

int plot_run_has(const struct plot_run *r, enum plot_graph g)
{
	switch (g) {
	case PG_GLOBAL_DIRTY_STATE:
		return r->nev[EV_GLOBAL_DIRTY_STATE] > 0;
	case PG_GLOBAL_DIRTIED_WRITTEN:
		return r->s[S_DIRTIED].fed > 0;
	case PG_BDP_PAGES:
	case PG_BDP_PAUSE:
		return r->bdp_pid != 0;
	case PG_BDP_BANDWIDTH:
		return r->nev[EV_BDI_DIRTY_RATELIMIT] > 0;
	case PG_BDP_TASK_BW:
		return r->ntasks > 0;
	case PG_NFS_COMMIT:
		return r->s[S_N_COMMIT].fed + r->s[S_N_RELEASE].fed > 0;
	case PG_FILE_PROGRESS:
		return r->ninodes > 0;
	default:
		return 0;
	}
}

const char *plot_run_missing(const struct plot_run *r, enum plot_graph g)
{
	(void)r;
	return g < PG_COUNT ? gdefs[g].missing : "unknown graph";
}

const struct plot_series *plot_run_series(const struct plot_run *r, enum plot_graph g,
					  const char *title)
{
	if (g == PG_BDP_TASK_BW || g == PG_FILE_PROGRESS) {
		const struct task *t = g == PG_FILE_PROGRESS ? r->inodes : r->tasks;
		int n = g == PG_FILE_PROGRESS ? r->ninodes : r->ntasks;
		for (int i = 0; i < n; i++)
			if (!strcmp(t[i].title, title))
				return &t[i].s;
		return NULL;
	}
	for (int i = 0; i < S_COUNT; i++)
		if (sdefs[i].g == g && !strcmp(sdefs[i].title, title))
			return r->s[i].fed ? &r->s[i] : NULL;
	return NULL;
}

/* ---- saved series ------------------------------------------------------------ */

/* Series ids in the file: the sdefs index names, tasks by "task PID TITLE". */
static const char *const sid_names[S_COUNT] = {
	[S_LIMIT] = "limit", [S_THRESH] = "thresh", [S_BG] = "bg_thresh", [S_DIRTY] = "dirty",
	[S_WRITEBACK] = "writeback", [S_UNSTABLE] = "unstable", [S_SUM] = "sum",
	[S_DIRTIED] = "dirtied", [S_WRITTEN] = "written",
	[S_P_LIMIT] = "p_limit", [S_P_SETPOINT] = "p_setpoint", [S_P_DIRTY] = "p_dirty",
	[S_P_BDI_SETPOINT] = "p_bdi_setpoint", [S_P_BDI_DIRTY] = "p_bdi_dirty",
	[S_P_TASK_RL] = "p_task_ratelimit", [S_P_DIRTY_RL] = "p_dirty_ratelimit",
	[S_P_BALANCED_RL] = "p_balanced_ratelimit",
	[S_B_WRITE_BW] = "b_write_bw", [S_B_AWRITE_BW] = "b_avg_write_bw",
	[S_B_TASK_RL] = "b_task_ratelimit", [S_B_BALANCED] = "b_balanced",
	[S_B_DIRTY_RL] = "b_dirty_ratelimit",
	[S_PAUSE] = "pause", [S_PAUSED] = "paused", [S_DIRTIED_EV] = "dirtied_ev",
	[S_DIRTIED_PAUSE] = "dirtied_pause",
	[S_N_COMMIT] = "n_commit", [S_N_CHUNK] = "n_chunk", [S_N_RELEASE] = "n_release",
};

/* lines gathered in a buffer: one fwrite per 64 KiB, not one per point */
struct save_ctx {
	FILE *f;
	size_t n;
	/* the last value and its text: a limit or threshold line repeats one
	 * value for every column, and formatting it is most of a point's cost */
	uint64_t last_bits;
	int last_len;
	char last[32];
	char buf[65536];
};

static void save_flush(struct save_ctx *c)
{
	if (c->n)
		fwrite(c->buf, 1, c->n, c->f);
	c->n = 0;
}

static inline __attribute__((always_inline)) int save_point(void *arg, int64_t t, double v)
{
	struct save_ctx *c = arg;
	if (c->n > sizeof(c->buf) - 64)
		save_flush(c);
	char *line = c->buf + c->n;   /* "%lld %.9g\n" without printf: a third of a short run went into it */
	int n = fmt_lld(line, (long long)t);
	line[n++] = ' ';
	uint64_t bits;
	memcpy(&bits, &v, sizeof(bits));
	if (c->last_len < 0 || bits != c->last_bits) {
		c->last_len = fmt_g9(c->last, v);
		c->last_bits = bits;
	}
	memcpy(line + n, c->last, sizeof(c->last));   /* fmt_g9 writes at most 31 bytes and a NUL */
	n += c->last_len;
	line[n++] = '\n';
	c->n += (size_t)n;
	return 0;
}

/* plot_series_each's points, counted and written without a callback per
 * point (the series file is a large part of a short run's trace cost) */
static void save_series(struct save_ctx *c, const char *id, const struct plot_series *ps)
{
	int64_t t[2];
	double v[2];
	size_t n = 0;
	for (int i = 0; i < ps->used; i++)
		n += (size_t)bucket_npoints(&ps->b[i]);
	save_flush(c);
	fprintf(c->f, "series %s %llu %zu\n", id, (unsigned long long)ps->fed, n);
	for (int i = 0; i < ps->used; i++)
		for (int k = 0, np = bucket_points(&ps->b[i], t, v); k < np; k++)
			save_point(c, t[k], v[k]);
	save_flush(c);
}

int plot_run_save(const struct plot_run *r, const char *path, long long trace_bytes)
{
	FILE *f = fopen(path, "w");
	struct save_ctx *c = malloc(sizeof(*c));
	if (!f || !c) {
		if (f)
			fclose(f);
		free(c);
		return -1;
	}
	c->f = f;
	c->n = 0;
	c->last_len = -1;
	fprintf(f, "plot-series 1\ntrace_bytes %lld\nt0 %lld\nevents %llu\nbdp_pid %d\n", trace_bytes,
		(long long)r->t0, (unsigned long long)r->events, r->bdp_pid);
	for (int i = 1; i < EV_TYPE_COUNT; i++)
		if (r->nev[i])
			fprintf(f, "nev %s %llu\n", wb_event_name((enum wb_event_type)i),
				(unsigned long long)r->nev[i]);
	for (int i = 0; i < S_COUNT; i++)
		if (r->s[i].fed)
			save_series(c, sid_names[i], &r->s[i]);
	for (int i = 0; i < r->ntasks; i++) {
		char id[WB_COMM_LEN + 40];
		snprintf(id, sizeof(id), "task:%d:%s", r->tasks[i].pid, r->tasks[i].title);
		save_series(c, id, &r->tasks[i].s);
	}
	for (int i = 0; i < r->ninodes; i++) {
		char id[40];
		snprintf(id, sizeof(id), "ino:%llu", (unsigned long long)r->inodes[i].ino);
		save_series(c, id, &r->inodes[i].s);
	}
	free(c);
	int bad = ferror(f);
	return fclose(f) || bad ? -1 : 0;
}

static struct plot_series *series_by_id(struct plot_run *r, const char *id)
{
	for (int i = 0; i < S_COUNT; i++)
		if (!strcmp(sid_names[i], id))
			return &r->s[i];
	int pid = 0, n = 0;
	unsigned long long ino;
	struct task *t;
	if (sscanf(id, "ino:%llu%n", &ino, &n) == 1 && !id[n] && isdigit((unsigned char)id[4]) &&
	    r->ninodes < PLOT_MAX_TASKS) {
		t = &r->inodes[r->ninodes++];
		memset(t, 0, sizeof(*t));
		t->ino = ino;
		snprintf(t->title, sizeof(t->title), "ino %llu", ino);
	} else if (sscanf(id, "task:%d:%n", &pid, &n) == 1 && n && r->ntasks < PLOT_MAX_TASKS) {
		t = &r->tasks[r->ntasks++];
		memset(t, 0, sizeof(*t));
		snprintf(t->title, sizeof(t->title), "%s", id + n);
	} else {
		return NULL;
	}
	t->pid = pid;
	run_series_init(r, &t->s);
	return &t->s;
}

long long plot_series_trace_bytes(const char *path)
{
	char err[256], line[128];
	long long n = -1;
	FILE *f = fopen_regular(path, 1, err, sizeof(err));
	if (!f)
		return -1;
	if (fgets(line, sizeof(line), f) && !strcmp(line, "plot-series 1\n") &&
	    fgets(line, sizeof(line), f) && sscanf(line, "trace_bytes %lld", &n) != 1)
		n = -1;
	fclose(f);
	return n;
}

int plot_run_load_series(struct plot_run *r, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen_regular(path, 1, err, errlen);
	if (!f)
		return -1;
	char line[512];
	int lno = 0, rc = 0;
	struct plot_series *cur = NULL;
	unsigned long long left = 0, fed = 0;
	r->have_t0 = 1;
	while (!rc && fgets(line, sizeof(line), f)) {
		lno++;
		long long a;
		unsigned long long u;
		double v;
		char id[256];
		int ok = 1;
		if (left) {
			ok = sscanf(line, "%lld %lf", &a, &v) == 2 && isfinite(v) &&
			     a >= -PLOT_T_LIMIT && a <= PLOT_T_LIMIT;
			if (ok && plot_series_add(cur, a, v))
				ok = 0;
			if (ok && --left == 0)
				cur->fed = fed;
		} else if (lno == 1) {
			ok = !strcmp(line, "plot-series 1\n");
		} else if (sscanf(line, "trace_bytes %lld", &a) == 1) {
			/* read by plot_series_trace_bytes */
		} else if (sscanf(line, "t0 %lld", &a) == 1) {
			r->t0 = a;
			ok = a >= -PLOT_T_LIMIT && a <= PLOT_T_LIMIT;
		} else if (sscanf(line, "events %llu", &u) == 1) {
			r->events = u;
		} else if (sscanf(line, "bdp_pid %lld", &a) == 1) {
			r->bdp_pid = (int)a;
		} else if (sscanf(line, "nev %255s %llu", id, &u) == 2) {
			enum wb_event_type t = wb_event_lookup(id, (int)strlen(id));
			if (t > EV_UNKNOWN && t < EV_TYPE_COUNT)
				r->nev[t] = u;
		} else if (sscanf(line, "series %255s %llu %llu", id, &fed, &left) == 3) {
			cur = series_by_id(r, id);
			ok = cur && !cur->fed && fed >= left;
			if (ok && !left)
				cur->fed = fed;
		} else {
			ok = 0;
		}
		if (!ok) {
			snprintf(err, errlen, "%s:%d: not a plot-series line", path, lno);
			rc = -1;
		}
	}
	if (!rc && (left || lno == 0)) {
		snprintf(err, errlen, "%s: truncated", path);
		rc = -1;
	}
	fclose(f);
	return rc;
}

/* ---- data files and scripts ------------------------------------------------- */

/* Every graph has the same fixed plot area (margins set in the script, at
 * screen fractions), so the pixel grid each series is decimated to is known:
 * the SVG's (the report's copy, 800x500) PLOT_COLS x PLOT_ROWS.  The PNG for
 * mail is drawn larger from the same points. */
#define PLOT_W 800
#define PLOT_H 500
#define PNG_W 1024
#define PNG_H 640
#define PLOT_LM 0.08
#define PLOT_RM 0.70
#define PLOT_BM 0.10
#define PLOT_TM 0.92
#define PLOT_COLS 496        /* (PLOT_RM - PLOT_LM) * PLOT_W */
#define PLOT_ROWS 410        /* (PLOT_TM - PLOT_BM) * PLOT_H */

/* One series of one run as it goes into G.dat and the plot command. */
struct line {
	const struct plot_series *s;
	const char *title, *with, *color;
	int y2, run;
	struct dec_point *p;    /* kept points, seconds from the run's first event */
	size_t n;
};

/* Lists the drawable series of graph g for one run. */
static int collect(struct plot_run *r, int run, enum plot_graph g, struct line *out, int max)
{
	int n = 0;
	if (g == PG_BDP_TASK_BW || g == PG_FILE_PROGRESS) {
		const struct task *t = g == PG_FILE_PROGRESS ? r->inodes : r->tasks;
		int nt = g == PG_FILE_PROGRESS ? r->ninodes : r->ntasks;
		for (int i = 0; i < nt && n < max; i++)
			out[n++] = (struct line){ &t[i].s, t[i].title, "lines lw 2",
						  task_colors[i % PLOT_MAX_TASKS], 0, run, NULL, 0 };
		return n;
	}
	for (int i = 0; i < S_COUNT && n < max; i++) {
		if (sdefs[i].g != g || !r->s[i].fed)
			continue;
		const char *title = sdefs[i].title;
		if (i == S_SUM && !r->s[S_UNSTABLE].fed)
			title = "dirty+writeback";
		out[n++] = (struct line){ &r->s[i], title, sdefs[i].with, sdefs[i].color, sdefs[i].y2,
					  run, NULL, 0 };
	}
	return n;
}

static int is_markers(const struct line *l)
{
	return !strncmp(l->with, "points", 6);
}

struct fill_ctx {
	struct dec_point *p;
	size_t n;
	int64_t t0;
};

static int fill_point(void *arg, int64_t t, double v)
{
	struct fill_ctx *c = arg;
	c->p[c->n++] = (struct dec_point){ (double)(t - c->t0) / 1e6, v };
	return 0;
}

/* The bucketed points of a series, in seconds from the run's first event. */
static int materialize(struct line *l, int64_t t0)
{
	size_t cap = 2 * (size_t)(l->s->cap > 0 ? l->s->cap : 1);
	struct fill_ctx c = { malloc(cap * sizeof(*c.p)), 0, t0 };
	if (!c.p)
		return -1;
	plot_series_each(l->s, fill_point, &c);
	l->p = c.p;
	l->n = c.n;
	return 0;
}

/* One y axis: its range and whether it was capped for robustness. */
struct axis {
	int used, log;
	double lo, hi;          /* drawn range */
	double max;             /* highest value of any point */
	int capped;             /* hi < max: points above are marked on the top edge */
	size_t above;           /* points above hi (before decimation to pixels) */
	size_t zeros;           /* log axis: points at 0 (or below), drawn at `floor` */
	double floor;
};

/* Graphs whose y1 values are per-call samples: a start-up burst (a 1200 ms
 * first pause, a first bandwidth estimate) would squash the steady state, so
 * their axis is set by the points after the first tenth of the run, and what
 * lies above is marked on the top edge instead. */
static int robust_y1(enum plot_graph g)
{
	return g == PG_BDP_PAUSE || g == PG_BDP_BANDWIDTH;
}

#define RAMP_FRACTION 0.10
#define CAP_FACTOR 1.5      /* cap only when the outliers are this much higher */

static void axis_range(struct axis *a, const struct line *l, int n, int y2, double xmax, int robust)
{
	double steady = -HUGE_VAL;
	int first = 1;
	for (int i = 0; i < n; i++) {
		if (l[i].y2 != y2)
			continue;
		for (size_t k = 0; k < l[i].n; k++) {
			double v = l[i].p[k].v;
			if (a->log && !(v > 0)) {
				a->zeros++;
				continue;
			}
			if (first || v < a->lo)
				a->lo = v;
			if (first || v > a->max)
				a->max = v;
			first = 0;
			if (l[i].p[k].t >= RAMP_FRACTION * xmax && v > steady)
				steady = v;
		}
	}
	a->used = !first;
	if (!a->used) {
		if (a->log && a->zeros) {   /* only zeros: a floor at 1 */
			a->used = 1;
			a->max = a->hi = 4;
			a->lo = a->floor = 1;
		}
		return;
	}
	a->hi = a->max;
	if (robust && steady > 0 && a->max > CAP_FACTOR * steady) {
		a->hi = steady * 1.05;
		a->capped = 1;
	}
	if (!a->log && a->lo > 0)
		a->lo = 0;      /* amounts: from zero */
	if (!(a->hi > a->lo))
		a->hi = a->log ? a->lo * 2 : a->lo + 1;
	/* a log scale has no 0: such points (a task_ratelimit of 0 over the
	 * hard limit) go on a floor a factor 4 under the smallest value, which
	 * the axis label names, instead of vanishing from the graph */
	if (a->zeros) {
		a->floor = a->lo / 4;
		a->lo = a->floor;
	}
}

static void zeros_to_floor(struct line *l, const struct axis *a)
{
	if (!a->log || !a->zeros)
		return;
	for (size_t k = 0; k < l->n; k++)
		if (!(l->p[k].v > 0))
			l->p[k].v = a->floor;
}

static void decimate_line(struct line *l, const struct axis *a, double xmax)
{
	struct dec_grid g = { .x0 = 0, .x1 = xmax, .cols = PLOT_COLS, .y0 = a->lo, .y1 = a->hi,
			      .rows = PLOT_ROWS, .ylog = a->log };
	/* in place: the output never runs ahead of the input */
	l->n = decimate_columns(l->p, l->n, &g, is_markers(l) ? DEC_MARKERS : DEC_LINES, l->p);
}

/* gnuplot single-quoted string: only ' needs doubling. */
static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

/* Tics of a log axis at 1, 2, 5 x 10^k (only 10^k over more than three
 * decades), printed plainly: 0.01, not 0.00390625. */
static void gp_log_tics(FILE *f, const char *axis, double lo, double hi)
{
	int d0 = (int)floor(log10(lo)), d1 = (int)ceil(log10(hi));
	static const double steps[] = { 1, 2, 5 };
	int sub = d1 - d0 <= 3 ? 3 : 1, first = 1;
	fprintf(f, "set %stics (", axis);
	for (int d = d0; d <= d1; d++)
		for (int i = 0; i < sub; i++) {
			double v = steps[i] * pow(10, d);
			if (v < lo / 1.0001 || v > hi * 1.0001)
				continue;
			fprintf(f, "%s'%g' %g", first ? "" : ", ", v, v);
			first = 0;
		}
	fputs(")\n", f);
	if (first)
		fprintf(f, "set %stics autofreq\n", axis);
}

static void gp_axis(FILE *f, const char *axis, const struct axis *a)
{
	if (a->log) {
		/* a little room on a log scale is a factor, not an offset */
		fprintf(f, "set logscale %s 2\nset %srange [%g:%g]\n", axis, axis, a->lo / 1.2, a->hi * 1.2);
		gp_log_tics(f, axis, a->lo / 1.2, a->hi * 1.2);
	} else {
		double room = (a->hi - a->lo) * 0.05;
		fprintf(f, "set %srange [%g:%g]\nset format %s '%%g'\n", axis, a->lo,
			a->hi + (a->capped ? 0 : room), axis);
	}
}

static void gp_header(FILE *f, enum plot_graph g, const char *title, const struct axis *ax,
		      double xmax)
{
	const struct gdef *d = &gdefs[g];
	fprintf(f, "# %s, written by wblab plot.  Data: %s.dat, one block per series\n"
		   "# (gnuplot 'index N'; columns: seconds since the first trace event, value),\n"
		   "# decimated to this plot area's %dx%d pixels: each column keeps its lowest\n"
		   "# and highest point.  Edit and run `gnuplot %s.gp` in this directory to redraw.\n"
		   "reset\n",
		d->name, d->name, PLOT_COLS, PLOT_ROWS, d->name);
	fputs("set title ", f);
	gp_str(f, title);
	fprintf(f, "\nset xlabel 'time (s)'\nset ylabel '%s'\nset grid\nset xrange [0:%g]\n"
		   "set format x '%%g'\nset key outside right top vertical\n"
		   "set lmargin at screen %.2f\nset rmargin at screen %.2f\n"
		   "set bmargin at screen %.2f\nset tmargin at screen %.2f\n",
		d->ylabel, xmax > 0 ? xmax : 1, PLOT_LM, PLOT_RM, PLOT_BM, PLOT_TM);
	if (ax[0].used)
		gp_axis(f, "y", &ax[0]);
	if (d->y2label && ax[1].used) {
		if (ax[1].zeros)
			fprintf(f, "set y2label '%s; 0 drawn at %.3g'\nset y2tics\nset ytics nomirror\n", d->y2label,
				ax[1].floor);
		else
			fprintf(f, "set y2label '%s'\nset y2tics\nset ytics nomirror\n", d->y2label);
		gp_axis(f, "y2", &ax[1]);
	}
}

/* The second run of an overlay: its own colour (hue turned half way round),
 * dashed, open markers, so neither hides the other. */
static void run_color(const char *c, int run, char *out, size_t n)
{
	unsigned r, g, b;
	if (!run || sscanf(c, "#%2x%2x%2x", &r, &g, &b) != 3) {
		snprintf(out, n, "%s", c);
		return;
	}
	if (r == g && g == b) {             /* black/grey: a dark red-brown */
		snprintf(out, n, "#a05000");
		return;
	}
	/* rotate the hue by 180 degrees (r,g,b -> max+min-r, ...) and darken */
	unsigned mx = r > g ? (r > b ? r : b) : (g > b ? g : b);
	unsigned mn = r < g ? (r < b ? r : b) : (g < b ? g : b);
	snprintf(out, n, "#%02x%02x%02x", (mx + mn - r) * 3 / 4, (mx + mn - g) * 3 / 4,
		 (mx + mn - b) * 3 / 4);
}

static void gp_plot(FILE *f, const char *name, const struct line *l, int n, int nruns,
		    struct plot_run *const *runs, const struct axis *ax, int nabove)
{
	fputs("plot \\\n", f);
	if (nruns > 1)
		for (int r = 0; r < nruns; r++) {
			char title[200];
			snprintf(title, sizeof(title), "%s: %s", r ? "dashed" : "solid", runs[r]->label);
			fprintf(f, "  NaN with lines lc rgb 'black' dt %d lw 2 title ", r ? 2 : 1);
			gp_str(f, title);
			fputs(", \\\n", f);
		}
	for (int i = 0; i < n; i++) {
		char title[256], color[32], with[64];
		/* an overlay's runs are told apart by the solid/dashed entries
		 * above: a run label on every line would run off the key */
		snprintf(title, sizeof(title), "%s", l[i].title);
		run_color(l[i].color, l[i].run, color, sizeof(color));
		snprintf(with, sizeof(with), "%s", is_markers(&l[i]) ? "lines lw 3" : l[i].with);
		fprintf(f, "  '%s.dat' index %d using 1:2 axes x1%s with %s lc rgb '%s' dt %d ",
			name, i, l[i].y2 ? "y2" : "y1", with, color,
			l[i].run && !is_markers(&l[i]) ? 2 : 1);
		if (is_markers(&l[i]))  /* the strokes draw the markers; the key shows one */
			fprintf(f, "notitle, \\\n  NaN with points pt 7 ps 0.6 lc rgb '%s' title ", color);
		else
			fputs("title ", f);
		gp_str(f, title);
		fputs(i + 1 < n || nabove ? ", \\\n" : "\n", f);
	}
	if (nabove) {
		char title[128];
		snprintf(title, sizeof(title), "above the y range (max %.4g)", ax[0].max);
		fprintf(f, "  '%s.dat' index %d using 1:2 with points pt 9 ps 0.8 lc rgb 'black' title ",
			name, n);
		gp_str(f, title);
		fputc('\n', f);
	}
}

static FILE *open_out(const char *outdir, const char *name, const char *ext, char *err,
		      size_t errlen)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/%s.%s", outdir, name, ext);
	FILE *f = fopen(path, "w");
	if (!f)
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
	return f;
}

static int close_out(FILE *f, const char *outdir, const char *name, const char *ext, char *err,
		     size_t errlen)
{
	int bad = ferror(f);
	if (fclose(f) || bad) {
		snprintf(err, errlen, "%s/%s.%s: write error", outdir, name, ext);
		return -1;
	}
	return 0;
}

/* Points above a capped y1 axis, one mark per pixel column on its top edge. */
static size_t above_marks(const struct line *l, int n, const struct axis *a, double xmax,
			  struct dec_point *out)
{
	size_t m = 0;
	char seen[PLOT_COLS] = { 0 };
	for (int i = 0; i < n; i++) {
		if (l[i].y2)
			continue;
		for (size_t k = 0; k < l[i].n; k++) {
			if (!(l[i].p[k].v > a->hi))
				continue;
			int c = xmax > 0 ? (int)(l[i].p[k].t * PLOT_COLS / xmax) : 0;
			c = c < 0 ? 0 : c >= PLOT_COLS ? PLOT_COLS - 1 : c;
			if (seen[c])
				continue;
			seen[c] = 1;
			out[m++] = (struct dec_point){ l[i].p[k].t, a->hi };
		}
	}
	return m;
}

/* A marker is written as a stroke half a pixel long, drawn with round caps:
 * in SVG that is a few bytes of one path instead of one element per marker
 * (5x smaller), and it looks the same. */
static int write_dat(const char *outdir, const char *name, const struct line *l, int n,
		     struct plot_run *const *runs, const struct dec_point *above, size_t nabove,
		     double xmax, char *err, size_t errlen)
{
	double dot = 0.5 * (xmax > 0 ? xmax : 1) / PLOT_COLS;
	FILE *f = open_out(outdir, name, "dat", err, errlen);
	if (!f)
		return -1;
	for (int i = 0; i < n; i++) {
		fprintf(f, "%s# index %d: %s, run %s (%zu points, %llu before decimation)\n",
			i ? "\n\n" : "", i, l[i].title, runs[l[i].run]->label, l[i].n,
			(unsigned long long)l[i].s->fed);
		for (size_t k = 0; k < l[i].n; k++)
			if (is_markers(&l[i]))
				fprintf(f, "%.6f %.6g\n%.6f %.6g\n\n", l[i].p[k].t, l[i].p[k].v,
					l[i].p[k].t + dot, l[i].p[k].v);
			else
				fprintf(f, "%.6f %.6g\n", l[i].p[k].t, l[i].p[k].v);
	}
	if (nabove) {
		fprintf(f, "\n\n# index %d: marks on the top edge where a point lies above the y range\n",
			n);
		for (size_t k = 0; k < nabove; k++)
			fprintf(f, "%.6f %.6g\n", above[k].t, above[k].v);
	}
	return close_out(f, outdir, name, "dat", err, errlen);
}

static int write_gp(const char *outdir, enum plot_graph g, const char *title, const struct line *l,
		    int n, struct plot_run *const *runs, int nruns, const struct axis *ax,
		    double xmax, int nabove, char *err, size_t errlen)
{
	const char *name = gdefs[g].name;
	FILE *f = open_out(outdir, name, "gp", err, errlen);
	if (!f)
		return -1;
	gp_header(f, g, title, ax, xmax);
	/* gd's png took less than half pngcairo's time on these graphs
	 * (docs/plot-report.md has the measurement); the SVG is the sharp copy */
	/* ... but gd draws no dash types, which tell an overlay's runs apart */
	fprintf(f, "set terminal %s size %d,%d noenhanced rounded font 'sans,10'\n"
		   "set output '%s.png'\n", nruns > 1 ? "pngcairo" : "png", PNG_W, PNG_H, name);
	gp_plot(f, name, l, n, nruns, runs, ax, nabove);
	fprintf(f, "set terminal svg size %d,%d noenhanced rounded font 'sans,10' background rgb 'white'\n"
		   "set output '%s.svg'\nreplot\nset output\n", PLOT_W, PLOT_H, name);
	return close_out(f, outdir, name, "gp", err, errlen);
}

int plot_write_graph(struct plot_run *const *runs, int nruns, enum plot_graph g,
		     const char *title, const char *outdir, char *err, size_t errlen)
{
	struct line l[2 * (S_COUNT + PLOT_MAX_TASKS)];
	int n = 0, rc = -1;
	for (int i = 0; i < nruns; i++)
		n += collect(runs[i], i, g, l + n, (int)ARRAY_SIZE(l) - n);
	if (!n) {
		snprintf(err, errlen, "%s: %s", gdefs[g].name, gdefs[g].missing);
		return -1;
	}
	char full[1024];
	int len = snprintf(full, sizeof(full), "%s: %s", gdefs[g].name, title);
	if ((g == PG_BDP_PAGES || g == PG_BDP_PAUSE) && len > 0 && (size_t)len < sizeof(full)) {
		for (int i = 0; i < nruns; i++)
			if (runs[i]->bdp_pid)
				len += snprintf(full + len, sizeof(full) - (size_t)len, "%s pid %d",
						i ? "," : " -", runs[i]->bdp_pid);
	}
	double xmax = 0;
	struct dec_point *above = NULL;
	size_t nabove = 0;
	for (int i = 0; i < n; i++) {
		if (materialize(&l[i], runs[l[i].run]->t0)) {
			snprintf(err, errlen, "out of memory");
			n = i;
			goto out;
		}
		for (size_t k = 0; k < l[i].n; k++)
			if (l[i].p[k].t > xmax)
				xmax = l[i].p[k].t;
	}
	struct axis ax[2] = { { .log = 0 }, { .log = gdefs[g].y2log } };
	axis_range(&ax[0], l, n, 0, xmax, robust_y1(g));
	axis_range(&ax[1], l, n, 1, xmax, 0);
	if (ax[0].capped) {
		above = malloc((size_t)PLOT_COLS * sizeof(*above));
		if (above)
			nabove = above_marks(l, n, &ax[0], xmax, above);
	}
	for (int i = 0; i < n; i++) {
		zeros_to_floor(&l[i], &ax[l[i].y2]);
		decimate_line(&l[i], &ax[l[i].y2], xmax);
	}
	if (!write_dat(outdir, gdefs[g].name, l, n, runs, above, nabove, xmax, err, errlen))
		rc = write_gp(outdir, g, full, l, n, runs, nruns, ax, xmax, nabove > 0, err, errlen);
out:
	for (int i = 0; i < n; i++)
		free(l[i].p);
	free(above);
	return rc;
}

/* ---- running gnuplot -------------------------------------------------------- */

int plot_find_gnuplot(char *buf, size_t n)
{
	const char *path = getenv("PATH");
	if (!path || !*path)
		path = "/usr/bin:/bin";
	while (*path) {
		size_t len = strcspn(path, ":");
		snprintf(buf, n, "%.*s/gnuplot", (int)len, len ? path : ".");
		if (access(buf, X_OK) == 0)
			return 0;
		path += len + (path[len] == ':');
	}
	return -1;
}

/* Starts `gnuplot G1.gp G2.gp ...` in outdir for the graphs i, i + step,
 * i + 2 step ... of s, output to gnuplot.log there: one process runs several
 * scripts (each begins with `reset`), which saves a process start (~16 ms of
 * CPU) per graph. */
static pid_t gnuplot_start(const char *gnuplot, const struct plot_summary *s, int i, int step)
{
	pid_t self = getpid(), pid = fork();
	if (pid != 0)
		return pid;
	die_with_parent(self);
	char scripts[PG_COUNT][80];
	char *argv[PG_COUNT + 2];
	int n = 0;
	argv[n++] = "gnuplot";
	for (int k = i; k < s->nmade; k += step) {
		snprintf(scripts[n - 1], sizeof(scripts[0]), "%s.gp", gdefs[s->made[k]].name);
		argv[n] = scripts[n - 1];
		n++;
	}
	argv[n] = NULL;
	int fd = -1;
	if (chdir(s->outdir) == 0)
		fd = open("gnuplot.log", O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (fd < 0)
		_exit(126);
	dup2(fd, 1);
	dup2(fd, 2);
	close(fd);
	execv(gnuplot, argv);
	_exit(127);
}

static int file_nonempty(const char *dir, const char *name, const char *ext)
{
	char p[4200];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s.%s", dir, name, ext);
	return stat(p, &st) == 0 && st.st_size > 0;
}

static int online_cpus(void)
{
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n > 0 ? (int)n : 1;
}

static void progress_byte(int fd, char c)
{
	if (fd > 0 && write(fd, &c, 1) < 0) {
		/* progress is best effort */
	}
}

/* Draws every made graph, one gnuplot process each, at most `jobs` at once
 * (each writes only its own G.png/G.svg, so the output does not depend on
 * the order they finish in). */
static int run_gnuplot(const char *gnuplot, const struct plot_summary *s, int jobs,
		       int progress_fd, char *err, size_t errlen)
{
	pid_t pids[PG_COUNT];
	char log[4200];
	snprintf(log, sizeof(log), "%s/gnuplot.log", s->outdir);
	unlink(log);
	if (jobs <= 0)
		jobs = online_cpus();
	/* `jobs` processes, each drawing every jobs-th graph; waited for by pid,
	 * so a caller's other children are left alone */
	int np = jobs < s->nmade ? jobs : s->nmade, bad = -1;
	for (int i = 0; i < np; i++)
		pids[i] = gnuplot_start(gnuplot, s, i, np);
	for (int i = 0; i < np; i++) {
		int st = 0;
		if (pids[i] < 0 || waitpid(pids[i], &st, 0) < 0 || !WIFEXITED(st) ||
		    WEXITSTATUS(st) != 0)
			bad = bad < 0 ? i : bad;
		for (int k = i; k < s->nmade; k += np)
			progress_byte(progress_fd, 'g');
	}
	for (int i = 0; bad < 0 && i < s->nmade; i++)
		if (!file_nonempty(s->outdir, gdefs[s->made[i]].name, "png") ||
		    !file_nonempty(s->outdir, gdefs[s->made[i]].name, "svg"))
			bad = i;
	struct stat st;
	if (stat(log, &st) == 0 && st.st_size == 0)
		unlink(log);
	if (bad >= 0) {
		snprintf(err, errlen, "gnuplot failed on %s/%s.gp (see %s)", s->outdir,
			 gdefs[s->made[bad]].name, log);
		return -1;
	}
	return 0;
}

/* ---- result directories ---------------------------------------------------- */

struct meta_ctx {
	char kernel[128], group[128], cas[192];
};

static int meta_cb(void *arg, const char *k, const char *v)
{
	struct meta_ctx *m = arg;
	if (!strcmp(k, "kernel"))
		snprintf(m->kernel, sizeof(m->kernel), "%s", v);
	else if (!strcmp(k, "group"))
		snprintf(m->group, sizeof(m->group), "%s", v);
	else if (!strcmp(k, "case"))
		snprintf(m->cas, sizeof(m->cas), "%s", v);
	return 0;
}

static const char *base_name(const char *p, char *buf, size_t n)
{
	size_t b, len;
	path_base_span(p, &b, &len);
	snprintf(buf, n, "%.*s", (int)len, p + b);
	return buf;
}

/* Checks dir and its trace; reads meta for the label and title. */
static int open_result(const char *dir, struct meta_ctx *m, char *trace, size_t tn, char *err,
		       size_t errlen)
{
	struct stat st;
	if (stat(dir, &st) != 0) {
		snprintf(err, errlen, "%s: %s", dir, strerror(errno));
		return -1;
	}
	if (!S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: not a result directory", dir);
		return -1;
	}
	trace_result_path(dir, trace, tn);
	if (access(trace, R_OK) != 0) {
		snprintf(err, errlen, "%s: no readable trace (%s: %s)", dir, trace, strerror(errno));
		return -1;
	}
	/* a regular file, even when the saved series spare reading it */
	FILE *tf = fopen_regular(trace, 1, err, errlen);
	if (!tf)
		return -1;
	fclose(tf);
	memset(m, 0, sizeof(*m));
	char path[4200], e2[256];
	snprintf(path, sizeof(path), "%s/meta", dir);
	if (access(path, F_OK) == 0 && kv_read(path, meta_cb, m, e2, sizeof(e2)) != 0) {
		snprintf(err, errlen, "%s", e2);
		return -1;
	}
	if (!m->kernel[0])
		base_name(dir, m->kernel, sizeof(m->kernel));
	if (!m->cas[0])
		base_name(dir, m->cas, sizeof(m->cas));
	return 0;
}

/* File-name-safe copy: anything but [A-Za-z0-9._+-] becomes '_'. */
static void safe_name(char *dst, size_t n, const char *src)
{
	size_t i = 0;
	for (; src[i] && i + 1 < n; i++) {
		char c = src[i];
		int ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
			 c == '.' || c == '_' || c == '+' || c == '-';
		dst[i] = ok ? c : '_';
	}
	dst[i] = 0;
}

static int write_index(const struct plot_summary *s, const char *title, char *err, size_t errlen)
{
	char path[4200];
	snprintf(path, sizeof(path), "%s/index", s->outdir);
	FILE *f = fopen(path, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return -1;
	}
	fprintf(f, "# wblab plot: graphs of %s\nevents %llu\n", title, (unsigned long long)s->events);
	for (int i = 0; i < s->nmade; i++)
		fprintf(f, "made %s\n", gdefs[s->made[i]].name);
	for (int i = 0; i < s->nskipped; i++)
		fprintf(f, "skipped %s\n", s->skipped[i]);
	for (int i = 0; i < s->nnotes; i++)
		fprintf(f, "note %s\n", s->notes[i]);
	int bad = ferror(f);
	if (fclose(f) || bad) {
		snprintf(err, errlen, "%s: write error", path);
		return -1;
	}
	return 0;
}

/* Removes a graph's old files so a stale image never survives a skip. */
static void remove_graph(const char *outdir, enum plot_graph g)
{
	static const char *const ext[] = { "dat", "gp", "png", "svg" };
	char p[4200];
	for (size_t i = 0; i < ARRAY_SIZE(ext); i++) {
		snprintf(p, sizeof(p), "%s/%s.%s", outdir, gdefs[g].name, ext[i]);
		unlink(p);
	}
}


/* --no-gnuplot: images of an earlier run would no longer match the data. */
static void drop_images(const struct plot_summary *s)
{
	char p[4200];
	for (int i = 0; i < s->nmade; i++) {
		snprintf(p, sizeof(p), "%s/%s.png", s->outdir, gdefs[s->made[i]].name);
		unlink(p);
		snprintf(p, sizeof(p), "%s/%s.svg", s->outdir, gdefs[s->made[i]].name);
		unlink(p);
	}
}

/* Writes every graph's .dat/.gp for 1 or 2 runs, filling made/skipped/notes. */
static int write_graphs(struct plot_run *const *runs, int nruns, const char *title,
			struct plot_summary *s, char *err, size_t errlen)
{
	for (int g = 0; g < PG_COUNT; g++) {
		int have = 0;
		for (int i = 0; i < nruns; i++)
			have += plot_run_has(runs[i], (enum plot_graph)g);
		if (!have) {
			snprintf(s->skipped[s->nskipped++], sizeof(s->skipped[0]), "%.40s: %.150s",
				 gdefs[g].name, gdefs[g].missing);
			remove_graph(s->outdir, (enum plot_graph)g);
			continue;
		}
		for (int i = 0; have < nruns && i < nruns; i++)
			if (!plot_run_has(runs[i], (enum plot_graph)g)) {
				char what[128];
				snprintf(what, sizeof(what), "%.60s: %s", runs[i]->label, gdefs[g].missing);
				snprintf(s->notes[s->nnotes++], sizeof(s->notes[0]),
					 "%.40s: drawn for one run only (%.120s)", gdefs[g].name, what);
			}
		if (plot_write_graph(runs, nruns, (enum plot_graph)g, title, s->outdir, err, errlen))
			return -1;
		s->made[s->nmade++] = (enum plot_graph)g;
	}
	return 0;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Two runs keyed by the same kernel are told apart by directory name. */
static void run_labels(struct meta_ctx *m, const char *const *dirs, int n)
{
	if (n < 2 || strcmp(m[0].kernel, m[1].kernel))
		return;
	for (int i = 0; i < n; i++)
		base_name(dirs[i], m[i].kernel, sizeof(m[i].kernel));
}

static void graph_title(char *t, size_t n, const struct meta_ctx *m, int nruns)
{
	const char *sep = m[0].group[0] ? "/" : "";
	if (nruns > 1)
		snprintf(t, n, "%s%s%s: %s vs %s", m[0].group, sep, m[0].cas, m[0].kernel, m[1].kernel);
	else
		snprintf(t, n, "%s%s%s-%s", m[0].group, sep, m[0].cas, m[0].kernel);
}

static int set_outdir(const char *dir, const struct plot_opts *o, const struct meta_ctx *m2,
		      struct plot_summary *s, char *err, size_t errlen)
{
	char safe[160];
	int dl = (int)strlen(dir);
	while (dl > 1 && dir[dl - 1] == '/')
		dl--;
	if (o->outdir)
		snprintf(s->outdir, sizeof(s->outdir), "%s", o->outdir);
	else if (o->overlay) {
		safe_name(safe, sizeof(safe), m2->kernel);
		snprintf(s->outdir, sizeof(s->outdir), "%.*s/plots/overlay-%s", dl, dir, safe);
	} else
		snprintf(s->outdir, sizeof(s->outdir), "%.*s/plots", dl, dir);
	if (mkdir_p(s->outdir)) {
		snprintf(err, errlen, "%s: %s", s->outdir, strerror(errno));
		return -1;
	}
	return 0;
}

static int plot_runs(const char *const *dirs, const char *const *traces, struct meta_ctx *m,
		     int nruns, const struct plot_opts *o, const char *gnuplot,
		     struct plot_summary *s, char *err, size_t errlen)
{
	struct plot_run *runs[2] = { NULL, NULL };
	int rc = -1;
	run_labels(m, dirs, nruns);
	for (int i = 0; i < nruns; i++) {
		/* the series the simulator saved, unless asked for the trace or
		 * for more points than were saved */
		char sp[4200];
		snprintf(sp, sizeof(sp), "%s/%s", dirs[i], PLOT_SERIES_FILE);
		struct stat ts, ss;
		if (!o->from_trace && lstat(sp, &ss) == 0 && !S_ISREG(ss.st_mode)) {
			FILE *bad = fopen_regular(sp, 1, err, errlen);   /* says why */
			if (bad)
				fclose(bad);
			goto out;
		}
		int use = !o->from_trace && o->max_points <= PLOT_SERIES_POINTS &&
			  stat(traces[i], &ts) == 0 && plot_series_trace_bytes(sp) == (long long)ts.st_size;
		runs[i] = plot_run_new(m[i].kernel, use && o->max_points <= 0 ? 4 * PLOT_SERIES_POINTS
									  : o->max_points);
		if (!runs[i]) {
			snprintf(err, errlen, "out of memory");
			goto out;
		}
		if (use ? plot_run_load_series(runs[i], sp, err, errlen)
			: plot_run_load(runs[i], traces[i], err, errlen))
			goto out;
		s->from_series += use;
		if (i == 0)
			s->main_from_series = use;
		s->nruns++;
		s->events += runs[i]->events;
	}
	if (s->events == 0) {
		snprintf(err, errlen, "%s: no writeback events in the trace", traces[0]);
		goto out;
	}
	char title[600];
	graph_title(title, sizeof(title), m, nruns);
	if (write_graphs(runs, nruns, title, s, err, errlen) || write_index(s, title, err, errlen))
		goto out;
	if (o->no_gnuplot)
		drop_images(s);
	for (int i = 0; i < s->nmade; i++)
		progress_byte(o->progress_fd, 'T');
	rc = o->no_gnuplot || !s->nmade ? 0
					: run_gnuplot(gnuplot, s, o->jobs, o->progress_fd, err, errlen);
out:
	for (int i = 0; i < nruns; i++)
		plot_run_free(runs[i]);
	return rc;
}

int plot_result(const char *dir, const struct plot_opts *o, struct plot_summary *s, char *err,
		size_t errlen)
{
	double t0 = now_s();
	memset(s, 0, sizeof(*s));
	const char *dirs[2] = { dir, o->overlay };
	char traces[2][4200], gnuplot[4200] = "";
	const char *tp[2] = { traces[0], traces[1] };
	struct meta_ctx m[2];
	int nruns = o->overlay ? 2 : 1;
	for (int i = 0; i < nruns; i++)
		if (open_result(dirs[i], &m[i], traces[i], sizeof(traces[i]), err, errlen))
			return -1;
	if (!o->no_gnuplot && plot_find_gnuplot(gnuplot, sizeof(gnuplot))) {
		snprintf(err, errlen, "gnuplot not found in PATH (Debian package gnuplot-nox; "
				      "see scripts/setup.sh), or use %s",
			 o->skip_option ? o->skip_option : "--no-gnuplot");
		return -1;
	}
	if (set_outdir(dir, o, &m[1], s, err, errlen))
		return -1;
	int rc = plot_runs(dirs, tp, m, nruns, o, gnuplot, s, err, errlen);
	s->seconds = now_s() - t0;
	return rc;
}

/* ---- index ------------------------------------------------------------------ */

static int index_cb(void *arg, const char *k, const char *v)
{
	struct plot_summary *s = arg;
	if (!strcmp(k, "made")) {
		int g = plot_graph_lookup(v);
		if (g >= 0 && s->nmade < PG_COUNT)
			s->made[s->nmade++] = (enum plot_graph)g;
	} else if (!strcmp(k, "skipped") && s->nskipped < PG_COUNT) {
		snprintf(s->skipped[s->nskipped++], sizeof(s->skipped[0]), "%s", v);
	} else if (!strcmp(k, "note") && s->nnotes < PG_COUNT) {
		snprintf(s->notes[s->nnotes++], sizeof(s->notes[0]), "%s", v);
	} else if (!strcmp(k, "events")) {
		s->events = strtoull(v, NULL, 10);
	}
	return 0;
}

int plot_read_index(const char *outdir, struct plot_summary *s)
{
	char path[4200], err[256];
	memset(s, 0, sizeof(*s));
	snprintf(s->outdir, sizeof(s->outdir), "%s", outdir);
	snprintf(path, sizeof(path), "%s/index", outdir);
	if (access(path, R_OK) != 0)
		return -1;
	return kv_read_list(path, index_cb, s, err, sizeof(err));
}

/* ---- many results at once ------------------------------------------------- */

struct worker {
	pid_t pid;
	FILE *res;              /* the job's result, an unlinked temporary file: a
				 * pipe could hold less than the result and block
				 * the child the parent waits for */
	int job;
	int alive;              /* read end of a pipe only the child writes to:
				 * its end of file says the child has exited */
};

/* The child's answer: rc, err and the summary, through a pipe (about 12 KB,
 * well under a pipe's buffer, so the child never blocks on it). */
static void job_child(struct plot_job *j, const struct plot_opts *o, int fd)
{
	struct plot_opts po = *o;
	/* one child per CPU already: a trace's decompressing thread would only
	 * take CPU time from the others */
	if (o->jobs <= 1)
		wbdat_set_prefetch(0);
	po.overlay = j->overlay;
	po.outdir = j->outdir;
	j->rc = plot_result(j->dir, &po, &j->sum, j->err, sizeof(j->err));
	const char *p = (const char *)j;
	size_t left = sizeof(*j);
	while (left > 0) {
		ssize_t w = write(fd, p, left);
		if (w <= 0)
			_exit(1);
		p += w;
		left -= (size_t)w;
	}
	_exit(0);
}

static int job_collect(struct plot_job *j, FILE *res)
{
	int fd = fileno(res);
	struct plot_job got;
	lseek(fd, 0, SEEK_SET);     /* the child's writes moved the shared offset */
	char *p = (char *)&got;
	size_t left = sizeof(got);
	while (left > 0) {
		ssize_t r = read(fd, p, left);
		if (r <= 0)
			break;
		p += r;
		left -= (size_t)r;
	}
	fclose(res);
	if (left) {
		j->rc = -1;
		snprintf(j->err, sizeof(j->err), "%s: plotting process failed", j->dir);
		return -1;
	}
	j->rc = got.rc;
	memcpy(j->err, got.err, sizeof(j->err));
	j->sum = got.sum;
	return j->rc;
}

/* Counts the progress bytes the children wrote, waiting up to wait_ms. */
static void read_progress(int fd, int *done, int *known, int wait_ms)
{
	struct pollfd pf = { .fd = fd, .events = POLLIN };
	if (poll(&pf, 1, wait_ms) <= 0)
		return;
	char buf[256];
	ssize_t r = read(fd, buf, sizeof(buf));
	for (ssize_t i = 0; i < r; i++) {
		*done += buf[i] == 'g';
		*known += buf[i] == 'T';
	}
}

void plot_progress_line(void *prefix, int gdone, int gknown, int rdone, int n)
{
	fprintf(stderr, "\r%s: %d/%d graphs, %d/%d result%s   %s", (const char *)prefix, gdone, gknown,
		rdone, n, n == 1 ? "" : "s", rdone == n ? "\n" : "");
}

int plot_many(struct plot_job *jobs, int n, const struct plot_opts *o, int workers,
	      plot_progress_fn progress, void *arg)
{
	if (workers <= 0)
		workers = online_cpus();
	int cpus = workers;
	if (workers > n)
		workers = n;
	struct plot_opts po = *o;
	po.jobs = workers > 0 && cpus / workers > 1 ? cpus / workers : 1;
	int prog[2] = { -1, -1 };
	if (pipe2(prog, O_CLOEXEC) == 0) {
		fcntl(prog[0], F_SETFL, fcntl(prog[0], F_GETFL) | O_NONBLOCK);
		po.progress_fd = prog[1];
	}
	size_t nw = (size_t)(workers > 0 ? workers : 1);
	struct worker *w = calloc(nw, sizeof(*w));
	struct pollfd *pf = calloc(nw + 1, sizeof(*pf));
	int *wk = calloc(nw, sizeof(*wk)), *ended = calloc(nw, sizeof(*ended));
	int failed = 0, next = 0, running = 0, done = 0, gdone = 0, gknown = 0;
	if (!w || !pf || !wk || !ended) {
		free(w);
		free(pf);
		free(wk);
		free(ended);
		if (prog[0] >= 0) {
			close(prog[0]);
			close(prog[1]);
		}
		return n;
	}
	fflush(NULL);
	if (progress)
		progress(arg, 0, 0, 0, n);
	pid_t self = getpid();
	while (next < n || running) {
		if (next < n && running < workers) {
			struct plot_job *j = &jobs[next];
			FILE *res = tmpfile();
			int alive[2] = { -1, -1 };
			if (pipe2(alive, O_CLOEXEC))
				alive[0] = alive[1] = -1;
			pid_t pid = res ? fork() : -1;
			if (pid == 0) {
				die_with_parent(self);
				if (prog[0] >= 0)
					close(prog[0]);
				if (alive[0] >= 0)
					close(alive[0]);
				job_child(j, &po, fileno(res));
			}
			if (alive[1] >= 0)
				close(alive[1]);
			if (pid < 0) {
				if (alive[0] >= 0)
					close(alive[0]);
				if (res)
					fclose(res);
				j->rc = -1;
				snprintf(j->err, sizeof(j->err), "%s: cannot start a plotting process: %s",
					 j->dir, strerror(errno));
				failed++;
				done++;
			} else {
				for (int k = 0; k < workers; k++)
					if (!w[k].pid) {
						w[k] = (struct worker){ pid, res, next, alive[0] };
						break;
					}
				running++;
			}
			next++;
			continue;
		}
		/* wait for progress or a worker's exit (its pipe's end of file),
		 * so the next job starts at once, not at the next look up to
		 * 50 ms later */
		int np = 0, base = prog[0] >= 0;
		if (base)
			pf[np++] = (struct pollfd){ .fd = prog[0], .events = POLLIN };
		for (int k = 0; k < workers; k++) {
			ended[k] = 0;
			if (w[k].pid && w[k].alive >= 0) {
				wk[np - base] = k;
				pf[np++] = (struct pollfd){ .fd = w[k].alive, .events = POLLIN };
			}
		}
		if (poll(pf, (nfds_t)np, 50) > 0)
			for (int i = base; i < np; i++)
				if (pf[i].revents)
					ended[wk[i - base]] = 1;
		if (prog[0] >= 0)
			read_progress(prog[0], &gdone, &gknown, 0);
		for (int k = 0; k < workers; k++) {
			int st;
			if (!w[k].pid)
				continue;
			/* an ended worker is reaped (it has exited or is about to);
			 * others are looked at, for a worker without a pipe */
			if (waitpid(w[k].pid, &st, ended[k] ? 0 : WNOHANG) != w[k].pid)
				continue;
			failed += job_collect(&jobs[w[k].job], w[k].res) != 0;
			if (w[k].alive >= 0)
				close(w[k].alive);
			w[k].pid = 0;
			running--;
			done++;
		}
		if (progress)
			progress(arg, gdone, gknown, done, n);
	}
	if (prog[0] >= 0) {
		read_progress(prog[0], &gdone, &gknown, 0);
		close(prog[0]);
		close(prog[1]);
		if (progress)
			progress(arg, gdone, gknown, done, n);
	}
	free(w);
	free(pf);
	free(wk);
	free(ended);
	return failed;
}
