/* noop (3.x) / none (blk-mq): requests in arrival order; merging is the
 * queue's (blk_core.c), so this elevator only keeps the FIFO. */
#include <stdlib.h>
#include "blk.h"

static int noop_init(struct blk_queue *q)
{
	q->elv_data = calloc(1, sizeof(struct rq_list));
	return q->elv_data ? 0 : -1;
}

static void noop_exit(struct blk_queue *q)
{
	free(q->elv_data);
}

static void noop_add(struct blk_queue *q, struct blk_rq *rq)
{
	rq_list_append(q->elv_data, rq);
}

static void noop_merged(struct blk_queue *q, struct blk_rq *rq, int front)
{
	(void)q, (void)rq, (void)front;
}

static void noop_remove(struct blk_queue *q, struct blk_rq *rq)
{
	rq_list_del(q->elv_data, rq);
}

static struct blk_rq *noop_dispatch(struct blk_queue *q)
{
	struct rq_list *l = q->elv_data;
	struct blk_rq *rq = l->head;
	if (rq)
		rq_list_del(l, rq);
	return rq;
}

const struct elevator_type elv_noop = {
	.name = "noop", .init = noop_init, .exit = noop_exit, .add = noop_add,
	.merged = noop_merged, .remove = noop_remove, .dispatch = noop_dispatch,
};
