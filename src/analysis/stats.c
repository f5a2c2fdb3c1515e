#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "stats.h"
#include "../trace/trace_read.h"
#include "../result/metrics.h"
#include "stats_control.h"

/* The metrics this file computes: its rows of the one metric table.  The
 * build collects every file's WBLAB_METRIC rows into that table
 * (src/result/metrics.h says what the fields mean). */
/* global_dirty_state */
WBLAB_METRIC(WRITE_BW, "write_bw", "MB/s", METRIC_HIGHER, ERAS_ALL, "trace",
	     "write bandwidth (flusher's written counter); absent when its samples span no time")
WBLAB_METRIC(DURATION_S, "duration_s", "s", METRIC_NONE, ERAS_ALL, "trace",
	     "span of the global_dirty_state samples")
WBLAB_METRIC(GDS_SAMPLES, "gds_samples", "", METRIC_NONE, ERAS_ALL, "trace",
	     "global_dirty_state samples")
WBLAB_METRIC(FLUSHER_SAMPLES, "flusher_samples", "", METRIC_NONE, ERAS_ALL, "trace",
	     "global_dirty_state samples by the flusher")
WBLAB_METRIC(DIRTIED_PAGES, "dirtied_pages", "pages", METRIC_NONE, ERAS_ALL, "trace",
	     "last - first of the dirtied counter")
WBLAB_METRIC(WRITTEN_PAGES, "written_pages", "pages", METRIC_NONE, ERAS_ALL, "trace",
	     "last - first of the written counter")
WBLAB_METRIC(DIRTIED_MB, "dirtied_mb", "MB", METRIC_NONE, ERAS_ALL, "trace", "dirtied_pages in MB")
WBLAB_METRIC(WRITTEN_MB, "written_mb", "MB", METRIC_NONE, ERAS_ALL, "trace", "written_pages in MB")
WBLAB_METRIC(NR_DIRTY_MAX_PAGES, "nr_dirty_max_pages", "pages", METRIC_LOWER, ERAS_ALL, "trace",
	     "peak of dirty + writeback + unstable")
WBLAB_METRIC(NR_DIRTY_MAX_MB, "nr_dirty_max_mb", "MB", METRIC_LOWER, ERAS_ALL, "trace",
	     "nr_dirty_max_pages in MB")
WBLAB_METRIC(NR_DIRTY_TAIL_MAX_MB, "nr_dirty_tail_max_mb", "MB", METRIC_LOWER, ERAS_ALL, "trace",
	     "peak of dirty + writeback + unstable in the first dd's (or fio's) last 500 samples")
WBLAB_METRIC(NR_DIRTY_MEAN_PAGES, "nr_dirty_mean_pages", "pages", METRIC_NONE, ERAS_ALL, "trace",
	     "time-weighted mean of dirty + writeback + unstable")
WBLAB_METRIC(NR_DIRTY_MEAN_MB, "nr_dirty_mean_mb", "MB", METRIC_NONE, ERAS_ALL, "trace",
	     "mean dirty+writeback+unstable")
WBLAB_METRIC(NR_DIRTY_P95_PAGES, "nr_dirty_p95_pages", "pages", METRIC_NONE, ERAS_ALL, "trace",
	     "time-weighted 95th percentile of nr_dirty")
WBLAB_METRIC(DIRTY_MAX_PAGES, "dirty_max_pages", "pages", METRIC_NONE, ERAS_ALL, "trace",
	     "peak of dirty")
WBLAB_METRIC(DIRTY_MEAN_PAGES, "dirty_mean_pages", "pages", METRIC_NONE, ERAS_ALL, "trace",
	     "time-weighted mean of dirty")
WBLAB_METRIC(WRITEBACK_MAX_PAGES, "writeback_max_pages", "pages", METRIC_NONE, ERAS_ALL, "trace",
	     "peak of writeback")
WBLAB_METRIC(UNSTABLE_MAX_PAGES, "unstable_max_pages", "pages", METRIC_NONE, ERAS_ALL, "trace",
	     "peak of unstable (NFS; absent on 6.x: 0)")
WBLAB_METRIC(TIME_OVER_LIMIT_S, "time_over_limit_s", "s", METRIC_LOWER, ERAS_ALL, "trace",
	     "time above the dirty limit")
WBLAB_METRIC(TIME_OVER_LIMIT_PCT, "time_over_limit_pct", "%", METRIC_LOWER, ERAS_ALL, "trace",
	     "time_over_limit_s in % of duration_s")
WBLAB_METRIC(STALL_COUNT, "stall_count", "", METRIC_LOWER, ERAS_ALL, "trace",
	     "device stalls: >= 200 ms with writeback > 0 and nothing written")
WBLAB_METRIC(STALL_S_TOTAL, "stall_s_total", "s", METRIC_LOWER, ERAS_ALL, "trace",
	     "summed span of the stalls")
WBLAB_METRIC(STALL_MS_MAX, "stall_ms_max", "ms", METRIC_LOWER, ERAS_ALL, "trace", "longest stall")
/* balance_dirty_pages, bdi_dirty_ratelimit */
WBLAB_METRIC(BDP_EVENTS, "bdp_events", "", METRIC_NONE, ERAS_ALL, "trace",
	     "balance_dirty_pages events (0 in IO-ful eras)")
WBLAB_METRIC(PAUSE_COUNT, "pause_count", "", METRIC_NONE, ERAS_IOLESS, "trace",
	     "balance_dirty_pages events with pause > 0")
WBLAB_METRIC(PAUSE_MS_MEAN, "pause_ms_mean", "ms", METRIC_LOWER, ERAS_IOLESS, "trace",
	     "mean balance_dirty_pages pause")
WBLAB_METRIC(PAUSE_MS_P50, "pause_ms_p50", "ms", METRIC_LOWER, ERAS_IOLESS, "trace",
	     "median balance_dirty_pages pause")
WBLAB_METRIC(PAUSE_MS_P90, "pause_ms_p90", "ms", METRIC_LOWER, ERAS_IOLESS, "trace",
	     "90th percentile of balance_dirty_pages pauses")
WBLAB_METRIC(PAUSE_MS_P99, "pause_ms_p99", "ms", METRIC_LOWER, ERAS_IOLESS, "trace",
	     "99th percentile of balance_dirty_pages pauses")
WBLAB_METRIC(PAUSE_MS_MAX, "pause_ms_max", "ms", METRIC_LOWER, ERAS_IOLESS, "trace", "longest pause")
WBLAB_METRIC(PAUSED_MS_MAX, "paused_ms_max", "ms", METRIC_LOWER, ERAS_IOLESS, "trace",
	     "longest time one call spent throttled")
WBLAB_METRIC(TASK_RATELIMIT_MEAN_KBPS, "task_ratelimit_mean_kbps", "KB/s", METRIC_NONE, ERAS_IOLESS, "trace",
	     "mean task_ratelimit of balance_dirty_pages")
WBLAB_METRIC(TASK_RATELIMIT_STEADY_KBPS, "task_ratelimit_steady_kbps", "KB/s", METRIC_NONE, ERAS_IOLESS,
	     "trace", "mean task_ratelimit over the second half of the trace")
WBLAB_METRIC(RATELIMIT_UPDATES, "ratelimit_updates", "", METRIC_NONE, ERAS_ALL, "trace",
	     "bdi_dirty_ratelimit events (0 in IO-ful eras)")
WBLAB_METRIC(DIRTY_RATELIMIT_MEAN_KBPS, "dirty_ratelimit_mean_kbps", "KB/s", METRIC_NONE, ERAS_IOLESS,
	     "trace", "mean dirty_ratelimit of bdi_dirty_ratelimit")
WBLAB_METRIC(BALANCED_RATELIMIT_MEAN_KBPS, "balanced_ratelimit_mean_kbps", "KB/s", METRIC_NONE, ERAS_IOLESS,
	     "trace", "mean balanced_dirty_ratelimit of bdi_dirty_ratelimit")
WBLAB_METRIC(AVG_WRITE_BW_MEAN_KBPS, "avg_write_bw_mean_kbps", "KB/s", METRIC_NONE, ERAS_IOLESS, "trace",
	     "mean avg_write_bw of bdi_dirty_ratelimit")
/* 3.1 and NFS events */
WBLAB_METRIC(BALANCE_DIRTY_START_EVENTS, "balance_dirty_start_events", "", METRIC_NONE, ERAS_ALL, "trace",
	     "balance_dirty_start events (3.1; 0 elsewhere)")
WBLAB_METRIC(BALANCE_DIRTY_WAIT_EVENTS, "balance_dirty_wait_events", "", METRIC_NONE, ERAS_ALL, "trace",
	     "balance_dirty_wait events (3.1; 0 elsewhere)")
WBLAB_METRIC(BDW_COUNT, "bdw_count", "", METRIC_NONE, ERAS_IOFUL, "trace",
	     "balance_dirty_start-to-wait spans")
WBLAB_METRIC(BDW_MS_MEAN, "bdw_ms_mean", "ms", METRIC_LOWER, ERAS_IOFUL, "trace", "mean span")
WBLAB_METRIC(BDW_MS_P50, "bdw_ms_p50", "ms", METRIC_LOWER, ERAS_IOFUL, "trace", "median span")
WBLAB_METRIC(BDW_MS_P90, "bdw_ms_p90", "ms", METRIC_LOWER, ERAS_IOFUL, "trace", "90th percentile span")
WBLAB_METRIC(BDW_MS_P99, "bdw_ms_p99", "ms", METRIC_LOWER, ERAS_IOFUL, "trace", "99th percentile span")
WBLAB_METRIC(BDW_MS_MAX, "bdw_ms_max", "ms", METRIC_LOWER, ERAS_IOFUL, "trace", "longest span")
WBLAB_METRIC(COMMIT_EVENTS, "commit_events", "", METRIC_NONE, ERAS_NOT_6X, "trace",
	     "nfs_commit_unstable_pages events with ret > 0 (NFS)")
WBLAB_METRIC(COMMIT_PAGES_MEAN, "commit_pages_mean", "pages", METRIC_NONE, ERAS_NOT_6X, "trace",
	     "mean ret of those events")
/* per task */
WBLAB_METRIC(TASKS, "tasks", "", METRIC_NONE, ERAS_ALL, "task", "writer tasks with a bandwidth")
WBLAB_METRIC(TASK_BW_N, "task_bw_N", "MB/s", METRIC_NONE, ERAS_ALL, "task",
	     "bandwidth of the N-th task, by pid order")
WBLAB_METRIC(TASK_BW_MIN, "task_bw_min", "MB/s", METRIC_HIGHER, ERAS_ALL, "task", "slowest task")
WBLAB_METRIC(TASK_BW_MAX, "task_bw_max", "MB/s", METRIC_NONE, ERAS_ALL, "task", "fastest task")
WBLAB_METRIC(TASK_BW_SUM, "task_bw_sum", "MB/s", METRIC_HIGHER, ERAS_ALL, "task", "sum over tasks")
WBLAB_METRIC(FAIRNESS_JAIN, "fairness_jain", "", METRIC_HIGHER, ERAS_ALL, "task",
	     "Jain's fairness index of per-task bandwidth")
WBLAB_METRIC(TASK_BW_FROM_TRACE, "task_bw_from_trace", "", METRIC_NONE, ERAS_ALL, "task",
	     "1: task_bw_* from balance_dirty_pages events, a lower bound (no event in freerun)")

#define RING 1001           /* holds sample N-1-n for n = min(N/10, 100) */
#define TAIL 500            /* samples of writeback-tests' global_dirty_state-500 graph */
#define PAUSE_HIST 4096     /* pause values in ms; larger ones share the last bucket */
#define RL_BINS 256         /* time bins of task_ratelimit; widths double to fit */

struct sample { int64_t ts_us; int64_t written; };

struct task_bw { int pid; uint64_t pages; double seconds; uint64_t bdp_dirtied; };

struct extra { char name[48]; double value; };

struct stats_acc {
	/* flusher global_dirty_state samples for write_bw (writeback-tests rule) */
	struct sample ring[RING];
	uint64_t nflush;
	struct sample flush0;
	/* all global_dirty_state samples: time-weighted levels */
	uint64_t ngds;
	int64_t first_ts, last_ts, first_dirtied, last_dirtied, first_written, last_written;
	int64_t prev_ts, prev_nr_dirty, prev_dirty, prev_hard;
	double area_nr_dirty, area_dirty, over_limit_us;
	double level_us[STATS_LEVEL_BUCKETS];   /* time spent at each nr_dirty level */
	int64_t max_nr_dirty, max_dirty, max_writeback, max_unstable;
	/* nr_dirty of the first writer's last TAIL samples */
	int64_t tail[TAIL];
	uint64_t ntail;
	int tail_pid;
	/* balance_dirty_pages */
	uint64_t nbdp, npause;
	uint64_t pause_hist[PAUSE_HIST];
	int64_t pause_max;
	double pause_sum, task_rl_sum, paused_max;
	struct { double sum; uint64_t n; } rl_bin[RL_BINS];
	int64_t rl_bin_us;                /* width of a bin; 0 before the first event */
	int64_t ev_first, ev_last;        /* first and last event of any kind */
	int have_events;
	/* bdi_dirty_ratelimit */
	uint64_t nbdr;
	double dirty_rl_sum, balanced_rl_sum, awrite_bw_sum;
	/* per task */
	struct task_bw tasks[STATS_MAX_TASKS];
	int ntasks;
	uint64_t n31_start, n31_wait;
	/* 3.1: each task's last balance_dirty_start, ended by its balance_dirty_wait */
	struct { int pid; int64_t ts_us; } w31[STATS_MAX_TASKS];
	int nw31;
	uint64_t nbdw, bdw_hist[PAUSE_HIST];
	double bdw_sum_ms, bdw_max_ms;
	struct stats_stall stall;
	/* NFS commit events */
	uint64_t ncommit_sent, commit_pages;
	struct extra extra[STATS_MAX_EXTRA];
	int nextra;
	struct control_acc ctl;         /* control-loop quality (stats_control.c) */
};

struct stats_acc *stats_new(void)
{
	return calloc(1, sizeof(struct stats_acc));
}

void stats_free(struct stats_acc *s)
{
	free(s);
}

int stats_is_flusher(const char *comm)
{
	/* the first byte first: stats and plot ask for every event, mostly a writer's */
	if (comm[0] == 'f')
		return strncmp(comm, "flush-", 6) == 0;
	return comm[0] == 'k' && strncmp(comm, "kworker/", 8) == 0;
}

/* nr_dirty levels: exact below 128 pages, then 64 steps per doubling
 * (1.6 % resolution), so the p95 costs constant memory */
int stats_level_bucket(int64_t v)
{
	if (v < 128)
		return v < 0 ? 0 : (int)v;
	int e = 63 - __builtin_clzll((uint64_t)v);
	int b = 128 + (e - 7) * 64 + (int)(((uint64_t)v >> (e - 6)) & 63);
	return b < STATS_LEVEL_BUCKETS ? b : STATS_LEVEL_BUCKETS - 1;
}

double stats_level_value(int b)
{
	if (b < 128)
		return b;
	int e = 7 + (b - 128) / 64, m = (b - 128) % 64;
	return (double)((uint64_t)(64 + m) << (e - 6));
}

static struct task_bw *task_slot(struct stats_acc *s, int pid)
{
	for (int i = 0; i < s->ntasks; i++)
		if (s->tasks[i].pid == pid)
			return &s->tasks[i];
	if (s->ntasks == STATS_MAX_TASKS)
		return NULL;
	struct task_bw *t = &s->tasks[s->ntasks++];
	memset(t, 0, sizeof(*t));
	t->pid = pid;
	return t;
}

static void stall_close(struct stats_stall *st)
{
	if (!st->in_run)
		return;
	st->in_run = 0;
	double len = (double)(st->run_last_us - st->run_first_us);
	if (len < STATS_STALL_MIN_US)
		return;
	st->count++;
	st->total_us += len;
	st->wb_area_stalled += st->run_area;
	if (len > st->max_us)
		st->max_us = len;
}

void stats_stall_feed(struct stats_stall *st, int64_t ts_us, int64_t writeback, int64_t written)
{
	/* each sample's writeback holds until the next sample */
	double da = st->have_prev && ts_us > st->prev_us
		    ? (double)(ts_us - st->prev_us) * (double)st->prev_wb : 0;
	st->wb_area += da;
	if (st->in_run && writeback > 0 && written == st->run_written) {
		st->run_last_us = ts_us;
		st->run_area += da;
	} else {
		stall_close(st);
		if (writeback > 0) {
			st->in_run = 1;
			st->run_first_us = st->run_last_us = ts_us;
			st->run_written = written;
			st->run_area = 0;
		}
	}
	st->have_prev = 1;
	st->prev_us = ts_us;
	st->prev_wb = writeback;
}

void stats_stall_end(struct stats_stall *st)
{
	stall_close(st);
}

static void feed_gds(struct stats_acc *s, const struct wb_event *e)
{
	int64_t dirty = e->v[F_DIRTY], wb = e->v[F_WRITEBACK];
	int64_t unst = wb_event_has(e, F_UNSTABLE) ? e->v[F_UNSTABLE] : 0;
	int64_t nr_dirty = dirty + wb + unst;
	int64_t hard = e->v[F_THRESH] > e->v[F_LIMIT] ? e->v[F_THRESH] : e->v[F_LIMIT];

	if (s->ngds == 0) {
		s->first_ts = e->ts_us;
		s->first_dirtied = e->v[F_DIRTIED];
		s->first_written = e->v[F_WRITTEN];
	} else if (e->ts_us > s->prev_ts) {
		/* each sample's level holds until the next sample */
		double dt = (double)(e->ts_us - s->prev_ts);
		s->area_nr_dirty += dt * (double)s->prev_nr_dirty;
		s->level_us[stats_level_bucket(s->prev_nr_dirty)] += dt;
		s->area_dirty += dt * (double)s->prev_dirty;
		if (s->prev_nr_dirty > s->prev_hard)
			s->over_limit_us += dt;
	}
	s->ngds++;
	s->prev_ts = s->last_ts = e->ts_us;
	s->prev_nr_dirty = nr_dirty;
	s->prev_dirty = dirty;
	s->prev_hard = hard;
	s->last_dirtied = e->v[F_DIRTIED];
	s->last_written = e->v[F_WRITTEN];
	stats_stall_feed(&s->stall, e->ts_us, wb, e->v[F_WRITTEN]);
	if (nr_dirty > s->max_nr_dirty) s->max_nr_dirty = nr_dirty;
	if (dirty > s->max_dirty) s->max_dirty = dirty;
	if (wb > s->max_writeback) s->max_writeback = wb;
	if (unst > s->max_unstable) s->max_unstable = unst;

	/* writeback-tests plots, beside the flusher's samples, the last 500 of
	 * the first dd it started that has any (its pid file's order): here the
	 * lowest pid among the writers, dd or fio (wblab's own real writers are
	 * named dd); global_dirty_state is system-wide, so any other process
	 * that dirties pages has samples too */
	if (e->pid > 0 && (!strcmp(e->comm, "dd") || !strcmp(e->comm, "fio"))) {
		if (!s->tail_pid || e->pid < s->tail_pid) {
			s->tail_pid = e->pid;
			s->ntail = 0;
		}
		if (e->pid == s->tail_pid)
			s->tail[s->ntail++ % TAIL] = nr_dirty;
	}
	if (stats_is_flusher(e->comm)) {
		if (s->nflush == 0) {
			s->flush0.ts_us = e->ts_us;
			s->flush0.written = e->v[F_WRITTEN];
		}
		struct sample *r = &s->ring[s->nflush % RING];
		r->ts_us = e->ts_us;
		r->written = e->v[F_WRITTEN];
		s->nflush++;
	}
}

/* Whether the task's dirtied counter restarts after this event, so that the
 * pages it reports are counted exactly once.  3.2: one reset per call, and
 * only a call's first event has paused == 0 (later ones follow a sleep in
 * the same call).  3.3+ (period/think fields): the counter restarts after a
 * real pause, when a period was accounted, or after a long negative pause;
 * otherwise it keeps growing into the next event. */
static int bdp_resets_dirtied(const struct wb_event *e)
{
	if (wb_event_has(e, F_PERIOD))
		return e->v[F_PAUSE] > 0 || e->v[F_PERIOD] != 0 || e->v[F_PAUSE] < -1000;
	return e->v[F_PAUSED] == 0;
}

/* task_ratelimit by time from the first event, in RL_BINS bins whose width
 * doubles (merging pairs) when the trace outgrows them: the second-half mean
 * costs constant memory */
static void rl_bin_add(struct stats_acc *s, int64_t ts, double rl)
{
	if (!s->rl_bin_us)
		s->rl_bin_us = 1000000;
	int64_t i = (ts - s->ev_first) / s->rl_bin_us;
	while (i >= RL_BINS) {
		for (int k = 0; k < RL_BINS / 2; k++) {
			s->rl_bin[k].sum = s->rl_bin[2 * k].sum + s->rl_bin[2 * k + 1].sum;
			s->rl_bin[k].n = s->rl_bin[2 * k].n + s->rl_bin[2 * k + 1].n;
		}
		memset(&s->rl_bin[RL_BINS / 2], 0, sizeof(s->rl_bin[0]) * (RL_BINS / 2));
		s->rl_bin_us *= 2;
		i = (ts - s->ev_first) / s->rl_bin_us;
	}
	s->rl_bin[i < 0 ? 0 : i].sum += rl;
	s->rl_bin[i < 0 ? 0 : i].n++;
}

static void feed_bdp(struct stats_acc *s, const struct wb_event *e)
{
	s->nbdp++;
	s->task_rl_sum += (double)e->v[F_TASK_RATELIMIT];
	rl_bin_add(s, e->ts_us, (double)e->v[F_TASK_RATELIMIT]);
	if ((double)e->v[F_PAUSED] > s->paused_max)
		s->paused_max = (double)e->v[F_PAUSED];
	struct task_bw *t = task_slot(s, e->pid);
	if (t && bdp_resets_dirtied(e))
		t->bdp_dirtied += (uint64_t)(e->v[F_DIRTIED] > 0 ? e->v[F_DIRTIED] : 0);
	int64_t p = e->v[F_PAUSE];
	if (p <= 0)
		return;
	s->npause++;
	s->pause_sum += (double)p;
	if (p > s->pause_max)
		s->pause_max = p;
	s->pause_hist[p < PAUSE_HIST ? p : PAUSE_HIST - 1]++;
}

/* 3.1's throttling loop: balance_dirty_start, maybe a written chunk, the
 * sleep, then balance_dirty_wait; one start-to-wait span is the 3.1
 * counterpart of a pause (writeback done by the task included). */
static void bdw_start(struct stats_acc *s, const struct wb_event *e)
{
	for (int i = 0; i < s->nw31; i++)
		if (s->w31[i].pid == e->pid) {
			s->w31[i].ts_us = e->ts_us;
			return;
		}
	if (s->nw31 < STATS_MAX_TASKS) {
		s->w31[s->nw31].pid = e->pid;
		s->w31[s->nw31++].ts_us = e->ts_us;
	}
}

static void bdw_end(struct stats_acc *s, const struct wb_event *e)
{
	for (int i = 0; i < s->nw31; i++) {
		if (s->w31[i].pid != e->pid || s->w31[i].ts_us < 0)
			continue;
		double ms = (double)(e->ts_us - s->w31[i].ts_us) / 1000.0;
		s->w31[i].ts_us = -1;
		if (ms < 0)
			return;
		int64_t b = (int64_t)llround(ms);
		s->nbdw++;
		s->bdw_sum_ms += ms;
		if (ms > s->bdw_max_ms)
			s->bdw_max_ms = ms;
		s->bdw_hist[b < PAUSE_HIST ? b : PAUSE_HIST - 1]++;
		return;
	}
}

void stats_feed(struct stats_acc *s, const struct wb_event *e)
{
	if (!s->have_events) {
		s->have_events = 1;
		s->ev_first = e->ts_us;
	}
	s->ev_last = e->ts_us;
	control_feed(&s->ctl, e);
	switch (e->type) {
	case EV_GLOBAL_DIRTY_STATE:
		feed_gds(s, e);
		break;
	case EV_BALANCE_DIRTY_PAGES:
		feed_bdp(s, e);
		break;
	case EV_BDI_DIRTY_RATELIMIT:
		s->nbdr++;
		s->dirty_rl_sum += (double)e->v[F_DIRTY_RATELIMIT];
		s->balanced_rl_sum += (double)e->v[F_BALANCED_DIRTY_RATELIMIT];
		s->awrite_bw_sum += (double)e->v[F_AWRITE_BW];
		break;
	case EV_BALANCE_DIRTY_START:
		s->n31_start++;
		bdw_start(s, e);
		break;
	case EV_BALANCE_DIRTY_WAIT:
		s->n31_wait++;
		bdw_end(s, e);
		break;
	case EV_NFS_COMMIT_UNSTABLE_PAGES:
		if (e->v[F_RET] > 0) {
			s->ncommit_sent++;
			s->commit_pages += (uint64_t)e->v[F_RET];
		}
		break;
	default:
		break;
	}
}

int stats_feed_trace(struct stats_acc *s, const char *path, char *err, size_t errlen)
{
	struct trace_reader *tr = trace_reader_open_result(path, err, errlen);
	if (!tr)
		return -1;
	struct wb_event e;
	int rc;
	while ((rc = trace_reader_next(tr, &e, err, errlen)) == 1)
		stats_feed(s, &e);
	trace_reader_close(tr);
	return rc < 0 ? -1 : 0;
}

void stats_task(struct stats_acc *s, int pid, uint64_t pages, double seconds)
{
	struct task_bw *t = task_slot(s, pid);
	if (t) {
		t->pages = pages;
		t->seconds = seconds;
	}
}

void stats_set(struct stats_acc *s, const char *name, double value)
{
	for (int i = 0; i < s->nextra; i++)
		if (strcmp(s->extra[i].name, name) == 0) {
			s->extra[i].value = value;
			return;
		}
	if (s->nextra == STATS_MAX_EXTRA)
		return;
	snprintf(s->extra[s->nextra].name, sizeof(s->extra[0].name), "%s", name);
	s->extra[s->nextra++].value = value;
}

void stats_put(FILE *f, const char *name, double v)
{
	if (!isfinite(v))
		v = 0;
	if (v == floor(v) && fabs(v) < 1e15)
		fprintf(f, "%s %.0f\n", name, v);
	else
		fprintf(f, "%s %.4f\n", name, v);
}

/* Nearest-rank percentile over the balance_dirty_wait histogram (ms). */
static double bdw_pct(const struct stats_acc *s, double pct)
{
	if (!s->nbdw)
		return 0;
	uint64_t rank = (uint64_t)ceil(pct / 100.0 * (double)s->nbdw), seen = 0;
	for (int i = 0; i < PAUSE_HIST; i++) {
		seen += s->bdw_hist[i];
		if (seen >= rank)
			return i == PAUSE_HIST - 1 || i > s->bdw_max_ms ? s->bdw_max_ms : i;
	}
	return s->bdw_max_ms;
}

/* Nearest-rank percentile over the pause histogram. */
static int64_t pause_pct(const struct stats_acc *s, double pct)
{
	if (!s->npause)
		return 0;
	uint64_t rank = (uint64_t)ceil(pct / 100.0 * (double)s->npause);
	if (rank < 1)
		rank = 1;
	uint64_t seen = 0;
	for (int i = 0; i < PAUSE_HIST; i++) {
		seen += s->pause_hist[i];
		if (seen >= rank)
			return i == PAUSE_HIST - 1 ? s->pause_max : i;
	}
	return s->pause_max;
}

/* write_bw as writeback-tests' compare computed it: flusher samples, end point
 * n = min(N/10, 100) samples before the last, MB = 256 pages.  NAN when the
 * samples span no time (fewer than two, or a run too short): not measured,
 * which is not a measured 0. */
static double write_bw(const struct stats_acc *s)
{
	uint64_t N = s->nflush;
	if (N < 2)
		return NAN;
	uint64_t n = N / 10 < 100 ? N / 10 : 100;
	const struct sample *b = &s->ring[(N - 1 - n) % RING];
	if (b->ts_us <= s->flush0.ts_us)
		return NAN;
	return (double)(b->written - s->flush0.written) * PAGE_MB /
	       ((double)(b->ts_us - s->flush0.ts_us) / 1e6);
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static int cmp_pid(const void *a, const void *b)
{
	const struct task_bw *x = a, *y = b;
	return x->pid < y->pid ? -1 : x->pid > y->pid;
}

/* Per-task bandwidth (MB/s) and Jain's fairness index (sum x)^2 / (n sum x^2). */
static void write_tasks(struct stats_acc *s, FILE *f)
{
	double bw[STATS_MAX_TASKS];
	int n = 0, from_trace = 0;
	double dur = (double)(s->last_ts - s->first_ts) / 1e6;
	qsort(s->tasks, (size_t)s->ntasks, sizeof(s->tasks[0]), cmp_pid);
	for (int i = 0; i < s->ntasks; i++) {
		const struct task_bw *t = &s->tasks[i];
		if (t->seconds > 0) {
			bw[n++] = (double)t->pages * PAGE_MB / t->seconds;
		} else if (t->bdp_dirtied && dur > 0) {
			bw[n++] = (double)t->bdp_dirtied * PAGE_MB / dur;
			from_trace = 1;
		}
	}
	stats_put(f, METRIC_KEY(TASKS), n);
	if (!n)
		return;
	double sum = 0, sq = 0;
	char name[32];
	for (int i = 0; i < n; i++) {
		/* task_bw_N: the row's stem, then the index */
		snprintf(name, sizeof(name), "%.*s%d", (int)strlen(METRIC_KEY(TASK_BW_N)) - 1,
			 METRIC_KEY(TASK_BW_N), i);
		stats_put(f, name, bw[i]);
		sum += bw[i];
		sq += bw[i] * bw[i];
	}
	qsort(bw, (size_t)n, sizeof(bw[0]), cmp_double);
	stats_put(f, METRIC_KEY(TASK_BW_MIN), bw[0]);
	stats_put(f, METRIC_KEY(TASK_BW_MAX), bw[n - 1]);
	stats_put(f, METRIC_KEY(TASK_BW_SUM), sum);
	stats_put(f, METRIC_KEY(FAIRNESS_JAIN), sq > 0 ? sum * sum / (n * sq) : 0);
	/* a task dirtying below the freerun ceiling calls balance_dirty_pages
	 * without an event: from a trace alone its pages are not all seen */
	if (from_trace)
		stats_put(f, METRIC_KEY(TASK_BW_FROM_TRACE), 1);
}

/* Time-weighted 95th percentile of nr_dirty (bucket lower bound). */
static double level_p95(const struct stats_acc *s)
{
	double total = 0, seen = 0;
	for (int b = 0; b < STATS_LEVEL_BUCKETS; b++)
		total += s->level_us[b];
	if (total <= 0)
		return (double)s->prev_nr_dirty;
	for (int b = 0; b < STATS_LEVEL_BUCKETS; b++) {
		seen += s->level_us[b];
		if (seen >= 0.95 * total)
			return stats_level_value(b);
	}
	return stats_level_value(STATS_LEVEL_BUCKETS - 1);
}

/* Mean task_ratelimit of balance_dirty_pages in the second half of the trace
 * (bins starting at or after its middle): the steady state, past ramp-up. */
static double steady_ratelimit(const struct stats_acc *s)
{
	if (!s->rl_bin_us)
		return 0;
	int64_t mid = (s->ev_last - s->ev_first) / 2;
	double sum = 0;
	uint64_t n = 0;
	for (int i = 0; i < RL_BINS; i++)
		if ((int64_t)i * s->rl_bin_us >= mid) {
			sum += s->rl_bin[i].sum;
			n += s->rl_bin[i].n;
		}
	return n ? sum / (double)n : 0;
}

int stats_write(struct stats_acc *s, FILE *f)
{
	/* no event at all (a run without a trace): the trace's rows are not
	 * known, not 0; the producer's own figures and the tasks still are */
	if (!s->have_events) {
		write_tasks(s, f);
		for (int i = 0; i < s->nextra; i++)
			stats_put(f, s->extra[i].name, s->extra[i].value);
		return ferror(f) ? -1 : 0;
	}
	double dur = (double)(s->last_ts - s->first_ts) / 1e6;
	double span_us = (double)(s->last_ts - s->first_ts);
	double bw = write_bw(s);
	if (!isnan(bw))
		stats_put(f, METRIC_KEY(WRITE_BW), bw);
	stats_put(f, METRIC_KEY(DURATION_S), dur);
	stats_put(f, METRIC_KEY(GDS_SAMPLES), (double)s->ngds);
	stats_put(f, METRIC_KEY(FLUSHER_SAMPLES), (double)s->nflush);
	stats_put(f, METRIC_KEY(DIRTIED_PAGES), (double)(s->last_dirtied - s->first_dirtied));
	stats_put(f, METRIC_KEY(WRITTEN_PAGES), (double)(s->last_written - s->first_written));
	stats_put(f, METRIC_KEY(DIRTIED_MB), (double)(s->last_dirtied - s->first_dirtied) * PAGE_MB);
	stats_put(f, METRIC_KEY(WRITTEN_MB), (double)(s->last_written - s->first_written) * PAGE_MB);
	stats_put(f, METRIC_KEY(NR_DIRTY_MAX_PAGES), (double)s->max_nr_dirty);
	stats_put(f, METRIC_KEY(NR_DIRTY_MAX_MB), (double)s->max_nr_dirty * PAGE_MB);
	if (s->ntail) {
		int64_t m = 0;
		for (uint64_t i = 0; i < s->ntail && i < TAIL; i++)
			if (s->tail[i] > m)
				m = s->tail[i];
		stats_put(f, METRIC_KEY(NR_DIRTY_TAIL_MAX_MB), (double)m * PAGE_MB);
	}
	double mean_nr = span_us > 0 ? s->area_nr_dirty / span_us : (double)s->prev_nr_dirty;
	double mean_d = span_us > 0 ? s->area_dirty / span_us : (double)s->prev_dirty;
	stats_put(f, METRIC_KEY(NR_DIRTY_MEAN_PAGES), round(mean_nr * 10) / 10);
	stats_put(f, METRIC_KEY(NR_DIRTY_MEAN_MB), round(mean_nr * PAGE_MB * 1000) / 1000);
	stats_put(f, METRIC_KEY(NR_DIRTY_P95_PAGES), level_p95(s));
	stats_put(f, METRIC_KEY(DIRTY_MAX_PAGES), (double)s->max_dirty);
	stats_put(f, METRIC_KEY(DIRTY_MEAN_PAGES), round(mean_d * 10) / 10);
	stats_put(f, METRIC_KEY(WRITEBACK_MAX_PAGES), (double)s->max_writeback);
	stats_put(f, METRIC_KEY(UNSTABLE_MAX_PAGES), (double)s->max_unstable);
	stats_put(f, METRIC_KEY(TIME_OVER_LIMIT_S), s->over_limit_us / 1e6);
	stats_put(f, METRIC_KEY(TIME_OVER_LIMIT_PCT),
		  span_us > 0 ? round(s->over_limit_us / span_us * 10000) / 100 : 0);
	struct stats_stall st = s->stall;   /* a copy: stats_write may be called again */
	stats_stall_end(&st);
	stats_put(f, METRIC_KEY(STALL_COUNT), (double)st.count);
	stats_put(f, METRIC_KEY(STALL_S_TOTAL), st.total_us / 1e6);
	stats_put(f, METRIC_KEY(STALL_MS_MAX), st.max_us / 1e3);
	/* 3.1 has no balance_dirty_pages (nor bdi_dirty_ratelimit) event: what
	 * those events measure is absent from its stats (compare shows n/a), and
	 * its own loop's spans are the bdw_* figures below */
	int is31 = s->n31_start || s->n31_wait;
	int bdp = s->nbdp || !is31, bdr = s->nbdr || !is31;
	stats_put(f, METRIC_KEY(BDP_EVENTS), (double)s->nbdp);
	if (bdp) {
	stats_put(f, METRIC_KEY(PAUSE_COUNT), (double)s->npause);
	stats_put(f, METRIC_KEY(PAUSE_MS_MEAN), s->npause ? s->pause_sum / (double)s->npause : 0);
	stats_put(f, METRIC_KEY(PAUSE_MS_P50), (double)pause_pct(s, 50));
	stats_put(f, METRIC_KEY(PAUSE_MS_P90), (double)pause_pct(s, 90));
	stats_put(f, METRIC_KEY(PAUSE_MS_P99), (double)pause_pct(s, 99));
	stats_put(f, METRIC_KEY(PAUSE_MS_MAX), (double)s->pause_max);
	stats_put(f, METRIC_KEY(PAUSED_MS_MAX), s->paused_max);
	stats_put(f, METRIC_KEY(TASK_RATELIMIT_MEAN_KBPS), s->nbdp ? s->task_rl_sum / (double)s->nbdp : 0);
	stats_put(f, METRIC_KEY(TASK_RATELIMIT_STEADY_KBPS), steady_ratelimit(s));
	}
	stats_put(f, METRIC_KEY(RATELIMIT_UPDATES), (double)s->nbdr);
	if (bdr) {
	stats_put(f, METRIC_KEY(DIRTY_RATELIMIT_MEAN_KBPS), s->nbdr ? s->dirty_rl_sum / (double)s->nbdr : 0);
	stats_put(f, METRIC_KEY(BALANCED_RATELIMIT_MEAN_KBPS), s->nbdr ? s->balanced_rl_sum / (double)s->nbdr : 0);
	stats_put(f, METRIC_KEY(AVG_WRITE_BW_MEAN_KBPS), s->nbdr ? s->awrite_bw_sum / (double)s->nbdr : 0);
	}
	stats_put(f, METRIC_KEY(BALANCE_DIRTY_START_EVENTS), (double)s->n31_start);
	stats_put(f, METRIC_KEY(BALANCE_DIRTY_WAIT_EVENTS), (double)s->n31_wait);
	if (is31) {
		stats_put(f, METRIC_KEY(BDW_COUNT), (double)s->nbdw);
		stats_put(f, METRIC_KEY(BDW_MS_MEAN), s->nbdw ? s->bdw_sum_ms / (double)s->nbdw : 0);
		stats_put(f, METRIC_KEY(BDW_MS_P50), bdw_pct(s, 50));
		stats_put(f, METRIC_KEY(BDW_MS_P90), bdw_pct(s, 90));
		stats_put(f, METRIC_KEY(BDW_MS_P99), bdw_pct(s, 99));
		stats_put(f, METRIC_KEY(BDW_MS_MAX), s->bdw_max_ms);
	}
	if (s->ncommit_sent) {
		stats_put(f, METRIC_KEY(COMMIT_EVENTS), (double)s->ncommit_sent);
		stats_put(f, METRIC_KEY(COMMIT_PAGES_MEAN), (double)s->commit_pages / (double)s->ncommit_sent);
	}
	write_tasks(s, f);
	control_write(&s->ctl, f, bdp || bdr);
	for (int i = 0; i < s->nextra; i++)
		stats_put(f, s->extra[i].name, s->extra[i].value);
	return ferror(f) ? -1 : 0;
}
