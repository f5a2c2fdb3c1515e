/* The RPC slot table of a TCP transport (net/sunrpc/xprt.c, 3.1 on): min
 * slots preallocated on a free list, more allocated on demand up to max, the
 * rest of the tasks asleep on the backlog. */
#ifndef WBLAB_XPRT_SLOTS_H
#define WBLAB_XPRT_SLOTS_H
#include <stdint.h>

struct xprt_slots {
	uint64_t num_reqs;      /* slots that exist (xprt->num_reqs) */
	uint64_t free;          /* of those, on the free list */
	uint64_t min, max;      /* tcp_slot_table_entries, tcp_max_slot_table_entries */
	int free_no_wake;       /* 3.1: freeing a dynamic slot does not wake the backlog */
};

void xprt_slots_init(struct xprt_slots *x, uint64_t min, uint64_t max, int free_no_wake);
/* xprt_alloc_slot: 1 = the task has a slot, 0 = it must sleep on the backlog */
int xprt_alloc_slot(struct xprt_slots *x);
/* xprt_free_slot: 1 = wake the first backlogged task (rpc_wake_up_next) */
int xprt_free_slot(struct xprt_slots *x);

#endif
