/* The one definition of every metric in a result's `stats` file.  Fed by the
 * simulator, by `wblab import` and by real runs alike: events in, numbers out.
 * Memory is constant in trace length (rings and histograms, no sample lists). */
#ifndef WBLAB_STATS_H
#define WBLAB_STATS_H

/* MiB per 4 KiB page: stats figures in MB come from page counts */
#define PAGE_MB (1.0 / 256)
#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include "../trace/event.h"

struct stats_acc;

struct stats_acc *stats_new(void);
void stats_free(struct stats_acc *s);

/* Every event, in timestamp order. */
void stats_feed(struct stats_acc *s, const struct wb_event *e);

/* Progress of one writer task (pages it wrote, over `seconds`), known to the
 * simulator and the runner; import derives it from balance_dirty_pages. */
void stats_task(struct stats_acc *s, int pid, uint64_t pages, double seconds);

/* A metric that only the producer can know (flusher IO count, pages written
 * by dirtiers in 3.1, NFS mountstats figures...).  Later calls overwrite. */
void stats_set(struct stats_acc *s, const char *name, double value);

/* One "name value" line as stats_write prints it (integers bare, else 4
 * decimals; a non-finite value as 0). */
void stats_put(FILE *f, const char *name, double v);

/* Writes "name value" lines in a fixed order; returns 0 or -1. */
int stats_write(struct stats_acc *s, FILE *f);

/* Feeds every event of a trace file (trace_read.h formats); 0, or -1 with
 * a one-line reason in err. */
int stats_feed_trace(struct stats_acc *s, const char *path, char *err, size_t errlen);

/* True when `comm` is a flusher thread: "flush-8:0" (3.x) or a kworker (4.x+). */
int stats_is_flusher(const char *comm);

/* Log-scale value buckets for percentiles in constant memory: exact below
 * 128, then 64 steps per doubling (1.6 % resolution); stats_level_value
 * gives a bucket's lower bound. */
#define STATS_LEVEL_BUCKETS (128 + 56 * 64)
int stats_level_bucket(int64_t v);
double stats_level_value(int b);

/* Device stalls: a run of consecutive global_dirty_state samples with
 * writeback > 0 and the same written counter (nothing completed between
 * them) whose span, first to last sample, is at least STATS_STALL_MIN_US.
 * Shared by the stats file (stall_count, stall_s_total, stall_ms_max) and
 * `wblab calibrate`; docs/stats.md defines it. */
#define STATS_STALL_MIN_US 200000
struct stats_stall {
	int in_run;
	int64_t run_first_us, run_last_us, run_written;
	int64_t prev_us, prev_wb;     /* the previous sample, for the areas */
	int have_prev;
	uint64_t count;
	double total_us, max_us;
	double wb_area;               /* writeback pages x us over all samples */
	double wb_area_stalled;       /* ... over the stalls' spans */
	double run_area;              /* ... over the open run so far */
};
void stats_stall_feed(struct stats_stall *st, int64_t ts_us, int64_t writeback, int64_t written);
/* Closes an open run (at the end of the trace). */
void stats_stall_end(struct stats_stall *st);

#define STATS_MAX_TASKS 1024
#define STATS_MAX_EXTRA 128

#endif
