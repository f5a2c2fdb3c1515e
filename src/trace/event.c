/* Field and event name tables shared by the trace writer and reader. */
#include <string.h>
#include "event.h"

static const char *const field_names[F_COUNT] = {
	[F_DIRTY] = "dirty", [F_WRITEBACK] = "writeback", [F_UNSTABLE] = "unstable",
	[F_BG_THRESH] = "bg_thresh", [F_THRESH] = "thresh", [F_LIMIT] = "limit",
	[F_DIRTIED] = "dirtied", [F_WRITTEN] = "written",
	[F_SETPOINT] = "setpoint", [F_BDI_SETPOINT] = "bdi_setpoint",
	[F_BDI_DIRTY] = "bdi_dirty", [F_DIRTY_RATELIMIT] = "dirty_ratelimit",
	[F_TASK_RATELIMIT] = "task_ratelimit", [F_DIRTIED_PAUSE] = "dirtied_pause",
	[F_PAUSED] = "paused", [F_PAUSE] = "pause", [F_PERIOD] = "period",
	[F_THINK] = "think", [F_WRITE_BW] = "write_bw", [F_AWRITE_BW] = "awrite_bw",
	[F_DIRTY_RATE] = "dirty_rate",
	[F_BALANCED_DIRTY_RATELIMIT] = "balanced_dirty_ratelimit",
	[F_CGROUP_INO] = "cgroup_ino",
	[F_INO] = "ino", [F_STATE] = "state", [F_DIRTIED_WHEN] = "dirtied_when",
	[F_AGE] = "age", [F_INDEX] = "index", [F_TO_WRITE] = "to_write",
	[F_WROTE] = "wrote", [F_NR_PAGES] = "nr_pages", [F_SYNC_MODE] = "sync_mode",
	[F_KUPDATE] = "kupdate", [F_RANGE_CYCLIC] = "range_cyclic",
	[F_BACKGROUND] = "background", [F_OLDER] = "older", [F_ENQUEUE] = "enqueue",
	[F_NPAGES] = "npages", [F_TOCOMMIT] = "tocommit", [F_WRITE_CHUNK] = "write_chunk",
	[F_SYNC] = "sync", [F_RET] = "ret", [F_OFFSET] = "offset", [F_LEN] = "len",
	[F_ERROR] = "error", [F_DEV] = "dev", [F_FHANDLE] = "fhandle", [F_NBYTES] = "count",
	[F_RES] = "res", [F_STABLE] = "stable", [F_VERIFIER] = "verifier",
};

/* Later kernels renamed some fields; they mean the same quantity. */
static const struct { const char *alias; enum wb_field f; } field_aliases[] = {
	{ "wb_setpoint", F_BDI_SETPOINT },
	{ "wb_dirty", F_BDI_DIRTY },
	{ "avg_write_bw", F_AWRITE_BW },
	{ "nr_dirty", F_DIRTY },
	{ "nr_writeback", F_WRITEBACK },
	{ "background_thresh", F_BG_THRESH },
	{ "dirty_thresh", F_THRESH },
	{ "dirty_limit", F_LIMIT },
	{ "nr_dirtied", F_DIRTIED },
	{ "nr_written", F_WRITTEN },
	/* the 6.x nfs events' kernel field names */
	{ "fileid", F_INO },
	{ "arg_count", F_NBYTES },
	{ "res_count", F_RES },
	/* 5.6-5.19 printed the RPC status as status= (6.0's "NFS: Improve
	 * readpage/writepage tracing" renamed it error=) */
	{ "status", F_ERROR },
};

static const char *const event_names[EV_TYPE_COUNT] = {
	[EV_UNKNOWN] = "unknown",
	[EV_GLOBAL_DIRTY_STATE] = "global_dirty_state",
	[EV_BALANCE_DIRTY_PAGES] = "balance_dirty_pages",
	[EV_BDI_DIRTY_RATELIMIT] = "bdi_dirty_ratelimit",
	[EV_BALANCE_DIRTY_START] = "balance_dirty_start",
	[EV_BALANCE_DIRTY_WRITTEN] = "balance_dirty_written",
	[EV_BALANCE_DIRTY_WAIT] = "balance_dirty_wait",
	[EV_WRITEBACK_SINGLE_INODE] = "writeback_single_inode",
	[EV_WRITEBACK_WRITTEN] = "writeback_written",
	[EV_WRITEBACK_START] = "writeback_start",
	[EV_WRITEBACK_WAIT] = "writeback_wait",
	[EV_WRITEBACK_QUEUE_IO] = "writeback_queue_io",
	[EV_WRITEBACK_WAKE_BACKGROUND] = "writeback_wake_background",
	[EV_NFS_COMMIT_UNSTABLE_PAGES] = "nfs_commit_unstable_pages",
	[EV_NFS_COMMIT_RELEASE] = "nfs_commit_release",
	[EV_NFS_INITIATE_WRITE] = "nfs_initiate_write",
	[EV_NFS_WRITEBACK_DONE] = "nfs_writeback_done",
	[EV_NFS_INITIATE_COMMIT] = "nfs_initiate_commit",
	[EV_NFS_COMMIT_DONE] = "nfs_commit_done",
};

const char *wb_field_name(enum wb_field f)
{
	return (unsigned)f < F_COUNT ? field_names[f] : "?";
}

static int name_eq(const char *a, const char *b, int len)
{
	return (int)strlen(a) == len && memcmp(a, b, (size_t)len) == 0;
}

int wb_field_lookup(const char *name, int len)
{
	for (int f = 0; f < F_COUNT; f++)
		if (name_eq(field_names[f], name, len))
			return f;
	for (size_t i = 0; i < sizeof(field_aliases) / sizeof(field_aliases[0]); i++)
		if (name_eq(field_aliases[i].alias, name, len))
			return (int)field_aliases[i].f;
	return -1;
}

const char *wb_event_name(enum wb_event_type t)
{
	return (unsigned)t < EV_TYPE_COUNT ? event_names[t] : "unknown";
}

enum wb_event_type wb_event_lookup(const char *name, int len)
{
	for (int t = 1; t < EV_TYPE_COUNT; t++)
		if (name_eq(event_names[t], name, len))
			return (enum wb_event_type)t;
	return EV_UNKNOWN;
}
