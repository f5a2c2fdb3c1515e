/* Calibration of the simulator's device and writer models from a real result
 * directory made by `wblab run` (stats, meta, params, env, trace).  See
 * docs/current-model.md for what each figure is derived from. */
#ifndef WBLAB_CALIBRATE_H
#define WBLAB_CALIBRATE_H
#include <stdio.h>
#include "../sim/params.h"
#include "../util/case.h"

struct calibration {
	struct wb_case c;          /* the case the result ran (group/name) */
	double runtime_s;
	/* what was measured */
	double dev_write_bw;       /* MiB/s that reached the device */
	double awrite_bw_steady;   /* median kernel avg_write_bw estimate, second half, MiB/s (0: none) */
	double writers_mb;         /* MiB the writers' write()s returned */
	double pause_s;            /* sum of the writers' balance_dirty_pages sleeps */
	double per_page_ns;        /* writer time per page outside those sleeps (CPU share) */
	double dev_write_kb_mean;
	double writers_cpu_s;      /* the writers' own CPU time (0: not recorded) */
	double device_cap_mbps;    /* the run's --device-bw cap (0: none) */
	double throttle_mbps;      /* dev.throttle_mbps: the cap as blk-throttle, when the busy time is known */
	double cpu_share;          /* CPU the writers got / CPU they could have used (0.05..1) */
	int busy_capacity;         /* bw_mbps is the device's rate while busy (io_ticks) */
	double dev_busy_s;         /* time the device had a request in flight (0: not recorded) */
	int loop_device;
	int bdi_strict_limit, bdi_min_ratio, bdi_max_ratio;   /* the device's knobs in env */
	char elevator[24];         /* the run's scheduler when the simulator has it ("": auto) */
	/* from the trace's global_dirty_state: device stalls (docs/stats.md) */
	double span_s;             /* first to last sample */
	double stall_count, stall_s_total, stall_ms_max;
	/* Little's law over the time not stalled */
	double wb_mean_pages;      /* L: mean writeback pages (pages in flight) */
	double xput_pages_s;       /* X: written pages per second */
	double wait_ms;            /* W = L / X: a page's time under writeback */
	/* what the simulator gets (dev.model=loop) */
	double hz, bw_mbps, cpu_page_ns, syscall_ns, max_request_kb, nr_requests, dirtyable_pct;
	double queue_depth, latency_us, stall_every_s, stall_ms;
	double init_write_bw_kbps, init_dirty_ratelimit_kbps;   /* the bdi's state at the start */
	/* host frame faults (a VM with free page reporting): the writers'
	 * dirtying cost per page in short trace intervals, fast runs vs the rest */
	double fast_page_ns;       /* mean cost per page of the fast runs (0: none found) */
	double slow_share;         /* share of the sampled pages outside them */
	double host_fault_ns, host_fault_pct, host_fault_block_kb;   /* 0: not modelled */
	double host_backed_mb;     /* backed frames the writers got first */
	int page_reporting_order;  /* from the run's kernel command line (-1: not given) */
};

/* Reads DIR; returns 0, or -1 with a one-line reason in err. */
int calibrate_dir(const char *dir, double hz, struct calibration *cal, char *err, size_t errlen);
/* Overrides the calibrated keys of p (starting from params_defaults). */
int calibration_apply(const struct calibration *cal, struct sim_params *p, char *err, size_t errlen);
/* The same as KEY=VALUE strings (what --set takes); returns how many. */
#define CAL_MAX_SETS 32
#define CAL_SET_LEN 128
int calibration_sets(const struct calibration *cal, char sets[][CAL_SET_LEN]);
/* "--set key=value" lines (as_set) or "key = value" lines, with # comments. */
void calibration_write(const struct calibration *cal, FILE *f, int as_set);

#endif
