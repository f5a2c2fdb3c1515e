/* deadline (3.x) and mq-deadline (6.x), write side only (writeback issues no
 * reads): requests sorted by sector, dispatched in one-way sweeps of up to
 * fifo_batch requests; a new batch starts at the oldest request when the
 * oldest has waited write_expire, or when the sweep ran past the last sector.
 * Constants are the kernel defaults (deadline-iosched.c, mq-deadline.c:
 * fifo_batch 16, write_expire HZ*5). */
#include <stdlib.h>
#include "blk.h"

#define FIFO_BATCH 16
#define WRITE_EXPIRE_NS (5 * NSEC_PER_SEC)

struct deadline {
	struct rq_list sort, fifo;
	struct blk_rq *next_rq;
	unsigned batching;
};

static int dl_init(struct blk_queue *q)
{
	q->elv_data = calloc(1, sizeof(struct deadline));
	return q->elv_data ? 0 : -1;
}

static void dl_exit(struct blk_queue *q)
{
	free(q->elv_data);
}

static void dl_add(struct blk_queue *q, struct blk_rq *rq)
{
	struct deadline *d = q->elv_data;
	rq_list_insert_sorted(&d->sort, rq);
	rq->fifo_time = q->sim->now + WRITE_EXPIRE_NS;
	fifo_append(&d->fifo, rq);
}

static void dl_merged(struct blk_queue *q, struct blk_rq *rq, int front)
{
	struct deadline *d = q->elv_data;
	if (!front)
		return;
	if (d->next_rq == rq)
		d->next_rq = rq->next;
	rq_list_del(&d->sort, rq);
	rq_list_insert_sorted(&d->sort, rq);
}

static void dl_remove(struct blk_queue *q, struct blk_rq *rq)
{
	struct deadline *d = q->elv_data;
	if (d->next_rq == rq)
		d->next_rq = rq->next;
	rq_list_del(&d->sort, rq);
	fifo_del(&d->fifo, rq);
}

static struct blk_rq *dl_dispatch(struct blk_queue *q)
{
	struct deadline *d = q->elv_data;
	if (!d->sort.head)
		return NULL;
	struct blk_rq *rq;
	if (d->next_rq && d->batching < FIFO_BATCH) {
		rq = d->next_rq;
	} else {
		if (!d->next_rq || d->fifo.head->fifo_time <= q->sim->now)
			rq = d->fifo.head;
		else
			rq = d->next_rq;
		d->batching = 0;
	}
	d->batching++;
	d->next_rq = rq->next;
	rq_list_del(&d->sort, rq);
	fifo_del(&d->fifo, rq);
	return rq;
}

const struct elevator_type elv_deadline = {
	.name = "deadline", .init = dl_init, .exit = dl_exit, .add = dl_add,
	.merged = dl_merged, .remove = dl_remove, .dispatch = dl_dispatch,
};
