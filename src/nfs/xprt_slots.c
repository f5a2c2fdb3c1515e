/* The slot table alone, so its rules can be checked by hand (tests/unit). */
#include "xprt_slots.h"

void xprt_slots_init(struct xprt_slots *x, uint64_t min, uint64_t max, int free_no_wake)
{
	x->num_reqs = x->free = min;
	x->min = min;
	x->max = max;
	x->free_no_wake = free_no_wake;
}

/* A slot from the free list, else a new one while fewer than max exist.  A
 * new task tries this before any backlogged one is woken: it can overtake. */
int xprt_alloc_slot(struct xprt_slots *x)
{
	if (x->free) {
		x->free--;
		return 1;
	}
	if (x->num_reqs < x->max) {
		x->num_reqs++;
		return 1;
	}
	return 0;
}

/* Slots above min are freed, the others go back on the free list.  3.1
 * returned right after freeing a dynamic slot, so the backlog is woken only
 * once the table has shrunk to min: backlogged tasks sleep on while new ones
 * take the room.  3.2 wakes the backlog on every free. */
int xprt_free_slot(struct xprt_slots *x)
{
	if (x->num_reqs > x->min) {
		x->num_reqs--;
		return !x->free_no_wake;
	}
	x->free++;
	return 1;
}
