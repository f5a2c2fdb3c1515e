/* The block layer of a local disk (docs/storage-model.md): requests with a
 * start sector and a length, merged and sorted by an elevator, served by a
 * device model.  Requests are counters (sector, length, a few per-inode page
 * counts), never pages. */
#ifndef WBLAB_BLK_H
#define WBLAB_BLK_H
#include "../sim/sim.h"

#define SECTOR_BYTES 512
#define PAGE_SECTORS 8
#define BLK_SEGS 4              /* inodes one request can carry (merges across files) */
#define BLK_HASH 64
#define BLK_MAX_REQUEST_COUNT 16 /* a plug is flushed at this many requests */

struct blk_queue;

struct blk_seg { struct inode *inode; uint64_t pages; };

struct blk_rq {
	uint64_t sector, nr_sectors;
	struct blk_seg seg[BLK_SEGS];
	int nseg;
	int from_dirtier;
	ktime_t fifo_time;              /* elevator expiry */
	struct blk_rq *next, *prev;     /* elevator order, plug list, device lists */
	struct blk_rq *fnext, *fprev;   /* elevator FIFO (deadline, cfq) */
	struct blk_rq *hnext;           /* back-merge hash (by end sector) */
	struct blk_rq *snext;           /* front-merge hash (by start sector) */
	int hashed;
	void *dev_priv;                 /* the device's, while in flight */
	struct blk_rq *all_next;        /* every request the queue allocated, to free them */
	double dev_tag;                 /* the device's, while in flight */
};

/* a doubly linked list of requests (FIFO or sector-sorted) */
struct rq_list { struct blk_rq *head, *tail; uint64_t n; };
void rq_list_append(struct rq_list *l, struct blk_rq *rq);
void rq_list_del(struct rq_list *l, struct blk_rq *rq);
void rq_list_insert_sorted(struct rq_list *l, struct blk_rq *rq);   /* by sector, stable */
void fifo_append(struct rq_list *l, struct blk_rq *rq);             /* on fnext/fprev */
void fifo_del(struct rq_list *l, struct blk_rq *rq);

/* ---- elevators: one file each ------------------------------------------- */
struct elevator_type {
	const char *name;
	int (*init)(struct blk_queue *q);
	void (*exit)(struct blk_queue *q);
	void (*add)(struct blk_queue *q, struct blk_rq *rq);
	/* rq grew by a merge; front: its start sector moved */
	void (*merged)(struct blk_queue *q, struct blk_rq *rq, int front);
	/* rq was merged into another one and leaves the elevator */
	void (*remove)(struct blk_queue *q, struct blk_rq *rq);
	/* the next request for the device, taken out of the elevator; NULL if none */
	struct blk_rq *(*dispatch)(struct blk_queue *q);
};
extern const struct elevator_type elv_noop, elv_deadline, elv_cfq;
/* by name (noop/none, deadline/mq-deadline, cfq); NULL if unknown */
const struct elevator_type *elevator_find(const char *name);

/* ---- device models: one file each ----------------------------------------- */
typedef void (*blk_done_fn)(struct sim *s, void *ctx, struct blk_rq *rq);
struct blk_dev_type {
	const char *name;
	void *(*create)(struct sim *s, const struct dev_params *dp, blk_done_fn done, void *ctx);
	void (*destroy)(void *dev);
	int (*can_queue)(const void *dev);        /* room for one more request */
	void (*queue_rq)(struct sim *s, void *dev, struct blk_rq *rq);
	/* seconds the device spent positioning and transferring, for stats */
	void (*busy)(const void *dev, double *busy_s, uint64_t *repositions);
};
extern const struct blk_dev_type dev_hdd, dev_ssd, dev_loop;
/* hdd seek time in ns from the head at `from` to a request at `to` (0 if equal),
 * without the rotational latency */
double hdd_seek_ns(const void *hdd, uint64_t from, uint64_t to);

/* ---- the file system's completion unit (blk_ioend.c) ---------------------- */
/* one file's ioends as cumulative page counts: pages submitted, completed by
 * the device and ended (writeback over); the ends of closed ioends not yet
 * ended, oldest first (a ring) */
struct blk_ioends {
	uint64_t submitted, completed, ended;
	uint64_t open_start, next_sector;   /* the ioend being built */
	uint64_t *end;
	size_t head, n, cap;
};
/* pages per ioend for this run (0: writeback ends per request) */
uint64_t blk_ioend_pages(const struct sim *s);
/* a bio of `pages` at `sector` joins the open ioend, or closes it first when
 * the ioend would exceed `limit` or (contiguous_only) the bio is not
 * physically contiguous with it */
void blk_ioend_add(struct blk_ioends *io, uint64_t limit, int contiguous_only, uint64_t sector, uint64_t pages);
/* the end of ->writepages: close the open ioend */
void blk_ioend_submit_done(struct sim *s, struct inode *inode, struct blk_ioends *io);
/* the device completed `pages` of the file */
void blk_ioend_completed(struct sim *s, struct inode *inode, struct blk_ioends *io, uint64_t pages);
void blk_ioends_free(struct blk_ioends *io);
/* tests: called instead of end_page_writeback when an ioend ends */
extern void (*blk_ioend_end_hook)(struct sim *s, struct inode *inode, uint64_t pages);

/* ---- block allocation of each file system: one file each ---------------- */
struct blk_alloc_type {
	const char *name;
	void *(*create)(uint64_t capacity_sectors);
	void (*destroy)(void *a);
	/* The disk address of file page `off` of inode, for a writeback of `want`
	 * pages from there: returns how many pages (1..want) are contiguous on
	 * disk from *sector.  Delayed allocation happens here. */
	uint64_t (*map)(void *a, struct inode *inode, uint64_t off, uint64_t want, uint64_t *sector);
	/* the file grew to `size` pages by write() (xfs reserves EOF space); may be NULL */
	void (*dirtied)(void *a, struct inode *inode, uint64_t size);
	/* ->writepages raising a range-cyclic call's nr_to_write when it finds
	 * `contig` dirty pages from writeback_index: the new nr_to_write, and in
	 * *giveback what the call takes off nr_to_write again at its end.  NULL:
	 * the file system writes what it is asked. */
	int64_t (*writepages_bump)(const struct sim *s, int64_t nr_to_write, uint64_t contig, int64_t *giveback);
};
extern const struct blk_alloc_type alloc_ext4, alloc_xfs, alloc_btrfs;
const struct blk_alloc_type *alloc_find(const char *fs);

/* ---- the request queue (blk_core.c) --------------------------------------- */
struct blk_plug { struct rq_list list; };

struct blk_queue {
	struct sim *sim;
	const struct elevator_type *elv;
	void *elv_data;
	const struct blk_dev_type *dev;
	void *dev_data;
	const struct blk_alloc_type *alloc;
	void *alloc_data;
	uint64_t nr_requests, max_sectors;
	uint64_t count;                 /* requests allocated: plugged, queued or in the device */
	uint64_t congestion_on, congestion_off;
	int congested;
	int has_congestion;             /* 3.x queues; blk-mq has no congestion marks */
	struct waitq wait;              /* submitters waiting for a free request */
	struct blk_rq *free_list, *all;
	struct blk_rq *hash_end[BLK_HASH], *hash_start[BLK_HASH];
	uint64_t in_driver;
	/* blk-throttle in front of the device (dev.throttle_mbps > 0) */
	double thr_bytes_per_ns;
	ktime_t thr_slice_ns, thr_start, thr_end;
	double thr_disp_bytes;
	struct blk_rq *thr_held;        /* dispatched by the elevator, waiting for budget */
	int thr_backlog;                /* requests have waited since the queue last ran dry */
	struct sim_timer thr_timer;
	/* statistics */
	uint64_t nr_bios, nr_merges, nr_rqs, nr_dispatched, dispatched_sectors, completed_pages;
	struct bdi *bdi;
	/* a queue whose requests are not page cache writeback of the sim's
	 * inodes (the NFS server's disk) completes them here instead */
	void (*end_io)(struct sim *s, struct blk_queue *q, struct blk_rq *rq);
	void *end_io_ctx;
	/* pages end writeback per ioend of this many pages (0: per request) */
	uint64_t ioend_pages;
	int ioend_contiguous;           /* xfs: an ioend is one physically contiguous run */
};

/* Build a queue with elevator, device and allocator; NULL on bad names or no memory. */
struct blk_queue *blk_queue_create(struct sim *s, const struct dev_params *dp, uint64_t nr_requests,
				   const char *elevator, const struct blk_dev_type *dev,
				   const struct blk_alloc_type *alloc);
void blk_queue_destroy(struct blk_queue *q);
void blk_start_plug(struct blk_plug *plug);
/* Flush the plug's requests to the elevator and run the queue. */
void blk_finish_plug(struct sim *s, struct blk_queue *q, struct blk_plug *plug);
/* submit_bio of `pages` pages of inode at `sector`; may sleep for a request
 * (flushing the plug first).  plug may be NULL. */
void blk_submit_bio(struct sim *s, struct blk_queue *q, struct blk_plug *plug, struct inode *inode,
		    uint64_t sector, uint64_t pages, int from_dirtier);
/* The device's completion (blk_done_fn with the queue as ctx). */
void blk_end_request(struct sim *s, void *q, struct blk_rq *rq);
/* Test hook: completion ends page writeback unless this is set. */
extern void (*blk_end_io_hook)(struct sim *s, struct blk_rq *rq);

/* the bdi ops of a local disk with this block layer (blk_bdi.c) */
extern const struct bdi_ops blk_bdi_ops;
/* blk_queue for the case: era default elevator, the fs allocator, the preset device */
struct blk_queue *blk_bdi_create(struct sim *s, struct bdi *bdi, char *err, size_t errlen);

#endif
