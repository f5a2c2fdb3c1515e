/* Linux 3.2 "IO-less" balance_dirty_pages (docs/throttling-model.md, sections
 * "3.2 entry" to "The 3.2 loop and the pause"): dirtiers never write; they
 * sleep so that their dirty rate follows the bdi's write bandwidth around a
 * setpoint between the freerun point and the hard limit. */
#include "common.h"
#include "ioless.h"
#include "../nfs/nfs_era.h"
#include "../sim/fs_writeback.h"
#include "../sim/page_writeback.h"
#include "../sim/trace_emit.h"
#include "../util/util.h"

/*
 * bdi_position_ratio (docs/throttling-model.md, Position ratio): 1024 = 1.0
 *
 * The rate limit says how fast a task may dirty when all is well; this ratio
 * says how far from "well" the dirty pages are, and scales the rate so that
 * they drift back.  Two errors are corrected at once: the global one (all
 * dirty pages against the setpoint between freerun and the hard limit) and
 * the bdi's own (its dirty pages against its share of that setpoint).
 *
 * The global factor is a cubic because it must be 2 at freerun (ramp up
 * quickly), 1 at the setpoint and 0 at the limit (never cross it), and flat
 * around the setpoint: in balance the dirty count wanders a little all the
 * time, and a flat curve keeps that wandering out of the tasks' rates, while
 * far from the setpoint the steep ends pull hard.
 *
 * The bdi factor is a gentle line, its slope set by the write bandwidth
 * because that is how far a bdi's dirty count normally swings.  It is cut off
 * at 1/4 rather than falling to 0: the hard stop belongs to the global cubic,
 * and the bdi's share moves with its recent writeout, so a bdi that just lost
 * share must slow down, not stall.  For the same reason an idle bdi is given
 * a floor threshold, and a bdi about to run out of dirty pages is pushed up
 * (the reserve area) so that its device does not go idle.
 */
uint64_t bdi_setpoint_32(struct sim *s, const struct dirty_throttle_control *dtc)
{
	uint64_t freerun = dirty_freerun_ceiling(dtc->thresh, dtc->bg_thresh);
	uint64_t limit = hard_dirty_limit(s, dtc->thresh);
	return (freerun + limit) / 2;
}

uint64_t bdi_position_ratio(struct sim *s, const struct dirty_throttle_control *dtc)
{
	return bdi_position_ratio_at(s, dtc, bdi_setpoint_32(s, dtc));
}

uint64_t bdi_position_ratio_at(struct sim *s, const struct dirty_throttle_control *dtc,
			       uint64_t setpoint)
{
	uint64_t thresh = dtc->thresh, dirty = dtc->dirty;
	uint64_t bdi_thresh = dtc->wb_thresh, bdi_dirty = dtc->wb_dirty;
	uint64_t write_bw = dtc->wb->avg_write_bandwidth;
	uint64_t limit = hard_dirty_limit(s, thresh);
	if (dirty >= limit)
		return 0;

	/* global control line: a cubic through freerun (2.0), setpoint (1.0), limit (0) */
	int64_t x = ((int64_t)setpoint - (int64_t)dirty) * (1 << RATELIMIT_CALC_SHIFT) /
		    ((int64_t)limit - (int64_t)setpoint + 1);
	int64_t pos = x;
	pos = (pos * x) >> RATELIMIT_CALC_SHIFT;
	pos = (pos * x) >> RATELIMIT_CALC_SHIFT;
	pos += 1 << RATELIMIT_CALC_SHIFT;
	uint64_t pos_ratio = (uint64_t)pos;

	/* bdi control line, flattened at 1/4 far above the bdi setpoint */
	if (bdi_thresh > thresh)
		bdi_thresh = thresh;
	if (bdi_thresh < (limit - dirty) / 8)
		bdi_thresh = (limit - dirty) / 8;   /* give an idle bdi room to ramp up */
	uint64_t xs = (bdi_thresh << 16) / (thresh + 1);
	uint64_t bdi_setpoint = (setpoint * xs) >> 16;
	/* MODEL: signed, so the unreachable wrap of thresh - bdi_thresh cannot happen */
	int64_t span_in = (int64_t)thresh - (int64_t)bdi_thresh + 8 * (int64_t)write_bw;
	uint64_t span = ((uint64_t)(span_in > 0 ? span_in : 0) * xs) >> 16;
	uint64_t x_intercept = bdi_setpoint + span;
	if (bdi_dirty < x_intercept - span / 4)
		pos_ratio = pos_ratio * (x_intercept - bdi_dirty) / (x_intercept - bdi_setpoint + 1);
	else
		pos_ratio /= 4;

	/* bdi reserve area: keep a bdi's queue from running dry */
	uint64_t reserve = bdi_thresh / 2;
	if (bdi_dirty < reserve) {
		if (bdi_dirty > reserve / 8)
			pos_ratio = pos_ratio * reserve / bdi_dirty;
		else
			pos_ratio *= 8;
	}
	return pos_ratio;
}

/*
 * bdi_max_pause (docs/throttling-model.md, Max pause), jiffies
 *
 * One dd should sleep about 20 ms at a time: short enough to feel smooth,
 * long enough that the checks cost little.  With more tasks each one's rate
 * is lower, so the pause is allowed to grow by 20 ms per doubling of their
 * number, keeping the pages dirtied per pause, and so the overhead per page,
 * about constant.  A bdi with few dirty pages gets shorter pauses instead,
 * since all its writers asleep at once would let the device run dry.
 */
uint64_t bdi_max_pause(struct sim *s, struct bdi *bdi, uint64_t bdi_dirty)
{
	uint64_t bw = bdi->avg_write_bandwidth ? bdi->avg_write_bandwidth : 1;  /* MODEL: >= 1 */
	uint64_t rl = bdi->dirty_ratelimit ? bdi->dirty_ratelimit : 1;
	int hi = ilog2_u64(bw), lo = ilog2_u64(rl);
	uint64_t t = s->p.hz / 50;
	if (hi > lo)
		t += (uint64_t)(hi - lo) * (20 * s->p.hz) / 1024;
	uint64_t cap = bdi_dirty * s->p.hz / (8 * bw + 1);
	if (t > cap)
		t = cap;
	uint64_t maxp = max_pause_jiffies(s);
	return t < 4 ? 4 : t > maxp ? maxp : t;
}

uint64_t dirty_poll_interval(uint64_t dirty, uint64_t thresh)
{
	if (thresh > dirty)
		return 1ULL << (ilog2_u64(thresh - dirty) >> 1);
	return 1;
}

/*
 * bdi_update_dirty_ratelimit: track write_bw / N (docs/throttling-model.md,
 * Dirty ratelimit estimation)
 *
 * N is not known and tasks come and go, so it is measured: if every task was
 * held to task_rl over the last 200 ms, the bdi saw N x task_rl pages dirtied,
 * and task_rl x write_bw / dirty_rate is the rate that would just match the
 * device.  The estimate is taken from task_rl, which includes pos_ratio, not
 * from the bare rate limit; otherwise a state where the ratio halves a rate
 * twice too high would look balanced and never be corrected.
 *
 * Over 200 ms that estimate is noisy, so the rate limit only follows it when
 * the position error points the same way (it may only rise below the setpoint
 * and only fall above it), by a step that shrinks sharply once it is small
 * against the rate and is at most 1/8 of the gap: a steady rate matters more
 * to the writers than an exact match.  3.2 does not cap the estimate at the
 * write bandwidth; later kernels do.
 */
void bdi_update_dirty_ratelimit(struct sim *s, const struct dirty_throttle_control *gdtc,
				uint64_t dirtied, uint64_t elapsed)
{
	bdi_update_dirty_ratelimit_at(s, gdtc, dirtied, elapsed, bdi_setpoint_32(s, gdtc),
				      bdi_position_ratio(s, gdtc));
}

void bdi_update_dirty_ratelimit_at(struct sim *s, const struct dirty_throttle_control *gdtc,
				   uint64_t dirtied, uint64_t elapsed, uint64_t setpoint, uint64_t pos)
{
	struct bdi *bdi = gdtc->wb;
	uint64_t dirty = gdtc->dirty;
	uint64_t rl = bdi->dirty_ratelimit;
	uint64_t write_bw = bdi->avg_write_bandwidth;
	uint64_t dirty_rate = (dirtied - bdi->dirtied_stamp) * s->p.hz / elapsed;
	uint64_t task_rl = ((rl * pos) >> RATELIMIT_CALC_SHIFT) + 1;
	uint64_t balanced = task_rl * write_bw / (dirty_rate | 1);
	uint64_t prev = bdi->balanced_dirty_ratelimit, x, step = 0;

	/* move only when balanced, its previous value and task_rl agree */
	if (dirty < setpoint) {
		x = prev < balanced ? prev : balanced;
		x = x < task_rl ? x : task_rl;
		if (rl < x)
			step = x - rl;
	} else {
		x = prev > balanced ? prev : balanced;
		x = x > task_rl ? x : task_rl;
		if (rl > x)
			step = rl - x;
	}
	/* damping; the shift count wraps at 64 as on x86-64
	 * (docs/throttling-model.md, Dirty ratelimit estimation, step 5) */
	step >>= (rl / (2 * step + 1)) & 63;
	step = (step + 7) / 8;
	if (rl < balanced)
		rl += step;
	else
		rl -= step;
	bdi->dirty_ratelimit = rl ? rl : 1;
	bdi->balanced_dirty_ratelimit = balanced;

	struct wb_event e;
	ev_begin(s, s->current, &e, EV_BDI_DIRTY_RATELIMIT, bdi);
	wb_event_set(&e, F_WRITE_BW, (int64_t)bdi->write_bandwidth * 4);
	wb_event_set(&e, F_AWRITE_BW, (int64_t)bdi->avg_write_bandwidth * 4);
	wb_event_set(&e, F_DIRTY_RATE, (int64_t)dirty_rate * 4);
	wb_event_set(&e, F_DIRTY_RATELIMIT, (int64_t)bdi->dirty_ratelimit * 4);
	wb_event_set(&e, F_TASK_RATELIMIT, (int64_t)task_rl * 4);
	wb_event_set(&e, F_BALANCED_DIRTY_RATELIMIT, (int64_t)balanced * 4);
	ev_emit(s, &e);
}

struct bdp_trace {
	const struct dirty_throttle_control *dtc;
	uint64_t rl, task_rl, dirtied, pause, start;
};

/* trace_balance_dirty_pages: note its limit/setpoint use the raw
 * global_dirty_limit, not the controller's values (docs/throttling-model.md,
 * Writeback tracepoints) */
static void trace_bdp(struct sim *s, struct task *t, struct bdi *bdi, const struct bdp_trace *b)
{
	struct wb_event e;
	const struct dirty_throttle_control *d = b->dtc;
	uint64_t freerun = dirty_freerun_ceiling(d->thresh, d->bg_thresh);
	uint64_t setpoint = (s->global_dirty_limit + freerun) / 2;
	ev_begin(s, &t->th, &e, EV_BALANCE_DIRTY_PAGES, bdi);
	wb_event_set(&e, F_LIMIT, (int64_t)s->global_dirty_limit);
	wb_event_set(&e, F_SETPOINT, (int64_t)setpoint);
	wb_event_set(&e, F_DIRTY, (int64_t)d->dirty);
	wb_event_set(&e, F_BDI_SETPOINT, (int64_t)(setpoint * d->wb_thresh / (d->thresh + 1)));
	wb_event_set(&e, F_BDI_DIRTY, (int64_t)d->wb_dirty);
	wb_event_set(&e, F_DIRTY_RATELIMIT, (int64_t)b->rl * 4);
	wb_event_set(&e, F_TASK_RATELIMIT, (int64_t)b->task_rl * 4);
	wb_event_set(&e, F_DIRTIED, (int64_t)b->dirtied);
	wb_event_set(&e, F_DIRTIED_PAUSE, (int64_t)t->nr_dirtied_pause);
	wb_event_set(&e, F_PAUSED, (int64_t)((jiffies(s) - b->start) * 1000 / s->p.hz));
	wb_event_set(&e, F_PAUSE, (int64_t)(b->pause * 1000 / s->p.hz));
	ev_emit(s, &e);
}

static uint64_t clamp_u64(uint64_t v, uint64_t lo, uint64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/*
 * balance_dirty_pages(mapping, pages_dirtied), 3.2 (docs/throttling-model.md,
 * The 3.2 loop and the pause)
 *
 * A dirtier never writes pages here: IO is left to the flusher, which writes
 * whole files in large chunks, and the dirtier only pays in time.  The pause
 * is what its pages are worth at its rate (pages_dirtied / task_rl), so a
 * task that dirtied twice as much sleeps twice as long and the rates, not the
 * luck of who hits the limit, decide who gets the bandwidth.  It sleeps once
 * per call, at most max_pause; only at the hard limit (task_rl = 0) it loops.
 * A computed pause of 0 means the task is far within its rate: it goes on
 * without sleeping.  The poll interval is then tuned so that the next pause
 * lands near half of max_pause: polling often costs CPU, polling rarely makes
 * long, jerky sleeps.
 */
void balance_dirty_pages_32_hooked(struct sim *s, struct task *t, uint64_t pages_dirtied,
				   const struct bdp32_hooks *h)
{
	struct bdi *bdi = t->inode->bdi;
	struct dirty_throttle_control gdtc = { .wb = bdi };
	uint64_t nr_reclaimable = 0;
	uint64_t pause = 0, max_pause = 0, rl = 0;
	int dirty_exceeded = 0;
	uint64_t start_time = jiffies(s);

	for (;;) {
		read_global_dirty(s, &nr_reclaimable, &gdtc.dirty);
		global_dirty_limits(s, &t->th, &gdtc.bg_thresh, &gdtc.thresh);
		if (gdtc.dirty <= dirty_freerun_ceiling(gdtc.thresh, gdtc.bg_thresh))
			break;
		if (!writeback_in_progress(bdi))
			bdi_start_background_writeback(s, &t->th, bdi);

		gdtc.wb_thresh = bdi_dirty_limit(s, bdi, gdtc.thresh);
		uint64_t bdi_reclaimable;
		read_bdi_dirty(s, bdi, gdtc.wb_thresh, &bdi_reclaimable, &gdtc.wb_dirty);
		dirty_exceeded = gdtc.wb_dirty > gdtc.wb_thresh || gdtc.dirty > gdtc.thresh;
		if (dirty_exceeded && !bdi->dirty_exceeded)
			bdi->dirty_exceeded = 1;
		bdi_update_bandwidth(s, &gdtc, start_time);

		max_pause = bdi_max_pause(s, bdi, gdtc.wb_dirty);
		rl = bdi->dirty_ratelimit;
		gdtc.pos_ratio = h ? h->position_ratio(s, &gdtc) : bdi_position_ratio(s, &gdtc);
		uint64_t task_rl = (rl * gdtc.pos_ratio) >> RATELIMIT_CALC_SHIFT;
		struct bdp_trace tr = { &gdtc, rl, task_rl, pages_dirtied, 0, start_time };
		/* (the clamp cannot turn a pause into 0, so it may come before the test) */
		if (!task_rl) {
			pause = max_pause;
		} else {
			pause = s->p.hz * pages_dirtied / task_rl;
			if (pause > max_pause)
				pause = max_pause;
		}
		if (h) {
			struct bdp32_pass ps = { &gdtc, rl, task_rl, pages_dirtied, max_pause, pause };
			pause = h->pause(s, t, &ps);
		}
		if (task_rl && pause == 0) {
			trace_bdp(s, t, bdi, &tr);
			pause = 1;    /* marker: keeps the poll interval from resetting */
			break;
		}
		tr.pause = pause;
		if (s->p.debug_checks && pause > max_pause_jiffies(s))
			snprintf(s->error, sizeof(s->error), "pause %llu jiffies > MAX_PAUSE",
				 (unsigned long long)pause);
		trace_bdp(s, t, bdi, &tr);
		schedule_timeout(s, pause);
		if (task_rl)
			break;
		/* over the hard limit: let a bdi with almost nothing dirty go */
		if (gdtc.wb_dirty <= s->bdi_stat_error)
			break;
	}

	if (!dirty_exceeded && bdi->dirty_exceeded)
		bdi->dirty_exceeded = 0;
	t->nr_dirtied = 0;
	if (pause == 0) {
		t->nr_dirtied_pause = dirty_poll_interval(gdtc.dirty, gdtc.thresh);
	} else if (pause <= max_pause / 4 && pages_dirtied >= t->nr_dirtied_pause) {
		t->nr_dirtied_pause = clamp_u64(rl * (max_pause / 2) / s->p.hz,
						pages_dirtied + pages_dirtied / 8, pages_dirtied * 4);
	} else if (pause >= max_pause) {
		t->nr_dirtied_pause = 1 | clamp_u64(rl * (max_pause / 2) / s->p.hz,
						    pages_dirtied / 4, pages_dirtied - pages_dirtied / 8);
	}
	if (writeback_in_progress(bdi))
		return;
	if (nr_reclaimable > gdtc.bg_thresh)
		bdi_start_background_writeback(s, &t->th, bdi);
}

/* writeback_set_ratelimit: thresh / (cpus * 32), at least 16; no upper cap */
void ioless_init(struct sim *s)
{
	uint64_t bg, thresh;
	dirty_thresholds(s, &bg, &thresh);
	uint64_t r = thresh / ((uint64_t)s->ncpus * 32);
	s->ratelimit_pages = r < 16 ? 16 : r;
	for (int i = 0; i < s->ntasks; i++)
		s->tasks[i].nr_dirtied_pause = 32;   /* 128 KiB at fork */
}

uint64_t ioless_pages_before_check(struct sim *s, struct task *t)
{
	uint64_t limit = nr_dirtied_limit(t);
	uint64_t n = t->nr_dirtied < limit ? limit - t->nr_dirtied : 1;
	uint64_t p = s->bdp_ratelimits[t->th.cpu];
	uint64_t m = p < s->ratelimit_pages ? s->ratelimit_pages - p : 1;
	return n < m ? n : m;
}

/* balance_dirty_pages_ratelimited_nr, 3.2 (docs/throttling-model.md, 3.2
 * entry: the poll interval) */
static void balance_dirty_pages_32(struct sim *s, struct task *t, uint64_t pages_dirtied)
{
	balance_dirty_pages_32_hooked(s, t, pages_dirtied, NULL);
}

void ioless_ratelimited(struct sim *s, struct task *t, uint64_t nr)
{
	ioless_entry(s, t, nr, balance_dirty_pages_32);
}

void ioless_entry(struct sim *s, struct task *t, uint64_t nr,
		  void (*bdp)(struct sim *s, struct task *t, uint64_t pages_dirtied))
{
	uint64_t limit = nr_dirtied_limit(t);
	uint64_t *p = &s->bdp_ratelimits[t->th.cpu];
	t->nr_dirtied += nr;
	if (t->nr_dirtied >= limit) {
		*p = 0;
	} else {
		*p += nr;
		if (*p >= s->ratelimit_pages) {
			*p = 0;
			limit = 0;
		}
	}
	if (t->nr_dirtied >= limit)
		bdp(s, t, t->nr_dirtied);
}

THROTTLE_MODEL(throttle_32_ioless) = {
	.name = "3.2-ioless",
	.summary = "Linux 3.2: IO-less balance_dirty_pages, pauses around a setpoint",
	.era = ERA_3_2,
	.init = ioless_init,
	.ratelimited = ioless_ratelimited,
	.pages_before_check = ioless_pages_before_check,
	.over_bground_thresh = over_bground_thresh_bdi,
	.update_dirty_ratelimit = bdi_update_dirty_ratelimit,
	.count_bdi_dirtied = 1,
	.task_dirty_proportion = 0,
	.nfs_client = &nfs_client_3_2,
};
