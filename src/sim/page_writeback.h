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
 * limit); thresh == 0 for the flusher's calls */
void bdi_update_bandwidth(struct sim *s, struct bdi *bdi, uint64_t thresh, uint64_t bg,
			  uint64_t dirty, uint64_t bdi_thresh, uint64_t bdi_dirty,
			  uint64_t start_time, int from_flusher);

/* the write_bandwidth / avg_write_bandwidth estimator alone (docs/throttling-model.md, Write
 * bandwidth and the smoothed limit, step 5) */
void bdi_update_write_bandwidth(struct sim *s, struct bdi *bdi, uint64_t elapsed, uint64_t written);

/* nr_dirty as the throttles see it: dirty + unstable + writeback */
void read_global_dirty(const struct sim *s, uint64_t *nr_reclaimable, uint64_t *nr_dirty);

#endif
