/* Per-era payload layouts.  Field order and names follow the TP_printk strings
 * of each kernel (checked against 3.1, 3.2 sources and a 6.18 tracefs; see
 * docs/trace-formats.md). */
#include <string.h>
#include "trace_format.h"

#define FMT(...) { __VA_ARGS__ }

static const struct trace_fmt gds_31 = { PFX_NONE, 8,
	{ F_DIRTY, F_WRITEBACK, F_UNSTABLE, F_BG_THRESH, F_THRESH, F_LIMIT, F_DIRTIED, F_WRITTEN }, {0}, 0, 0, 0 };
static const struct trace_fmt gds_6x = { PFX_NONE, 7,
	{ F_DIRTY, F_WRITEBACK, F_BG_THRESH, F_THRESH, F_LIMIT, F_DIRTIED, F_WRITTEN }, {0}, 0, 0, 0 };

static const struct trace_fmt bdp_32 = { PFX_BDI_COLON, 11,
	{ F_LIMIT, F_SETPOINT, F_DIRTY, F_BDI_SETPOINT, F_BDI_DIRTY, F_DIRTY_RATELIMIT,
	  F_TASK_RATELIMIT, F_DIRTIED, F_DIRTIED_PAUSE, F_PAUSED, F_PAUSE }, {0}, 0, 0, 0 };
static const struct trace_fmt bdp_6x = { PFX_BDI_COLON, 14,
	{ F_LIMIT, F_SETPOINT, F_DIRTY, F_BDI_SETPOINT, F_BDI_DIRTY, F_DIRTY_RATELIMIT,
	  F_TASK_RATELIMIT, F_DIRTIED, F_DIRTIED_PAUSE, F_PAUSED, F_PAUSE, F_PERIOD, F_THINK,
	  F_CGROUP_INO },
	{ [3] = "wb_setpoint", [4] = "wb_dirty" }, 0, 0, 0 };

static const struct trace_fmt bdr_32 = { PFX_BDI_COLON, 6,
	{ F_WRITE_BW, F_AWRITE_BW, F_DIRTY_RATE, F_DIRTY_RATELIMIT, F_TASK_RATELIMIT,
	  F_BALANCED_DIRTY_RATELIMIT }, {0}, 0, 0, 0 };
static const struct trace_fmt bdr_6x = { PFX_BDI_COLON, 7,
	{ F_WRITE_BW, F_AWRITE_BW, F_DIRTY_RATE, F_DIRTY_RATELIMIT, F_TASK_RATELIMIT,
	  F_BALANCED_DIRTY_RATELIMIT, F_CGROUP_INO }, {0}, 0, 0, 0 };

static const struct trace_fmt bdi_only = { PFX_BDI, 0, {0}, {0}, 0, 0, 0 };
static const struct trace_fmt bd_written = { PFX_BDI, 1, { F_WRITTEN }, {0}, 0, 1, 0 };

static const struct trace_fmt wsi_rc8 = { PFX_BDI_COLON, 6,
	{ F_INO, F_STATE, F_AGE, F_INDEX, F_TO_WRITE, F_WROTE }, {0}, 0, 0, 1 };
static const struct trace_fmt wsi_31 = { PFX_BDI_COLON, 7,
	{ F_INO, F_STATE, F_DIRTIED_WHEN, F_AGE, F_INDEX, F_TO_WRITE, F_WROTE }, {0}, 0, 0, 1 };

static const struct trace_fmt work_class = { PFX_BDI_COLON, 5,
	{ F_NR_PAGES, F_SYNC_MODE, F_KUPDATE, F_RANGE_CYCLIC, F_BACKGROUND }, {0}, 1, 0, 0 };

static const struct trace_fmt nfs_cup = { PFX_BDI_COLON, 6,
	{ F_INO, F_NPAGES, F_TOCOMMIT, F_WRITE_CHUNK, F_SYNC, F_RET }, {0}, 0, 0, 0 };
static const struct trace_fmt nfs_rel = { PFX_BDI_COLON, 3,
	{ F_INO, F_OFFSET, F_LEN }, {0}, 0, 0, 0 };

/* fs/nfs/nfstrace.h (6.x): the WRITE and COMMIT calls and their replies */
static const struct trace_fmt nfs6_write = { PFX_NONE, 5,
	{ F_INO, F_FHANDLE, F_OFFSET, F_NBYTES, F_STABLE }, { [0] = "fileid" }, 0, 0, 0, 1 };
static const struct trace_fmt nfs6_write_done = { PFX_NONE, 8,
	{ F_ERROR, F_INO, F_FHANDLE, F_OFFSET, F_NBYTES, F_RES, F_STABLE, F_VERIFIER },
	{ [1] = "fileid" }, 0, 0, 0, 1 };
static const struct trace_fmt nfs6_commit = { PFX_NONE, 4,
	{ F_INO, F_FHANDLE, F_OFFSET, F_NBYTES }, { [0] = "fileid" }, 0, 0, 0, 1 };
static const struct trace_fmt nfs6_commit_done = { PFX_NONE, 6,
	{ F_ERROR, F_INO, F_FHANDLE, F_OFFSET, F_STABLE, F_VERIFIER }, { [1] = "fileid" }, 0, 0, 0, 1 };

static const char *const stable_names[] = { "UNSTABLE", "DATA_SYNC", "FILE_SYNC" };

const char *trace_stable_name(int64_t v)
{
	return v >= 0 && v < 3 ? stable_names[v] : NULL;
}

int trace_stable_lookup(const char *p, int len)
{
	for (int i = 0; i < 3; i++)
		if ((int)strlen(stable_names[i]) == len && !memcmp(stable_names[i], p, (size_t)len))
			return i;
	return -1;
}

int trace_era_ioless(enum trace_era era)
{
	return era == ERA_3_1_RC8_IOLESS || era >= ERA_3_2;
}

int trace_era_has_reason(enum trace_era era)
{
	return era >= ERA_3_2;
}

const struct trace_fmt *trace_fmt_get(enum trace_era era, enum wb_event_type t)
{
	int ioless = trace_era_ioless(era);
	int rc8 = era == ERA_3_1_RC8 || era == ERA_3_1_RC8_IOLESS;
	switch (t) {
	case EV_GLOBAL_DIRTY_STATE:
		return era == ERA_6X ? &gds_6x : &gds_31;
	case EV_BALANCE_DIRTY_PAGES:
		return !ioless ? NULL : era == ERA_6X ? &bdp_6x : &bdp_32;
	case EV_BDI_DIRTY_RATELIMIT:
		return !ioless ? NULL : era == ERA_6X ? &bdr_6x : &bdr_32;
	case EV_BALANCE_DIRTY_START:
	case EV_BALANCE_DIRTY_WAIT:
		return ioless ? NULL : &bdi_only;
	case EV_BALANCE_DIRTY_WRITTEN:
		return ioless ? NULL : &bd_written;
	case EV_WRITEBACK_SINGLE_INODE:
		return rc8 ? &wsi_rc8 : era == ERA_6X ? NULL : &wsi_31;
	case EV_WRITEBACK_START:
	case EV_WRITEBACK_WRITTEN:
	case EV_WRITEBACK_WAIT:
		return era == ERA_6X ? NULL : &work_class;
	case EV_WRITEBACK_WAKE_BACKGROUND:
		return &bdi_only;
	case EV_NFS_COMMIT_UNSTABLE_PAGES:
		return era == ERA_6X ? NULL : &nfs_cup;
	case EV_NFS_COMMIT_RELEASE:
		return era == ERA_6X ? NULL : &nfs_rel;
	case EV_NFS_INITIATE_WRITE:
		return era == ERA_6X ? &nfs6_write : NULL;
	case EV_NFS_WRITEBACK_DONE:
		return era == ERA_6X ? &nfs6_write_done : NULL;
	case EV_NFS_INITIATE_COMMIT:
		return era == ERA_6X ? &nfs6_commit : NULL;
	case EV_NFS_COMMIT_DONE:
		return era == ERA_6X ? &nfs6_commit_done : NULL;
	default:
		return NULL;
	}
}
