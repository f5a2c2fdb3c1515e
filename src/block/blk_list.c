/* Request lists shared by the elevators: a FIFO and a sector-sorted list
 * (the kernel's elevator rbtree; at most nr_requests entries here). */
#include "blk.h"

void rq_list_append(struct rq_list *l, struct blk_rq *rq)
{
	rq->next = NULL;
	rq->prev = l->tail;
	if (l->tail)
		l->tail->next = rq;
	else
		l->head = rq;
	l->tail = rq;
	l->n++;
}

void rq_list_del(struct rq_list *l, struct blk_rq *rq)
{
	if (rq->prev)
		rq->prev->next = rq->next;
	else
		l->head = rq->next;
	if (rq->next)
		rq->next->prev = rq->prev;
	else
		l->tail = rq->prev;
	rq->next = rq->prev = NULL;
	l->n--;
}

void rq_list_insert_sorted(struct rq_list *l, struct blk_rq *rq)
{
	/* from the tail: new writeback usually lands behind what is queued */
	struct blk_rq *at = l->tail;
	while (at && at->sector > rq->sector)
		at = at->prev;
	rq->prev = at;
	rq->next = at ? at->next : l->head;
	if (rq->next)
		rq->next->prev = rq;
	else
		l->tail = rq;
	if (at)
		at->next = rq;
	else
		l->head = rq;
	l->n++;
}

void fifo_append(struct rq_list *l, struct blk_rq *rq)
{
	rq->fnext = NULL;
	rq->fprev = l->tail;
	if (l->tail)
		l->tail->fnext = rq;
	else
		l->head = rq;
	l->tail = rq;
	l->n++;
}

void fifo_del(struct rq_list *l, struct blk_rq *rq)
{
	if (rq->fprev)
		rq->fprev->fnext = rq->fnext;
	else
		l->head = rq->fnext;
	if (rq->fnext)
		rq->fnext->fprev = rq->fprev;
	else
		l->tail = rq->fprev;
	rq->fnext = rq->fprev = NULL;
	l->n--;
}
