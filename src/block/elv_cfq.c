/* CFQ as a 3.x writeback workload sees it.  Writeback is async I/O, and CFQ
 * keeps one async queue per priority level shared by every process
 * (cfq_async_queue_prio): the flusher and 3.1's writing dd tasks all land in
 * the best-effort level-4 queue.  That queue is sorted by sector; the next
 * request is the nearer of the two neighbours of the head position, a
 * backward one counting twice its distance and only within back_seek_max
 * (cfq_choose_req); once per async slice the oldest request is taken if it
 * waited fifo_expire_async (cfq_check_fifo).  Constants are the 3.x defaults:
 * back_seek_max 16 MiB, back_seek_penalty 2, fifo_expire_async HZ/4,
 * slice_async HZ/25.
 * Simplified: no sync queues (writeback issues none), hence no idling, no
 * time-slice competition between queues, no cgroups, no dispatch quantum
 * (with one busy queue CFQ lifts it). */
#include <stdlib.h>
#include "blk.h"

#define BACK_SEEK_MAX_SECTORS (16384ULL * 1024 / SECTOR_BYTES)
#define BACK_SEEK_PENALTY 2
#define FIFO_EXPIRE_ASYNC_NS (NSEC_PER_SEC / 4)
#define SLICE_ASYNC_NS (NSEC_PER_SEC / 25)

struct cfq {
	struct rq_list sort, fifo;
	uint64_t last_pos;
	ktime_t slice_end;
	int fifo_checked;
};

static int cfq_init(struct blk_queue *q)
{
	q->elv_data = calloc(1, sizeof(struct cfq));
	return q->elv_data ? 0 : -1;
}

static void cfq_exit(struct blk_queue *q)
{
	free(q->elv_data);
}

static void cfq_add(struct blk_queue *q, struct blk_rq *rq)
{
	struct cfq *c = q->elv_data;
	rq_list_insert_sorted(&c->sort, rq);
	rq->fifo_time = q->sim->now + FIFO_EXPIRE_ASYNC_NS;
	fifo_append(&c->fifo, rq);
}

static void cfq_merged(struct blk_queue *q, struct blk_rq *rq, int front)
{
	struct cfq *c = q->elv_data;
	if (front) {
		rq_list_del(&c->sort, rq);
		rq_list_insert_sorted(&c->sort, rq);
	}
}

static void cfq_remove(struct blk_queue *q, struct blk_rq *rq)
{
	struct cfq *c = q->elv_data;
	rq_list_del(&c->sort, rq);
	fifo_del(&c->fifo, rq);
}

/* cfq_choose_req between the neighbours of the head */
static struct blk_rq *choose(const struct cfq *c)
{
	struct blk_rq *next = c->sort.head;
	while (next && next->sector < c->last_pos)
		next = next->next;
	struct blk_rq *prev = next ? next->prev : c->sort.tail;
	uint64_t last = c->last_pos;
	int wrap_prev = !prev || prev->sector + BACK_SEEK_MAX_SECTORS < last;
	if (!next)
		return wrap_prev ? c->sort.head : prev;
	if (wrap_prev)
		return next;
	uint64_t d_next = next->sector - last;
	uint64_t d_prev = (last - prev->sector) * BACK_SEEK_PENALTY;
	return d_prev < d_next ? prev : next;
}

static struct blk_rq *cfq_dispatch(struct blk_queue *q)
{
	struct cfq *c = q->elv_data;
	if (!c->sort.head)
		return NULL;
	ktime_t now = q->sim->now;
	if (now >= c->slice_end) {
		c->slice_end = now + SLICE_ASYNC_NS;
		c->fifo_checked = 0;
	}
	struct blk_rq *rq = NULL;
	if (!c->fifo_checked) {
		c->fifo_checked = 1;
		if (c->fifo.head->fifo_time <= now)
			rq = c->fifo.head;
	}
	if (!rq)
		rq = choose(c);
	c->last_pos = rq->sector + rq->nr_sectors;
	rq_list_del(&c->sort, rq);
	fifo_del(&c->fifo, rq);
	return rq;
}

const struct elevator_type elv_cfq = {
	.name = "cfq", .init = cfq_init, .exit = cfq_exit, .add = cfq_add,
	.merged = cfq_merged, .remove = cfq_remove, .dispatch = cfq_dispatch,
};
