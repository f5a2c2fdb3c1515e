/* A loop device on a host file (docs/storage-model.md, Loop device): the
 * requests in flight (up to queue_depth, 128 for blk-mq loop) share the
 * host's bandwidth equally (processor sharing), each completing `latency`
 * after its last byte is through; optionally the host stalls, for stall_ms
 * at exponentially distributed intervals of mean stall_every_s (seeded), and
 * nothing moves meanwhile.  Position does not matter (the host file's own
 * layout and page cache are folded into bw and latency). */
#include <math.h>
#include <stdlib.h>
#include "blk.h"

struct loopdev {
	struct sim *s;
	blk_done_fn done;
	void *ctx;
	double sectors_per_ns, latency_ns, stall_every_ns, stall_ns;
	uint64_t qd, in_flight;
	struct rq_list active;          /* sharing the bandwidth, by virtual finish tag */
	double vtime;                   /* sectors each active request has received */
	ktime_t last;
	int stalled;
	struct sim_timer t_done;
	double busy_ns;
	uint64_t stalls;
};

static void advance(struct loopdev *l)
{
	ktime_t now = l->s->now;
	if (!l->stalled && l->active.n) {
		l->vtime += (double)(now - l->last) * l->sectors_per_ns / (double)l->active.n;
		l->busy_ns += (double)(now - l->last);
	}
	l->last = now;
}

static void resched(struct loopdev *l)
{
	if (l->stalled || !l->active.head) {
		sim_timer_cancel(&l->t_done);
		return;
	}
	double ns = (l->active.head->dev_tag - l->vtime) * (double)l->active.n / l->sectors_per_ns;
	sim_timer_arm(l->s, &l->t_done, l->s->now + (ktime_t)ceil(ns > 0 ? ns : 0));
}

static void loop_complete(struct sim *s, void *arg)
{
	struct blk_rq *rq = arg;
	struct loopdev *l = rq->dev_priv;
	l->in_flight--;
	l->done(s, l->ctx, rq);
}

static void transfer_done(struct sim *s, void *arg)
{
	struct loopdev *l = arg;
	advance(l);
	while (l->active.head && l->active.head->dev_tag <= l->vtime + 0.5) {
		struct blk_rq *rq = l->active.head;
		rq_list_del(&l->active, rq);
		sim_call_at(s, s->now + (ktime_t)l->latency_ns, loop_complete, rq);
	}
	resched(l);
}

static void stall_start(struct sim *s, void *arg);

static void next_stall(struct loopdev *l)
{
	if (l->stall_every_ns <= 0)
		return;
	double u = sim_rand(l->s);
	sim_call_at(l->s, l->s->now + (ktime_t)(-log(1.0 - u) * l->stall_every_ns), stall_start, l);
}

static void stall_end(struct sim *s, void *arg)
{
	(void)s;
	struct loopdev *l = arg;
	advance(l);
	l->stalled = 0;
	resched(l);
	next_stall(l);
}

static void stall_start(struct sim *s, void *arg)
{
	struct loopdev *l = arg;
	advance(l);
	l->stalled = 1;
	l->stalls++;
	resched(l);
	sim_call_at(s, s->now + (ktime_t)l->stall_ns, stall_end, l);
}

static void *loop_create(struct sim *s, const struct dev_params *dp, blk_done_fn done, void *ctx)
{
	struct loopdev *l = calloc(1, sizeof(*l));
	if (!l)
		return NULL;
	l->s = s;
	l->done = done;
	l->ctx = ctx;
	l->sectors_per_ns = dp->bw_mbps * 1048576.0 / SECTOR_BYTES / 1e9;
	l->latency_ns = dp->latency_us * 1e3;
	l->qd = dp->queue_depth;
	l->stall_every_ns = dp->stall_ms > 0 ? dp->stall_every_s * 1e9 : 0;
	l->stall_ns = dp->stall_ms * 1e6;
	l->t_done.fn = transfer_done;
	l->t_done.arg = l;
	l->last = s->now;
	next_stall(l);
	return l;
}

static void loop_destroy(void *dev)
{
	free(dev);
}

static int loop_can_queue(const void *dev)
{
	const struct loopdev *l = dev;
	return l->in_flight < l->qd;
}

static void loop_queue_rq(struct sim *s, void *dev, struct blk_rq *rq)
{
	(void)s;
	struct loopdev *l = dev;
	advance(l);
	rq->dev_priv = l;
	rq->dev_tag = l->vtime + (double)rq->nr_sectors;
	/* sorted by tag, from the tail (equal-sized requests arrive in tag order) */
	struct blk_rq *at = l->active.tail;
	while (at && at->dev_tag > rq->dev_tag)
		at = at->prev;
	rq->prev = at;
	rq->next = at ? at->next : l->active.head;
	if (rq->next)
		rq->next->prev = rq;
	else
		l->active.tail = rq;
	if (at)
		at->next = rq;
	else
		l->active.head = rq;
	l->active.n++;
	l->in_flight++;
	resched(l);
}

static void loop_busy(const void *dev, double *busy_s, uint64_t *repositions)
{
	const struct loopdev *l = dev;
	*busy_s = l->busy_ns / 1e9;
	*repositions = l->stalls;
}

const struct blk_dev_type dev_loop = {
	.name = "loop", .create = loop_create, .destroy = loop_destroy, .can_queue = loop_can_queue,
	.queue_rq = loop_queue_rq, .busy = loop_busy,
};
