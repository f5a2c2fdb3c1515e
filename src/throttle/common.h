/* Helpers shared by the throttling models (both eras). */
#ifndef WBLAB_THROTTLE_COMMON_H
#define WBLAB_THROTTLE_COMMON_H
#include "throttle.h"

/* bdi counters read approximately, or exactly when bdi_thresh is small
 * (docs/throttling-model.md, The 3.1 loop, step 4). */
void read_bdi_dirty(struct sim *s, struct bdi *bdi, uint64_t bdi_thresh,
		    uint64_t *bdi_reclaimable, uint64_t *bdi_dirty);
/* over_bground_thresh() of 3.1: the global test only. */
int over_bground_thresh_global(struct sim *s, struct bdi *bdi);
/* 3.2 adds the per-bdi clause. */
int over_bground_thresh_bdi(struct sim *s, struct bdi *bdi);

/* The IO-less entry's per-task limit (3.2 to 6.x): a task enters
 * balance_dirty_pages after nr_dirtied_pause pages, or after 8 (32 KiB) while
 * its bdi is over its share, so that the overshoot stays small. */
uint64_t nr_dirtied_limit(const struct task *t);

#endif
