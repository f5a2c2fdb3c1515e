/* The backlog's order by hand (net/sunrpc/sched.c priority wait queues).
 *
 * A fresh queue serves the HIGH list first, with no owner: count 16, nr 16.
 * (1) A flusher's LOW WRITEs L1 L2 (owner 1) queue, then a NORMAL COMMIT C
 *     (owner 1 too): the first wake finds HIGH empty, moves to NORMAL
 *     (count 4) and serves C; the next finds NORMAL empty, moves to LOW
 *     (count 1): L1, then L2 in owner 1's batch.
 * (2) Two owners on one list, 18 LOW tasks each, A before B: A1..A16 (a batch
 *     of 16), then A's batch is used up: A goes behind B and LOW's one turn is
 *     spent, so the search comes back round to LOW and serves B1..B16, then
 *     A17 A18, then B17 B18.
 * (3) A NORMAL task that arrives while a LOW owner's batch runs waits for the
 *     batch: 16 LOW, then the NORMAL one, then the last LOW.
 * (4) An owner's later tasks keep their owner's place: X1 (owner 1), Y1
 *     (owner 2), X2 (owner 1) on one list come out X1 X2 ... Y1.
 * (5) A batch used up while the list keeps its turn: NORMAL A1..A18 then
 *     B1 B2: A1..A16, then A17 (A moved behind B, but the same task is still
 *     served and A gets a new batch), B1 B2 (owner changes cost turns), A18.
 * (6) An owner's tasks after its first one left: T1 T2 T3 (owner 1), wake
 *     T1, queue T4 (owner 1): T2 T3 T4, nothing lost.
 * 5.0's order ("SUNRPC: Fix priority queue fairness"; the queue starts on the
 * PRIVILEGED list with nr 8):
 * (F1) LOW A1 A2 (owner 1), B1 (owner 2), NORMAL C (owner 1): C (NORMAL,
 *      nr 2), A1 (LOW, nr 1; A2 goes to the tail), B1 (nr 0), A2: owners
 *      alternate where 3.x gave C A1 A2 B1.
 * (F2) LOW A1..A3, B1..B3: A1 B1 A2 B2 A3 B3.
 * (F3) NORMAL N1..N6 (owner 2), LOW L1..L3 (owner 1): N1 N2 N3 (the first
 *      taken when the list is entered, then nr 2), L1 L2, N4 N5 N6, L3. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <string.h>
#include "nfs/rpc_wait_queue.h"

static struct rpc_waiter w[64];

static struct rpc_waiter *task(int i, int prio, int owner)
{
	memset(&w[i], 0, sizeof(w[i]));
	w[i].priority = prio;
	w[i].owner = owner;
	return &w[i];
}

static int next(struct rpc_wait_queue *q)
{
	struct rpc_waiter *t = rpc_wake_up_next(q);
	return t ? (int)(t - w) : -1;
}

static void commit_overtakes_background_writes(void **state)
{
	(void)state;
	struct rpc_wait_queue q;
	rpc_init_priority_wait_queue(&q, 0);
	rpc_sleep_on(&q, task(1, RPC_PRIORITY_LOW, 1));
	rpc_sleep_on(&q, task(2, RPC_PRIORITY_LOW, 1));
	rpc_sleep_on(&q, task(3, RPC_PRIORITY_NORMAL, 1));
	assert_int_equal(q.qlen, 3);
	assert_int_equal(next(&q), 3);
	assert_int_equal(q.priority, RPC_PRIORITY_NORMAL);
	assert_int_equal(q.count, 4);
	assert_int_equal(next(&q), 1);
	assert_int_equal(q.priority, RPC_PRIORITY_LOW);
	assert_int_equal(q.count, 1);
	assert_int_equal(next(&q), 2);
	assert_int_equal(q.qlen, 0);
	assert_int_equal(next(&q), -1);
	assert_int_equal(q.priority, RPC_PRIORITY_HIGH);   /* reset when empty */
}

static void owners_take_turns_in_batches_of_16(void **state)
{
	(void)state;
	struct rpc_wait_queue q;
	rpc_init_priority_wait_queue(&q, 0);
	for (int i = 0; i < 18; i++)
		rpc_sleep_on(&q, task(i, RPC_PRIORITY_LOW, 1));        /* A1..A18 = 0..17 */
	for (int i = 0; i < 18; i++)
		rpc_sleep_on(&q, task(20 + i, RPC_PRIORITY_LOW, 2));   /* B1..B18 = 20..37 */
	for (int i = 0; i < 16; i++)
		assert_int_equal(next(&q), i);
	for (int i = 0; i < 16; i++)
		assert_int_equal(next(&q), 20 + i);
	assert_int_equal(next(&q), 16);
	assert_int_equal(next(&q), 17);
	assert_int_equal(next(&q), 36);
	assert_int_equal(next(&q), 37);
	assert_int_equal(q.qlen, 0);
}

static void a_normal_task_waits_for_the_low_batch(void **state)
{
	(void)state;
	struct rpc_wait_queue q;
	rpc_init_priority_wait_queue(&q, 0);
	for (int i = 0; i < 17; i++)
		rpc_sleep_on(&q, task(i, RPC_PRIORITY_LOW, 1));
	assert_int_equal(next(&q), 0);                         /* LOW's batch begins */
	rpc_sleep_on(&q, task(40, RPC_PRIORITY_NORMAL, 7));
	for (int i = 1; i < 16; i++)
		assert_int_equal(next(&q), i);
	assert_int_equal(next(&q), 40);                        /* batch and turn used up */
	assert_int_equal(next(&q), 16);
	assert_int_equal(next(&q), -1);
}

static void later_tasks_keep_their_owners_place(void **state)
{
	(void)state;
	struct rpc_wait_queue q;
	rpc_init_priority_wait_queue(&q, 0);
	rpc_sleep_on(&q, task(1, RPC_PRIORITY_NORMAL, 1));
	rpc_sleep_on(&q, task(2, RPC_PRIORITY_NORMAL, 2));
	rpc_sleep_on(&q, task(3, RPC_PRIORITY_NORMAL, 1));
	assert_int_equal(next(&q), 1);
	assert_int_equal(next(&q), 3);
	assert_int_equal(next(&q), 2);
	/* an owner whose first task left keeps the rest in order, at the list's tail too */
	rpc_sleep_on(&q, task(4, RPC_PRIORITY_LOW, 5));
	rpc_sleep_on(&q, task(5, RPC_PRIORITY_LOW, 6));
	rpc_sleep_on(&q, task(6, RPC_PRIORITY_LOW, 6));
	rpc_sleep_on(&q, task(7, RPC_PRIORITY_LOW, 6));
	assert_int_equal(next(&q), 4);
	assert_int_equal(next(&q), 5);
	assert_int_equal(next(&q), 6);
	rpc_sleep_on(&q, task(8, RPC_PRIORITY_LOW, 5));       /* owner 5 again: behind 6's group */
	assert_int_equal(next(&q), 7);
	assert_int_equal(next(&q), 8);
	assert_int_equal(q.qlen, 0);
	assert_null(q.first[RPC_PRIORITY_LOW]);
	assert_null(q.last[RPC_PRIORITY_LOW]);
}

static void a_used_up_batch_keeps_the_task_while_the_list_keeps_its_turn(void **state)
{
	(void)state;
	struct rpc_wait_queue q;
	rpc_init_priority_wait_queue(&q, 0);
	for (int i = 0; i < 18; i++)
		rpc_sleep_on(&q, task(i, RPC_PRIORITY_NORMAL, 1));
	rpc_sleep_on(&q, task(20, RPC_PRIORITY_NORMAL, 2));
	rpc_sleep_on(&q, task(21, RPC_PRIORITY_NORMAL, 2));
	for (int i = 0; i < 17; i++)
		assert_int_equal(next(&q), i);
	assert_ptr_equal(q.last[RPC_PRIORITY_NORMAL], &w[17]);   /* A's rest at the tail */
	assert_int_equal(next(&q), 20);
	assert_int_equal(next(&q), 21);
	assert_int_equal(next(&q), 17);
	assert_int_equal(q.qlen, 0);
	assert_null(q.first[RPC_PRIORITY_NORMAL]);
	assert_null(q.last[RPC_PRIORITY_NORMAL]);
}

static void an_owners_later_tasks_survive_its_first_leaving(void **state)
{
	(void)state;
	struct rpc_wait_queue q;
	for (int fair = 0; fair <= 1; fair++) {
		rpc_init_priority_wait_queue(&q, fair);
		rpc_sleep_on(&q, task(1, RPC_PRIORITY_LOW, 1));
		rpc_sleep_on(&q, task(2, RPC_PRIORITY_LOW, 1));
		rpc_sleep_on(&q, task(3, RPC_PRIORITY_LOW, 1));
		assert_int_equal(next(&q), 1);
		rpc_sleep_on(&q, task(4, RPC_PRIORITY_LOW, 1));
		assert_int_equal(next(&q), 2);
		assert_int_equal(next(&q), 3);
		assert_int_equal(next(&q), 4);
		assert_int_equal(q.qlen, 0);
		assert_int_equal(next(&q), -1);
	}
}

static void fair_owners_alternate(void **state)
{
	(void)state;
	struct rpc_wait_queue q;
	rpc_init_priority_wait_queue(&q, 1);
	assert_int_equal(q.priority, RPC_PRIORITY_PRIVILEGED);
	assert_int_equal(q.nr, 8);
	rpc_sleep_on(&q, task(1, RPC_PRIORITY_LOW, 1));
	rpc_sleep_on(&q, task(2, RPC_PRIORITY_LOW, 1));
	rpc_sleep_on(&q, task(3, RPC_PRIORITY_LOW, 2));
	rpc_sleep_on(&q, task(4, RPC_PRIORITY_NORMAL, 1));
	assert_int_equal(next(&q), 4);
	assert_int_equal(q.nr, 2);
	assert_int_equal(next(&q), 1);
	assert_int_equal(next(&q), 3);
	assert_int_equal(next(&q), 2);
	assert_int_equal(next(&q), -1);
	assert_int_equal(q.priority, RPC_PRIORITY_PRIVILEGED);
	/* (F2) */
	for (int i = 0; i < 3; i++)
		rpc_sleep_on(&q, task(10 + i, RPC_PRIORITY_LOW, 1));
	for (int i = 0; i < 3; i++)
		rpc_sleep_on(&q, task(20 + i, RPC_PRIORITY_LOW, 2));
	static const int f2[] = { 10, 20, 11, 21, 12, 22 };
	for (int i = 0; i < 6; i++)
		assert_int_equal(next(&q), f2[i]);
	assert_int_equal(next(&q), -1);
}

static void fair_lists_serve_two_to_the_priority_in_a_row(void **state)
{
	(void)state;
	struct rpc_wait_queue q;
	rpc_init_priority_wait_queue(&q, 1);
	for (int i = 0; i < 6; i++)
		rpc_sleep_on(&q, task(1 + i, RPC_PRIORITY_NORMAL, 2));   /* N1..N6 = 1..6 */
	for (int i = 0; i < 3; i++)
		rpc_sleep_on(&q, task(11 + i, RPC_PRIORITY_LOW, 1));     /* L1..L3 = 11..13 */
	static const int order[] = { 1, 2, 3, 11, 12, 4, 5, 6, 13 };
	for (int i = 0; i < 9; i++)
		assert_int_equal(next(&q), order[i]);
	assert_int_equal(q.qlen, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(commit_overtakes_background_writes),
		cmocka_unit_test(owners_take_turns_in_batches_of_16),
		cmocka_unit_test(a_normal_task_waits_for_the_low_batch),
		cmocka_unit_test(later_tasks_keep_their_owners_place),
		cmocka_unit_test(a_used_up_batch_keeps_the_task_while_the_list_keeps_its_turn),
		cmocka_unit_test(an_owners_later_tasks_survive_its_first_leaving),
		cmocka_unit_test(fair_owners_alternate),
		cmocka_unit_test(fair_lists_serve_two_to_the_priority_in_a_row),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
