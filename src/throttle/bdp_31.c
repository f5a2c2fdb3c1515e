/* Linux 3.1 "IO-ful" balance_dirty_pages (docs/throttling-model.md, sections
 * "3.1 entry" to "The 3.1 loop"): a throttled dirtier writes back pages
 * itself, then sleeps with doubling pauses. */
#include "common.h"
#include "../nfs/nfs_era.h"
#include "../sim/fs_writeback.h"
#include "../sim/page_writeback.h"
#include "../sim/proportions.h"
#include "../sim/trace_emit.h"
#include "../util/util.h"

#define TASK_LIMIT_FRACTION 8

/* ratelimit_pages as set at boot: vm_total_pages / (cpus * 32), in [16, 1024] */
static void init_31(struct sim *s)
{
	uint64_t r = s->total_pages / ((uint64_t)s->ncpus * 32);
	if (r < 16)
		r = 16;
	if (r > 1024)
		r = 1024;
	s->ratelimit_pages = r;
}

/* task_dirty_limit: heavy dirtiers get up to 1/8 less of bdi_thresh */
static uint64_t task_dirty_limit(struct sim *s, struct task *t, uint64_t bdi_dirty)
{
	uint64_t num, den;
	prop_fraction(&s->vm_dirties, &t->dirties, &num, &den);
	uint64_t inv = bdi_dirty / TASK_LIMIT_FRACTION;
	inv = den ? inv * num / den : 0;
	uint64_t limit = bdi_dirty - inv;
	return limit > bdi_dirty / 2 ? limit : bdi_dirty / 2;
}

static uint64_t task_min_dirty_limit(uint64_t bdi_dirty)
{
	return bdi_dirty - bdi_dirty / TASK_LIMIT_FRACTION;
}

static void trace_bdi_only(struct sim *s, struct task *t, struct bdi *bdi, enum wb_event_type type,
			   int64_t written)
{
	struct wb_event e;
	ev_begin(s, &t->th, &e, type, bdi);
	if (type == EV_BALANCE_DIRTY_WRITTEN)
		wb_event_set(&e, F_WRITTEN, written);
	ev_emit(s, &e);
}

/* balance_dirty_pages(mapping, write_chunk), 3.1 (docs/throttling-model.md, The 3.1 loop) */
static void balance_dirty_pages_31(struct sim *s, struct task *t, uint64_t write_chunk)
{
	struct bdi *bdi = t->inode->bdi;
	struct dirty_throttle_control gdtc = { .wb = bdi };
	uint64_t nr_reclaimable = 0;
	uint64_t pages_written = 0, pause = 1;
	int clear_dirty_exceeded = 1;
	uint64_t start_time = jiffies(s);

	for (;;) {
		read_global_dirty(s, &nr_reclaimable, &gdtc.dirty);
		global_dirty_limits(s, &t->th, &gdtc.bg_thresh, &gdtc.thresh);
		/* 3.1 writes the 3.2 helper's (thresh + bg) / 2 out in place */
		if (gdtc.dirty <= dirty_freerun_ceiling(gdtc.thresh, gdtc.bg_thresh))
			break;
		gdtc.wb_thresh = bdi_dirty_limit(s, bdi, gdtc.thresh);
		uint64_t min_task_thresh = task_min_dirty_limit(gdtc.wb_thresh);
		uint64_t task_thresh = task_dirty_limit(s, t, gdtc.wb_thresh);
		uint64_t bdi_reclaimable;
		read_bdi_dirty(s, bdi, task_thresh, &bdi_reclaimable, &gdtc.wb_dirty);

		int dirty_exceeded = gdtc.wb_dirty > task_thresh || gdtc.dirty > gdtc.thresh;
		clear_dirty_exceeded = gdtc.wb_dirty <= min_task_thresh && gdtc.dirty <= gdtc.thresh;
		if (!dirty_exceeded)
			break;
		if (!bdi->dirty_exceeded)
			bdi->dirty_exceeded = 1;
		bdi_update_bandwidth(s, &gdtc, start_time);
		trace_bdi_only(s, t, bdi, EV_BALANCE_DIRTY_START, 0);

		/* over its own limit: write back a chunk of whatever inodes are queued */
		if (bdi_reclaimable > task_thresh) {
			int64_t w = writeback_inodes_wb(s, &t->th, bdi, (int64_t)write_chunk);
			pages_written += (uint64_t)(w > 0 ? w : 0);
			t->pages_written_back += (uint64_t)(w > 0 ? w : 0);
			trace_bdi_only(s, t, bdi, EV_BALANCE_DIRTY_WRITTEN, (int64_t)pages_written);
			if (pages_written >= write_chunk)
				break;
		}
		schedule_timeout(s, pause);     /* io_schedule_timeout: no early wakeup */
		trace_bdi_only(s, t, bdi, EV_BALANCE_DIRTY_WAIT, 0);

		/* max-pause exit: not over the hard limit, and throttled long enough */
		if (gdtc.dirty < hard_dirty_limit(s, gdtc.thresh) &&
		    gdtc.wb_dirty < (task_thresh + gdtc.wb_thresh) / 2 &&
		    jiffies(s) > start_time + max_pause_jiffies(s))
			break;
		pause <<= 1;
		if (pause > s->p.hz / 10)
			pause = s->p.hz / 10 ? s->p.hz / 10 : 1;
	}

	if (clear_dirty_exceeded && bdi->dirty_exceeded)
		bdi->dirty_exceeded = 0;
	if (writeback_in_progress(bdi))
		return;
	if (nr_reclaimable > gdtc.bg_thresh)
		bdi_start_background_writeback(s, &t->th, bdi);
}

static uint64_t cpu_limit(const struct sim *s, const struct task *t)
{
	return t->inode->bdi->dirty_exceeded ? 8 : s->ratelimit_pages;
}

static uint64_t pages_before_check_31(struct sim *s, struct task *t)
{
	uint64_t limit = cpu_limit(s, t), have = s->bdp_ratelimits[t->th.cpu];
	return have < limit ? limit - have : 1;
}

/* balance_dirty_pages_ratelimited_nr, 3.1: a per-CPU counter
 * (docs/throttling-model.md, 3.1 entry: the per-CPU ratelimit) */
static void ratelimited_31(struct sim *s, struct task *t, uint64_t nr)
{
	uint64_t *p = &s->bdp_ratelimits[t->th.cpu];
	uint64_t limit = cpu_limit(s, t);
	*p += nr;
	if (*p < limit)
		return;
	/* sync_writeback_pages(): 1.5 x max(dirtied, ratelimit_pages) */
	uint64_t d = *p > s->ratelimit_pages ? *p : s->ratelimit_pages;
	uint64_t write_chunk = d + d / 2;
	*p = 0;
	balance_dirty_pages_31(s, t, write_chunk);
}

#define VANILLA_31                                            \
	.init = init_31,                                      \
	.ratelimited = ratelimited_31,                        \
	.pages_before_check = pages_before_check_31,          \
	.over_bground_thresh = over_bground_thresh_global,    \
	.update_dirty_ratelimit = NULL,                       \
	.count_bdi_dirtied = 0,                               \
	.task_dirty_proportion = 1,                           \
	.nfs_client = &nfs_client_3_1

THROTTLE_MODEL(throttle_31_vanilla) = {
	.name = "3.1-vanilla",
	.summary = "Linux 3.1: IO-ful balance_dirty_pages, dirtiers write back themselves",
	.era = ERA_3_1,
	VANILLA_31,
};

/* the seed table's first column: 3.1-rc8 has the same throttling code and
 * differs only in the writeback_single_inode trace format */
THROTTLE_MODEL(throttle_31_rc8_vanilla) = {
	.name = "3.1.0-rc8-vanilla+",
	.alias_of = "3.1-vanilla",
	.summary = "alias of 3.1-vanilla with 3.1-rc8 trace formats (the seed's first kernel)",
	.era = ERA_3_1_RC8,
	VANILLA_31,
};
