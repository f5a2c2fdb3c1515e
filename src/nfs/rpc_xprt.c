/* The RPC client transport (net/sunrpc, TCP): a slot table of min_slots
 * preallocated requests that grows to max_slots (3.1's dynamic slots), a
 * backlog for the rest, the socket's send buffer (xprt_sndbuf.h: where the
 * iostats' queue time ends), and one wire that sends one request at a time at
 * the link's payload bandwidth.  Replies are small: they only pay the latency.
 * Requests waiting for a slot sleep on the backlog, a priority wait queue
 * (rpc_wait_queue.h: by tk_priority, in per-owner batches); once they hold a
 * slot they are sent in the order they got it (the kernel's sending queue
 * orders first transmissions FIFO too). */
#include <stdlib.h>
#include "nfs.h"
#include "nfs_era.h"
#include "../throttle/throttle.h"

#include <stddef.h>

/* the backlog hands back the waiter: it is the request's first member */
_Static_assert(offsetof(struct nfs_rpc, w) == 0, "rpc_waiter first in nfs_rpc");

#define RPC_HDR_BYTES 148    /* RPC + NFSv3 WRITE/COMMIT call header, approximately */
#define RPC_REPLY_BYTES 136

uint64_t rpc_call_bytes(const struct nfs_rpc *r)
{
	return r->op == NFSPROC_WRITE ? r->pages * 4096 + RPC_HDR_BYTES : RPC_HDR_BYTES;
}

static void kick_link(struct sim *s, struct nfs_mount *m);

static void arrive(struct sim *s, void *arg)
{
	struct nfs_rpc *r = arg;
	nfsd_receive(s, r->mount->server, r, rpc_call_bytes(r));
}

static void xmit_done(struct sim *s, void *arg)
{
	struct nfs_rpc *r = arg;
	struct nfs_mount *m = r->mount;
	m->link_busy = 0;
	xprt_sndbuf_sent(&m->sndbuf, rpc_call_bytes(r));
	sim_call_at(s, s->now + (ktime_t)(m->np.net_latency_ms * 1e6), arrive, r);
	kick_link(s, m);
}

void rpc_kick_link(struct sim *s, struct nfs_mount *m)
{
	kick_link(s, m);
}

/* the wire takes the socket's oldest request when it is free and the server's
 * receive window has room */
static void kick_wire(struct sim *s, struct nfs_mount *m)
{
	if (m->link_busy || !m->sock)
		return;
	/* TCP flow control: the server's socket buffer is full while its nfsd
	 * threads are busy, so the sender waits */
	if (!nfs_server_can_accept(m->server, rpc_call_bytes(m->sock)))
		return;
	struct nfs_rpc *r = rpc_fifo_pop(&m->sock, &m->sock_tail);
	if (!m->sndbuf.size)
		r->xmit_start = s->now;     /* no send buffer: transmitted as it goes on the wire */
	m->link_busy = 1;
	nfs_server_reserve(m->server, rpc_call_bytes(r));
	double ns = (double)rpc_call_bytes(r) / (m->np.net_mbps * 1e6) * 1e9;
	sim_call_at(s, s->now + (ktime_t)ns, xmit_done, r);
}

/* xprt_transmit: requests holding a slot are copied into the send buffer in
 * order while it has room (rq_xtime); without a buffer they go straight to
 * the wire's queue */
static void kick_link(struct sim *s, struct nfs_mount *m)
{
	while (m->sending) {
		uint64_t b = rpc_call_bytes(m->sending);
		if (m->sndbuf.size) {
			if (!xprt_sndbuf_fits(&m->sndbuf, b))
				break;
		} else if (m->sock || m->link_busy) {
			break;
		}
		struct nfs_rpc *r = rpc_fifo_pop(&m->sending, &m->sending_tail);
		if (m->sndbuf.size) {
			r->xmit_start = s->now;
			xprt_sndbuf_queue(&m->sndbuf, b);
		}
		rpc_fifo_push(&m->sock, &m->sock_tail, r);
	}
	kick_wire(s, m);
}

void xprt_init_slots(struct sim *s, struct nfs_mount *m)
{
	xprt_slots_init(&m->slots, m->np.min_slots, m->np.max_slots,
			s->model->nfs_client->xprt_free_slot_no_wake);
	rpc_init_priority_wait_queue(&m->backlog, s->model->nfs_client->rpc_queue_fair);
	m->sndbuf = (struct xprt_sndbuf){ .size = m->np.client_sndbuf_kb * 1024 };
}

/* rpc_wake_up_next(&xprt->backlog): the task the priority queue picks
 * retries and takes the freed slot */
static void xprt_wake_backlog(struct nfs_mount *m)
{
	if (m->backlog.qlen && xprt_alloc_slot(&m->slots)) {
		struct nfs_rpc *r = (struct nfs_rpc *)rpc_wake_up_next(&m->backlog);
		rpc_fifo_push(&m->sending, &m->sending_tail, r);
		m->backlog_len--;
	}
}

void rpc_submit(struct sim *s, struct nfs_mount *m, struct nfs_rpc *r)
{
	r->mount = m;
	r->created = s->now;
	if (xprt_alloc_slot(&m->slots))
		rpc_fifo_push(&m->sending, &m->sending_tail, r);
	else {
		rpc_sleep_on(&m->backlog, &r->w);
		m->backlog_waits++;
		if (++m->backlog_len > m->backlog_max)
			m->backlog_max = m->backlog_len;
	}
	kick_link(s, m);
}

/* rpc_task completion at the client: account, free the slot, run the callback */
static void reply_arrived(struct sim *s, void *arg)
{
	struct nfs_rpc *r = arg;
	struct nfs_mount *m = r->mount;
	struct nfs_op_stats *st = &m->st[r->op];
	st->ops++;
	st->bytes_sent += rpc_call_bytes(r);
	st->bytes_recv += RPC_REPLY_BYTES;
	st->queue += r->xmit_start - r->created;
	st->rtt += s->now - r->xmit_start;
	st->execute += s->now - r->created;
	if (xprt_free_slot(&m->slots))
		xprt_wake_backlog(m);
	if (r->op == NFSPROC_WRITE)
		nfs_write_done(s, m, r);
	else
		nfs_commit_done(s, m, r);
	rpc_release(m, r);
	kick_link(s, m);
}

/* Requests live in a pool: those still in flight when the run ends are freed
 * with the mount, not leaked. */
struct nfs_rpc *rpc_alloc(struct nfs_mount *m)
{
	struct nfs_rpc *r = m->rpc_free;
	if (r) {
		m->rpc_free = r->next;
	} else {
		r = malloc(sizeof(*r));
		if (!r)
			abort();
		r->all_next = m->rpc_all;
		m->rpc_all = r;
	}
	struct nfs_rpc *keep = r->all_next;
	*r = (struct nfs_rpc){ .mount = m, .all_next = keep };
	return r;
}

void rpc_release(struct nfs_mount *m, struct nfs_rpc *r)
{
	r->next = m->rpc_free;
	m->rpc_free = r;
}

void rpc_pool_destroy(struct nfs_mount *m)
{
	for (struct nfs_rpc *r = m->rpc_all, *n; r; r = n) {
		n = r->all_next;
		free(r);
	}
	m->rpc_all = m->rpc_free = NULL;
}

void rpc_send_reply(struct sim *s, struct nfs_rpc *r)
{
	sim_call_at(s, s->now + (ktime_t)(r->mount->np.net_latency_ms * 1e6), reply_arrived, r);
}

/* per-op lines of /proc/self/mountstats:
 * ops transmissions major_timeouts bytes_sent bytes_recv queue_ms rtt_ms execute_ms */
void nfs_write_mountstats(const struct nfs_mount *m, FILE *f)
{
	static const char *const names[NFS_NR_OPS] = { "WRITE", "COMMIT" };
	fprintf(f, "device server:/nfs mounted on /fs/nfs with fstype nfs statvers=1.0\n"
		   "\topts:\trw,vers=3,rsize=%llu,wsize=%llu,proto=tcp,nolock\n"
		   "\tRPC iostats version: 1.0  p/v: 100003/3 (nfs)\n"
		   "\txprt:\ttcp 0 0 1 0 0 0 0 0 0 0\n\tper-op statistics\n",
		(unsigned long long)m->np.wsize_kb * 1024, (unsigned long long)m->np.wsize_kb * 1024);
	for (int i = 0; i < NFS_NR_OPS; i++) {
		const struct nfs_op_stats *st = &m->st[i];
		fprintf(f, "\t%12s: %llu %llu 0 %llu %llu %llu %llu %llu\n", names[i],
			(unsigned long long)st->ops, (unsigned long long)st->ops,
			(unsigned long long)st->bytes_sent, (unsigned long long)st->bytes_recv,
			(unsigned long long)(st->queue / 1000000), (unsigned long long)(st->rtt / 1000000),
			(unsigned long long)(st->execute / 1000000));
	}
}
