/* The NFS client write path of fs/nfs/write.c (3.1/3.2; docs/throttling-model.md,
 * "NFS: unstable pages and COMMIT", and docs/nfs-model.md, Client):
 * nfs_writepages turns dirty pages into WRITE RPCs of up to wsize, WRITE
 * replies make pages unstable, and write_inode decides on COMMITs.  The
 * "nfs-wq" kernels add a wait queue: the flusher sleeps after a writepages
 * call while too many pages are under writeback. */
#include <stdlib.h>
#include <string.h>
#include "nfs.h"
#include "nfs_era.h"
#include "../analysis/stats.h"
#include "../result/result.h"
#include "../sim/fs_writeback.h"
#include "../sim/page_writeback.h"
#include "../sim/rand_pages.h"
#include "../sim/trace_emit.h"
#include "../sim/vmstat.h"
#include "../sim/writer.h"
#include "../throttle/common.h"
#include "../throttle/throttle.h"
#include "../util/util.h"
#include "../result/metrics.h"

/* The metrics this file computes: its rows of the one metric table.  The
 * build collects every file's WBLAB_METRIC rows into that table
 * (src/result/metrics.h says what the fields mean). */
/* the simulated NFS client (as /proc/self/mountstats) */
WBLAB_METRIC(NFS_NR_WRITES, "nfs_nr_writes", "", METRIC_NONE, ERAS_NONE, "nfs", "WRITE RPCs")
WBLAB_METRIC(NFS_NR_COMMITS, "nfs_nr_commits", "", METRIC_NONE, ERAS_NONE, "nfs", "COMMIT RPCs")
WBLAB_METRIC(NFS_WRITE_SIZE, "nfs_write_size", "MB", METRIC_HIGHER, ERAS_NONE, "nfs", "bytes per WRITE")
WBLAB_METRIC(NFS_COMMIT_SIZE, "nfs_commit_size", "MB", METRIC_HIGHER, ERAS_NONE, "nfs",
	     "bytes written per COMMIT")
WBLAB_METRIC(NFS_WRITE_QUEUE_TIME, "nfs_write_queue_time", "ms", METRIC_LOWER, ERAS_NONE, "nfs",
	     "queue time per WRITE")
WBLAB_METRIC(NFS_WRITE_RTT_TIME, "nfs_write_rtt_time", "ms", METRIC_LOWER, ERAS_NONE, "nfs",
	     "round trip per WRITE")
WBLAB_METRIC(NFS_WRITE_EXECUTE_TIME, "nfs_write_execute_time", "ms", METRIC_LOWER, ERAS_NONE, "nfs",
	     "execute time per WRITE")
WBLAB_METRIC(NFS_COMMIT_QUEUE_TIME, "nfs_commit_queue_time", "ms", METRIC_LOWER, ERAS_NONE, "nfs",
	     "queue time per COMMIT")
WBLAB_METRIC(NFS_COMMIT_RTT_TIME, "nfs_commit_rtt_time", "ms", METRIC_LOWER, ERAS_NONE, "nfs",
	     "round trip per COMMIT")
WBLAB_METRIC(NFS_COMMIT_EXECUTE_TIME, "nfs_commit_execute_time", "ms", METRIC_LOWER, ERAS_NONE, "nfs",
	     "execute time per COMMIT")
WBLAB_METRIC(NFS_FILE_SYNC_WRITES, "nfs_file_sync_writes", "", METRIC_NONE, ERAS_NONE, "nfs",
	     "WRITEs sent FILE_SYNC")
WBLAB_METRIC(NFS_BACKLOG_WAITS, "nfs_backlog_waits", "", METRIC_LOWER, ERAS_NONE, "nfs",
	     "requests that found the RPC slot table full")
WBLAB_METRIC(NFS_BACKLOG_MAX, "nfs_backlog_max", "", METRIC_LOWER, ERAS_NONE, "nfs",
	     "most requests asleep on the backlog at once")
WBLAB_METRIC(NFS_WRITEPAGES_MEAN_PAGES, "nfs_writepages_mean_pages", "pages", METRIC_NONE, ERAS_NONE, "nfs",
	     "mean pages per writepages call")
WBLAB_METRIC(NFS_SERVER_DISK_MB, "nfs_server_disk_mb", "MB", METRIC_NONE, ERAS_NONE, "nfs",
	     "written to the server's disk")
WBLAB_METRIC(NFS_SERVER_THROTTLED_WRITES, "nfs_server_throttled_writes", "", METRIC_NONE, ERAS_NONE, "nfs",
	     "UNSTABLE WRITEs that waited for the server's dirty limit (only when some did)")
WBLAB_METRIC(NFS_SERVER_DISK_BUSY_PCT, "nfs_server_disk_busy_pct", "%", METRIC_NONE, ERAS_NONE, "nfs",
	     "share of the run the server's disk was writing (random writers only)")

static struct nfs_mount *mount_of(const struct inode *inode)
{
	return inode->bdi->dev;
}

/* nfs_write_begin: a write() into a file waits while its writepages runs */
static void nfs_write_begin(struct sim *s, struct sthread *th, struct inode *inode)
{
	(void)th;
	struct nfs_inode *ni = inode->fs_private;
	while (ni->flushing)
		sim_wait(s, &ni->flush_wq, 0);
}

/* 3.1's nfs_updatepage marks the inode I_DIRTY_DATASYNC on every write */
static void nfs_page_dirtied(struct sim *s, struct inode *inode, uint64_t n)
{
	(void)n;
	if (s->model->nfs_client->datasync_on_write)
		__mark_inode_dirty(s, inode, I_DIRTY_DATASYNC);
}

/* nfs_set_page_writeback / nfs_end_page_writeback: the per-mount count and
 * the congestion marks (nfs_rules.c) */
static void writeback_inc(struct nfs_mount *m, uint64_t n)
{
	nfs_congestion_inc(&m->cong, n);
}

static void writeback_dec(struct sim *s, struct nfs_mount *m, uint64_t n)
{
	if (nfs_congestion_dec(&m->cong, n))
		wake_up_all(s, &m->congestion_wq);
}

/* The 6.x nfs events (fs/nfs/nfstrace.h; docs/nfs-model.md, "The 6.x
 * client").  What the model does not have is made up consistently: the
 * superblock's dev_t is the bdi's 0:21, fhandle (the kernel's CRC32 of the
 * server's file handle) a hash of the inode number, the verifier (the
 * server's boot verifier) one constant; a WRITE's offset is the file's
 * writeback_index, exact for sequential writers (writer.pattern=rand keeps no
 * page positions: there it is the cyclic scan's position). */
#define NFS_TRACE_SB_DEV 21               /* MKDEV(0, 21): sim.c names the bdi "0:21" */
#define NFS_TRACE_VERIFIER 0x2d0c15610b5ee7a9LL

static uint32_t nfs_fhandle_hash(uint64_t ino)
{
	uint64_t h = (ino + 1) * 0x9e3779b97f4a7c15ULL;
	return (uint32_t)(h >> 32 ^ h);
}

enum { NFS_UNSTABLE = 0, NFS_FILE_SYNC = 2 };

static void trace_nfs_begin(struct sim *s, struct sthread *th, struct wb_event *e, enum wb_event_type t,
			    const struct inode *inode, uint64_t offset_bytes)
{
	ev_begin(s, th, e, t, NULL);
	wb_event_set(e, F_DEV, NFS_TRACE_SB_DEV);
	wb_event_set(e, F_INO, (int64_t)inode->ino);
	wb_event_set(e, F_FHANDLE, nfs_fhandle_hash(inode->ino));
	wb_event_set(e, F_OFFSET, (int64_t)offset_bytes);
}

/* nfs_initiate_write (nfs_initiate_pgio, in the thread that builds the RPC) */
static void trace_nfs_initiate_write(struct sim *s, struct sthread *th, const struct nfs_rpc *r)
{
	struct wb_event e;
	trace_nfs_begin(s, th, &e, EV_NFS_INITIATE_WRITE, r->inode, r->index * 4096);
	wb_event_set(&e, F_NBYTES, (int64_t)(r->pages * 4096));
	wb_event_set(&e, F_STABLE, r->stable ? NFS_FILE_SYNC : NFS_UNSTABLE);
	ev_emit(s, &e);
}

/* nfs_writeback_done (the reply, in rpciod): tk_status is the decoded
 * count on success (nfs3xdr's decode_write3resok returns it), so a good
 * WRITE prints error=<bytes>; the server answers as it was asked */
static void trace_nfs_writeback_done(struct sim *s, const struct nfs_rpc *r)
{
	struct wb_event e;
	int64_t bytes = (int64_t)(r->pages * 4096);
	trace_nfs_begin(s, NULL, &e, EV_NFS_WRITEBACK_DONE, r->inode, r->index * 4096);
	wb_event_set(&e, F_ERROR, bytes);
	wb_event_set(&e, F_NBYTES, bytes);
	wb_event_set(&e, F_RES, bytes);
	wb_event_set(&e, F_STABLE, r->stable ? NFS_FILE_SYNC : NFS_UNSTABLE);
	wb_event_set(&e, F_VERIFIER, NFS_TRACE_VERIFIER);
	ev_emit(s, &e);
}

/* nfs_initiate_commit: nfs_init_commit asks for the whole file (offset 0,
 * count 0) */
static void trace_nfs_initiate_commit(struct sim *s, struct sthread *th, const struct inode *inode)
{
	struct wb_event e;
	trace_nfs_begin(s, th, &e, EV_NFS_INITIATE_COMMIT, inode, 0);
	wb_event_set(&e, F_NBYTES, 0);
	ev_emit(s, &e);
}

/* nfs_commit_done: status 0, and NFSv3's decoder marks a good COMMIT
 * FILE_SYNC */
static void trace_nfs_commit_done(struct sim *s, const struct inode *inode)
{
	struct wb_event e;
	trace_nfs_begin(s, NULL, &e, EV_NFS_COMMIT_DONE, inode, 0);
	wb_event_set(&e, F_ERROR, 0);
	wb_event_set(&e, F_STABLE, NFS_FILE_SYNC);
	wb_event_set(&e, F_VERIFIER, NFS_TRACE_VERIFIER);
	ev_emit(s, &e);
}

static struct nfs_ioc *ioc_alloc(struct nfs_mount *m, struct inode *inode)
{
	struct nfs_ioc *c = m->ioc_free;
	if (c) {
		m->ioc_free = c->next;
	} else {
		if (!(c = malloc(sizeof(*c))))
			abort();
		c->all_next = m->ioc_all;
		m->ioc_all = c;
	}
	c->refs = 0;
	c->inode = inode;
	c->next = NULL;
	return c;
}

static void ioc_free(struct nfs_mount *m, struct nfs_ioc *c)
{
	c->next = m->ioc_free;
	m->ioc_free = c;
}

/* send one COMMIT for the file's whole commit list (nfs_scan_commit +
 * nfs_commit_list); returns its pages.  Its task has NORMAL priority
 * (flush_task_priority of how = 0 or FLUSH_SYNC) and belongs to the thread
 * that sends it (tk_owner, the tgid). */
static uint64_t nfs_commit_send(struct sim *s, struct nfs_mount *m, struct inode *inode, int owner,
			       struct sthread *th)
{
	struct nfs_inode *ni = inode->fs_private;
	if (s->model->nfs_client->trace_6x)
		trace_nfs_initiate_commit(s, th, inode);
	uint64_t n = ni->ncommit;
	ni->commit_locked = 1;
	ni->ncommitting += n;
	ni->ncommit = 0;
	struct nfs_rpc *r = rpc_alloc(m);
	r->op = NFSPROC_COMMIT;
	r->inode = inode;
	r->pages = n;
	r->w.priority = RPC_PRIORITY_NORMAL;
	r->w.owner = owner;
	rpc_submit(s, m, r);
	return n;
}

/* Random writers (writer.pattern=rand): write_cache_pages walks the file's
 * dirty pages in offset order and nfs_pageio_add_request coalesces only
 * adjacent pages, so a call of n pages sends one WRITE per run of adjacent
 * dirty pages (rand_runs: 1 + (n - 1)(1 - q) for a dirty density q).  0 = sequential
 * writers: wsize-sized WRITEs. */
static uint64_t nfs_random_write_rpcs(struct nfs_mount *m, struct inode *inode, uint64_t n)
{
	if (!m->file_pages || !n)
		return 0;
	struct nfs_inode *ni = inode->fs_private;
	return rand_runs(n, inode->nr_dirty, m->file_pages, m->wsize_pages, &ni->run_carry);
}

static void nfs_writepages(struct sim *s, struct sthread *th, struct inode *inode,
			   struct writeback_control *wbc)
{
	struct nfs_mount *m = mount_of(inode);
	struct nfs_inode *ni = inode->fs_private;
	/* 5.18 on: background writeback does not add to a congested server's
	 * backlog; 5.18 gave up the call (the flusher moves on and must be woken
	 * again), the 2024 fix waits for the hysteresis to clear instead */
	switch (nfs_writepages_gate(m->congestion_mode, wbc->sync_all, m->cong.congested)) {
	case NFS_GATE_SKIP:
		return;
	case NFS_GATE_WAIT:
		while (m->cong.congested)
			sim_wait(s, &m->congestion_wq, 0);
		break;
	case NFS_GATE_GO:
		break;
	}
	while (ni->flushing)
		sim_wait(s, &ni->flush_wq, 0);
	ni->flushing = 1;
	uint64_t n = inode->nr_dirty;
	if (wbc->nr_to_write < (int64_t)n)
		n = wbc->nr_to_write > 0 ? (uint64_t)wbc->nr_to_write : 0;
	/* FLUSH_COND_STABLE: FILE_SYNC only when the whole flush is one RPC and
	 * nothing of the file awaits a COMMIT */
	int stable = n && n <= m->wsize_pages && ni->ncommit == 0;
	m->writepages_calls += n > 0;
	m->writepages_pages += n;
	m->stable_writes += stable;
	struct nfs_ioc *ioc = n && !stable && s->model->nfs_client->io_completion_commit ? ioc_alloc(m, inode) : NULL;
	uint64_t rpcs = nfs_random_write_rpcs(m, inode, n);
	for (uint64_t left = n; left;) {
		uint64_t k = left < m->wsize_pages ? left : m->wsize_pages;
		if (rpcs) {
			k = rand_next_part(left, rpcs);   /* the runs evenly, each <= wsize */
			rpcs--;
		}
		/* building the requests takes CPU; the dd waits on FLUSHING meanwhile */
		cpu_run(s, th, (ktime_t)((double)k * s->p.writeback_page_ns));
		/* the cyclic scan wraps at the end of a random writer's file */
		uint64_t index = m->file_pages ? inode->writeback_index % m->file_pages : inode->writeback_index;
		set_page_writeback(s, th->cpu, inode, k);
		writeback_inc(m, k);
		struct nfs_rpc *r = rpc_alloc(m);
		r->op = NFSPROC_WRITE;
		r->inode = inode;
		r->pages = k;
		/* wb_priority: 3.x flushes background and kupdate writeback at
		 * FLUSH_LOWPRI (RPC_PRIORITY_LOW), anything else at NORMAL */
		r->w.priority = s->model->nfs_client->lowpri_background &&
				(wbc->for_background || wbc->for_kupdate) ? RPC_PRIORITY_LOW : RPC_PRIORITY_NORMAL;
		r->w.owner = th->pid;
		r->stable = stable;
		r->index = index;
		if (s->model->nfs_client->trace_6x)
			trace_nfs_initiate_write(s, th, r);
		if (ioc) {
			r->ioc = ioc;
			ioc->refs++;
		}
		rpc_submit(s, m, r);
		left -= k;
	}
	wbc->nr_to_write -= (int64_t)n;
	if (s->model->nfs_client->writeback_wait) {
		/* nfs-wq4 with Feng Tang's fix: wait once per call, still holding
		 * NFS_INO_FLUSHING, so the file's writer waits too */
		while (m->cong.congested)
			sim_wait(s, &m->congestion_wq, 0);
	}
	ni->flushing = 0;
	wake_up_all(s, &ni->flush_wq);
}

static void trace_commit(struct sim *s, struct sthread *th, struct inode *inode, int64_t chunk,
			 int64_t tocommit, int64_t ret)
{
	struct wb_event e;
	ev_begin(s, th, &e, EV_NFS_COMMIT_UNSTABLE_PAGES, inode->bdi);
	wb_event_set(&e, F_INO, (int64_t)inode->ino);
	wb_event_set(&e, F_NPAGES, (int64_t)(inode->nr_dirty + inode->nr_writeback + inode->nr_unstable));
	wb_event_set(&e, F_TOCOMMIT, tocommit);
	wb_event_set(&e, F_WRITE_CHUNK, chunk);
	wb_event_set(&e, F_SYNC, 0);
	wb_event_set(&e, F_RET, ret);
	ev_emit(s, &e);
}

/* nfs_write_inode -> nfs_commit_unstable_pages, WB_SYNC_NONE (docs/throttling-model.md, NFS:
 * unstable pages and COMMIT) */
static void nfs_write_inode(struct sim *s, struct sthread *th, struct inode *inode,
			    struct writeback_control *wbc)
{
	struct nfs_mount *m = mount_of(inode);
	struct nfs_inode *ni = inode->fs_private;
	uint64_t npages = inode->nr_dirty + inode->nr_writeback + inode->nr_unstable;
	int64_t tocommit = (int64_t)ni->ncommit;
	switch (nfs_commit_decide(s->model->nfs_client, wbc->sync_all, ni->ncommit, npages, inode->nr_writeback,
				  ni->commit_locked)) {
	case NFS_COMMIT_NOTHING:
		return;
	case NFS_COMMIT_LATER:
		__mark_inode_dirty(s, inode, I_DIRTY_DATASYNC);
		trace_commit(s, th, inode, wbc->chunk, tocommit, 0);
		return;
	case NFS_COMMIT_SEND:
		break;
	}
	uint64_t sent = nfs_commit_send(s, m, inode, th->pid, th);
	/* commits count as written for the caller's budget (6.x too: __nfs_commit_inode) */
	wbc->nr_to_write -= (int64_t)sent;
	if (wbc->nr_to_write < 0)
		wbc->nr_to_write = 0;
	__mark_inode_dirty(s, inode, I_DIRTY_DATASYNC);
	trace_commit(s, th, inode, wbc->chunk, tocommit, (int64_t)sent);
}

/* 5.8 ("mm: remove NR_UNSTABLE_NFS"): pages awaiting COMMIT count as the
 * wb's writeback (WB_WRITEBACK), not as reclaimable, so the background test
 * (wb_over_bg_thresh, WB_RECLAIMABLE) no longer sees them; the global count
 * already adds them to NR_WRITEBACK in the 6.x throttle (bdp_6x.c) */
static void unstable_to_writeback(struct sim *s, struct inode *inode, int64_t n)
{
	bdi_stat_mod(s, inode->bdi, s->irq_cpu, BDI_RECLAIMABLE, -n);
	bdi_stat_mod(s, inode->bdi, s->irq_cpu, BDI_WRITEBACK, n);
}

/* nfs_writeback_done + nfs_end_page_writeback */
void nfs_write_done(struct sim *s, struct nfs_mount *m, struct nfs_rpc *r)
{
	struct inode *inode = r->inode;
	struct nfs_inode *ni = inode->fs_private;
	if (s->model->nfs_client->trace_6x)
		trace_nfs_writeback_done(s, r);
	end_page_writeback(s, inode, r->pages, !r->stable);
	if (!r->stable && s->model->nfs_client->unstable_as_writeback)
		unstable_to_writeback(s, inode, (int64_t)r->pages);
	if (!r->stable) {
		ni->ncommit += r->pages;
		__mark_inode_dirty(s, inode, I_DIRTY_DATASYNC);
	}
	writeback_dec(s, m, r->pages);
	if (r->ioc && !--r->ioc->refs) {
		/* nfs_io_completion_commit: the call's WRITEs are all answered */
		if (ni->ncommit)
			nfs_commit_send(s, m, inode, NFS_OWNER_RPCIOD, NULL);
		ioc_free(m, r->ioc);
	}
}

/* nfs_commit_release */
void nfs_commit_done(struct sim *s, struct nfs_mount *m, struct nfs_rpc *r)
{
	(void)m;
	struct inode *inode = r->inode;
	struct nfs_inode *ni = inode->fs_private;
	if (s->model->nfs_client->unstable_as_writeback)
		unstable_to_writeback(s, inode, -(int64_t)r->pages);
	clear_unstable_pages(s, inode, r->pages);
	ni->ncommitting -= r->pages;
	ni->commit_locked = ni->ncommitting > 0;
	if (s->model->nfs_client->trace_6x)
		trace_nfs_commit_done(s, inode);
	struct wb_event e;
	ev_begin(s, NULL, &e, EV_NFS_COMMIT_RELEASE, inode->bdi);
	wb_event_set(&e, F_INO, (int64_t)inode->ino);
	wb_event_set(&e, F_OFFSET, 0);
	wb_event_set(&e, F_LEN, 0);
	ev_emit(s, &e);
}

static double per_op_ms(ktime_t total, uint64_t ops)
{
	return ops ? (double)total / 1e6 / (double)ops : 0;
}

/* the metrics writeback-tests read from /proc/self/mountstats */
static void nfs_report(struct sim *s, struct bdi *bdi, struct stats_acc *st,
		       const struct result_dir *rd)
{
	struct nfs_mount *m = bdi->dev;
	const struct nfs_op_stats *w = &m->st[NFSPROC_WRITE], *c = &m->st[NFSPROC_COMMIT];
	stats_set(st, METRIC_KEY(NFS_NR_WRITES), (double)w->ops);
	stats_set(st, METRIC_KEY(NFS_NR_COMMITS), (double)c->ops);
	stats_set(st, METRIC_KEY(NFS_WRITE_SIZE), w->ops ? (double)w->bytes_sent / (double)w->ops / 1048576 : 0);
	stats_set(st, METRIC_KEY(NFS_COMMIT_SIZE), c->ops ? (double)w->bytes_sent / (double)c->ops / 1048576 : 0);
	stats_set(st, METRIC_KEY(NFS_WRITE_QUEUE_TIME), per_op_ms(w->queue, w->ops));
	stats_set(st, METRIC_KEY(NFS_WRITE_RTT_TIME), per_op_ms(w->rtt, w->ops));
	stats_set(st, METRIC_KEY(NFS_WRITE_EXECUTE_TIME), per_op_ms(w->execute, w->ops));
	stats_set(st, METRIC_KEY(NFS_COMMIT_QUEUE_TIME), per_op_ms(c->queue, c->ops));
	stats_set(st, METRIC_KEY(NFS_COMMIT_RTT_TIME), per_op_ms(c->rtt, c->ops));
	stats_set(st, METRIC_KEY(NFS_COMMIT_EXECUTE_TIME), per_op_ms(c->execute, c->ops));
	stats_set(st, METRIC_KEY(NFS_FILE_SYNC_WRITES), (double)m->stable_writes);
	stats_set(st, METRIC_KEY(NFS_BACKLOG_WAITS), (double)m->backlog_waits);
	stats_set(st, METRIC_KEY(NFS_BACKLOG_MAX), (double)m->backlog_max);
	stats_set(st, METRIC_KEY(NFS_WRITEPAGES_MEAN_PAGES),
		  m->writepages_calls ? (double)m->writepages_pages / (double)m->writepages_calls : 0);
	stats_set(st, METRIC_KEY(NFS_SERVER_DISK_MB), (double)nfs_server_disk_pages(m->server) / 256);
	if (nfs_server_throttled_writes(m->server))
		stats_set(st, METRIC_KEY(NFS_SERVER_THROTTLED_WRITES), (double)nfs_server_throttled_writes(m->server));
	if (m->file_pages && s->now)
		stats_set(st, METRIC_KEY(NFS_SERVER_DISK_BUSY_PCT),
			  100.0 * (double)nfs_server_disk_busy(m->server) / (double)s->now);
	if (rd) {
		FILE *f = result_fopen(rd, "mountstats");
		if (f) {
			nfs_write_mountstats(m, f);
			fclose(f);
		}
	}
}

static void nfs_destroy(void *dev)
{
	struct nfs_mount *m = dev;
	nfs_server_destroy(m->server);
	rpc_pool_destroy(m);
	for (struct nfs_ioc *c = m->ioc_all, *n; c; c = n) {
		n = c->all_next;
		free(c);
	}
	free(m->inodes);
	free(m);
}

static const struct bdi_ops nfs_bdi_ops = {
	.writepages = nfs_writepages,
	.write_inode = nfs_write_inode,
	.write_begin = nfs_write_begin,
	.page_dirtied = nfs_page_dirtied,
	.report = nfs_report,
	.destroy = nfs_destroy,
};

static uint64_t isqrt(uint64_t x)
{
	uint64_t r = 0;
	while ((r + 1) * (r + 1) <= x)
		r++;
	return r;
}

/* nfs_congestion_kb: 16 * sqrt(totalram) pages in KB, at most 256 MiB; the
 * wait-queue kernels scale it to (dirty_thresh + 1 MiB) / 8 */
static void congestion_init(struct sim *s, struct nfs_mount *m)
{
	uint64_t bg = 0, thresh = 0;
	int wq4 = s->model->nfs_client->writeback_wait;
	if (wq4)
		dirty_thresholds(s, &bg, &thresh);
	nfs_congestion_init(&m->cong, 16 * isqrt(s->total_pages) * 4, wq4, thresh * 4);
	m->congestion_kb = m->cong.on * 4;
	const char *mode = s->p.nfs.write_congestion;
	m->congestion_mode = !strcmp(mode, "flag") ? NFS_CONG_FLAG : !strcmp(mode, "skip") ? NFS_CONG_SKIP :
			     !strcmp(mode, "wait") ? NFS_CONG_WAIT : (int)s->model->nfs_client->congestion;
}

int nfs_mount_create(struct sim *s, struct bdi *bdi)
{
	struct nfs_mount *m = calloc(1, sizeof(*m));
	if (!m)
		return -1;
	m->inodes = calloc((size_t)s->ninodes, sizeof(*m->inodes));
	if (!m->inodes) {
		free(m);
		return -1;
	}
	m->bdi = bdi;
	m->np = s->p.nfs;
	m->wsize_pages = m->np.wsize_kb / 4 ? m->np.wsize_kb / 4 : 1;
	m->file_pages = writer_rand_file_pages(&s->p);
	m->ninodes = s->ninodes;
	for (int i = 0; i < s->ninodes; i++) {
		m->inodes[i].file = i;
		s->inodes[i].fs_private = &m->inodes[i];
	}
	congestion_init(s, m);
	xprt_init_slots(s, m);
	m->server = nfs_server_create(s, m, s->ninodes);
	bdi->ops = &nfs_bdi_ops;
	bdi->dev = m;
	return m->server ? 0 : -1;
}
