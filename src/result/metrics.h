/* The one table of the metrics a result's `stats` file may hold: name, unit,
 * which direction is better, the kernels (trace eras) that have it, who
 * writes it, and a one-line meaning.  stats_write prints the trace-derived
 * rows by their ids, in this order; compare and report take units and the
 * better direction from here; validate and calibrate read keys by id;
 * docs/stats.md's metric list is `wblab help metrics --markdown` (a unit
 * test checks it).  Adding a metric: one row below, its computation, and
 * the regenerated list in docs/stats.md.
 *
 * Row: X(ID, name, unit, better, eras, producer, meaning)
 *   name      the key; a trailing "_N" stands for a decimal index
 *             (task_bw_N), a trailing "*" for any key of the table
 *             (untraced_*)
 *   better    METRIC_HIGHER, METRIC_LOWER or METRIC_NONE
 *   eras      the trace eras (enum trace_era) whose traces have it, a bit
 *             set: ERAS_ALL, ERAS_IOLESS (balance_dirty_pages and
 *             bdi_dirty_ratelimit: 3.1-rc8-ioless, 3.2, 6.x), ERAS_IOFUL
 *             (balance_dirty_start/wait: 3.1-rc8, 3.1), ERAS_NOT_6X (NFS
 *             commit events), or ERAS_NONE (not from a trace)
 *   producer  trace (stats.c, any producer), task (stats.c, per writer),
 *             sim, nfs (the simulated NFS client), block (the simulated
 *             block layer), real (wblab run) */
#ifndef WBLAB_METRICS_H
#define WBLAB_METRICS_H
#include <stdio.h>
#include "../trace/trace_format.h"

#define METRIC_ERA(e) (1u << (e))
#define ERAS_ALL ((1u << ERA_COUNT) - 1)
#define ERAS_IOFUL (METRIC_ERA(ERA_3_1_RC8) | METRIC_ERA(ERA_3_1))
#define ERAS_IOLESS (ERAS_ALL & ~ERAS_IOFUL)
#define ERAS_NOT_6X (ERAS_ALL & ~METRIC_ERA(ERA_6X))
#define ERAS_NONE 0u

enum metric_better { METRIC_LOWER = -1, METRIC_NONE = 0, METRIC_HIGHER = 1 };

#define WBLAB_METRICS(X) \
	/* global_dirty_state */ \
	X(WRITE_BW, "write_bw", "MB/s", METRIC_HIGHER, ERAS_ALL, "trace", \
	  "write bandwidth (flusher's written counter)") \
	X(DURATION_S, "duration_s", "s", METRIC_NONE, ERAS_ALL, "trace", \
	  "span of the global_dirty_state samples") \
	X(GDS_SAMPLES, "gds_samples", "", METRIC_NONE, ERAS_ALL, "trace", \
	  "global_dirty_state samples") \
	X(FLUSHER_SAMPLES, "flusher_samples", "", METRIC_NONE, ERAS_ALL, "trace", \
	  "global_dirty_state samples by the flusher") \
	X(DIRTIED_PAGES, "dirtied_pages", "pages", METRIC_NONE, ERAS_ALL, "trace", \
	  "last - first of the dirtied counter") \
	X(WRITTEN_PAGES, "written_pages", "pages", METRIC_NONE, ERAS_ALL, "trace", \
	  "last - first of the written counter") \
	X(DIRTIED_MB, "dirtied_mb", "MB", METRIC_NONE, ERAS_ALL, "trace", "dirtied_pages in MB") \
	X(WRITTEN_MB, "written_mb", "MB", METRIC_NONE, ERAS_ALL, "trace", "written_pages in MB") \
	X(NR_DIRTY_MAX_PAGES, "nr_dirty_max_pages", "pages", METRIC_LOWER, ERAS_ALL, "trace", \
	  "peak of dirty + writeback + unstable") \
	X(NR_DIRTY_MAX_MB, "nr_dirty_max_mb", "MB", METRIC_LOWER, ERAS_ALL, "trace", \
	  "nr_dirty_max_pages in MB") \
	X(NR_DIRTY_MEAN_PAGES, "nr_dirty_mean_pages", "pages", METRIC_NONE, ERAS_ALL, "trace", \
	  "time-weighted mean of dirty + writeback + unstable") \
	X(NR_DIRTY_MEAN_MB, "nr_dirty_mean_mb", "MB", METRIC_NONE, ERAS_ALL, "trace", \
	  "mean dirty+writeback+unstable") \
	X(NR_DIRTY_P95_PAGES, "nr_dirty_p95_pages", "pages", METRIC_NONE, ERAS_ALL, "trace", \
	  "time-weighted 95th percentile of nr_dirty") \
	X(DIRTY_MAX_PAGES, "dirty_max_pages", "pages", METRIC_NONE, ERAS_ALL, "trace", \
	  "peak of dirty") \
	X(DIRTY_MEAN_PAGES, "dirty_mean_pages", "pages", METRIC_NONE, ERAS_ALL, "trace", \
	  "time-weighted mean of dirty") \
	X(WRITEBACK_MAX_PAGES, "writeback_max_pages", "pages", METRIC_NONE, ERAS_ALL, "trace", \
	  "peak of writeback") \
	X(UNSTABLE_MAX_PAGES, "unstable_max_pages", "pages", METRIC_NONE, ERAS_ALL, "trace", \
	  "peak of unstable (NFS; absent on 6.x: 0)") \
	X(TIME_OVER_LIMIT_S, "time_over_limit_s", "s", METRIC_LOWER, ERAS_ALL, "trace", \
	  "time above the dirty limit") \
	X(STALL_COUNT, "stall_count", "", METRIC_LOWER, ERAS_ALL, "trace", \
	  "device stalls: >= 200 ms with writeback > 0 and nothing written") \
	X(STALL_S_TOTAL, "stall_s_total", "s", METRIC_LOWER, ERAS_ALL, "trace", \
	  "summed span of the stalls") \
	X(STALL_MS_MAX, "stall_ms_max", "ms", METRIC_LOWER, ERAS_ALL, "trace", "longest stall") \
	/* balance_dirty_pages, bdi_dirty_ratelimit */ \
	X(BDP_EVENTS, "bdp_events", "", METRIC_NONE, ERAS_ALL, "trace", \
	  "balance_dirty_pages events (0 in IO-ful eras)") \
	X(PAUSE_COUNT, "pause_count", "", METRIC_NONE, ERAS_IOLESS, "trace", \
	  "balance_dirty_pages events with pause > 0") \
	X(PAUSE_MS_MEAN, "pause_ms_mean", "ms", METRIC_LOWER, ERAS_IOLESS, "trace", \
	  "mean balance_dirty_pages pause") \
	X(PAUSE_MS_P50, "pause_ms_p50", "ms", METRIC_LOWER, ERAS_IOLESS, "trace", \
	  "median balance_dirty_pages pause") \
	X(PAUSE_MS_P90, "pause_ms_p90", "ms", METRIC_LOWER, ERAS_IOLESS, "trace", \
	  "90th percentile of balance_dirty_pages pauses") \
	X(PAUSE_MS_P99, "pause_ms_p99", "ms", METRIC_LOWER, ERAS_IOLESS, "trace", \
	  "99th percentile of balance_dirty_pages pauses") \
	X(PAUSE_MS_MAX, "pause_ms_max", "ms", METRIC_LOWER, ERAS_IOLESS, "trace", "longest pause") \
	X(PAUSED_MS_MAX, "paused_ms_max", "ms", METRIC_LOWER, ERAS_IOLESS, "trace", \
	  "longest time one call spent throttled") \
	X(TASK_RATELIMIT_MEAN_KBPS, "task_ratelimit_mean_kbps", "KB/s", METRIC_NONE, ERAS_IOLESS, "trace", \
	  "mean task_ratelimit of balance_dirty_pages") \
	X(TASK_RATELIMIT_STEADY_KBPS, "task_ratelimit_steady_kbps", "KB/s", METRIC_NONE, ERAS_IOLESS, \
	  "trace", "mean task_ratelimit over the second half of the trace") \
	X(RATELIMIT_UPDATES, "ratelimit_updates", "", METRIC_NONE, ERAS_ALL, "trace", \
	  "bdi_dirty_ratelimit events (0 in IO-ful eras)") \
	X(DIRTY_RATELIMIT_MEAN_KBPS, "dirty_ratelimit_mean_kbps", "KB/s", METRIC_NONE, ERAS_IOLESS, \
	  "trace", "mean dirty_ratelimit of bdi_dirty_ratelimit") \
	X(BALANCED_RATELIMIT_MEAN_KBPS, "balanced_ratelimit_mean_kbps", "KB/s", METRIC_NONE, ERAS_IOLESS, \
	  "trace", "mean balanced_dirty_ratelimit of bdi_dirty_ratelimit") \
	X(AVG_WRITE_BW_MEAN_KBPS, "avg_write_bw_mean_kbps", "KB/s", METRIC_NONE, ERAS_IOLESS, "trace", \
	  "mean avg_write_bw of bdi_dirty_ratelimit") \
	/* 3.1 and NFS events */ \
	X(BALANCE_DIRTY_START_EVENTS, "balance_dirty_start_events", "", METRIC_NONE, ERAS_ALL, "trace", \
	  "balance_dirty_start events (3.1; 0 elsewhere)") \
	X(BALANCE_DIRTY_WAIT_EVENTS, "balance_dirty_wait_events", "", METRIC_NONE, ERAS_ALL, "trace", \
	  "balance_dirty_wait events (3.1; 0 elsewhere)") \
	X(BDW_COUNT, "bdw_count", "", METRIC_NONE, ERAS_IOFUL, "trace", \
	  "balance_dirty_start-to-wait spans") \
	X(BDW_MS_MEAN, "bdw_ms_mean", "ms", METRIC_LOWER, ERAS_IOFUL, "trace", "mean span") \
	X(BDW_MS_P50, "bdw_ms_p50", "ms", METRIC_LOWER, ERAS_IOFUL, "trace", "median span") \
	X(BDW_MS_P90, "bdw_ms_p90", "ms", METRIC_LOWER, ERAS_IOFUL, "trace", "90th percentile span") \
	X(BDW_MS_P99, "bdw_ms_p99", "ms", METRIC_LOWER, ERAS_IOFUL, "trace", "99th percentile span") \
	X(BDW_MS_MAX, "bdw_ms_max", "ms", METRIC_LOWER, ERAS_IOFUL, "trace", "longest span") \
	X(COMMIT_EVENTS, "commit_events", "", METRIC_NONE, ERAS_NOT_6X, "trace", \
	  "nfs_commit_unstable_pages events with ret > 0 (NFS)") \
	X(COMMIT_PAGES_MEAN, "commit_pages_mean", "pages", METRIC_NONE, ERAS_NOT_6X, "trace", \
	  "mean ret of those events") \
	/* per task */ \
	X(TASKS, "tasks", "", METRIC_NONE, ERAS_ALL, "task", "writer tasks with a bandwidth") \
	X(TASK_BW_N, "task_bw_N", "MB/s", METRIC_NONE, ERAS_ALL, "task", \
	  "bandwidth of the N-th task, by pid order") \
	X(TASK_BW_MIN, "task_bw_min", "MB/s", METRIC_HIGHER, ERAS_ALL, "task", "slowest task") \
	X(TASK_BW_MAX, "task_bw_max", "MB/s", METRIC_NONE, ERAS_ALL, "task", "fastest task") \
	X(TASK_BW_SUM, "task_bw_sum", "MB/s", METRIC_HIGHER, ERAS_ALL, "task", "sum over tasks") \
	X(FAIRNESS_JAIN, "fairness_jain", "", METRIC_HIGHER, ERAS_ALL, "task", \
	  "Jain's fairness index of per-task bandwidth") \
	/* producer-only figures (stats_set): the simulator */ \
	X(DIRTIER_WRITTEN_PAGES, "dirtier_written_pages", "pages", METRIC_NONE, ERAS_NONE, "sim", \
	  "pages written by dirtiers themselves (3.1 foreground writeback)") \
	X(FLUSHER_IO_COUNT, "flusher_io_count", "", METRIC_NONE, ERAS_NONE, "sim", "flusher IOs") \
	X(FLUSHER_IO_MEAN_KB, "flusher_io_mean_kb", "KB", METRIC_HIGHER, ERAS_NONE, "sim", \
	  "mean flusher IO size") \
	X(DIRTIER_IO_COUNT, "dirtier_io_count", "", METRIC_NONE, ERAS_NONE, "sim", "dirtier IOs") \
	/* the simulated block layer */ \
	X(DEV_BIOS, "dev_bios", "", METRIC_NONE, ERAS_NONE, "block", "bios submitted to the device") \
	X(DEV_MERGES, "dev_merges", "", METRIC_NONE, ERAS_NONE, "block", "bios merged into requests") \
	X(DEV_REQUEST_KB, "dev_request_kb", "KB", METRIC_HIGHER, ERAS_NONE, "block", \
	  "mean dispatched request size") \
	X(DEV_BUSY_PCT, "dev_busy_pct", "%", METRIC_NONE, ERAS_NONE, "block", "device busy time") \
	X(DEV_REPOSITIONS_PER_S, "dev_repositions_per_s", "1/s", METRIC_LOWER, ERAS_NONE, "block", \
	  "head repositionings (seeks) per second") \
	/* the simulated NFS client (as /proc/self/mountstats) */ \
	X(NFS_NR_WRITES, "nfs_nr_writes", "", METRIC_NONE, ERAS_NONE, "nfs", "WRITE RPCs") \
	X(NFS_NR_COMMITS, "nfs_nr_commits", "", METRIC_NONE, ERAS_NONE, "nfs", "COMMIT RPCs") \
	X(NFS_WRITE_SIZE, "nfs_write_size", "MB", METRIC_HIGHER, ERAS_NONE, "nfs", "bytes per WRITE") \
	X(NFS_COMMIT_SIZE, "nfs_commit_size", "MB", METRIC_HIGHER, ERAS_NONE, "nfs", \
	  "bytes written per COMMIT") \
	X(NFS_WRITE_QUEUE_TIME, "nfs_write_queue_time", "ms", METRIC_LOWER, ERAS_NONE, "nfs", \
	  "queue time per WRITE") \
	X(NFS_WRITE_RTT_TIME, "nfs_write_rtt_time", "ms", METRIC_LOWER, ERAS_NONE, "nfs", \
	  "round trip per WRITE") \
	X(NFS_WRITE_EXECUTE_TIME, "nfs_write_execute_time", "ms", METRIC_LOWER, ERAS_NONE, "nfs", \
	  "execute time per WRITE") \
	X(NFS_COMMIT_QUEUE_TIME, "nfs_commit_queue_time", "ms", METRIC_LOWER, ERAS_NONE, "nfs", \
	  "queue time per COMMIT") \
	X(NFS_COMMIT_RTT_TIME, "nfs_commit_rtt_time", "ms", METRIC_LOWER, ERAS_NONE, "nfs", \
	  "round trip per COMMIT") \
	X(NFS_COMMIT_EXECUTE_TIME, "nfs_commit_execute_time", "ms", METRIC_LOWER, ERAS_NONE, "nfs", \
	  "execute time per COMMIT") \
	X(NFS_FILE_SYNC_WRITES, "nfs_file_sync_writes", "", METRIC_NONE, ERAS_NONE, "nfs", \
	  "WRITEs sent FILE_SYNC") \
	X(NFS_BACKLOG_WAITS, "nfs_backlog_waits", "", METRIC_LOWER, ERAS_NONE, "nfs", \
	  "requests that found the RPC slot table full") \
	X(NFS_BACKLOG_MAX, "nfs_backlog_max", "", METRIC_LOWER, ERAS_NONE, "nfs", \
	  "most requests asleep on the backlog at once") \
	X(NFS_WRITEPAGES_MEAN_PAGES, "nfs_writepages_mean_pages", "pages", METRIC_NONE, ERAS_NONE, "nfs", \
	  "mean pages per writepages call") \
	X(NFS_SERVER_DISK_MB, "nfs_server_disk_mb", "MB", METRIC_NONE, ERAS_NONE, "nfs", \
	  "written to the server's disk") \
	/* real runs (wblab run; docs/real-runs.md) */ \
	X(RUNTIME_S, "runtime_s", "s", METRIC_NONE, ERAS_NONE, "real", "measured run time") \
	X(WRITERS_MB, "writers_mb", "MB", METRIC_NONE, ERAS_NONE, "real", "written by the writers") \
	X(WRITERS_BW, "writers_bw", "MB/s", METRIC_HIGHER, ERAS_NONE, "real", "writers_mb / runtime_s") \
	X(VMSTAT_WRITTEN_MB, "vmstat_written_mb", "MB", METRIC_NONE, ERAS_NONE, "real", \
	  "/proc/vmstat nr_written delta") \
	X(VMSTAT_WRITE_BW, "vmstat_write_bw", "MB/s", METRIC_HIGHER, ERAS_NONE, "real", \
	  "vmstat_written_mb / runtime_s") \
	X(VMSTAT_DIRTIED_BW, "vmstat_dirtied_bw", "MB/s", METRIC_NONE, ERAS_NONE, "real", \
	  "/proc/vmstat nr_dirtied delta / runtime_s") \
	X(DEV_WRITTEN_MB, "dev_written_mb", "MB", METRIC_NONE, ERAS_NONE, "real", \
	  "written to the device (its stat file)") \
	X(DEV_WRITE_BW, "dev_write_bw", "MB/s", METRIC_HIGHER, ERAS_NONE, "real", \
	  "dev_written_mb / runtime_s") \
	X(DEV_WRITE_IOS, "dev_write_ios", "", METRIC_NONE, ERAS_NONE, "real", "write IOs of the device") \
	X(DEV_BUSY_S, "dev_busy_s", "s", METRIC_NONE, ERAS_NONE, "real", \
	  "time the device had a request in flight (io_ticks)") \
	X(DEV_WRITE_KB_MEAN, "dev_write_kb_mean", "KB", METRIC_HIGHER, ERAS_NONE, "real", \
	  "mean device write size") \
	X(TRACED, "traced", "", METRIC_NONE, ERAS_NONE, "real", "1 when the run was traced") \
	X(TRACE_MB, "trace_mb", "MB", METRIC_NONE, ERAS_NONE, "real", "size of the captured trace") \
	X(TRACE_OVERRUN_EVENTS, "trace_overrun_events", "", METRIC_LOWER, ERAS_NONE, "real", \
	  "trace events lost to ring-buffer overruns") \
	X(WRITERS_CPU_S, "writers_cpu_s", "s", METRIC_LOWER, ERAS_NONE, "real", \
	  "the writers' user + system CPU time") \
	X(GLOBAL_WRITTEN_POLLUTED, "global_written_polluted", "", METRIC_NONE, ERAS_NONE, "real", \
	  "1 when other writers inflated the global written counter") \
	X(UNTRACED_X, "untraced_*", "", METRIC_NONE, ERAS_NONE, "real", \
	  "runtime_s ... dev_write_kb_mean of the untraced comparison run") \
	X(TRACING_OVERHEAD_PCT, "tracing_overhead_pct", "%", METRIC_LOWER, ERAS_NONE, "real", \
	  "vmstat bandwidth lost to tracing")

enum metric_id {
#define METRIC_ENUM(id, ...) M_##id,
	WBLAB_METRICS(METRIC_ENUM)
#undef METRIC_ENUM
	M__COUNT
};

struct metric_def {
	const char *name, *unit;
	int better;                     /* enum metric_better */
	unsigned eras;                  /* METRIC_ERA bits */
	const char *producer, *doc;
};

extern const struct metric_def metric_table[M__COUNT];

/* The key of a row without a pattern ("write_bw"). */
#define METRIC_KEY(id) (metric_table[M_##id].name)

/* The row describing key (exact, task_bw_N, untraced_*), or NULL. */
const struct metric_def *metric_find(const char *key);

/* The metric list as a Markdown table (docs/stats.md) or as text. */
void metric_list(FILE *f, int markdown);

#endif
