/* The Linux 6.x throttling model (its --kernel name is "current"): the pure
 * formulas of bdp_6x.c, exposed for the unit tests (docs/current-kernel.md, docs/current-model.md). */
#ifndef WBLAB_BDP_6X_H
#define WBLAB_BDP_6X_H
#include <stdint.h>
#include "../sim/page_writeback.h"
#include "../util/case.h"

/* One wb_update_dirty_ratelimit computation (inputs and outputs). */
struct ratelimit_update {
	uint64_t dirty_ratelimit, prev_balanced, pos_ratio, write_bw;
	uint64_t dirtied, elapsed, hz;    /* dirtied since the stamp, jiffies */
	uint64_t dirty, setpoint;         /* the point the step direction is judged by */
	uint64_t dirty_rate, task_ratelimit, balanced, step, new_ratelimit;   /* out */
};

void domain_dirty_limits_calc(const struct dirty_knob *thresh_knob, const struct dirty_knob *bg_knob,
			      uint64_t avail, uint64_t *bg, uint64_t *thresh);
/* __wb_calc_thresh: ratios in percent as in /sys/class/bdi; num/den = writeout share */
uint64_t wb_calc_thresh(uint64_t T, uint64_t dirty, uint64_t num, uint64_t den,
			uint64_t min_ratio, uint64_t max_ratio, uint64_t sum_min_ratio, int strict);
/* the global cubic, clamped to [0, 2048] */
int64_t pos_ratio_polynom(int64_t setpoint, int64_t dirty, int64_t limit);
/* sets dtc->limit and dtc->pos_ratio (struct dirty_throttle_control: page_writeback.h) */
void wb_position_ratio(struct dirty_throttle_control *dtc, uint64_t dom_dirty_limit,
		       uint64_t write_bw, int strict);
uint64_t wb_max_pause(uint64_t hz, uint64_t avg_write_bw, uint64_t wb_dirty);
uint64_t wb_min_pause(uint64_t hz, uint64_t avg_write_bw, uint64_t max_pause, uint64_t task_rl,
		      uint64_t dirty_ratelimit, uint64_t *nr_dirtied_pause);
void wb_dirty_ratelimit_calc(struct ratelimit_update *u);
/* trace-only wb_setpoint (exact division, bumped wb_thresh) */
uint64_t trace_wb_setpoint(uint64_t setpoint, uint64_t wb_thresh, uint64_t thresh);

/* A task's throttle clock: what balance_dirty_pages keeps per task. */
struct bdp_task_clock {
	uint64_t dirty_paused_when;    /* virtual end of the last pause, 0 = none yet */
	uint64_t nr_dirtied, nr_dirtied_pause;
};

/* The decision that ends one balance_dirty_pages pass once task_rl, min_pause,
 * max_pause and nr_dirtied_pause (ndp) are known (docs/current-kernel.md
 * §10.2 steps 11-14, table in §15.7). */
struct bdp_pause {
	int sleep;              /* 1: sleep `pause` jiffies; 0: no sleep, the debt is carried */
	int64_t period;         /* what pages_dirtied are worth at task_rl; max_pause if task_rl = 0 */
	int64_t pause;          /* sleep: in [0, max_pause]; else period - think time (< min_pause) */
	int64_t trace_pause;    /* what the trace shows: pause, or min(pause, 0) without a sleep */
	struct bdp_task_clock after;   /* the task's clock once the pass is over */
};
void balance_dirty_pages_pause(uint64_t hz, uint64_t now, uint64_t pages_dirtied, uint64_t task_rl,
			       int64_t min_pause, uint64_t max_pause, uint64_t ndp,
			       const struct bdp_task_clock *before, struct bdp_pause *out);

#endif
