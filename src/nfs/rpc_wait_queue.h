/* A sunrpc priority wait queue (net/sunrpc/sched.c, 2.6.x to 4.x): the
 * transport's backlog of tasks waiting for a request slot.  Three priority
 * lists; within a list the tasks of one owner (the tgid that created them)
 * queue behind that owner's first task, so owners take turns; the queue
 * serves a batch of up to RPC_BATCH_COUNT tasks of one owner and 4^priority
 * turns of one list before it looks at the next lower one (wrapping from
 * LOW to HIGH).  Linux 5.0 ("SUNRPC: Fix priority queue fairness") dropped the
 * batches: a list serves 2^priority tasks in a row, and an owner whose first
 * task leaves goes to the list's tail, so owners alternate task by task.
 * Pure bookkeeping, checked by hand in tests/unit. */
#ifndef WBLAB_RPC_WAIT_QUEUE_H
#define WBLAB_RPC_WAIT_QUEUE_H
#include <stdint.h>

enum { RPC_PRIORITY_LOW, RPC_PRIORITY_NORMAL, RPC_PRIORITY_HIGH, RPC_PRIORITY_PRIVILEGED, RPC_NR_PRIORITY };
#define RPC_BATCH_COUNT 16

struct rpc_waiter {
	int priority;                   /* the task's tk_priority */
	int owner;                      /* its tk_owner */
	/* queue links, set by the queue */
	int level;
	struct rpc_waiter *next;        /* the next owner's first task in the list */
	struct rpc_waiter *links, *links_tail;  /* an owner's first task: its later ones */
	struct rpc_waiter *link_next;   /* a later task: the owner's next one */
};

struct rpc_wait_queue {
	struct rpc_waiter *first[RPC_NR_PRIORITY], *last[RPC_NR_PRIORITY];
	int fair;                       /* 5.0 on: the order of "SUNRPC: Fix priority queue fairness" */
	int maxpriority;                /* 3.x: HIGH (three lists); 5.0 on: PRIVILEGED */
	int priority;                   /* the list being served */
	int owner;                      /* 3.x: the owner being served, 0: none */
	unsigned count;                 /* 3.x: turns left on this list */
	unsigned nr;                    /* 3.x: tasks left in this owner's batch; 5.0 on: left on this list */
	uint64_t qlen;
};

/* rpc_init_priority_wait_queue; fair = the 5.0 order (rpc_wait_queue.c) */
void rpc_init_priority_wait_queue(struct rpc_wait_queue *q, int fair);
/* rpc_sleep_on: queue w at its priority, behind its owner's earlier tasks */
void rpc_sleep_on(struct rpc_wait_queue *q, struct rpc_waiter *w);
/* rpc_wake_up_next: take the next task out (__rpc_find_next_queued_priority), NULL if none */
struct rpc_waiter *rpc_wake_up_next(struct rpc_wait_queue *q);

#endif
