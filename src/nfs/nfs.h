/* An NFSv3 client mount, its RPC transport over one TCP link, and the server
 * (nfsd threads, page cache, one disk) - docs/nfs-model.md.  Only the client
 * code paths that matter for buffered dd writes are modelled. */
#ifndef WBLAB_NFS_H
#define WBLAB_NFS_H
#include "../sim/sim.h"
#include "xprt_slots.h"
#include "rpc_wait_queue.h"
#include "xprt_sndbuf.h"
#include "nfs_rules.h"

enum nfs_op { NFSPROC_WRITE, NFSPROC_COMMIT, NFS_NR_OPS };

/* tk_owner of tasks created in rpciod's context (6.x's io-completion COMMIT) */
#define NFS_OWNER_RPCIOD (-1)

struct nfs_rpc {
	struct rpc_waiter w;        /* on the backlog: tk_priority, tk_owner (first member) */
	enum nfs_op op;
	struct inode *inode;
	uint64_t pages;
	int stable;                 /* WRITE sent FILE_SYNC */
	uint64_t index;             /* WRITE: the file's page offset of its first page (traces) */
	ktime_t created, xmit_start;
	struct nfs_mount *mount;
	struct nfs_rpc *next;
	struct nfs_rpc *all_next;   /* every request ever allocated, for teardown */
	struct nfs_ioc *ioc;        /* 6.x: the writepages call this WRITE belongs to */
};

/* a FIFO of requests linked through ->next */
static inline void rpc_fifo_push(struct nfs_rpc **head, struct nfs_rpc **tail, struct nfs_rpc *r)
{
	r->next = NULL;
	if (*tail)
		(*tail)->next = r;
	else
		*head = r;
	*tail = r;
}

static inline struct nfs_rpc *rpc_fifo_pop(struct nfs_rpc **head, struct nfs_rpc **tail)
{
	struct nfs_rpc *r = *head;
	if (r) {
		*head = r->next;
		if (!*head)
			*tail = NULL;
		r->next = NULL;
	}
	return r;
}

/* 6.x struct nfs_io_completion: the WRITEs of one writepages call; when the
 * last is answered the file's commit list is committed */
struct nfs_ioc {
	uint64_t refs;
	struct inode *inode;
	struct nfs_ioc *next, *all_next;
};

struct nfs_op_stats {
	uint64_t ops, bytes_sent, bytes_recv;
	ktime_t queue, rtt, execute;   /* cumulative, ns */
};

/* struct nfs_inode's writeback part */
struct nfs_inode {
	uint64_t ncommit;           /* pages on the commit list */
	uint64_t ncommitting;       /* pages in the COMMITs in flight (3.x: at most one) */
	int flushing;               /* NFS_INO_FLUSHING */
	int commit_locked;          /* NFS_INO_COMMIT: one COMMIT in flight */
	struct waitq flush_wq;
	int file;                   /* server-side file index */
	double run_carry;           /* writer.pattern=rand: fraction of a WRITE carried over (rand_runs) */
};

struct nfs_server_sim;

/* struct nfs_server (the client's per-mount state) plus its rpc_xprt */
struct nfs_mount {
	struct bdi *bdi;
	struct nfs_params np;
	struct nfs_inode *inodes;
	int ninodes;
	uint64_t wsize_pages;
	uint64_t file_pages;        /* writer.pattern=rand: pages of each file; 0 = sequential writers */
	/* transport */
	struct xprt_slots slots;
	uint64_t backlog_len, backlog_max, backlog_waits;  /* requests asleep for a slot */
	struct rpc_wait_queue backlog;            /* waiting for a slot (xprt->backlog) */
	struct nfs_rpc *sending, *sending_tail;   /* have a slot, waiting for the socket */
	struct xprt_sndbuf sndbuf;
	struct nfs_rpc *sock, *sock_tail;         /* in the socket's send buffer, not yet on the wire */
	int link_busy;
	/* nfss->writeback and the congestion state */
	struct nfs_congestion cong;               /* nfss->writeback and its marks */
	uint64_t congestion_kb;
	int congestion_mode;                      /* enum nfs_write_congestion in force */
	struct waitq congestion_wq;
	struct nfs_op_stats st[NFS_NR_OPS];
	struct nfs_server_sim *server;
	struct nfs_rpc *rpc_all, *rpc_free;       /* request pool */
	struct nfs_ioc *ioc_all, *ioc_free;       /* 6.x io completions */
	uint64_t stable_writes, writepages_calls, writepages_pages;
};

/* Sets bdi->ops/dev for an NFS mount holding the sim's inodes. */
int nfs_mount_create(struct sim *s, struct bdi *bdi);

/* transport (rpc_xprt.c) */
struct nfs_rpc *rpc_alloc(struct nfs_mount *m);
void rpc_release(struct nfs_mount *m, struct nfs_rpc *r);
void rpc_pool_destroy(struct nfs_mount *m);
/* xprt_alloc setup: min_slots preallocated slots */
void xprt_init_slots(struct sim *s, struct nfs_mount *m);
void rpc_submit(struct sim *s, struct nfs_mount *m, struct nfs_rpc *r);
/* the server sends the reply back over the link */
void rpc_send_reply(struct sim *s, struct nfs_rpc *r);
/* bytes of a request on the wire */
uint64_t rpc_call_bytes(const struct nfs_rpc *r);
/* the server's socket buffer has room again */
void rpc_kick_link(struct sim *s, struct nfs_mount *m);
void nfs_write_done(struct sim *s, struct nfs_mount *m, struct nfs_rpc *r);
void nfs_commit_done(struct sim *s, struct nfs_mount *m, struct nfs_rpc *r);
void nfs_write_mountstats(const struct nfs_mount *m, FILE *f);

/* server (nfs_server.c) */
struct nfs_server_sim *nfs_server_create(struct sim *s, struct nfs_mount *m, int nfiles);
void nfs_server_destroy(struct nfs_server_sim *srv);
uint64_t nfs_server_disk_pages(const struct nfs_server_sim *srv);
/* fifo disk: time it spent writing (ns) */
ktime_t nfs_server_disk_busy(const struct nfs_server_sim *srv);
/* UNSTABLE WRITEs that waited for the server's dirty limit */
uint64_t nfs_server_throttled_writes(const struct nfs_server_sim *srv);
/* a request of `bytes` has arrived over the link */
void nfsd_receive(struct sim *s, struct nfs_server_sim *srv, struct nfs_rpc *r, uint64_t bytes);
/* Socket buffer accounting: bytes on the wire or waiting for an nfsd thread. */
int nfs_server_can_accept(const struct nfs_server_sim *srv, uint64_t bytes);
void nfs_server_reserve(struct nfs_server_sim *srv, uint64_t bytes);

#endif
