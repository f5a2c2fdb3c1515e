/* Text layout of each writeback event as a given kernel era printed it. */
#ifndef WBLAB_TRACE_FORMAT_H
#define WBLAB_TRACE_FORMAT_H
#include "event.h"

enum trace_era {
	ERA_3_1_RC8,  /* 3.1-rc8: writeback_single_inode has age in ms, no dirtied_when */
	ERA_3_1,      /* 3.1 final */
	ERA_3_1_RC8_IOLESS, /* 3.1-rc8 + the IO-less series (the seed's nfs-wq4 kernel):
			     * rc8's writeback events, 3.2's throttling events */
	ERA_3_2,      /* 3.2: balance_dirty_pages, bdi_dirty_ratelimit, reason= */
	ERA_6X,       /* current: no unstable, wb_setpoint/wb_dirty, period/think, cgroup_ino */
	ERA_COUNT
};

enum payload_prefix { PFX_NONE, PFX_BDI_COLON, PFX_BDI };

struct trace_fmt {
	enum payload_prefix prefix;
	int nfields;
	enum wb_field fields[16];
	const char *names[16];   /* spelling in this era, NULL = canonical name */
	unsigned work_class : 1; /* "sb_dev %d:%d" before the fields, reason= after (3.2+) */
	unsigned bare_written : 1; /* balance_dirty_written: "written %d" without '=' */
	unsigned state_string : 1; /* writeback_single_inode state=I_DIRTY_PAGES|... */
	unsigned nfs_6x : 1;       /* fs/nfs/nfstrace.h's style: fileid=MM:mm:INO (the dev in
				    * hex), fhandle=0x%08x, stable=FILE_SYNC, verifier=16 hex */
};

/* stable_how as the 6.x nfs events print it (show_nfs_stable_how) */
const char *trace_stable_name(int64_t v);
int trace_stable_lookup(const char *p, int len);   /* -1 if unknown */

/* NULL when the era had no such event. */
const struct trace_fmt *trace_fmt_get(enum trace_era era, enum wb_event_type t);
/* Whether the era prints the IO-less tracepoints (balance_dirty_pages, ...). */
int trace_era_ioless(enum trace_era era);
/* Whether writeback work events carry reason= (3.2 on). */
int trace_era_has_reason(enum trace_era era);

/* Inode state bits as the kernel names them in writeback_single_inode. */
enum { WB_I_DIRTY_SYNC = 1, WB_I_DIRTY_DATASYNC = 2, WB_I_DIRTY_PAGES = 4, WB_I_SYNC = 128 };

#endif
