/* The NFS server: nfsd threads take requests in arrival order; an UNSTABLE
 * WRITE only copies into the server's page cache; a FILE_SYNC WRITE and a
 * COMMIT (fsync of the whole file, as Linux clients ask) wait for the disk.
 * The server's own background writeback drains dirty pages above its
 * background threshold and those older than 30 s.  One disk, FIFO, a seek when
 * the file changes, a fixed cost per sync (journal commit, cache flush).
 * MODEL: no server-side dirty throttling (its limits exceed any client's). */
#include <stdlib.h>
#include "nfs.h"

#define BG_CHUNK_PAGES 4096      /* 16 MiB per background writeback job */

struct srv_file { uint64_t dirty; ktime_t oldest; };

struct srv_job {
	int file;
	uint64_t pages;
	int sync, commit, bg;
	struct nfs_rpc *rpc;     /* reply when done; NULL for background jobs */
	struct srv_job *next;
};

struct nfs_server_sim {
	struct nfs_mount *m;
	struct nfs_params np;
	uint64_t threads_busy;
	struct nfs_rpc *wait_head, *wait_tail;
	struct srv_file *files;
	int nfiles;
	uint64_t total_dirty, bg_thresh;
	struct srv_job *job_head, *job_tail, *cur;
	int last_file;
	int bg_queued;
	uint64_t disk_pages, syncs;
};

static void disk_start(struct sim *s, struct nfs_server_sim *srv);
static void nfsd_start(struct sim *s, struct nfs_server_sim *srv, struct nfs_rpc *r);

static void job_push(struct nfs_server_sim *srv, struct srv_job *j)
{
	j->next = NULL;
	if (srv->job_tail)
		srv->job_tail->next = j;
	else
		srv->job_head = j;
	srv->job_tail = j;
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

/* background writeback: one job at a time, from the file with most dirty pages */
static void bg_check(struct sim *s, struct nfs_server_sim *srv)
{
	if (srv->bg_queued || srv->total_dirty <= srv->bg_thresh)
		return;
	int best = 0;
	for (int i = 1; i < srv->nfiles; i++)
		if (srv->files[i].dirty > srv->files[best].dirty)
			best = i;
	struct srv_job *j = calloc(1, sizeof(*j));
	if (!j)
		abort();
	j->file = best;
	j->pages = BG_CHUNK_PAGES;
	j->bg = 1;
	srv->bg_queued = 1;
	job_push(srv, j);
	disk_start(s, srv);
}

/* kupdate on the server: every 5 s, write files whose data is older than 30 s */
static void srv_kupdate(struct sim *s, void *arg)
{
	struct nfs_server_sim *srv = arg;
	for (int i = 0; i < srv->nfiles; i++) {
		struct srv_file *f = &srv->files[i];
		if (!f->dirty || s->now - f->oldest < 30 * NSEC_PER_SEC)
			continue;
		struct srv_job *j = calloc(1, sizeof(*j));
		if (!j)
			abort();
		j->file = i;
		j->pages = f->dirty;
		f->oldest = s->now;
		job_push(srv, j);
	}
	disk_start(s, srv);
	sim_call_at(s, s->now + 5 * NSEC_PER_SEC, srv_kupdate, srv);
}

static void disk_done(struct sim *s, void *arg)
{
	struct nfs_server_sim *srv = arg;
	struct srv_job *j = srv->cur;
	srv->cur = NULL;
	srv->disk_pages += j->pages;
	if (j->rpc) {
		rpc_send_reply(s, j->rpc);
		thread_done(s, srv);
	} else if (j->bg) {
		srv->bg_queued = 0;
	}
	free(j);
	bg_check(s, srv);
	disk_start(s, srv);
}

static void disk_start(struct sim *s, struct nfs_server_sim *srv)
{
	if (srv->cur || !srv->job_head)
		return;
	struct srv_job *j = srv->job_head;
	srv->job_head = j->next;
	if (!srv->job_head)
		srv->job_tail = NULL;
	struct srv_file *f = &srv->files[j->file];
	if (!j->rpc || j->commit) {
		/* write back what is dirty in the file now (all of it for a COMMIT) */
		uint64_t n = j->commit || j->pages > f->dirty ? f->dirty : j->pages;
		f->dirty -= n;
		srv->total_dirty -= n;
		if (!f->dirty)
			f->oldest = 0;
		j->pages = n;
	}
	double ns = (double)j->pages * 4096.0 / (srv->np.server_disk_mbps * 1048576.0) * 1e9;
	if (j->pages && srv->last_file != j->file)
		ns += srv->np.server_seek_ms * 1e6;
	if (j->sync) {
		ns += srv->np.server_sync_ms * 1e6;
		srv->syncs++;
	}
	if (j->pages)
		srv->last_file = j->file;
	srv->cur = j;
	sim_call_at(s, s->now + (ktime_t)ns, disk_done, srv);
}

static void processed(struct sim *s, void *arg)
{
	struct nfs_rpc *r = arg;
	struct nfs_server_sim *srv = r->mount->server;
	struct nfs_inode *ni = r->inode->fs_private;
	struct srv_file *f = &srv->files[ni->file];
	if (r->op == NFSPROC_WRITE && !r->stable) {
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
	struct srv_job *j = calloc(1, sizeof(*j));
	if (!j)
		abort();
	j->file = ni->file;
	j->pages = r->op == NFSPROC_WRITE ? r->pages : 0;
	j->sync = 1;
	j->commit = r->op == NFSPROC_COMMIT;
	j->rpc = r;
	job_push(srv, j);
	disk_start(s, srv);
}

static void nfsd_start(struct sim *s, struct nfs_server_sim *srv, struct nfs_rpc *r)
{
	srv->threads_busy++;
	double mb = r->op == NFSPROC_WRITE ? (double)r->pages / 256.0 : 0;
	ktime_t cpu = (ktime_t)((mb * srv->np.server_cpu_ms_per_mb + 0.02) * 1e6);
	sim_call_at(s, s->now + cpu, processed, r);
}

void nfsd_receive(struct sim *s, struct nfs_server_sim *srv, struct nfs_rpc *r)
{
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
	/* the server's background threshold: a ratio of its (dirtyable) memory */
	srv->bg_thresh = srv->np.server_mem_mb * 256 * srv->np.server_bg_ratio / 100;
	sim_call_at(s, 5 * NSEC_PER_SEC, srv_kupdate, srv);
	return srv;
}

void nfs_server_destroy(struct nfs_server_sim *srv)
{
	if (!srv)
		return;
	/* requests are owned by the mount's pool; only the jobs are ours */
	for (struct srv_job *j = srv->job_head, *n; j; j = n) {
		n = j->next;
		free(j);
	}
	free(srv->cur);
	free(srv->files);
	free(srv);
}
