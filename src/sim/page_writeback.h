/* Shared machinery of mm/page-writeback.c in 3.1 and 3.2 (docs/throttling-model.md,
 * sections "Counters" to "Write bandwidth and the smoothed limit"): dirtyable
 * memory, global and per-bdi limits, page-state transitions, and the
 * write-bandwidth estimation.  The throttling policies live in src/throttle/. */
#ifndef WBLAB_PAGE_WRITEBACK_H
#define WBLAB_PAGE_WRITEBACK_H
#include "sim.h"

#define MIN_WRITEBACK_PAGES 1024
#define INIT_BW_PAGES 25600          /* 100 MiB/s */

static inline uint64_t max_pause_jiffies(const struct sim *s) { return s->p.hz / 5 ? s->p.hz / 5 : 1; }
static inline uint64_t bandwidth_interval(const struct sim *s) { return s->p.hz / 5 ? s->p.hz / 5 : 1; }

/* What one balance_dirty_pages pass knows about a dirty domain and one
 * bdi (wb) in it, shaped after the kernel's struct dirty_throttle_control
 * (4.2+).  Earlier kernels passed the same numbers as argument lists; one
 * struct keeps the 3.x and 6.x code comparable and the hooks short.  Without
 * cgroups there is one global domain, so one control per pass ("gdtc"). */
struct dirty_throttle_control {
	struct bdi *wb;                /* the bdi (the wb of the kernel) */
	uint64_t avail;                /* dirtyable memory of the domain */
	uint64_t dirty;                /* the domain's dirty pages as the model counts them */
	uint64_t thresh, bg_thresh;    /* the domain's limits */
	uint64_t wb_dirty;             /* the bdi's dirty pages */
	uint64_t wb_thresh, wb_bg_thresh;   /* the bdi's share of thresh and bg_thresh */
	uint64_t pos_ratio;            /* 1024 = 1.0 */
	/* 6.x only */
	uint64_t limit;                /* hard_dtc_limit() as the last wb_position_ratio used it */
	int freerun, dirty_exceeded;
};

/* dirty_freerun_ceiling() (3.2+): below it a dirtier is not throttled at all */
static inline uint64_t dirty_freerun_ceiling(uint64_t thresh, uint64_t bg_thresh)
{
	return (thresh + bg_thresh) / 2;
}

uint64_t determine_dirtyable_memory(const struct sim *s);
/* vm.dirty_* thresholds in pages (bg >= thresh gives thresh/2), no trace. */
void dirty_thresholds(const struct sim *s, uint64_t *bg, uint64_t *thresh);
/* global_dirty_limits(): emits global_dirty_state in th's context. */
void global_dirty_limits(struct sim *s, struct sthread *th, uint64_t *bg, uint64_t *thresh);
/* hard_dirty_limit(): max(thresh, smoothed global_dirty_limit) */
uint64_t hard_dirty_limit(const struct sim *s, uint64_t thresh);
/* bdi_dirty_limit(): the bdi's share of thresh by writeout fraction */
uint64_t bdi_dirty_limit(struct sim *s, struct bdi *bdi, uint64_t thresh);

/* account_page_dirtied() for n pages written by task t into its inode */
void account_page_dirtied(struct sim *s, struct task *t, uint64_t n);
/* clear_page_dirty_for_io + test_set_page_writeback for n pages */
void set_page_writeback(struct sim *s, int cpu, struct inode *inode, uint64_t n);
/* test_clear_page_writeback for n pages; commit_needed: NFS unstable (docs/throttling-model.md,
 * NFS: unstable pages and COMMIT) */
void end_page_writeback(struct sim *s, struct inode *inode, uint64_t n, int commit_needed);
/* NFS COMMIT reply: n unstable pages become clean */
void clear_unstable_pages(struct sim *s, struct inode *inode, uint64_t n);

/* __bdi_update_bandwidth (docs/throttling-model.md, Write bandwidth and the smoothed
 * limit): the estimate for gdtc->wb, at most once per BANDWIDTH_INTERVAL.  A
 * control with thresh == 0 (the flusher's) updates the write bandwidth only,
 * not the smoothed limit or the dirty ratelimit. */
void __bdi_update_bandwidth(struct sim *s, const struct dirty_throttle_control *gdtc,
			    uint64_t start_time);
/* bdi_update_bandwidth: the dirtiers' caller, which first skips the call while
 * the last estimate is fresh */
void bdi_update_bandwidth(struct sim *s, const struct dirty_throttle_control *gdtc,
			  uint64_t start_time);
/* update_dirty_limit(): the smoothed hard limit follows thresh up at once and
 * down towards max(thresh, dirty) by 1/32 per step (3.2 to 6.x); pure */
uint64_t update_dirty_limit(uint64_t dirty_limit, const struct dirty_throttle_control *dtc);

/* the write_bandwidth / avg_write_bandwidth estimator alone (docs/throttling-model.md, Write
 * bandwidth and the smoothed limit, step 5) */
void bdi_update_write_bandwidth(struct sim *s, struct bdi *bdi, uint64_t elapsed, uint64_t written);

/* nr_dirty as the throttles see it: dirty + unstable + writeback */
void read_global_dirty(const struct sim *s, uint64_t *nr_reclaimable, uint64_t *nr_dirty);

#endif
