/* Control-loop quality metrics (docs/stats.md "Control-loop quality").
 *
 * The IO-less throttle (3.2 on) is a feedback loop: balance_dirty_pages
 * steers the global dirty count towards a setpoint halfway between the
 * freerun ceiling and the dirty limit, and bdi_update_dirty_ratelimit
 * estimates the rate (write bandwidth / dirtying tasks) at which each task
 * may dirty so that the count stays there.  Its design was argued on three
 * properties, measured here from the trace alone, so that simulated and
 * real runs are judged alike: how close the dirty count stays to the
 * setpoint once it got there, how fast it gets (back) there, and how much
 * the count and the rate swing.  3.1 has no setpoint; for it only the swing
 * of the dirty count (about the freerun ceiling, where it starts
 * throttling) and the steady write bandwidth are given.
 *
 * Levels are time-weighted: a global_dirty_state sample's dirty count holds
 * until the next sample.  Everything is counters and running extremes. */
#include <math.h>
#include <string.h>
#include "stats_control.h"
#include "stats.h"
#include "../result/metrics.h"
#include "../sim/page_writeback.h"

/* The metrics this file computes: its rows of the one metric table.  The
 * build collects every file's WBLAB_METRIC rows into that table
 * (src/result/metrics.h says what the fields mean). */
/* control-loop quality (stats_control.c; docs/stats.md "Control-loop quality") */
WBLAB_METRIC(WRITE_BW_STEADY, "write_bw_steady", "MB/s", METRIC_HIGHER, ERAS_ALL, "trace",
	     "written slope from the end of ramp-up to the last writer sample that dirtied")
WBLAB_METRIC(SETPOINT_MEAN_PAGES, "setpoint_mean_pages", "pages", METRIC_NONE, ERAS_IOLESS, "trace",
	     "time-weighted mean setpoint after ramp-up")
WBLAB_METRIC(SETPOINT_ERR_MEAN_PAGES, "setpoint_err_mean_pages", "pages", METRIC_LOWER, ERAS_IOLESS,
	     "trace", "mean |nr_dirty - setpoint| after ramp-up")
WBLAB_METRIC(SETPOINT_ERR_RMS_PAGES, "setpoint_err_rms_pages", "pages", METRIC_LOWER, ERAS_IOLESS,
	     "trace", "RMS of nr_dirty - setpoint after ramp-up")
WBLAB_METRIC(SETPOINT_ERR_MEAN_PCT, "setpoint_err_mean_pct", "%", METRIC_LOWER, ERAS_IOLESS, "trace",
	     "mean |nr_dirty - setpoint| in % of the setpoint")
WBLAB_METRIC(SETPOINT_ERR_RMS_PCT, "setpoint_err_rms_pct", "%", METRIC_LOWER, ERAS_IOLESS, "trace",
	     "RMS of the error in % of the setpoint")
WBLAB_METRIC(SETPOINT_BAND_PCT, "setpoint_band_pct", "%", METRIC_HIGHER, ERAS_IOLESS, "trace",
	     "time after ramp-up within 5 % of the setpoint")
WBLAB_METRIC(SETTLE_START_S, "settle_start_s", "s", METRIC_LOWER, ERAS_IOLESS, "trace",
	     "first sample to settling within 5 % of the setpoint")
WBLAB_METRIC(DISTURBANCES, "disturbances", "", METRIC_NONE, ERAS_IOLESS, "trace",
	     "setpoint moves and writer-count changes after settling")
WBLAB_METRIC(SETTLE_S_MEAN, "settle_s_mean", "s", METRIC_LOWER, ERAS_IOLESS, "trace",
	     "mean disturbance-to-settling time")
WBLAB_METRIC(SETTLE_S_MAX, "settle_s_max", "s", METRIC_LOWER, ERAS_IOLESS, "trace",
	     "longest disturbance-to-settling time")
WBLAB_METRIC(DIRTY_OSC_AMP_PAGES, "dirty_osc_amp_pages", "pages", METRIC_LOWER, ERAS_ALL, "trace",
	     "half the mean peak-to-trough swing of nr_dirty after ramp-up")
WBLAB_METRIC(DIRTY_OSC_AMP_PCT, "dirty_osc_amp_pct", "%", METRIC_LOWER, ERAS_ALL, "trace",
	     "dirty_osc_amp_pages in % of the target (setpoint; 3.1: freerun ceiling)")
WBLAB_METRIC(DIRTY_OSC_PERIOD_S, "dirty_osc_period_s", "s", METRIC_NONE, ERAS_ALL, "trace",
	     "mean peak-to-peak time of nr_dirty")
WBLAB_METRIC(RATELIMIT_OSC_AMP_KBPS, "ratelimit_osc_amp_kbps", "KB/s", METRIC_LOWER, ERAS_IOLESS, "trace",
	     "half the mean swing of dirty_ratelimit (first bdi) after ramp-up")
WBLAB_METRIC(RATELIMIT_OSC_PERIOD_S, "ratelimit_osc_period_s", "s", METRIC_NONE, ERAS_IOLESS, "trace",
	     "mean peak-to-peak time of dirty_ratelimit")
WBLAB_METRIC(TASK_RATELIMIT_FAIR_RATIO, "task_ratelimit_fair_ratio", "", METRIC_NONE, ERAS_IOLESS, "trace",
	     "mean task_ratelimit / (avg_write_bw / dirtying tasks) after ramp-up")
WBLAB_METRIC(TASK_RATELIMIT_FAIR_ERR_PCT, "task_ratelimit_fair_err_pct", "%", METRIC_LOWER, ERAS_IOLESS,
	     "trace", "mean |that ratio - 1| in %")

#define RECOUNT_US 100000        /* dirtying tasks are recounted this often */

void control_init(struct control_acc *c)
{
	memset(c, 0, sizeof(*c));
}

static void swing_confirm(struct ctl_swing *w, int peak)
{
	if (w->ext_ts == w->first_ts)
		return;                  /* the first sample is no turning point */
	if (peak) {
		if (w->have_trough) {
			w->swing_sum += w->ext - w->trough;
			w->nswing++;
		}
		if (w->have_peak) {
			w->period_sum_us += (double)(w->ext_ts - w->peak_ts);
			w->nperiod++;
		}
		w->peak = w->ext;
		w->peak_ts = w->ext_ts;
		w->have_peak = 1;
	} else {
		if (w->have_peak) {
			w->swing_sum += w->peak - w->ext;
			w->nswing++;
		}
		if (w->have_trough) {
			w->period_sum_us += (double)(w->ext_ts - w->trough_ts);
			w->nperiod++;
		}
		w->trough = w->ext;
		w->trough_ts = w->ext_ts;
		w->have_trough = 1;
	}
}

void ctl_swing_feed(struct ctl_swing *w, int64_t ts, double v, double h)
{
	if (!w->dir) {
		w->dir = 1;
		w->ext = v;
		w->ext_ts = w->first_ts = ts;
		return;
	}
	if (w->dir > 0 ? v > w->ext : v < w->ext) {
		w->ext = v;
		w->ext_ts = ts;
	} else if (w->dir > 0 ? v < w->ext - h : v > w->ext + h) {
		swing_confirm(w, w->dir > 0);
		w->dir = -w->dir;
		w->ext = v;
		w->ext_ts = ts;
	}
}

int ctl_swing_amplitude(const struct ctl_swing *w, double *amp)
{
	if (!w->dir)
		return 0;
	*amp = w->nswing ? w->swing_sum / (double)w->nswing / 2 : 0;
	return 1;
}

int ctl_swing_period_s(const struct ctl_swing *w, double *period_s)
{
	if (!w->nperiod)
		return 0;
	*period_s = w->period_sum_us / (double)w->nperiod / 1e6;
	return 1;
}

static void disturb(struct ctl_track *t, int64_t ts)
{
	if (!t->settled)
		return;          /* still settling: part of the settling under way */
	t->settled = 0;
	t->pending = 1;
	t->pending_from = ts;
	t->ndist++;
	if (t->in_band)
		t->in_since = ts;
}

/* The level of the previous sample, held for dt until this one. */
static void track_hold(struct ctl_track *t, double dt, double v, double target, int with_error)
{
	if (!t->ramped || dt <= 0 || target <= 0)
		return;
	double e = fabs(v - target);
	t->area_us += dt;
	t->area_target += dt * target;
	if (!with_error)
		return;
	t->area_abs += dt * e;
	t->area_sq += dt * e * e;
	t->area_abs_pct += dt * e / target * 100;
	t->area_sq_pct += dt * (e / target * 100) * (e / target * 100);
	if (e <= CTL_BAND * target)
		t->area_band += dt;
}

static void track_sample(struct ctl_track *t, int64_t ts, double v, double target, double ramp_at,
			 int64_t written, int settling)
{
	if (target <= 0)
		return;
	if (!t->ramped && v >= ramp_at) {
		t->ramped = 1;
		t->ramp_ts = ts;
		t->ramp_written = written;
	}
	if (t->ramped)
		ctl_swing_feed(&t->dirty, ts, v, CTL_SWING * target);
	if (!settling)
		return;
	if (!t->started) {
		t->started = t->pending = 1;
		t->pending_from = ts;
	}
	if (t->settled && fabs(target - t->target_ref) > CTL_BAND * t->target_ref)
		disturb(t, ts);          /* the setpoint moved: thresholds changed */
	int in = fabs(v - target) <= CTL_BAND * target;
	if (in && !t->in_band)
		t->in_since = ts;
	t->in_band = in;
	if (t->pending && in && ts - t->in_since >= CTL_HOLD_US) {
		double s = (double)(t->in_since - t->pending_from) / 1e6;
		if (!t->have_settle_start) {
			t->have_settle_start = 1;
			t->settle_start_s = s;
		} else {
			t->nresettled++;
			t->resettle_sum_s += s;
			if (s > t->resettle_max_s)
				t->resettle_max_s = s;
		}
		t->pending = 0;
		t->settled = 1;
		t->target_ref = target;
	}
}

static void feed_gds(struct control_acc *c, const struct wb_event *e)
{
	int64_t unst = wb_event_has(e, F_UNSTABLE) ? e->v[F_UNSTABLE] : 0;
	int64_t nr = e->v[F_DIRTY] + e->v[F_WRITEBACK] + unst;
	c->thresh = e->v[F_THRESH];
	c->bg = e->v[F_BG_THRESH];
	c->limit = e->v[F_LIMIT];
	/* as balance_dirty_pages: the freerun ceiling, the hard limit
	 * (hard_dirty_limit: max(thresh, the smoothed limit)), the setpoint
	 * halfway between */
	uint64_t hard = (uint64_t)(c->thresh > c->limit ? c->thresh : c->limit);
	uint64_t freerun = dirty_freerun_ceiling((uint64_t)c->thresh, (uint64_t)c->bg);
	double ceiling = (double)freerun;
	double sp = (double)((freerun + hard) / 2);
	if (c->have_bdp_sp && c->bdp_thresh == c->thresh && c->bdp_bg == c->bg && c->bdp_limit == c->limit)
		sp = (double)c->bdp_sp;
	else
		c->have_bdp_sp = 0;
	if (!c->have_gds) {
		c->have_gds = 1;
		c->first_ts = e->ts_us;
		c->first_written = e->v[F_WRITTEN];
		c->prev_dirtied = e->v[F_DIRTIED];
	} else {
		double dt = (double)(e->ts_us - c->prev_ts);
		track_hold(&c->sp, dt, (double)c->prev_nr_dirty, c->prev_sp, 1);
		track_hold(&c->ceil, dt, (double)c->prev_nr_dirty, c->prev_ceiling, 0);
	}
	/* the writers' own samples end the window: a flusher's sample (the
	 * final sync, a kworker's stray page) is not the writers still writing */
	if ((e->v[F_DIRTIED] > c->prev_dirtied && !stats_is_flusher(e->comm)) || !c->have_grow) {
		c->have_grow = 1;
		c->last_grow_ts = e->ts_us;
		c->last_grow_written = e->v[F_WRITTEN];
	}
	c->prev_dirtied = e->v[F_DIRTIED];
	track_sample(&c->sp, e->ts_us, (double)nr, sp, (1 - CTL_BAND) * sp, e->v[F_WRITTEN], 1);
	track_sample(&c->ceil, e->ts_us, (double)nr, ceiling, ceiling, e->v[F_WRITTEN], 0);
	c->prev_ts = e->ts_us;
	c->prev_nr_dirty = nr;
	c->prev_sp = sp;
	c->prev_ceiling = ceiling;
}

static int bdi_slot(struct control_acc *c, const char *name)
{
	for (int i = 0; i < c->nbdi; i++)
		if (!strcmp(c->bdi[i].name, name))
			return i;
	if (c->nbdi == CTL_MAX_BDI)
		return -1;
	snprintf(c->bdi[c->nbdi].name, sizeof(c->bdi[0].name), "%s", name);
	return c->nbdi++;
}

/* Tasks that called balance_dirty_pages within CTL_TASK_GONE_US, per bdi;
 * a change of their number after settling is a disturbance (a writer came
 * or went: the fair share moved). */
static void count_tasks(struct control_acc *c, int64_t ts)
{
	int total = 0;
	for (int b = 0; b < c->nbdi; b++)
		c->bdi[b].active = 0;
	for (int i = 0; i < c->ntask; i++)
		if (ts - c->task[i].last_ts <= CTL_TASK_GONE_US) {
			c->bdi[c->task[i].bdi].active++;
			total++;
		}
	if (c->counted && total != c->active)
		disturb(&c->sp, ts);
	c->active = total;
	c->counted = 1;
	c->count_ts = ts;
}

static void feed_bdp(struct control_acc *c, const struct wb_event *e)
{
	if (wb_event_has(e, F_SETPOINT)) {
		c->have_bdp_sp = 1;
		c->bdp_sp = e->v[F_SETPOINT];
		c->bdp_thresh = c->thresh;
		c->bdp_bg = c->bg;
		c->bdp_limit = c->limit;
	}
	int b = bdi_slot(c, e->bdi), i = 0;
	if (b < 0)
		return;
	while (i < c->ntask && c->task[i].pid != e->pid)
		i++;
	int fresh = i == c->ntask || e->ts_us - c->task[i].last_ts > CTL_TASK_GONE_US;
	if (i == c->ntask) {
		if (c->ntask == CTL_MAX_TASKS)
			return;
		c->ntask++;
		c->task[i].pid = e->pid;
	}
	c->task[i].bdi = b;
	c->task[i].last_ts = e->ts_us;
	if (fresh || !c->counted || e->ts_us - c->count_ts >= RECOUNT_US)
		count_tasks(c, e->ts_us);
	if (!c->sp.ramped || !c->bdi[b].have_bw || c->bdi[b].active <= 0 || c->bdi[b].awrite_bw <= 0)
		return;
	double fair = c->bdi[b].awrite_bw / c->bdi[b].active;
	double ratio = (double)e->v[F_TASK_RATELIMIT] / fair;
	c->nfair++;
	c->fair_sum += ratio;
	c->fair_err_sum += fabs(ratio - 1) * 100;
}

static void feed_bdr(struct control_acc *c, const struct wb_event *e)
{
	int b = bdi_slot(c, e->bdi);
	if (b < 0)
		return;
	c->bdi[b].awrite_bw = (double)e->v[F_AWRITE_BW];
	c->bdi[b].have_bw = 1;
	/* dirty_ratelimit of the first bdi, past ramp-up */
	if (b != 0 || !c->sp.ramped)
		return;
	double v = (double)e->v[F_DIRTY_RATELIMIT];
	ctl_swing_feed(&c->rl, e->ts_us, v, CTL_SWING * fabs(c->rl.dir ? c->rl.ext : v));
}

void control_feed(struct control_acc *c, const struct wb_event *e)
{
	switch (e->type) {
	case EV_GLOBAL_DIRTY_STATE:
		feed_gds(c, e);
		break;
	case EV_BALANCE_DIRTY_PAGES:
		feed_bdp(c, e);
		break;
	case EV_BDI_DIRTY_RATELIMIT:
		feed_bdr(c, e);
		break;
	default:
		break;
	}
}

/* The written counter's slope from the end of ramp-up (or the first sample
 * when the dirty count never reached its target) to the last sample at
 * which the dirtied counter still grew: the writers' steady part. */
static void write_steady(const struct control_acc *c, const struct ctl_track *t, FILE *f)
{
	int64_t t0 = t->ramped ? t->ramp_ts : c->first_ts;
	int64_t w0 = t->ramped ? t->ramp_written : c->first_written;
	if (!c->have_gds || c->last_grow_ts <= t0)
		return;
	stats_put(f, METRIC_KEY(WRITE_BW_STEADY),
		  (double)(c->last_grow_written - w0) * PAGE_MB / ((double)(c->last_grow_ts - t0) / 1e6));
}

void control_write(const struct control_acc *c, FILE *f, int ioless)
{
	const struct ctl_track *t = ioless ? &c->sp : &c->ceil;
	double v;
	write_steady(c, t, f);
	if (ioless && c->sp.area_us > 0) {
		double T = c->sp.area_us;
		stats_put(f, METRIC_KEY(SETPOINT_MEAN_PAGES), round(c->sp.area_target / T * 10) / 10);
		stats_put(f, METRIC_KEY(SETPOINT_ERR_MEAN_PAGES), round(c->sp.area_abs / T * 10) / 10);
		stats_put(f, METRIC_KEY(SETPOINT_ERR_RMS_PAGES), round(sqrt(c->sp.area_sq / T) * 10) / 10);
		stats_put(f, METRIC_KEY(SETPOINT_ERR_MEAN_PCT), round(c->sp.area_abs_pct / T * 100) / 100);
		stats_put(f, METRIC_KEY(SETPOINT_ERR_RMS_PCT), round(sqrt(c->sp.area_sq_pct / T) * 100) / 100);
		stats_put(f, METRIC_KEY(SETPOINT_BAND_PCT), round(c->sp.area_band / T * 1000) / 10);
	}
	if (ioless && c->sp.have_settle_start) {
		stats_put(f, METRIC_KEY(SETTLE_START_S), c->sp.settle_start_s);
		stats_put(f, METRIC_KEY(DISTURBANCES), (double)c->sp.ndist);
		if (c->sp.nresettled) {
			stats_put(f, METRIC_KEY(SETTLE_S_MEAN), c->sp.resettle_sum_s / (double)c->sp.nresettled);
			stats_put(f, METRIC_KEY(SETTLE_S_MAX), c->sp.resettle_max_s);
		}
	}
	if (ctl_swing_amplitude(&t->dirty, &v)) {
		stats_put(f, METRIC_KEY(DIRTY_OSC_AMP_PAGES), round(v * 10) / 10);
		if (t->area_us > 0 && t->area_target > 0)
			stats_put(f, METRIC_KEY(DIRTY_OSC_AMP_PCT),
				  round(v / (t->area_target / t->area_us) * 10000) / 100);
	}
	if (ctl_swing_period_s(&t->dirty, &v))
		stats_put(f, METRIC_KEY(DIRTY_OSC_PERIOD_S), v);
	if (ioless && ctl_swing_amplitude(&c->rl, &v))
		stats_put(f, METRIC_KEY(RATELIMIT_OSC_AMP_KBPS), round(v * 10) / 10);
	if (ioless && ctl_swing_period_s(&c->rl, &v))
		stats_put(f, METRIC_KEY(RATELIMIT_OSC_PERIOD_S), v);
	if (ioless && c->nfair) {
		stats_put(f, METRIC_KEY(TASK_RATELIMIT_FAIR_RATIO), c->fair_sum / (double)c->nfair);
		stats_put(f, METRIC_KEY(TASK_RATELIMIT_FAIR_ERR_PCT), c->fair_err_sum / (double)c->nfair);
	}
}
