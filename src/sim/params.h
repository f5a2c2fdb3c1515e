/* Model parameters: physical quantities, the same for every case.  Each module
 * describes its own parameters in a table; `--set KEY=VAL` overrides any of
 * them and `params` in every result lists them all. */
#ifndef WBLAB_PARAMS_H
#define WBLAB_PARAMS_H
#include <stdint.h>
#include <stdio.h>
#include <stddef.h>

struct disk_params {
	double bw_mbps;          /* sequential write bandwidth, MiB/s */
	double seek_ms;          /* cost when consecutive requests are for different files */
	double jitter_pct;       /* +- uniform noise on each service time */
	uint64_t nr_requests;    /* block request queue depth (async class) */
	uint64_t max_request_kb; /* largest request */
};

struct nfs_params {
	double net_mbps;         /* payload bandwidth of the link, MB/s (10^6 B/s) */
	double net_latency_ms;   /* one way */
	uint64_t wsize_kb;
	uint64_t min_slots;      /* RPC slots preallocated (tcp_slot_table_entries) */
	uint64_t max_slots;      /* RPC slot table limit */
	uint64_t nfsd_threads;
	double server_disk_mbps;
	double server_seek_ms;
	double server_jitter_pct; /* +- random variation of each disk request */
	double server_sync_ms;   /* journal commit ending a COMMIT / FILE_SYNC */
	uint64_t server_fsync_locks; /* 1: a sync holds the file's i_mutex, stalling WRITEs to it */
	double server_slice_ms;  /* CFQ time slice: how long one file's I/O runs before the next */
	uint64_t server_sockbuf_kb; /* server TCP receive buffer */
	double server_cpu_ms_per_mb;
	uint64_t server_mem_mb;
	uint64_t server_dirty_ratio;
	uint64_t server_bg_ratio;
};

struct sim_params {
	uint64_t hz;
	double cpu_page_ns;      /* copying one page in write() */
	double syscall_ns;       /* fixed cost of one write() call */
	double batch_max_us;     /* longest CPU run a writer does between model checks */
	double wakeup_ns;        /* from wake_up to the woken thread running */
	double writeback_page_ns; /* CPU to put one page under writeback (write_cache_pages) */
	double writeback_inode_ns; /* CPU of one writeback_single_inode visit */
	uint64_t dirty_writeback_centisecs;
	uint64_t dirty_expire_centisecs;
	double dirtyable_pct;    /* share of MemTotal that is free or page cache */
	uint64_t vmstat_drift;   /* 1: per-CPU vmstat deltas (spec section 8); 0: exact */
	uint64_t bdi_min_ratio, bdi_max_ratio;
	uint64_t bdi_strict_limit; /* 1: BDI_CAP_STRICTLIMIT (honoured by the current model only) */
	uint64_t warm_proportions; /* 1: writeout fractions start at steady state */
	uint64_t debug_checks;   /* 1: check invariants after every event */
	uint64_t stack_kb;       /* coroutine stack per simulated thread */
	struct disk_params disk;
	struct nfs_params nfs;
};

enum param_type { PT_U64, PT_DOUBLE };

struct param_desc {
	const char *key;
	enum param_type type;
	size_t offset;
	double def;
	double min, max;         /* physical range, inclusive; --set and sim_check enforce it */
	const char *doc;
};

void params_defaults(struct sim_params *p);
/* "key=value"; 0, or -1 with a one-line reason (key, value, range) in err. */
int params_set(struct sim_params *p, const char *assignment, char *err, size_t errlen);
/* Every parameter inside its range; 0, or -1 naming the first one outside. */
int params_check(const struct sim_params *p, char *err, size_t errlen);
/* The table, for tests that must cover every parameter. */
size_t params_count(void);
const struct param_desc *params_desc(size_t i);
double params_get(const struct sim_params *p, const struct param_desc *d);
void params_write(const struct sim_params *p, FILE *f);
/* For --help: every key with default, range and doc. */
void params_list(FILE *f);

#endif
