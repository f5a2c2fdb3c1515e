/* One writeback trace event, whether produced by the simulator, parsed from a
 * kernel trace, or captured live.  Fields are addressed by name (enum wb_field),
 * never by position, so traces of 3.x, 4.x and 6.x kernels all fit. */
#ifndef WBLAB_EVENT_H
#define WBLAB_EVENT_H
#include <stdint.h>

enum wb_event_type {
	EV_UNKNOWN = 0,
	EV_GLOBAL_DIRTY_STATE,      /* writeback:global_dirty_state */
	EV_BALANCE_DIRTY_PAGES,     /* writeback:balance_dirty_pages (3.2+) */
	EV_BDI_DIRTY_RATELIMIT,     /* writeback:bdi_dirty_ratelimit (3.2+) */
	EV_BALANCE_DIRTY_START,     /* writeback:balance_dirty_start (3.1 only) */
	EV_BALANCE_DIRTY_WRITTEN,   /* writeback:balance_dirty_written (3.1 only) */
	EV_BALANCE_DIRTY_WAIT,      /* writeback:balance_dirty_wait (3.1 only) */
	EV_WRITEBACK_SINGLE_INODE,  /* writeback:writeback_single_inode */
	EV_WRITEBACK_WRITTEN,       /* writeback:writeback_written */
	EV_WRITEBACK_START,         /* writeback:writeback_start */
	EV_WRITEBACK_WAIT,          /* writeback:writeback_wait */
	EV_WRITEBACK_QUEUE_IO,      /* writeback:writeback_queue_io */
	EV_WRITEBACK_WAKE_BACKGROUND, /* writeback:writeback_wake_background */
	EV_NFS_COMMIT_UNSTABLE_PAGES, /* nfs:nfs_commit_unstable_pages (Wu's patch) */
	EV_NFS_COMMIT_RELEASE,      /* nfs:nfs_commit_release (Wu's patch) */
	EV_NFS_INITIATE_WRITE,      /* nfs:nfs_initiate_write (6.x) */
	EV_NFS_WRITEBACK_DONE,      /* nfs:nfs_writeback_done (6.x) */
	EV_NFS_INITIATE_COMMIT,     /* nfs:nfs_initiate_commit (6.x) */
	EV_NFS_COMMIT_DONE,         /* nfs:nfs_commit_done (6.x) */
	EV_TYPE_COUNT
};

/* Every numeric field any supported kernel prints for the events above.
 * Aliases (wb_setpoint for bdi_setpoint, ...) map onto one field. */
enum wb_field {
	F_DIRTY, F_WRITEBACK, F_UNSTABLE, F_BG_THRESH, F_THRESH, F_LIMIT,
	F_DIRTIED, F_WRITTEN,
	F_SETPOINT, F_BDI_SETPOINT, F_BDI_DIRTY, F_DIRTY_RATELIMIT,
	F_TASK_RATELIMIT, F_DIRTIED_PAUSE, F_PAUSED, F_PAUSE, F_PERIOD, F_THINK,
	F_WRITE_BW, F_AWRITE_BW, F_DIRTY_RATE, F_BALANCED_DIRTY_RATELIMIT,
	F_CGROUP_INO,
	F_INO, F_STATE, F_DIRTIED_WHEN, F_AGE, F_INDEX, F_TO_WRITE, F_WROTE,
	F_NR_PAGES, F_SYNC_MODE, F_KUPDATE, F_RANGE_CYCLIC, F_BACKGROUND,
	F_OLDER, F_ENQUEUE,
	F_NPAGES, F_TOCOMMIT, F_WRITE_CHUNK, F_SYNC, F_RET, F_OFFSET, F_LEN,
	/* 6.x nfs events: the RPC's status (a WRITE's byte count on success),
	 * the superblock's dev_t, the file handle's hash, the bytes asked and
	 * answered, the stable_how (0 UNSTABLE, 1 DATA_SYNC, 2 FILE_SYNC) and
	 * the server's 8-byte write verifier (its bytes in memory order) */
	F_ERROR, F_DEV, F_FHANDLE, F_NBYTES, F_RES, F_STABLE, F_VERIFIER,
	F_COUNT
};

_Static_assert(F_COUNT <= 64, "wb_event.present holds one bit per field");

#define WB_COMM_LEN 24
#define WB_BDI_LEN 32
#define WB_STR_LEN 32

struct wb_event {
	enum wb_event_type type;
	int64_t ts_us;          /* trace timestamp in microseconds */
	int pid;
	int cpu;
	char comm[WB_COMM_LEN];
	char bdi[WB_BDI_LEN];   /* "8:0", "0:21"; empty when the event has none */
	char reason[WB_STR_LEN]; /* writeback work reason (3.2+), if any */
	uint64_t present;       /* bit f set when field f was given */
	int64_t v[F_COUNT];
};

static inline void wb_event_set(struct wb_event *e, enum wb_field f, int64_t val)
{
	e->v[f] = val;
	e->present |= (uint64_t)1 << f;
}

static inline int wb_event_has(const struct wb_event *e, enum wb_field f)
{
	return (e->present >> f) & 1;
}

/* Names as printed by the kernel; first spelling is the canonical one. */
const char *wb_field_name(enum wb_field f);
/* Accepts aliases (wb_setpoint, wb_dirty, avg_write_bw...); -1 if unknown. */
int wb_field_lookup(const char *name, int len);
/* "global_dirty_state" (without the "writeback:" system prefix). */
const char *wb_event_name(enum wb_event_type t);
enum wb_event_type wb_event_lookup(const char *name, int len);

#endif
