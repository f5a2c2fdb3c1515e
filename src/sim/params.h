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

/* The local block device (src/block/, docs/storage-model.md).  model and
 * elevator are names; every number is physical and has a range in the table. */
#define DEV_NAME_LEN 16
struct dev_params {
	char model[DEV_NAME_LEN];    /* preset: fifo, hdd-2011, ssd, nvme, loop */
	char elevator[DEV_NAME_LEN]; /* auto, noop, none, deadline, mq-deadline, cfq */
	char ioend[DEV_NAME_LEN];    /* auto (the file system's completion unit), request */
	uint64_t nr_requests;        /* 0: the kernel's default for the queue */
	uint64_t max_sectors_kb;     /* largest request */
	uint64_t queue_depth;        /* requests the device holds at once (NCQ tags) */
	double bw_mbps;              /* media (hdd) or device (ssd, loop) write rate, MiB/s */
	double capacity_gb;          /* hdd: seek distances scale with it */
	double rpm;                  /* hdd */
	double track_ms;             /* hdd: track-to-track seek */
	double full_stroke_ms;       /* hdd: full-stroke seek */
	double cache_mb;             /* hdd: write-back cache, 0 = write-through */
	double link_mbps;            /* hdd: host link (SATA) payload rate, MiB/s */
	double latency_us;           /* ssd, loop: fixed per-request latency */
	uint64_t parallel;           /* ssd: internal units serving requests at once */
	double stall_every_s;        /* loop: mean seconds between host stalls, 0 = none */
	double stall_ms;             /* loop: length of one stall */
	double throttle_mbps;        /* blk-throttle write_bps in front of the device, MiB/s; 0 = none */
	double throttle_slice_ms;    /* its slice (throtl_slice) */
};

struct nfs_params {
	char server_dev[DEV_NAME_LEN]; /* fifo: the slice model; hdd-2011: block layer + rotational disk */
	char write_congestion[DEV_NAME_LEN]; /* auto (the kernel's), flag, skip, wait */
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
	double server_wcache_mb; /* fifo disk: write-back cache drained by the journal's cache flush (0: none) */
	uint64_t server_fsync_locks; /* 1: a sync holds the file's i_mutex, stalling WRITEs to it */
	double server_slice_ms;  /* CFQ time slice: how long one file's I/O runs before the next */
	uint64_t server_sockbuf_kb; /* server TCP receive buffer */
	uint64_t client_sndbuf_kb;  /* client TCP send buffer (0: none) */
	double server_cpu_ms_per_mb;
	uint64_t server_mem_mb;
	uint64_t server_dirty_ratio;
	uint64_t server_bg_ratio;
};

/* what the writers do (writer.c) */
struct writer_params {
	char pattern[DEV_NAME_LEN];   /* seq (dd) or rand (fio randwrite) */
	uint64_t file_mb;             /* rand: each writer's file */
};

struct sim_params {
	uint64_t hz;
	double cpu_page_ns;      /* copying one page in write() */
	double syscall_ns;       /* fixed cost of one write() call */
	/* a VM whose free guest frames the host reclaimed (free page reporting):
	 * a writer's page from such a frame costs host_fault_ns more */
	double host_fault_ns, host_fault_pct, host_fault_block_kb, host_backed_mb;
	double batch_max_us;     /* longest CPU run a writer does between model checks */
	double wakeup_ns;        /* from wake_up to the woken thread running */
	double idle_exit_us;     /* deepest idle state's exit latency, 0 = off */
	double idle_residency_us; /* idle time after which a CPU is in that state */
	double writeback_page_ns; /* CPU to put one page under writeback (write_cache_pages) */
	double writeback_inode_ns; /* CPU of one writeback_single_inode visit */
	uint64_t dirty_writeback_centisecs;
	uint64_t dirty_expire_centisecs;
	double dirtyable_pct;    /* share of MemTotal that is free or page cache */
	/* 1: per-CPU vmstat deltas (docs/throttling-model.md, Per-CPU counter drift); 0: exact */
	uint64_t vmstat_drift;
	uint64_t cpu_migrate;
	uint64_t writer_lookahead; /* 1: unseen writer bursts (engine.c) */
	uint64_t bdi_min_ratio, bdi_max_ratio;
	uint64_t bdi_strict_limit; /* 1: BDI_CAP_STRICTLIMIT (honoured by the current model only) */
	uint64_t ext4_max_writeback_mb_bump; /* 3.x ext4: a writepages call writes up to this much of a file's contiguous dirty pages */
	/* the bdi's estimates at the start, KB/s (a loop device's bdi outlives
	 * the attachment, so a real run starts where the last one on it ended) */
	uint64_t bdi_init_write_bw_kbps, bdi_init_dirty_ratelimit_kbps;
	uint64_t warm_proportions; /* 1: writeout fractions start at steady state */
	uint64_t debug_checks;   /* 1: check invariants after every event */
	uint64_t stack_kb;       /* coroutine stack per simulated thread */
	struct disk_params disk;
	struct dev_params dev;
	struct nfs_params nfs;
	struct writer_params writer;
	uint64_t set_mask[2];    /* keys given by params_set (bit = table row), for presets */
};

enum param_type { PT_U64, PT_DOUBLE, PT_NAME };

struct param_desc {
	const char *key;
	enum param_type type;
	size_t offset;
	double def;
	double min, max;         /* physical range, inclusive; --set and sim_check enforce it */
	const char *doc;
	const char *const *names;  /* PT_NAME: the accepted names (NULL-terminated; def indexes it) */
};

void params_defaults(struct sim_params *p);
/* "key=value"; 0, or -1 with a one-line reason (key, value, range) in err.
 * A number is decimal ([+-]DIGITS[.DIGITS][e[+-]DIGITS]; no hex, inf or
 * nan); an integer key takes one whose value is whole (1e3, 1000.0). */
int params_set(struct sim_params *p, const char *assignment, char *err, size_t errlen);
/* The value "key=value" sets, as params_get reads it back (a name: its
 * index), so that two spellings of one value (40 and 40.0, 1e3 and 1000)
 * compare equal: 0, or -1 as params_set. */
int params_parse_value(const char *assignment, double *v, char *err, size_t errlen);
/* Every parameter inside its range; 0, or -1 naming the first one outside. */
int params_check(const struct sim_params *p, char *err, size_t errlen);
/* The table, for tests that must cover every parameter. */
size_t params_count(void);
const struct param_desc *params_desc(size_t i);
double params_get(const struct sim_params *p, const struct param_desc *d);
void params_write(const struct sim_params *p, FILE *f);
/* For --help: every key with default, range and doc. */
void params_list(FILE *f);
/* Whether KEY was given by params_set (not a default or a preset's value). */
int params_is_set(const struct sim_params *p, const char *key);

#endif
