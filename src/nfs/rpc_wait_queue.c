/* The sunrpc priority wait queue's order (rpc_wait_queue.h). */
#include <stddef.h>
#include "rpc_wait_queue.h"

/* rpc_set_waitqueue_priority: 3.x gives the list 4^priority turns of owner;
 * 5.0 on, 2^priority tasks, and only when the list changes */
static void set_priority(struct rpc_wait_queue *q, int priority)
{
	if (q->fair) {
		if (q->priority != priority) {
			q->priority = priority;
			q->nr = 1u << priority;
		}
		return;
	}
	q->priority = priority;
	q->count = 1u << (priority * 2);
}

static void set_owner(struct rpc_wait_queue *q, int owner)
{
	q->owner = owner;
	q->nr = RPC_BATCH_COUNT;
}

/* rpc_reset_waitqueue_priority: back to the top list, nobody's batch */
static void reset_priority(struct rpc_wait_queue *q)
{
	set_priority(q, q->maxpriority);
	if (!q->fair)
		set_owner(q, 0);
}

void rpc_init_priority_wait_queue(struct rpc_wait_queue *q, int fair)
{
	*q = (struct rpc_wait_queue){ .fair = fair,
		.maxpriority = fair ? RPC_PRIORITY_PRIVILEGED : RPC_PRIORITY_HIGH };
	reset_priority(q);
}

static void append(struct rpc_wait_queue *q, int l, struct rpc_waiter *w)
{
	w->next = NULL;
	if (q->last[l])
		q->last[l]->next = w;
	else
		q->first[l] = w;
	q->last[l] = w;
}

void rpc_sleep_on(struct rpc_wait_queue *q, struct rpc_waiter *w)
{
	int l = w->priority < 0 ? 0 : w->priority > q->maxpriority ? q->maxpriority : w->priority;
	w->level = l;
	w->next = w->links = w->links_tail = w->link_next = NULL;
	q->qlen++;
	for (struct rpc_waiter *h = q->first[l]; h; h = h->next)
		if (h->owner == w->owner) {
			if (h->links_tail)
				h->links_tail->link_next = w;
			else
				h->links = w;
			h->links_tail = w;
			return;
		}
	append(q, l, w);
}

/* __rpc_remove_wait_queue_priority: an owner's first task leaves; its next
 * task takes its place in the list (3.x) or goes to the list's tail (5.0 on,
 * __rpc_list_dequeue_task), with the rest of the owner's tasks */
static void remove_task(struct rpc_wait_queue *q, struct rpc_waiter *h)
{
	int l = h->level;
	struct rpc_waiter *prev = NULL;
	for (struct rpc_waiter *x = q->first[l]; x != h; x = x->next)
		prev = x;
	struct rpc_waiter *repl = h->links, *after = h->next;
	if (repl && q->fair) {
		repl->links = repl->link_next;
		repl->links_tail = repl->link_next ? h->links_tail : NULL;
		repl->link_next = NULL;
		if (prev)
			prev->next = after;
		else
			q->first[l] = after;
		if (q->last[l] == h)
			q->last[l] = prev;
		append(q, l, repl);
		h->next = h->links = h->links_tail = NULL;
		q->qlen--;
		return;
	}
	if (repl) {
		repl->links = repl->link_next;
		repl->links_tail = repl->link_next ? h->links_tail : NULL;
		repl->link_next = NULL;
		repl->next = after;
	} else {
		repl = after;
	}
	if (prev)
		prev->next = repl;
	else
		q->first[l] = repl;
	if (q->last[l] == h)
		q->last[l] = h->links ? h->links : prev;
	h->next = h->links = h->links_tail = NULL;
	q->qlen--;
}

/* list_move_tail of the list's first task (its owner's batch is used up) */
static void move_first_to_tail(struct rpc_wait_queue *q, int l)
{
	struct rpc_waiter *h = q->first[l];
	if (h == q->last[l])
		return;
	q->first[l] = h->next;
	h->next = NULL;
	q->last[l]->next = h;
	q->last[l] = h;
}

/* __rpc_find_next_queued_priority of 5.0 on (the privileged list, which no
 * request of the model uses, aside) */
static struct rpc_waiter *find_next_fair(struct rpc_wait_queue *q)
{
	int p = q->priority, l = p;
	if (q->first[p] && q->nr) {
		q->nr--;
		return q->first[p];
	}
	do {
		l = l == 0 ? q->maxpriority : l - 1;
		if (q->first[l]) {
			set_priority(q, l);
			return q->first[l];
		}
	} while (l != p);
	reset_priority(q);
	return NULL;
}

struct rpc_waiter *rpc_wake_up_next(struct rpc_wait_queue *q)
{
	struct rpc_waiter *task;
	int p = q->priority, l = p;
	if (q->fair) {
		task = find_next_fair(q);
		if (task)
			remove_task(q, task);
		return task;
	}
	if (q->first[p]) {
		task = q->first[p];
		if (q->owner == task->owner) {
			if (--q->nr)
				goto out;
			/* the batch is used up: the owner goes behind the others,
			 * but (as in the kernel) this task is still the one served
			 * if the list keeps its turn */
			move_first_to_tail(q, p);
		}
		if (--q->count)
			goto new_owner;
	}
	do {
		l = l == 0 ? q->maxpriority : l - 1;
		if (q->first[l]) {
			task = q->first[l];
			goto new_queue;
		}
	} while (l != p);
	reset_priority(q);
	return NULL;
new_queue:
	set_priority(q, l);
new_owner:
	set_owner(q, task->owner);
out:
	remove_task(q, task);
	return task;
}
