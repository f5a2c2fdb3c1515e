/* Linux 3.2 IO-less dirty throttling (docs/throttling-model.md, sections
 * "3.2 entry" to "The 3.2 loop and the pause"), exposed so that models built
 * on it (the nfs wait-queue kernel) reuse it unchanged. */
#ifndef WBLAB_IOLESS_H
#define WBLAB_IOLESS_H
#include "throttle.h"

#define RATELIMIT_CALC_SHIFT 10

/* the setpoint 3.2 steers to: midway between freerun and the hard limit */
uint64_t bdi_setpoint_32(struct sim *s, const struct dirty_throttle_control *dtc);
/* from dtc's thresh, bg_thresh, dirty, wb_thresh, wb_dirty and wb */
uint64_t bdi_position_ratio(struct sim *s, const struct dirty_throttle_control *dtc);
/* the same around another setpoint (1.0 there, 0 at the hard limit) */
uint64_t bdi_position_ratio_at(struct sim *s, const struct dirty_throttle_control *dtc,
			       uint64_t setpoint);
uint64_t bdi_max_pause(struct sim *s, struct bdi *bdi, uint64_t bdi_dirty);
uint64_t dirty_poll_interval(uint64_t dirty, uint64_t thresh);
void ioless_init(struct sim *s);
void ioless_ratelimited(struct sim *s, struct task *t, uint64_t nr);
uint64_t ioless_pages_before_check(struct sim *s, struct task *t);
void bdi_update_dirty_ratelimit(struct sim *s, const struct dirty_throttle_control *gdtc,
				uint64_t dirtied, uint64_t elapsed);
/* the same with the setpoint the step direction is judged by and the
 * position ratio the estimate starts from given */
void bdi_update_dirty_ratelimit_at(struct sim *s, const struct dirty_throttle_control *gdtc,
				   uint64_t dirtied, uint64_t elapsed, uint64_t setpoint, uint64_t pos);

/* One pass of the 3.2 loop as a policy hook sees it. */
struct bdp32_pass {
	const struct dirty_throttle_control *dtc;
	uint64_t rl, task_rl, pages_dirtied, max_pause;
	uint64_t pause;                 /* what 3.2 would sleep (jiffies; 0: none) */
};
/* Hooks inside the 3.2 loop (src/throttle/policy.c, the plug-ins); both set. */
struct bdp32_hooks {
	uint64_t (*position_ratio)(struct sim *s, const struct dirty_throttle_control *dtc);
	/* returns the pause to sleep; sets s->error on a contract violation */
	uint64_t (*pause)(struct sim *s, struct task *t, const struct bdp32_pass *p);
};
/* balance_dirty_pages of 3.2; h NULL: as the kernel */
void balance_dirty_pages_32_hooked(struct sim *s, struct task *t, uint64_t pages_dirtied,
				   const struct bdp32_hooks *h);
/* the 3.2 entry (balance_dirty_pages_ratelimited_nr) calling bdp */
void ioless_entry(struct sim *s, struct task *t, uint64_t nr,
		  void (*bdp)(struct sim *s, struct task *t, uint64_t pages_dirtied));

#endif
