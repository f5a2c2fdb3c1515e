/* Linux 3.2 IO-less dirty throttling (docs/throttling-model.md, sections
 * "3.2 entry" to "The 3.2 loop and the pause"), exposed so that models built
 * on it (the nfs wait-queue kernel) reuse it unchanged. */
#ifndef WBLAB_IOLESS_H
#define WBLAB_IOLESS_H
#include "throttle.h"

#define RATELIMIT_CALC_SHIFT 10

/* from dtc's thresh, bg_thresh, dirty, wb_thresh, wb_dirty and wb */
uint64_t bdi_position_ratio(struct sim *s, const struct dirty_throttle_control *dtc);
uint64_t bdi_max_pause(struct sim *s, struct bdi *bdi, uint64_t bdi_dirty);
uint64_t dirty_poll_interval(uint64_t dirty, uint64_t thresh);
void ioless_init(struct sim *s);
void ioless_ratelimited(struct sim *s, struct task *t, uint64_t nr);
uint64_t ioless_pages_before_check(struct sim *s, struct task *t);
void bdi_update_dirty_ratelimit(struct sim *s, const struct dirty_throttle_control *gdtc,
				uint64_t dirtied, uint64_t elapsed);

#endif
