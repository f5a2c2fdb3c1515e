#include "page_writeback.h"
#include "flex_proportions.h"
#include "fs_writeback.h"
#include "proportions.h"
#include "trace_emit.h"
#include "vmstat.h"
#include "../throttle/throttle.h"
#include "../util/util.h"

uint64_t determine_dirtyable_memory(const struct sim *s)
{
	/* free + reclaimable page cache + 1; no highmem on 64-bit (docs/throttling-model.md,
	 * Dirtyable memory and the global limits) */
	return s->dirtyable_pages + 1;
}

static uint64_t knob_pages(const struct dirty_knob *k, uint64_t dirtyable)
{
	if (k->is_bytes)
		return (k->value + PAGE_SIZE_BYTES - 1) / PAGE_SIZE_BYTES;
	return k->value * dirtyable / 100;
}

void dirty_thresholds(const struct sim *s, uint64_t *pbg, uint64_t *pthresh)
{
	uint64_t avail = determine_dirtyable_memory(s);
	uint64_t thresh = knob_pages(&s->c.thresh, avail);
	uint64_t bg = knob_pages(&s->c.bg, avail);
	if (bg >= thresh)
		bg = thresh / 2;
	*pbg = bg;
	*pthresh = thresh;
}

void global_dirty_limits(struct sim *s, struct sthread *th, uint64_t *pbg, uint64_t *pthresh)
{
	uint64_t bg, thresh;
	dirty_thresholds(s, &bg, &thresh);
	/* no rt or PF_LESS_THROTTLE callers in a dd workload: no 25% boost */
	*pbg = bg;
	*pthresh = thresh;

	struct wb_event e;
	ev_begin(s, th, &e, EV_GLOBAL_DIRTY_STATE, NULL);
	wb_event_set(&e, F_DIRTY, (int64_t)global_page_state(s, NR_FILE_DIRTY));
	wb_event_set(&e, F_WRITEBACK, (int64_t)global_page_state(s, NR_WRITEBACK));
	wb_event_set(&e, F_UNSTABLE, (int64_t)global_page_state(s, NR_UNSTABLE_NFS));
	wb_event_set(&e, F_BG_THRESH, (int64_t)bg);
	wb_event_set(&e, F_THRESH, (int64_t)thresh);
	wb_event_set(&e, F_LIMIT, (int64_t)s->global_dirty_limit);
	wb_event_set(&e, F_DIRTIED, (int64_t)global_page_state(s, NR_DIRTIED));
	wb_event_set(&e, F_WRITTEN, (int64_t)global_page_state(s, NR_WRITTEN));
	ev_emit(s, &e);
}

uint64_t hard_dirty_limit(const struct sim *s, uint64_t thresh)
{
	return thresh > s->global_dirty_limit ? thresh : s->global_dirty_limit;
}

uint64_t bdi_dirty_limit(struct sim *s, struct bdi *bdi, uint64_t thresh)
{
	uint64_t num, den;
	uint64_t sum_min = 0;
	for (int i = 0; i < s->nbdi; i++)
		sum_min += s->bdis[i]->min_ratio;
	if (s->model->flex_proportions)
		fprop_fraction(&s->completions, &bdi->wb_completions, &num, &den);
	else
		prop_fraction(&s->vm_completions, &bdi->completions, &num, &den);
	uint64_t share = thresh * (100 - sum_min) / 100;
	share = den ? share * num / den : 0;
	share += thresh * bdi->min_ratio / 100;
	uint64_t cap = thresh * bdi->max_ratio / 100;
	return share < cap ? share : cap;
}

void read_global_dirty(const struct sim *s, uint64_t *nr_reclaimable, uint64_t *nr_dirty)
{
	uint64_t rec = global_page_state(s, NR_FILE_DIRTY) + global_page_state(s, NR_UNSTABLE_NFS);
	*nr_reclaimable = rec;
	*nr_dirty = rec + global_page_state(s, NR_WRITEBACK);
}

void account_page_dirtied(struct sim *s, struct task *t, uint64_t n)
{
	struct inode *inode = t->inode;
	struct bdi *bdi = inode->bdi;
	int cpu = t->th.cpu;
	mod_zone_page_state(s, cpu, NR_FILE_DIRTY, (int64_t)n);
	mod_zone_page_state(s, cpu, NR_DIRTIED, (int64_t)n);
	bdi_stat_mod(s, bdi, cpu, BDI_RECLAIMABLE, (int64_t)n);
	if (s->model->count_bdi_dirtied)
		bdi_stat_mod(s, bdi, cpu, BDI_DIRTIED, (int64_t)n);
	if (s->model->task_dirty_proportion)
		prop_inc(&s->vm_dirties, &t->dirties, n, PROP_FRAC_BASE);
	inode->nr_dirty += n;
	inode->size += n;
	__mark_inode_dirty(s, inode, I_DIRTY_PAGES);
	if (bdi->ops->page_dirtied)
		bdi->ops->page_dirtied(s, inode, n);
}

void set_page_writeback(struct sim *s, int cpu, struct inode *inode, uint64_t n)
{
	struct bdi *bdi = inode->bdi;
	mod_zone_page_state(s, cpu, NR_FILE_DIRTY, -(int64_t)n);
	bdi_stat_mod(s, bdi, cpu, BDI_RECLAIMABLE, -(int64_t)n);
	mod_zone_page_state(s, cpu, NR_WRITEBACK, (int64_t)n);
	bdi_stat_mod(s, bdi, cpu, BDI_WRITEBACK, (int64_t)n);
	inode->nr_dirty -= n;
	inode->nr_writeback += n;
	inode->writeback_index += n;
}

void end_page_writeback(struct sim *s, struct inode *inode, uint64_t n, int commit_needed)
{
	struct bdi *bdi = inode->bdi;
	int cpu = s->irq_cpu;
	if (commit_needed) {
		/* the request moves to the commit list before writeback ends
		 * (docs/throttling-model.md, NFS: unstable pages and COMMIT) */
		mod_zone_page_state(s, cpu, NR_UNSTABLE_NFS, (int64_t)n);
		bdi_stat_mod(s, bdi, cpu, BDI_RECLAIMABLE, (int64_t)n);
		inode->nr_unstable += n;
	} else {
		inode->nr_clean += n;
	}
	mod_zone_page_state(s, cpu, NR_WRITEBACK, -(int64_t)n);
	bdi_stat_mod(s, bdi, cpu, BDI_WRITEBACK, -(int64_t)n);
	bdi_stat_mod(s, bdi, cpu, BDI_WRITTEN, (int64_t)n);
	mod_zone_page_state(s, cpu, NR_WRITTEN, (int64_t)n);
	inode->nr_writeback -= n;
	/* __bdi_writeout_inc: one completion event per page */
	if (s->model->flex_proportions)
		wb_domain_writeout_add(s, bdi, n);
	else
		prop_inc(&s->vm_completions, &bdi->completions, n, bdi->max_prop_frac);
	if (!inode->nr_writeback && s->model->inode_writeback_done)
		s->model->inode_writeback_done(s, inode);
}

void clear_unstable_pages(struct sim *s, struct inode *inode, uint64_t n)
{
	int cpu = s->irq_cpu;
	mod_zone_page_state(s, cpu, NR_UNSTABLE_NFS, -(int64_t)n);
	bdi_stat_mod(s, inode->bdi, cpu, BDI_RECLAIMABLE, -(int64_t)n);
	inode->nr_unstable -= n;
	inode->nr_clean += n;
}

uint64_t update_dirty_limit(uint64_t limit, const struct dirty_throttle_control *dtc)
{
	if (limit < dtc->thresh)
		return dtc->thresh;
	uint64_t target = dtc->thresh > dtc->dirty ? dtc->thresh : dtc->dirty;
	if (limit > target)
		limit -= (limit - target) >> 5;
	return limit;
}

/* global_update_bandwidth: the smoothed limit, at most once per BANDWIDTH_INTERVAL */
static void global_update_bandwidth(struct sim *s, const struct dirty_throttle_control *gdtc,
				    uint64_t now)
{
	if (now < s->update_time + bandwidth_interval(s))
		return;
	s->global_dirty_limit = update_dirty_limit(s->global_dirty_limit, gdtc);
	s->update_time = now;
}

/* bdi_update_write_bandwidth (docs/throttling-model.md, Write bandwidth and the smoothed limit,
 * step 5); 6.x keeps the same estimator */
void bdi_update_write_bandwidth(struct sim *s, struct bdi *bdi, uint64_t elapsed, uint64_t written)
{
	uint64_t period = roundup_pow2(3 * s->p.hz);
	uint64_t avg = bdi->avg_write_bandwidth;
	uint64_t old = bdi->write_bandwidth;
	/* a counter behind its stamp (6.x's timer-driven callers) counts as nothing written */
	uint64_t bw = (written - (written < bdi->written_stamp ? written : bdi->written_stamp)) * s->p.hz;
	if (elapsed > period) {
		bw /= elapsed;
		avg = bw;
	} else {
		bw += (period - elapsed) * bdi->write_bandwidth;
		bw >>= ilog2_u64(period);
		if (avg > old && old >= bw)
			avg -= (avg - old) >> 3;
		if (avg < old && old <= bw)
			avg += (old - avg) >> 3;
	}
	bdi->write_bandwidth = bw;
	bdi->avg_write_bandwidth = avg;
}

void __bdi_update_bandwidth(struct sim *s, const struct dirty_throttle_control *gdtc,
			    uint64_t start_time)
{
	struct bdi *bdi = gdtc->wb;
	uint64_t now = jiffies(s);
	uint64_t elapsed = now - bdi->bw_time_stamp;
	if (elapsed < bandwidth_interval(s))
		return;
	uint64_t written = bdi_stat(bdi, BDI_WRITTEN);
	uint64_t dirtied = bdi_stat(bdi, BDI_DIRTIED);
	/* a quiet period before this caller started: only take a snapshot */
	if (!(elapsed > s->p.hz && bdi->bw_time_stamp < start_time)) {
		if (gdtc->thresh) {
			global_update_bandwidth(s, gdtc, now);
			if (s->model->update_dirty_ratelimit)
				s->model->update_dirty_ratelimit(s, gdtc, dirtied, elapsed);
		}
		bdi_update_write_bandwidth(s, bdi, elapsed, written);
	}
	bdi->dirtied_stamp = dirtied;
	bdi->written_stamp = written;
	bdi->bw_time_stamp = now;
}

void bdi_update_bandwidth(struct sim *s, const struct dirty_throttle_control *gdtc,
			  uint64_t start_time)
{
	if (!(jiffies(s) > gdtc->wb->bw_time_stamp + bandwidth_interval(s)))
		return;
	__bdi_update_bandwidth(s, gdtc, start_time);
}
