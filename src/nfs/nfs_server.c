/* The NFS server: nfsd threads take requests in arrival order; an UNSTABLE
 * WRITE only copies into the server's page cache; a FILE_SYNC WRITE and a
 * COMMIT (fsync of the whole file, as Linux clients ask) write their data and
 * then wait for a journal commit.  The server's own background writeback
 * drains dirty pages above its background threshold and those older than 30 s.
 *
 * Disk: active jobs take turns of one elevator time slice each (CFQ's
 * slice_sync), synchronous jobs (COMMIT, FILE_SYNC) before background
 * writeback, as CFQ favours sync I/O; a seek is paid whenever the file
 * changes.  Journal: one commit at a time costing server_sync_ms; syncs that
 * arrive while one runs share the next (jbd2 batching).
 * i_mutex (server_fsync_locks): WRITEs to a file whose i_mutex a sync holds
 * wait, each holding its nfsd thread.  A FILE_SYNC WRITE holds it while its
 * journal commit runs (O_SYNC: ->fsync under the mutex).  A COMMIT holds it
 * for its journal commit only with 1 (vfs_fsync_range, 2.6.35 on: the data
 * is written first), for its whole duration with 2 (nfsd_sync of 2.6.3x:
 * fdatawrite, ->fsync and fdatawait all under i_mutex); 0: never.  The seed's
 * server kernel is unknown; its published wq4 rows rule out 2.
 * Disk requests vary by +-server_jitter_pct (seeded).
 * TCP flow control: requests on the wire or waiting for an nfsd thread occupy
 * the server's socket buffer (server_sockbuf_kb); when it is full the client
 * cannot send, so a server whose threads all wait stalls the link.
 * Server dirty throttling: an UNSTABLE WRITE that would take the server's
 * dirty pages above server_dirty_ratio of its memory waits, holding its nfsd
 * thread, until writeback has taken enough of them (a hard limit: the 6.x
 * throttle's pacing below the limit is not modelled). */
#include <stdlib.h>
#include <string.h>
#include "disk_wcache.h"
#include "nfs.h"
#include "../block/blk.h"
#include "../sim/params.h"

/* the drive's SATA-II link: 3 Gb/s with 8b/10b coding, ~250 MiB/s of data
 * (nfs.server_wcache_mb: what the drive's cache takes while it has room) */
#define NFS_SERVER_LINK_MIBPS 250.0

#define BG_CHUNK_PAGES 4096      /* 16 MiB per background writeback job */

struct srv_file {
	uint64_t dirty;
	uint64_t disk_off;                   /* block layer: next file page to write */
	uint64_t submitted, completed;       /* block layer: pages sent to / done by the disk */
	ktime_t oldest;
	int locked;                          /* i_mutex held by a sync */
	struct nfs_rpc *blocked, *blocked_tail;  /* requests waiting for it */
};

struct srv_job {
	int file;
	uint64_t pages;          /* still to write */
	int sync, commit, bg, started;
	uint64_t target;         /* block layer: done when its file's completed count reaches it */
	double run_share;        /* random writers: share of its pages that start a run (a seek each) */
	struct nfs_rpc *rpc;     /* reply when done; NULL for background jobs */
	struct srv_job *next;
};

struct job_fifo { struct srv_job *head, *tail; };

struct nfs_server_sim {
	struct nfs_mount *m;
	struct nfs_params np;
	uint64_t threads_busy;
	struct nfs_rpc *wait_head, *wait_tail;
	uint64_t sockbuf_used, sockbuf_size;      /* bytes */
	struct srv_file *files;
	int nfiles;
	uint64_t total_dirty, bg_thresh;
	struct job_fifo sync_q, async_q;
	struct srv_job *cur;      /* job of the request in service */
	uint64_t cur_pages;
	int last_file;
	int bg_queued;
	struct job_fifo journal_wait, journal_run;
	int journal_busy;
	uint64_t io_pages;
	/* nfs.server_dev=hdd-2011: the block layer and its disk */
	struct blk_queue *q;
	struct inode *finodes;    /* one per file, only for the ext4 allocator */
	struct job_fifo inflight; /* fully submitted, waiting for completions */
	uint64_t file_pages;      /* writer.pattern=rand: pages of each file; 0 = sequential */
	ktime_t disk_busy;        /* fifo disk: time spent writing */
	struct disk_wcache wc;    /* fifo disk, nfs.server_wcache_mb > 0: its write-back cache */
	int have_wc;
	/* balance_dirty_pages on the server: UNSTABLE WRITEs waiting, each
	 * holding its nfsd thread, for dirty pages to fall below the limit */
	uint64_t dirty_limit;
	uint64_t total_wb;        /* claimed by a job, not yet written: still counted by the throttle */
	struct nfs_rpc *throttled, *throttled_tail;
	int unthrottle_queued;
	uint64_t throttled_writes;
};

static void disk_kick(struct sim *s, struct nfs_server_sim *srv);
static void nfsd_start(struct sim *s, struct nfs_server_sim *srv, struct nfs_rpc *r);
static void processed(struct sim *s, void *arg);

static void fifo_push(struct job_fifo *q, struct srv_job *j)
{
	j->next = NULL;
	if (q->tail)
		q->tail->next = j;
	else
		q->head = j;
	q->tail = j;
}

static struct srv_job *fifo_pop(struct job_fifo *q)
{
	struct srv_job *j = q->head;
	if (j) {
		q->head = j->next;
		if (!q->head)
			q->tail = NULL;
		j->next = NULL;
	}
	return j;
}

static void fifo_free(struct job_fifo *q)
{
	for (struct srv_job *j; (j = fifo_pop(q));)
		free(j);
}

static struct srv_job *job_new(int file, uint64_t pages)
{
	struct srv_job *j = calloc(1, sizeof(*j));
	if (!j)
		abort();
	j->file = file;
	j->pages = pages;
	return j;
}

static void thread_done(struct sim *s, struct nfs_server_sim *srv)
{
	srv->threads_busy--;
	struct nfs_rpc *r = srv->wait_head;
	if (r) {
		srv->wait_head = r->next;
		if (!srv->wait_head)
			srv->wait_tail = NULL;
		nfsd_start(s, srv, r);
	}
}

/* ---- journal: batched commits ---- */

static void journal_start(struct sim *s, struct nfs_server_sim *srv);

/* i_mutex released: the requests that waited for it go on, in order */
static void file_unlock(struct sim *s, struct srv_file *f)
{
	f->locked = 0;
	while (f->blocked && !f->locked)
		processed(s, rpc_fifo_pop(&f->blocked, &f->blocked_tail));
}

static void journal_done(struct sim *s, void *arg)
{
	struct nfs_server_sim *srv = arg;
	for (struct srv_job *j; (j = fifo_pop(&srv->journal_run));) {
		rpc_send_reply(s, j->rpc);
		thread_done(s, srv);
		struct srv_file *f = &srv->files[j->file];
		free(j);
		if (f->locked)
			file_unlock(s, f);
	}
	srv->journal_busy = 0;
	journal_start(s, srv);
}

static void journal_start(struct sim *s, struct nfs_server_sim *srv)
{
	if (srv->journal_busy || !srv->journal_wait.head)
		return;
	srv->journal_run = srv->journal_wait;
	srv->journal_wait.head = srv->journal_wait.tail = NULL;
	srv->journal_busy = 1;
	/* with a write-back cache, the commit record's cache flush first writes
	 * out what the cache holds, the fsync still holding the file's i_mutex
	 * (disk_wcache.h); data sent during the flush is not waited for */
	double flush_ns = srv->have_wc ? disk_wcache_owed(&srv->wc, s->now) : 0;
	sim_call_at(s, s->now + (ktime_t)(srv->np.server_sync_ms * 1e6 + flush_ns), journal_done, srv);
}

static void job_data_done(struct sim *s, struct nfs_server_sim *srv, struct srv_job *j)
{
	if (j->sync) {
		if (srv->np.server_fsync_locks)
			srv->files[j->file].locked = 1;
		fifo_push(&srv->journal_wait, j);
		journal_start(s, srv);
		return;
	}
	if (j->bg)
		srv->bg_queued = 0;
	free(j);
}

/* ---- background writeback ---- */

static void bg_check(struct sim *s, struct nfs_server_sim *srv)
{
	if (srv->bg_queued || srv->total_dirty <= srv->bg_thresh)
		return;
	int best = 0;
	for (int i = 1; i < srv->nfiles; i++)
		if (srv->files[i].dirty > srv->files[best].dirty)
			best = i;
	struct srv_job *j = job_new(best, BG_CHUNK_PAGES);
	j->bg = 1;
	srv->bg_queued = 1;
	fifo_push(&srv->async_q, j);
	disk_kick(s, srv);
}

/* kupdate on the server: every 5 s, write files whose data is older than 30 s */
static void srv_kupdate(struct sim *s, void *arg)
{
	struct nfs_server_sim *srv = arg;
	for (int i = 0; i < srv->nfiles; i++) {
		struct srv_file *f = &srv->files[i];
		if (!f->dirty || s->now - f->oldest < 30 * NSEC_PER_SEC)
			continue;
		fifo_push(&srv->async_q, job_new(i, f->dirty));
		f->oldest = s->now;
	}
	disk_kick(s, srv);
	sim_call_at(s, s->now + 5 * NSEC_PER_SEC, srv_kupdate, srv);
}

/* ---- the disk ---- */

/* Random writers: the server's dirty pages of a file are as scattered as the
 * client's were (every WRITE is a run of its own at the client's densities),
 * so with d of the file's F pages dirty a written page continues the previous
 * one with probability (d - 1)/(F - 1) and otherwise costs a positioning
 * (server_seek_ms: a seek on a disk, the per-request cost on flash). */
static double random_run_share(const struct nfs_server_sim *srv, uint64_t dirty)
{
	if (srv->file_pages < 2 || dirty < 2)
		return 1;
	return 1.0 - (double)(dirty - 1) / (double)(srv->file_pages - 1);
}

/* A writeback job takes the file's dirty pages when it first reaches the disk
 * (a COMMIT all of them: fsync writes whatever is dirty then). */
static void unthrottle_later(struct sim *s, struct nfs_server_sim *srv);

static void job_claim(struct nfs_server_sim *srv, struct srv_job *j)
{
	struct srv_file *f = &srv->files[j->file];
	j->started = 1;
	if (j->rpc && !j->commit) {
		j->run_share = j->pages ? 1.0 / (double)j->pages : 0;
		srv->total_wb += j->pages;
		return;                 /* FILE_SYNC WRITE: its own pages, one run */
	}
	if (srv->file_pages)
		j->run_share = random_run_share(srv, f->dirty);
	uint64_t n = j->commit || j->pages > f->dirty ? f->dirty : j->pages;
	f->dirty -= n;
	srv->total_dirty -= n;
	srv->total_wb += n;
	if (!f->dirty)
		f->oldest = 0;
	j->pages = n;
}

/* pages of a job written (or a FILE_SYNC WRITE's, never counted as dirty) */
static void pages_written(struct sim *s, struct nfs_server_sim *srv, uint64_t n)
{
	srv->total_wb = srv->total_wb > n ? srv->total_wb - n : 0;
	if (srv->throttled)
		unthrottle_later(s, srv);
}

static void io_done(struct sim *s, void *arg)
{
	struct nfs_server_sim *srv = arg;
	struct srv_job *j = srv->cur;
	srv->cur = NULL;
	j->pages -= srv->cur_pages;
	srv->io_pages += srv->cur_pages;
	pages_written(s, srv, srv->cur_pages);
	if (j->pages)
		fifo_push(j->sync ? &srv->sync_q : &srv->async_q, j);   /* round robin */
	else
		job_data_done(s, srv, j);
	bg_check(s, srv);
	disk_kick(s, srv);
}

/* ---- the disk on the block layer (nfs.server_dev=hdd-2011) ----
 *
 * The server's writeback (a COMMIT's fsync, a FILE_SYNC WRITE, background
 * and kupdate jobs) goes through the same block layer as a local disk: the
 * file's pages get disk addresses from the ext4 allocator (8 MiB windows per
 * file, interleaving files as ext4 does), bios of up to max_sectors_kb are
 * merged and sorted by CFQ (the 3.x default) and served by the hdd-2011 disk
 * model (seek by distance, rotation, NCQ, write-back cache) at
 * nfs.server_disk_mbps.  Submitting never sleeps: jobs wait in the server's
 * own queues while nr_requests are allocated, sync jobs first, as
 * fsync's WRITE_SYNC would be served before background writeback.
 * Completion is counted per file; a job is done once its file's completed
 * pages reach what had been submitted up to its last bio (so an fsync also
 * waits for earlier writeback of the file, as filemap_fdatawait does). */
static void blk_jobs_done(struct sim *s, struct nfs_server_sim *srv)
{
	struct job_fifo keep = { 0 };
	for (struct srv_job *j; (j = fifo_pop(&srv->inflight));) {
		if (srv->files[j->file].completed >= j->target)
			job_data_done(s, srv, j);
		else
			fifo_push(&keep, j);
	}
	srv->inflight = keep;
}

static void disk_kick_blk(struct sim *s, struct nfs_server_sim *srv)
{
	struct blk_queue *q = srv->q;
	uint64_t max_pages = q->max_sectors / PAGE_SECTORS ? q->max_sectors / PAGE_SECTORS : 1;
	while (q->count < q->nr_requests) {
		struct job_fifo *jq = srv->sync_q.head ? &srv->sync_q : &srv->async_q;
		struct srv_job *j = jq->head;
		if (!j)
			return;
		struct srv_file *f = &srv->files[j->file];
		if (!j->started)
			job_claim(srv, j);
		if (j->pages) {
			struct inode *fi = &srv->finodes[j->file];
			uint64_t sector, want = j->pages < max_pages ? j->pages : max_pages;
			if (fi->size < f->disk_off + want)
				fi->size = f->disk_off + want;
			uint64_t k = q->alloc->map(q->alloc_data, fi, f->disk_off, want, &sector);
			f->disk_off += k;
			f->submitted += k;
			j->pages -= k;
			blk_submit_bio(s, q, NULL, fi, sector, k, 0);
		}
		if (!j->pages) {
			fifo_pop(jq);
			j->target = f->submitted;
			fifo_push(&srv->inflight, j);
			blk_jobs_done(s, srv);
		}
	}
}

static void srv_end_io(struct sim *s, struct blk_queue *q, struct blk_rq *rq)
{
	struct nfs_server_sim *srv = q->end_io_ctx;
	for (int i = 0; i < rq->nseg; i++) {
		srv->files[rq->seg[i].inode - srv->finodes].completed += rq->seg[i].pages;
		srv->io_pages += rq->seg[i].pages;
		pages_written(s, srv, rq->seg[i].pages);
		q->completed_pages += rq->seg[i].pages;
	}
	blk_jobs_done(s, srv);
	bg_check(s, srv);
	disk_kick_blk(s, srv);
}

static void disk_kick(struct sim *s, struct nfs_server_sim *srv)
{
	if (srv->q) {
		disk_kick_blk(s, srv);
		return;
	}
	while (!srv->cur) {
		struct srv_job *j = fifo_pop(&srv->sync_q);
		if (!j)
			j = fifo_pop(&srv->async_q);
		if (!j)
			return;
		if (!j->started)
			job_claim(srv, j);
		if (!j->pages) {
			job_data_done(s, srv, j);
			continue;
		}
		double bw_pages_per_ms = srv->np.server_disk_mbps * 256.0 / 1000.0;
		uint64_t io = (uint64_t)(srv->np.server_slice_ms * bw_pages_per_ms);
		double page_ns = 0;
		if (srv->file_pages) {
			/* scattered pages: a slice holds fewer, each run pays a positioning */
			page_ns = 4096.0 / (srv->np.server_disk_mbps * 1048576.0) * 1e9 +
				  j->run_share * srv->np.server_seek_ms * 1e6;
			io = (uint64_t)(srv->np.server_slice_ms * 1e6 / page_ns);
		}
		io = io ? io : 1;
		uint64_t n = j->pages < io ? j->pages : io;
		double ns = (double)n * 4096.0 / (srv->np.server_disk_mbps * 1048576.0) * 1e9;
		if (srv->file_pages)
			ns = (double)n * page_ns;
		else if (srv->have_wc)   /* the host's time; the platters follow behind */
			ns = disk_wcache_write_ns(&srv->wc, s->now, (double)n,
						  srv->last_file != j->file ? srv->np.server_seek_ms * 1e6 : 0);
		else if (srv->last_file != j->file)
			ns += srv->np.server_seek_ms * 1e6;
		ns *= 1.0 + srv->np.server_jitter_pct / 100.0 * (2.0 * sim_rand(s) - 1.0);
		srv->last_file = j->file;
		srv->disk_busy += (ktime_t)ns;
		srv->cur = j;
		srv->cur_pages = n;
		sim_call_at(s, s->now + (ktime_t)ns, io_done, srv);
	}
}

/* ---- nfsd ---- */

static void processed(struct sim *s, void *arg)
{
	struct nfs_rpc *r = arg;
	struct nfs_server_sim *srv = r->mount->server;
	struct nfs_inode *ni = r->inode->fs_private;
	struct srv_file *f = &srv->files[ni->file];
	if (f->locked) {
		/* blocked on the file's i_mutex, still holding the nfsd thread */
		rpc_fifo_push(&f->blocked, &f->blocked_tail, r);
		return;
	}
	if (r->op == NFSPROC_WRITE && !r->stable) {
		if (srv->total_dirty + srv->total_wb + r->pages > srv->dirty_limit &&
		    srv->total_dirty + srv->total_wb) {
			rpc_fifo_push(&srv->throttled, &srv->throttled_tail, r);
			srv->throttled_writes++;
			return;
		}
		if (!f->dirty)
			f->oldest = s->now;
		f->dirty += r->pages;
		srv->total_dirty += r->pages;
		rpc_send_reply(s, r);
		thread_done(s, srv);
		bg_check(s, srv);
		return;
	}
	/* FILE_SYNC WRITE: O_SYNC write of the range; COMMIT: fsync of the file */
	if (r->op == NFSPROC_COMMIT && srv->np.server_fsync_locks >= 2)
		f->locked = 1;               /* nfsd_sync: the whole COMMIT under i_mutex */
	struct srv_job *j = job_new(ni->file, r->op == NFSPROC_WRITE ? r->pages : 0);
	j->sync = 1;
	j->commit = r->op == NFSPROC_COMMIT;
	j->rpc = r;
	fifo_push(&srv->sync_q, j);
	disk_kick(s, srv);
}

/* writeback took dirty pages: the throttled WRITEs that now fit go on, in
 * order (from an event of its own, not inside the disk's dispatch loop) */
static void unthrottle(struct sim *s, void *arg)
{
	struct nfs_server_sim *srv = arg;
	srv->unthrottle_queued = 0;
	while (srv->throttled &&
	       srv->total_dirty + srv->total_wb + srv->throttled->pages <= srv->dirty_limit) {
		processed(s, rpc_fifo_pop(&srv->throttled, &srv->throttled_tail));
	}
}

static void unthrottle_later(struct sim *s, struct nfs_server_sim *srv)
{
	if (srv->unthrottle_queued)
		return;
	srv->unthrottle_queued = 1;
	sim_call_at(s, s->now, unthrottle, srv);
}

int nfs_server_can_accept(const struct nfs_server_sim *srv, uint64_t bytes)
{
	/* one request always fits an empty buffer, however large */
	return !srv->sockbuf_used || srv->sockbuf_used + bytes <= srv->sockbuf_size;
}

void nfs_server_reserve(struct nfs_server_sim *srv, uint64_t bytes)
{
	srv->sockbuf_used += bytes;
}

/* an nfsd thread reads the request out of the socket buffer */
static void sockbuf_release(struct sim *s, struct nfs_server_sim *srv, struct nfs_rpc *r)
{
	uint64_t b = rpc_call_bytes(r);
	srv->sockbuf_used = srv->sockbuf_used > b ? srv->sockbuf_used - b : 0;
	rpc_kick_link(s, srv->m);
}

static void nfsd_start(struct sim *s, struct nfs_server_sim *srv, struct nfs_rpc *r)
{
	srv->threads_busy++;
	sockbuf_release(s, srv, r);
	double mb = r->op == NFSPROC_WRITE ? (double)r->pages / 256.0 : 0;
	ktime_t cpu = (ktime_t)((mb * srv->np.server_cpu_ms_per_mb + 0.02) * 1e6);
	sim_call_at(s, s->now + cpu, processed, r);
}

void nfsd_receive(struct sim *s, struct nfs_server_sim *srv, struct nfs_rpc *r, uint64_t bytes)
{
	(void)bytes;    /* reserved when its transmission began */
	if (srv->threads_busy < srv->np.nfsd_threads) {
		nfsd_start(s, srv, r);
		return;
	}
	r->next = NULL;
	if (srv->wait_tail)
		srv->wait_tail->next = r;
	else
		srv->wait_head = r;
	srv->wait_tail = r;
}

struct nfs_server_sim *nfs_server_create(struct sim *s, struct nfs_mount *m, int nfiles)
{
	struct nfs_server_sim *srv = calloc(1, sizeof(*srv));
	if (!srv)
		return NULL;
	srv->files = calloc((size_t)nfiles, sizeof(*srv->files));
	if (!srv->files) {
		free(srv);
		return NULL;
	}
	srv->m = m;
	srv->np = m->np;
	srv->nfiles = nfiles;
	srv->last_file = -1;
	srv->file_pages = m->file_pages;
	/* the server's background threshold: a ratio of its memory */
	srv->bg_thresh = srv->np.server_mem_mb * 256 * srv->np.server_bg_ratio / 100;
	srv->dirty_limit = srv->np.server_mem_mb * 256 * srv->np.server_dirty_ratio / 100;
	/* domain_dirty_limits: a background threshold at or above the limit is half of it */
	if (srv->bg_thresh >= srv->dirty_limit)
		srv->bg_thresh = srv->dirty_limit / 2;
	srv->sockbuf_size = srv->np.server_sockbuf_kb * 1024;
	/* the fifo disk's cache takes sequential writers' data (random writers
	 * pay their per-run cost as before) */
	if (srv->np.server_wcache_mb > 0 && !srv->file_pages && strcmp(srv->np.server_dev, "fifo") == 0) {
		disk_wcache_init(&srv->wc, srv->np.server_wcache_mb, srv->np.server_disk_mbps,
				 NFS_SERVER_LINK_MIBPS);
		srv->have_wc = 1;
	}
	if (strcmp(srv->np.server_dev, "hdd-2011") == 0) {
		/* the hdd-2011 preset (the dev.* table defaults) at the server's media rate */
		struct sim_params d;
		params_defaults(&d);
		d.dev.bw_mbps = srv->np.server_disk_mbps;
		srv->finodes = calloc((size_t)nfiles, sizeof(*srv->finodes));
		srv->q = srv->finodes ? blk_queue_create(s, &d.dev, 128, "cfq", &dev_hdd, &alloc_ext4) : NULL;
		if (!srv->q) {
			nfs_server_destroy(srv);
			return NULL;
		}
		for (int i = 0; i < nfiles; i++)
			srv->finodes[i].ino = (uint64_t)i + 1;
		srv->q->has_congestion = 1;
		srv->q->end_io = srv_end_io;
		srv->q->end_io_ctx = srv;
	}
	sim_call_at(s, 5 * NSEC_PER_SEC, srv_kupdate, srv);
	return srv;
}

uint64_t nfs_server_disk_pages(const struct nfs_server_sim *srv)
{
	return srv->io_pages;
}

ktime_t nfs_server_disk_busy(const struct nfs_server_sim *srv)
{
	return srv->disk_busy;
}

uint64_t nfs_server_throttled_writes(const struct nfs_server_sim *srv)
{
	return srv->throttled_writes;
}

void nfs_server_destroy(struct nfs_server_sim *srv)
{
	if (!srv)
		return;
	/* requests are owned by the mount's pool; only the jobs are ours */
	fifo_free(&srv->sync_q);
	fifo_free(&srv->async_q);
	fifo_free(&srv->journal_wait);
	fifo_free(&srv->journal_run);
	fifo_free(&srv->inflight);
	blk_queue_destroy(srv->q);
	free(srv->finodes);
	free(srv->cur);
	free(srv->files);
	free(srv);
}
