/* Linux 6.x balance_dirty_pages (the model named "current" on the command
 * line, after the kernel running here), as a delta to 3.2 written down in
 * docs/current-kernel.md and summarised in docs/current-model.md: think-time
 * compensation on a per-task virtual clock, min/max pause sizing, the balanced
 * rate capped at write_bw, strict dirty_exceeded, the clamped cubic, the wb
 * threshold bump, flex proportions, and bandwidth estimation driven by
 * do_writepages and writeback completion instead of the flusher's rounds. */
#include "common.h"
#include "bdp_6x.h"
#include "ioless.h"
#include "../nfs/nfs_era.h"
#include "../sim/flex_proportions.h"
#include "../sim/fs_writeback.h"
#include "../sim/page_writeback.h"
#include "../sim/trace_emit.h"
#include "../sim/vmstat.h"
#include "../util/util.h"

#define DIRTY_POLL_THRESH 32       /* pages: poll interval below which pauses get longer */
#define RATIO_SCALE 10000          /* bdi min/max ratios are kept in 1/10000 % */

static uint64_t min_u64(uint64_t a, uint64_t b) { return a < b ? a : b; }
static uint64_t max_u64(uint64_t a, uint64_t b) { return a > b ? a : b; }

/* ---- pure formulas (unit-tested against docs/current-kernel.md section 15) -- */

/* Ratios are first truncated to 1/4096 (per-PAGE_SIZE units), bytes round up. */
static uint64_t knob_pages_6x(const struct dirty_knob *k, uint64_t avail)
{
	if (k->is_bytes)
		return (k->value + PAGE_SIZE_BYTES - 1) / PAGE_SIZE_BYTES;
	uint64_t ratio = k->value * PAGE_SIZE_BYTES / 100;
	return ratio * avail / PAGE_SIZE_BYTES;
}

void domain_dirty_limits_calc(const struct dirty_knob *thresh_knob, const struct dirty_knob *bg_knob,
			      uint64_t avail, uint64_t *bg, uint64_t *thresh)
{
	uint64_t t = knob_pages_6x(thresh_knob, avail), b = knob_pages_6x(bg_knob, avail);
	/* no rt/deadline dirtiers in a dd workload: no boost */
	if (t > UINT32_MAX)
		t = UINT32_MAX;
	if (b >= t)
		b = t / 2;
	*bg = b;
	*thresh = t;
}

uint64_t wb_calc_thresh(uint64_t T, uint64_t dirty, uint64_t num, uint64_t den,
			uint64_t min_ratio, uint64_t max_ratio, uint64_t sum_min_ratio, int strict)
{
	const uint64_t S = 100 * RATIO_SCALE;
	uint64_t w = T * (S - sum_min_ratio * RATIO_SCALE) / S;
	w = den ? w * num / den : 0;
	w += T * min_ratio * RATIO_SCALE / S;
	/* an idle or new wb gets room to start (since 6.13/14 also for dirty_exceeded) */
	if (T > dirty)
		w = max_u64(w, (T - dirty) / (strict ? 100 : 8));
	return min_u64(w, T * max_ratio * RATIO_SCALE / S);
}

/* floor(v / 2^n) for signed v: the kernel's arithmetic right shift */
static int64_t asr(int64_t v, int n)
{
	return v >= 0 ? v >> n : -((-v + ((int64_t)1 << n) - 1) >> n);
}

int64_t pos_ratio_polynom(int64_t setpoint, int64_t dirty, int64_t limit)
{
	int64_t x = (setpoint - dirty) * (1 << RATELIMIT_CALC_SHIFT) / ((limit - setpoint) | 1);
	int64_t p = x;
	p = asr(p * x, RATELIMIT_CALC_SHIFT);
	p = asr(p * x, RATELIMIT_CALC_SHIFT);
	p += 1 << RATELIMIT_CALC_SHIFT;
	return p < 0 ? 0 : p > 2 << RATELIMIT_CALC_SHIFT ? 2 << RATELIMIT_CALC_SHIFT : p;
}

/* strictlimit: the wb's own cubic around the middle of its two thresholds */
static uint64_t wb_strict_ratio(const struct dirty_throttle_control *d, uint64_t p)
{
	if (d->wb_dirty >= d->wb_thresh)
		return 0;
	uint64_t wb_sp = dirty_freerun_ceiling(d->wb_thresh, d->wb_bg_thresh);
	if (wb_sp == 0 || wb_sp == d->wb_thresh)
		return 0;
	int64_t wp = pos_ratio_polynom((int64_t)wb_sp, (int64_t)d->wb_dirty, (int64_t)d->wb_thresh);
	return min_u64(p, (uint64_t)wp);
}

void wb_position_ratio(struct dirty_throttle_control *d, uint64_t dom_dirty_limit,
		       uint64_t write_bw, int strict)
{
	uint64_t freerun = dirty_freerun_ceiling(d->thresh, d->bg_thresh);
	uint64_t limit = max_u64(d->thresh, dom_dirty_limit);
	d->limit = limit;
	d->pos_ratio = 0;
	if (d->dirty >= limit)
		return;
	uint64_t setpoint = (freerun + limit) / 2;
	uint64_t p = (uint64_t)pos_ratio_polynom((int64_t)setpoint, (int64_t)d->dirty, (int64_t)limit);
	if (strict) {
		d->pos_ratio = wb_strict_ratio(d, p);
		return;
	}
	/* wb control line: flattened to 1/4 far above the wb setpoint */
	uint64_t t = min_u64(d->wb_thresh, d->thresh);
	uint64_t xs = (t << 16) / (d->thresh | 1);
	uint64_t wb_setpoint = (setpoint * xs) >> 16;
	uint64_t span = ((d->thresh - t + 8 * write_bw) * xs) >> 16;
	uint64_t x_int = wb_setpoint + span;
	if (d->wb_dirty < x_int - span / 4)
		p = p * (x_int - d->wb_dirty) / ((x_int - wb_setpoint) | 1);
	else
		p /= 4;
	/* reserve area: keep a nearly empty wb's queue from running dry */
	uint64_t r = t / 2;
	if (d->wb_dirty < r)
		p = d->wb_dirty > r / 8 ? p * r / d->wb_dirty : p * 8;
	d->pos_ratio = p;
}

uint64_t wb_max_pause(uint64_t hz, uint64_t avg_write_bw, uint64_t wb_dirty)
{
	/* about 1/8 of the time the wb's dirty pages take to drain */
	uint64_t D = roundup_pow2(1 + hz / 8);
	uint64_t t = wb_dirty / (1 + avg_write_bw / D) + 1;
	uint64_t max_pause = hz / 5 ? hz / 5 : 1;
	return min_u64(t, max_pause);
}

uint64_t wb_min_pause(uint64_t hz, uint64_t avg_write_bw, uint64_t max_pause, uint64_t task_rl,
		      uint64_t dirty_ratelimit, uint64_t *nr_dirtied_pause)
{
	uint64_t R = roundup_pow2(hz);
	uint64_t r = dirty_ratelimit ? dirty_ratelimit : 1;
	int hi = ilog2_u64(avg_write_bw ? avg_write_bw : 1), lo = ilog2_u64(r);
	/* 10 ms for one task, ~10 ms more per doubling of concurrent dirtiers */
	uint64_t t = max_u64(1, hz / 100);
	if (hi > lo)
		t += (uint64_t)(hi - lo) * (10 * hz) / 1024;
	t = min_u64(t, 1 + max_pause / 2);
	uint64_t pages = r * t / R;
	if (pages < DIRTY_POLL_THRESH) {
		/* too few pages per poll: pause longer to amortise the calls */
		t = max_pause;
		pages = r * t / R;
		if (pages > DIRTY_POLL_THRESH) {
			pages = DIRTY_POLL_THRESH;
			t = hz * DIRTY_POLL_THRESH / r;
		}
	}
	/* the next pause at task_rl would overshoot max_pause: poll sooner */
	if (hz * pages / (task_rl + 1) > max_pause) {
		t = max_pause;
		pages = task_rl * t / R;
	}
	*nr_dirtied_pause = pages;
	return pages >= DIRTY_POLL_THRESH ? 1 + t / 2 : t;
}

void wb_dirty_ratelimit_calc(struct ratelimit_update *u)
{
	uint64_t r = u->dirty_ratelimit, prev = u->prev_balanced, x, step = 0;
	u->dirty_rate = u->dirtied * u->hz / (u->elapsed ? u->elapsed : 1);
	u->task_ratelimit = ((r * u->pos_ratio) >> RATELIMIT_CALC_SHIFT) + 1;
	u->balanced = u->task_ratelimit * u->write_bw / (u->dirty_rate | 1);
	/* a rate above the disk's cannot be balanced (3.3+) */
	u->balanced = min_u64(u->balanced, u->write_bw);
	/* move only when the balanced rate, its last value and task_rl agree */
	if (u->dirty < u->setpoint) {
		x = min_u64(min_u64(prev, u->balanced), u->task_ratelimit);
		if (r < x)
			step = x - r;
	} else {
		x = max_u64(max_u64(prev, u->balanced), u->task_ratelimit);
		if (r > x)
			step = r - x;
	}
	/* damping: smaller steps the closer r already is; no shift >= 64 (6.x) */
	uint64_t q = r / (2 * step + 1);
	step = q < 64 ? ((step >> q) + 7) / 8 : 0;
	r = r < u->balanced ? r + step : r - step;
	u->step = step;
	u->new_ratelimit = r ? r : 1;
}

uint64_t trace_wb_setpoint(uint64_t setpoint, uint64_t wb_thresh, uint64_t thresh)
{
	return setpoint * wb_thresh / (thresh + 1);
}

/* ---- the simulated machine ------------------------------------------------- */

static int bdi_strict(const struct sim *s)
{
	return s->p.bdi_strict_limit != 0;
}

/* NFS unstable pages count as writeback in 6.x */
static uint64_t nr_writeback_6x(const struct sim *s)
{
	return global_page_state(s, NR_WRITEBACK) + global_page_state(s, NR_UNSTABLE_NFS);
}

/* domain_dirty_avail for the global domain: dirtyable memory and the dirty
 * count the throttle works on */
static void domain_dirty_avail(struct sim *s, struct dirty_throttle_control *d)
{
	d->avail = determine_dirtyable_memory(s);
	d->dirty = global_page_state(s, NR_FILE_DIRTY) + nr_writeback_6x(s);
}

/* domain_dirty_limits for the global domain: emits global_dirty_state (no unstable=) */
static void domain_dirty_limits(struct sim *s, struct sthread *th, struct dirty_throttle_control *d)
{
	domain_dirty_limits_calc(&s->c.thresh, &s->c.bg, d->avail, &d->bg_thresh, &d->thresh);
	struct wb_event e;
	ev_begin(s, th, &e, EV_GLOBAL_DIRTY_STATE, NULL);
	wb_event_set(&e, F_DIRTY, (int64_t)global_page_state(s, NR_FILE_DIRTY));
	wb_event_set(&e, F_WRITEBACK, (int64_t)nr_writeback_6x(s));
	wb_event_set(&e, F_BG_THRESH, (int64_t)d->bg_thresh);
	wb_event_set(&e, F_THRESH, (int64_t)d->thresh);
	wb_event_set(&e, F_LIMIT, (int64_t)s->global_dirty_limit);
	wb_event_set(&e, F_DIRTIED, (int64_t)global_page_state(s, NR_DIRTIED));
	wb_event_set(&e, F_WRITTEN, (int64_t)global_page_state(s, NR_WRITTEN));
	ev_emit(s, &e);
}

static uint64_t sum_min_ratio(const struct sim *s)
{
	uint64_t sum = 0;
	for (int i = 0; i < s->nbdi; i++)
		sum += s->bdis[i]->min_ratio;
	return sum;
}

static uint64_t bdi_calc_thresh(struct sim *s, struct bdi *bdi, uint64_t T, uint64_t dirty)
{
	uint64_t num, den;
	fprop_fraction(&s->completions, &bdi->wb_completions, &num, &den);
	return wb_calc_thresh(T, dirty, num, den, bdi->min_ratio, bdi->max_ratio, sum_min_ratio(s),
			      bdi_strict(s));
}

/* wb_dirty_limits: the wb's share of thresh and its dirty pages */
static void wb_dirty_limits(struct sim *s, struct dirty_throttle_control *d)
{
	struct bdi *bdi = d->wb;
	uint64_t rec;
	d->wb_thresh = bdi_calc_thresh(s, bdi, d->thresh, d->dirty);
	d->wb_bg_thresh = d->thresh ? d->wb_thresh * d->bg_thresh / d->thresh : 0;
	read_bdi_dirty(s, bdi, d->wb_thresh, &rec, &d->wb_dirty);
}

/* domain_update_dirty_limit: at most once per BANDWIDTH_INTERVAL */
static void domain_update_dirty_limit(struct sim *s, const struct dirty_throttle_control *d,
				      uint64_t now)
{
	if (now < s->update_time + bandwidth_interval(s))
		return;
	s->global_dirty_limit = update_dirty_limit(s->global_dirty_limit, d);
	s->update_time = now;
}

static void wb_update_dirty_ratelimit(struct sim *s, const struct dirty_throttle_control *d,
				      uint64_t dirtied, uint64_t elapsed)
{
	struct bdi *bdi = d->wb;
	uint64_t freerun = dirty_freerun_ceiling(d->thresh, d->bg_thresh);
	struct ratelimit_update u = {
		.dirty_ratelimit = bdi->dirty_ratelimit, .prev_balanced = bdi->balanced_dirty_ratelimit,
		.pos_ratio = d->pos_ratio, .write_bw = bdi->avg_write_bandwidth,
		.dirtied = dirtied - bdi->dirtied_stamp, .elapsed = elapsed, .hz = s->p.hz,
		/* the limit as domain_update_dirty_limit just left it, not the
		 * one wb_position_ratio read before it (d->limit: what the 6.15+
		 * trace prints; 6.12's printed the domain's limit at the event) */
		.dirty = d->dirty, .setpoint = (freerun + hard_dirty_limit(s, d->thresh)) / 2,
	};
	if (bdi_strict(s)) {
		u.dirty = d->wb_dirty;
		u.setpoint = dirty_freerun_ceiling(d->wb_thresh, d->wb_bg_thresh);
	}
	wb_dirty_ratelimit_calc(&u);
	bdi->dirty_ratelimit = u.new_ratelimit;
	bdi->balanced_dirty_ratelimit = u.balanced;

	struct wb_event e;
	ev_begin(s, s->current, &e, EV_BDI_DIRTY_RATELIMIT, bdi);
	wb_event_set(&e, F_WRITE_BW, (int64_t)bdi->write_bandwidth * 4);
	wb_event_set(&e, F_AWRITE_BW, (int64_t)bdi->avg_write_bandwidth * 4);
	wb_event_set(&e, F_DIRTY_RATE, (int64_t)u.dirty_rate * 4);
	wb_event_set(&e, F_DIRTY_RATELIMIT, (int64_t)bdi->dirty_ratelimit * 4);
	wb_event_set(&e, F_TASK_RATELIMIT, (int64_t)u.task_ratelimit * 4);
	wb_event_set(&e, F_BALANCED_DIRTY_RATELIMIT, (int64_t)u.balanced * 4);
	wb_event_set(&e, F_CGROUP_INO, 1);
	ev_emit(s, &e);
}

/* the 3.2 estimator (shared), with avg kept >= 1 for the ilog2 users */
static void wb_update_write_bandwidth(struct sim *s, struct bdi *bdi, uint64_t elapsed,
				      uint64_t written)
{
	bdi_update_write_bandwidth(s, bdi, elapsed, written);
	bdi->avg_write_bandwidth = max_u64(bdi->avg_write_bandwidth, 1);
}

/* __wb_update_bandwidth: no minimum interval and no quiet-period test any
 * more; only a throttled pass (update_ratelimit) brings a filled-in gdtc */
static void __wb_update_bandwidth(struct sim *s, const struct dirty_throttle_control *gdtc,
				  int update_ratelimit)
{
	struct bdi *bdi = gdtc->wb;
	uint64_t now = jiffies(s);
	uint64_t elapsed = now > bdi->bw_time_stamp ? now - bdi->bw_time_stamp : 1;
	uint64_t dirtied = bdi_stat(bdi, BDI_DIRTIED), written = bdi_stat(bdi, BDI_WRITTEN);
	if (update_ratelimit) {
		domain_update_dirty_limit(s, gdtc, now);
		wb_update_dirty_ratelimit(s, gdtc, dirtied, elapsed);
	}
	wb_update_write_bandwidth(s, bdi, elapsed, written);
	bdi->dirtied_stamp = dirtied;
	bdi->written_stamp = written;
	bdi->bw_time_stamp = now;
}

/* wb_update_bandwidth: an update that leaves the limit and ratelimit alone */
static void wb_update_bandwidth(struct sim *s, struct bdi *bdi)
{
	struct dirty_throttle_control gdtc = { .wb = bdi };
	__wb_update_bandwidth(s, &gdtc, 0);
}

static int wb_has_writeback_inodes(const struct sim *s, const struct bdi *bdi)
{
	for (int i = 0; i < s->ninodes; i++)
		if (s->inodes[i].bdi == bdi && s->inodes[i].nr_writeback)
			return 1;
	return 0;
}

/* wb_bandwidth_estimate_start: after an idle second, restart the stamps so the
 * gap does not dilute the estimate */
static void wb_bandwidth_estimate_start(struct sim *s, struct bdi *bdi)
{
	uint64_t now = jiffies(s);
	if (now - bdi->bw_time_stamp <= s->p.hz || wb_has_writeback_inodes(s, bdi))
		return;
	bdi->dirtied_stamp = bdi_stat(bdi, BDI_DIRTIED);
	bdi->written_stamp = bdi_stat(bdi, BDI_WRITTEN);
	bdi->bw_time_stamp = now;
}

/* end of do_writepages: estimate if the last estimate is stale */
static void wb_writepages_done(struct sim *s, struct bdi *bdi)
{
	if (jiffies(s) > bdi->bw_time_stamp + bandwidth_interval(s))
		wb_update_bandwidth(s, bdi);
}

static void wb_update_bandwidth_workfn(struct sim *s, void *arg)
{
	wb_update_bandwidth(s, arg);
}

/* an inode's writeback ended: one batched update BANDWIDTH_INTERVAL later */
static void wb_inode_writeback_end(struct sim *s, struct inode *inode)
{
	struct bdi *bdi = inode->bdi;
	if (bdi->bw_dwork.pending)
		return;
	sim_timer_arm(s, &bdi->bw_dwork, jiffies_to_ktime(s, jiffies(s) + bandwidth_interval(s)));
}

/* wb_over_bg_thresh: the background test counts dirty pages only, not writeback */
static int wb_over_bg_thresh(struct sim *s, struct bdi *bdi)
{
	struct dirty_throttle_control d = { .wb = bdi };
	d.avail = determine_dirtyable_memory(s);
	domain_dirty_limits(s, &bdi->flusher, &d);
	d.dirty = global_page_state(s, NR_FILE_DIRTY);
	if (d.dirty > d.bg_thresh)
		return 1;
	uint64_t wb_bg = bdi_calc_thresh(s, bdi, d.bg_thresh, d.dirty);
	uint64_t rec = wb_bg < 2 * s->bdi_stat_error ? bdi_stat_sum(s, bdi, BDI_RECLAIMABLE)
						     : bdi_stat(bdi, BDI_RECLAIMABLE);
	return rec > wb_bg;
}

struct bdp_trace {
	const struct dirty_throttle_control *d;
	uint64_t rl, task_rl, dirtied, start;
	int64_t pause, period;
};

/* trace_balance_dirty_pages, 6.x layout (limit = the hard limit used) */
static void trace_bdp_6x(struct sim *s, struct task *t, struct bdi *bdi, const struct bdp_trace *b)
{
	const struct dirty_throttle_control *d = b->d;
	int64_t hz = (int64_t)s->p.hz;
	uint64_t now = jiffies(s);
	uint64_t setpoint = (d->limit + dirty_freerun_ceiling(d->thresh, d->bg_thresh)) / 2;
	struct wb_event e;
	ev_begin(s, &t->th, &e, EV_BALANCE_DIRTY_PAGES, bdi);
	wb_event_set(&e, F_LIMIT, (int64_t)d->limit);
	wb_event_set(&e, F_SETPOINT, (int64_t)setpoint);
	wb_event_set(&e, F_DIRTY, (int64_t)d->dirty);
	wb_event_set(&e, F_BDI_SETPOINT, (int64_t)trace_wb_setpoint(setpoint, d->wb_thresh, d->thresh));
	wb_event_set(&e, F_BDI_DIRTY, (int64_t)d->wb_dirty);
	wb_event_set(&e, F_DIRTY_RATELIMIT, (int64_t)b->rl * 4);
	wb_event_set(&e, F_TASK_RATELIMIT, (int64_t)b->task_rl * 4);
	wb_event_set(&e, F_DIRTIED, (int64_t)b->dirtied);
	wb_event_set(&e, F_DIRTIED_PAUSE, (int64_t)t->nr_dirtied_pause);
	wb_event_set(&e, F_PAUSED, (int64_t)(now - b->start) * 1000 / hz);
	wb_event_set(&e, F_PAUSE, b->pause * 1000 / hz);
	wb_event_set(&e, F_PERIOD, b->period * 1000 / hz);
	wb_event_set(&e, F_THINK, t->dirty_paused_when
			? ((int64_t)now - (int64_t)t->dirty_paused_when) * 1000 / hz : 0);
	wb_event_set(&e, F_CGROUP_INO, 1);
	ev_emit(s, &e);
}

/* domain_dirty_freerun: under strictlimit the bdi's own counts decide */
static void domain_dirty_freerun(struct sim *s, struct dirty_throttle_control *d, int strict)
{
	if (strict) {
		wb_dirty_limits(s, d);
		d->freerun = d->wb_dirty <= dirty_freerun_ceiling(d->wb_thresh, d->wb_bg_thresh);
	} else {
		d->freerun = d->dirty <= dirty_freerun_ceiling(d->thresh, d->bg_thresh);
	}
}

/* balance_domain_limits: the limits and counters of one pass
 * (docs/current-kernel.md §10.2 steps 1 and 3) */
static void balance_domain_limits(struct sim *s, struct sthread *th, struct dirty_throttle_control *d,
				  int strict)
{
	domain_dirty_avail(s, d);
	domain_dirty_limits(s, th, d);
	domain_dirty_freerun(s, d, strict);
}

/* balance_wb_limits past the freerun exit: the bdi's share, dirty_exceeded
 * (both over, 3.3+) and pos_ratio.  The kernel's wb-level freerun exit here
 * is for PF_LOCAL_THROTTLE tasks only, which dd is not (§10.2 step 5). */
static void balance_wb_limits(struct sim *s, struct dirty_throttle_control *d, int strict)
{
	if (!strict)
		wb_dirty_limits(s, d);
	d->dirty_exceeded = d->wb_dirty > d->wb_thresh && (d->dirty > d->thresh || strict);
	wb_position_ratio(d, s->global_dirty_limit, d->wb->avg_write_bandwidth, strict);
}

/* Below the freerun point: no pause; poll again after ~sqrt(room) pages and
 * restart the think-time clock. */
static void bdp_freerun(struct sim *s, struct task *t, const struct dirty_throttle_control *d)
{
	t->nr_dirtied_pause = bdi_strict(s) ? dirty_poll_interval(d->wb_dirty, d->wb_thresh)
					    : dirty_poll_interval(d->dirty, d->thresh);
	t->dirty_paused_when = jiffies(s);
	t->nr_dirtied = 0;
}

/* The tail of balance_dirty_pages: pages_dirtied are worth `period` at
 * task_rl; the think time since the last pause is credited.  What remains
 * below min_pause is not slept but carried on the virtual clock (reset when
 * the task was away more than a second beyond its debt); a long pause is cut
 * to max_pause with up to another max_pause of it still owed.  Pure. */
void balance_dirty_pages_pause(uint64_t hz, uint64_t now, uint64_t pages_dirtied, uint64_t task_rl,
			       int64_t min_pause, uint64_t max_pause, uint64_t ndp,
			       const struct bdp_task_clock *before, struct bdp_pause *out)
{
	struct bdp_task_clock *c = &out->after;
	*c = *before;
	int64_t pause, period;
	if (!task_rl) {
		pause = period = (int64_t)max_pause;
	} else {
		period = (int64_t)(hz * pages_dirtied / task_rl);
		pause = period;
		if (before->dirty_paused_when)
			pause -= (int64_t)now - (int64_t)before->dirty_paused_when;
		if (pause < min_pause) {
			out->sleep = 0;
			out->period = period;
			out->pause = pause;
			out->trace_pause = pause < 0 ? pause : 0;
			if (pause < -(int64_t)hz) {
				c->dirty_paused_when = now;
				c->nr_dirtied = 0;
			} else if (period > 0) {
				c->dirty_paused_when += (uint64_t)period;
				c->nr_dirtied = 0;
			} else if (c->nr_dirtied_pause <= pages_dirtied) {
				c->nr_dirtied_pause += pages_dirtied;
			}
			return;
		}
		if (pause > (int64_t)max_pause) {
			/* keep the unserved part (up to one more max_pause) owed */
			now += min_u64((uint64_t)pause - max_pause, max_pause);
			pause = (int64_t)max_pause;
		}
	}
	out->sleep = 1;
	out->period = period;
	out->pause = out->trace_pause = pause;
	c->dirty_paused_when = now + (uint64_t)pause;
	c->nr_dirtied = 0;
	c->nr_dirtied_pause = ndp;
}

/* balance_dirty_pages, 6.x (docs/current-kernel.md §10.2) */
static void balance_dirty_pages_6x(struct sim *s, struct task *t, uint64_t pages_dirtied)
{
	struct bdi *bdi = t->inode->bdi;
	uint64_t start_time = jiffies(s);
	for (;;) {
		uint64_t now = jiffies(s);
		struct dirty_throttle_control d = { .wb = bdi };
		balance_domain_limits(s, &t->th, &d, bdi_strict(s));
		/* 6.x kicks the flusher above bg even in freerun */
		if (global_page_state(s, NR_FILE_DIRTY) > d.bg_thresh && !writeback_in_progress(bdi))
			bdi_start_background_writeback(s, &t->th, bdi);
		if (d.freerun) {
			bdp_freerun(s, t, &d);
			return;
		}
		if (!writeback_in_progress(bdi))
			bdi_start_background_writeback(s, &t->th, bdi);
		balance_wb_limits(s, &d, bdi_strict(s));
		/* set and cleared on every throttled pass */
		bdi->dirty_exceeded = d.dirty_exceeded;
		if (now > bdi->bw_time_stamp + bandwidth_interval(s))
			__wb_update_bandwidth(s, &d, 1);

		uint64_t rl = bdi->dirty_ratelimit;
		uint64_t task_rl = (rl * d.pos_ratio) >> RATELIMIT_CALC_SHIFT;
		uint64_t max_pause = wb_max_pause(s->p.hz, bdi->avg_write_bandwidth, d.wb_dirty);
		uint64_t ndp;
		int64_t min_pause = (int64_t)wb_min_pause(s->p.hz, bdi->avg_write_bandwidth, max_pause,
							  task_rl, rl, &ndp);
		struct bdp_trace tr = { &d, rl, task_rl, pages_dirtied, start_time, 0, 0 };
		struct bdp_task_clock clock = { t->dirty_paused_when, t->nr_dirtied, t->nr_dirtied_pause };
		struct bdp_pause bp;
		balance_dirty_pages_pause(s->p.hz, now, pages_dirtied, task_rl, min_pause, max_pause, ndp,
					  &clock, &bp);
		tr.pause = bp.trace_pause;
		tr.period = bp.period;
		if (!bp.sleep) {
			trace_bdp_6x(s, t, bdi, &tr);
			t->dirty_paused_when = bp.after.dirty_paused_when;
			t->nr_dirtied = bp.after.nr_dirtied;
			t->nr_dirtied_pause = bp.after.nr_dirtied_pause;
			return;
		}
		if (s->p.debug_checks && (bp.pause < 0 || (uint64_t)bp.pause > max_pause_jiffies(s)))
			snprintf(s->error, sizeof(s->error), "pause %lld jiffies outside [0, MAX_PAUSE]",
				 (long long)bp.pause);
		trace_bdp_6x(s, t, bdi, &tr);
		schedule_timeout(s, (uint64_t)bp.pause);
		t->dirty_paused_when = bp.after.dirty_paused_when;
		t->nr_dirtied = bp.after.nr_dirtied;
		t->nr_dirtied_pause = bp.after.nr_dirtied_pause;
		if (task_rl)
			return;
		/* over the hard limit: let a wb with almost nothing dirty go */
		if (d.wb_dirty <= s->bdi_stat_error)
			return;
	}
}

/* balance_dirty_pages_ratelimited: nr newly dirtied pages were counted for the
 * task and for this CPU (6.x counts them in the accounting hook) */
static void ratelimited_6x(struct sim *s, struct task *t, uint64_t nr)
{
	uint64_t limit = nr_dirtied_limit(t);
	uint64_t *p = &s->bdp_ratelimits[t->th.cpu];
	t->nr_dirtied += nr;
	*p += nr;
	if (t->nr_dirtied >= limit) {
		*p = 0;
	} else if (*p >= s->ratelimit_pages) {
		*p = 0;
		limit = 0;
	}
	if (t->nr_dirtied >= limit)
		balance_dirty_pages_6x(s, t, t->nr_dirtied);
}

/* writeback_set_ratelimit (run when the case's sysctls were written): the
 * domain's hard limit starts at thresh; the writeout shares start settled. */
static void init_6x(struct sim *s)
{
	uint64_t bg, thresh;
	domain_dirty_limits_calc(&s->c.thresh, &s->c.bg, determine_dirtyable_memory(s), &bg, &thresh);
	s->global_dirty_limit = thresh;
	s->update_time = jiffies(s);
	uint64_t r = thresh / ((uint64_t)s->ncpus * 32);
	s->ratelimit_pages = r < 16 ? 16 : r;
	fprop_global_init(&s->completions);
	for (int i = 0; i < s->nbdi; i++) {
		struct bdi *bdi = s->bdis[i];
		if (s->p.warm_proportions)
			fprop_warm(&s->completions, &bdi->wb_completions, 1.0 / s->nbdi);
		bdi->bw_dwork.fn = wb_update_bandwidth_workfn;
		bdi->bw_dwork.arg = bdi;
	}
	for (int i = 0; i < s->ntasks; i++) {
		s->tasks[i].nr_dirtied_pause = DIRTY_POLL_THRESH;
		s->tasks[i].dirty_paused_when = 0;
	}
}

THROTTLE_MODEL(throttle_6x) = {
	/* the user-visible name: it is in result directories, the seed and the docs */
	.name = "current",
	.summary = "Linux 6.x (6.18): think time, min/max pause, flex proportions (use --set hz=250 here)",
	.era = ERA_6X,
	.init = init_6x,
	.ratelimited = ratelimited_6x,
	.pages_before_check = ioless_pages_before_check,
	.over_bground_thresh = wb_over_bg_thresh,
	.update_dirty_ratelimit = NULL,
	.count_bdi_dirtied = 1,
	.nfs_client = &nfs_client_6x,
	.flex_proportions = 1,
	.bandwidth_from_writepages = 1,
	.timer_wheel_round_up = 1,
	.wb_writeback_refill = 1,
	.writepages_begin = wb_bandwidth_estimate_start,
	.writepages_end = wb_writepages_done,
	.inode_writeback_done = wb_inode_writeback_end,
	.flusher_comm = "kworker/u8:0",
};
