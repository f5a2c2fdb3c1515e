/* Control-loop quality: how well the dirty count follows its target and how
 * the loop's rates swing, from the event stream in constant memory.  stats.c
 * feeds every event and prints these rows (src/result/metrics.h) where it
 * prints the control block; docs/stats.md "Control-loop quality" defines
 * every figure.  The knobs below are that definition's constants. */
#ifndef WBLAB_STATS_CONTROL_H
#define WBLAB_STATS_CONTROL_H
#include <stdint.h>
#include <stdio.h>
#include "../trace/event.h"

#define CTL_BAND 0.05            /* settled: within 5 % of the setpoint ... */
#define CTL_HOLD_US 1000000      /* ... for at least 1 s without leaving */
#define CTL_SWING 0.01           /* swings under 1 % of the level are noise */
#define CTL_TASK_GONE_US 1000000 /* a task silent this long no longer dirties */
#define CTL_MAX_BDI 8
#define CTL_MAX_TASKS 1024

/* Turning points of one signal with a hysteresis: a peak is confirmed when
 * the signal has fallen more than h below it, a trough when it has risen
 * more than h above it.  Swing = |peak - trough| of neighbours; period =
 * peak to peak and trough to trough. */
struct ctl_swing {
	int dir;                 /* +1 looking for a peak, -1 for a trough, 0 unfed */
	double ext;              /* the running extreme */
	int64_t ext_ts, first_ts;
	double peak, trough;
	int64_t peak_ts, trough_ts;
	int have_peak, have_trough;
	uint64_t nswing, nperiod;
	double swing_sum, period_sum_us;
};
void ctl_swing_feed(struct ctl_swing *w, int64_t ts, double v, double h);
/* Half the mean swing, and the mean period in seconds; 0 when not known. */
int ctl_swing_amplitude(const struct ctl_swing *w, double *amp);
int ctl_swing_period_s(const struct ctl_swing *w, double *period_s);

/* The dirty count against one target: the setpoint (IO-less eras) or the
 * freerun ceiling where 3.1 starts throttling (IO-ful eras). */
struct ctl_track {
	int ramped;              /* the dirty count has reached the target */
	int64_t ramp_ts, ramp_written;
	double area_us, area_target, area_abs, area_sq, area_abs_pct, area_sq_pct, area_band;
	struct ctl_swing dirty;
	/* settling (setpoint track only) */
	int in_band, settled, pending, started;
	int64_t in_since, pending_from;
	double target_ref;       /* the setpoint at the last settling */
	int have_settle_start;
	double settle_start_s;
	uint64_t ndist, nresettled;
	double resettle_sum_s, resettle_max_s;
};

struct control_acc {
	int have_gds, have_grow;
	int64_t prev_ts, prev_nr_dirty, last_grow_ts, last_grow_written, prev_dirtied;
	int64_t first_ts, first_written;
	double prev_sp, prev_ceiling;
	/* the latest balance_dirty_pages setpoint and the thresholds it held for */
	int64_t bdp_sp, bdp_thresh, bdp_bg, bdp_limit;
	int have_bdp_sp;
	int64_t thresh, bg, limit;   /* of the latest global_dirty_state */
	struct ctl_track sp, ceil;   /* IO-less (setpoint) and IO-ful (freerun ceiling) */
	/* dirty_ratelimit swings, per-bdi write bandwidth, dirtying tasks */
	struct ctl_swing rl;
	int rl_started;
	struct { char name[WB_BDI_LEN]; double awrite_bw; int have_bw, active; } bdi[CTL_MAX_BDI];
	int nbdi;
	struct { int pid, bdi; int64_t last_ts; } task[CTL_MAX_TASKS];
	int ntask, active, counted;
	int64_t count_ts;
	uint64_t nfair;
	double fair_sum, fair_err_sum;
};

void control_init(struct control_acc *c);
void control_feed(struct control_acc *c, const struct wb_event *e);
/* Prints the control block; ioless 0 leaves out what needs a setpoint or
 * the IO-less events (3.1). */
void control_write(const struct control_acc *c, FILE *f, int ioless);

#endif
