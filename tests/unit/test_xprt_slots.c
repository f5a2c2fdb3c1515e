/* The RPC slot table by hand (min 2, max 4), as 3.1 and 3.2 free slots.
 *
 * Start: 2 slots on the free list.  Six tasks: the first two take the free
 * slots, the next two get new ones (num_reqs 3, 4), the last two must sleep
 * on the backlog.  Then replies free slots one by one:
 *   3.1: free #1 -> num_reqs 3, no wake; free #2 -> 2, no wake; a new task
 *        arrives and gets a new slot (num_reqs 3) ahead of both sleepers;
 *        free #3 -> 2, no wake; free #4 -> free list, wake: the first sleeper
 *        takes it.  The backlog moved only once the table was back at min.
 *   3.2: free #1 -> num_reqs 3 and wake: the sleeper gets a new slot (4). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "nfs/xprt_slots.h"

static void fill(struct xprt_slots *x)
{
	for (int i = 0; i < 4; i++)
		assert_int_equal(xprt_alloc_slot(x), 1);
	assert_int_equal(x->num_reqs, 4);
	assert_int_equal(x->free, 0);
	assert_int_equal(xprt_alloc_slot(x), 0);   /* 5th: backlog */
	assert_int_equal(xprt_alloc_slot(x), 0);   /* 6th: backlog */
}

static void v31_wakes_backlog_only_at_min(void **state)
{
	(void)state;
	struct xprt_slots x;
	xprt_slots_init(&x, 2, 4, 1);
	fill(&x);
	assert_int_equal(xprt_free_slot(&x), 0);
	assert_int_equal(x.num_reqs, 3);
	assert_int_equal(xprt_free_slot(&x), 0);
	assert_int_equal(x.num_reqs, 2);
	assert_int_equal(xprt_alloc_slot(&x), 1);  /* a new task overtakes the sleepers */
	assert_int_equal(x.num_reqs, 3);
	assert_int_equal(xprt_free_slot(&x), 0);
	assert_int_equal(x.num_reqs, 2);
	assert_int_equal(xprt_free_slot(&x), 1);   /* back on the free list: wake */
	assert_int_equal(x.free, 1);
	assert_int_equal(xprt_alloc_slot(&x), 1);  /* the first sleeper */
	assert_int_equal(x.num_reqs - x.free, 2);   /* slots held */
}

static void v32_wakes_backlog_on_every_free(void **state)
{
	(void)state;
	struct xprt_slots x;
	xprt_slots_init(&x, 2, 4, 0);
	fill(&x);
	assert_int_equal(xprt_free_slot(&x), 1);
	assert_int_equal(x.num_reqs, 3);
	assert_int_equal(xprt_alloc_slot(&x), 1);  /* the sleeper gets a new slot */
	assert_int_equal(x.num_reqs, 4);
	assert_int_equal(x.num_reqs - x.free, 4);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(v31_wakes_backlog_only_at_min),
		cmocka_unit_test(v32_wakes_backlog_on_every_free),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
