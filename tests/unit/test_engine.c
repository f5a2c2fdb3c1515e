/* The event engine's bookkeeping: one heap slot per thread and per timer, moved
 * on reschedule and removed on cancel, with the order a fresh entry would have
 * had.  Hand-made threads and timers on a bare struct sim. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdlib.h>
#include <string.h>
#include "sim/sim.h"

int sim_run_events(struct sim *s);

static struct sim *bare_sim(void)
{
	struct sim *s = calloc(1, sizeof(*s));
	s->p.stack_kb = 64;
	s->p.wakeup_ns = 100;
	s->end = 1000000;
	return s;
}

static char order[64];
static void mark(struct sim *s, void *arg)
{
	(void)s;
	strcat(order, arg);
}

static void timers_rearmed_and_cancelled_fire_once_or_never(void **state)
{
	(void)state;
	struct sim *s = bare_sim();
	struct sim_timer a = { .fn = mark, .arg = "a" }, b = { .fn = mark, .arg = "b" },
			 c = { .fn = mark, .arg = "c" };
	order[0] = 0;
	sim_timer_arm(s, &a, 500);
	sim_timer_arm(s, &b, 300);
	sim_timer_arm(s, &c, 400);
	sim_timer_arm(s, &a, 100);      /* moved earlier: one slot, not two */
	sim_timer_arm(s, &b, 600);      /* moved later */
	assert_int_equal(s->heap_len, 3);
	sim_timer_cancel(&c);
	assert_int_equal(s->heap_len, 2);
	assert_false(c.pending);
	sim_call_at(s, 600, mark, "x");  /* same time as b, scheduled after it */
	assert_int_equal(sim_run_events(s), 0);
	assert_string_equal(order, "abx");
	assert_int_equal(s->heap_len, 0);
	assert_int_equal(s->events, 3);  /* nothing stale popped */
	assert_int_equal(s->heap_len_sum, 2 + 1 + 0);   /* pending beside a, b, x: not counting each */
	free(s->heap);
	free(s);
}

static struct waitq wq;
static int woke_at[4];
static void waiter(void *arg)
{
	struct sim *s = arg;
	sim_wait(s, &wq, 0);
	woke_at[0] = (int)s->now;
	for (;;)
		sim_sleep_ns(s, 1000000000);
}

static void waker(void *arg)
{
	struct sim *s = arg;
	sim_sleep_ns(s, 1000);
	wake_up_all(s, &wq);
	for (;;)
		sim_sleep_ns(s, 1000000000);
}

/* a thread woken while running keeps no live slot once it waits again */
static void self_waker(void *arg)
{
	struct sim *s = arg;
	wake_up_thread(s, s->current);  /* a wake-up it gets before it waits */
	sim_wait(s, &wq, 0);            /* must sleep until someone else wakes it */
	woke_at[1] = (int)s->now;
	for (;;)
		sim_sleep_ns(s, 1000000000);
}

static void wakeups_before_a_wait_are_spent(void **state)
{
	(void)state;
	struct sim *s = bare_sim();
	struct sthread t1, t2, t3;
	memset(&wq, 0, sizeof(wq));
	memset(woke_at, 0, sizeof(woke_at));
	sthread_start(s, &t3, "self", 3, 0, self_waker, s);
	sthread_start(s, &t1, "waiter", 1, 0, waiter, s);
	sthread_start(s, &t2, "waker", 2, 0, waker, s);
	assert_int_equal(sim_run_events(s), 0);
	assert_int_equal(woke_at[0], 1000 + 100);   /* woken at 1000, runs after wakeup_ns */
	assert_int_equal(woke_at[1], 1000 + 100);   /* its own early wake-up did not count */
	coro_free(&t1.co);
	coro_free(&t2.co);
	coro_free(&t3.co);
	free(s->heap);
	free(s);
}

/* the load balancer: a thread whose CPU is busy runs on the one free first */
static int ran_on[3];
static void burner(void *arg)
{
	struct sthread *t = arg;
	struct sim *s = t->sim;
	cpu_run(s, t, 1000);
	ran_on[t->pid] = t->cpu;
	for (;;)
		sim_sleep_ns(s, 1000000000);
}

static void busy_threads_move_to_the_cpu_that_frees_first(void **state)
{
	(void)state;
	for (int migrate = 0; migrate <= 1; migrate++) {
		struct sim *s = bare_sim();
		int64_t busy[2] = { 0, 0 };
		struct sthread t[3];
		s->ncpus = 2;
		s->cpu_busy_until = busy;
		s->p.cpu_migrate = (uint64_t)migrate;
		/* all three start on CPU 0 */
		for (int i = 0; i < 3; i++)
			sthread_start(s, &t[i], "dd", i, 0, burner, &t[i]);
		assert_int_equal(sim_run_events(s), 0);
		if (migrate) {
			assert_int_equal(ran_on[0], 0);  /* first: its CPU was free, it stays */
			assert_int_equal(ran_on[1], 1);  /* CPU 0 busy: the idle CPU 1 */
			assert_int_equal(ran_on[2], 0);  /* both busy until 1000: lowest first */
			assert_int_equal(busy[0], 2000);
			assert_int_equal(busy[1], 1000);
		} else {
			for (int i = 0; i < 3; i++)
				assert_int_equal(ran_on[i], 0);  /* pinned: they queue on CPU 0 */
			assert_int_equal(busy[0], 3000);
			assert_int_equal(busy[1], 0);
		}
		for (int i = 0; i < 3; i++)
			coro_free(&t[i].co);
		free(s->heap);
		free(s);
	}
}


/* While a thread runs, its own resume is spent: the next event is someone
 * else's, also right after it slept and was resumed in the same slot. */
static ktime_t seen_next[3];
static struct sim_timer next_tm = { .fn = mark, .arg = "t" };
static void sleeper_700(void *arg)
{
	struct sim *s = arg;
	for (;;)
		sim_sleep_ns(s, 700);
}

static void asker(void *arg)
{
	struct sim *s = arg;
	seen_next[0] = sim_next_event_time(s);   /* the timer at 500, not its own slot at 0 */
	sim_timer_cancel(&next_tm);
	seen_next[1] = sim_next_event_time(s);   /* the sleeper at 700 */
	sim_sleep_ns(s, 100);
	seen_next[2] = sim_next_event_time(s);   /* at 100: still the sleeper */
	for (;;)
		sim_sleep_ns(s, 1000000000);
}

static void next_event_excludes_the_running_thread(void **state)
{
	(void)state;
	struct sim *s = bare_sim();
	struct sthread a, b;
	order[0] = 0;
	sthread_start(s, &b, "sleeper", 2, 0, sleeper_700, s);
	sthread_start(s, &a, "asker", 1, 0, asker, s);
	sim_timer_arm(s, &next_tm, 500);
	s->end = 1000;
	assert_int_equal(sim_run_events(s), 0);
	assert_int_equal(seen_next[0], 500);
	assert_int_equal(seen_next[1], 700);
	assert_int_equal(seen_next[2], 700);
	assert_string_equal(order, "");      /* the cancelled timer never fired */
	coro_free(&a.co);
	coro_free(&b.co);
	free(s->heap);
	free(s);
}

/* Burst ends (sim_sleep_burst) of one ns run after every other event of
 * that ns, and among themselves in the order their writers' runs began: here
 * "b" started first, so its burst end runs before "a"'s, whichever is unseen.
 * An unseen end is outside the heap: sim_next_event_time() does not see it,
 * sim_next_event_time_all() does.  An event put in the heap while an unseen
 * end runs asks the writers' rule to cut bursts before it; elsewhere not. */
static ktime_t cut_before[4];
static int ncut;
static void record_cut(struct sim *s, ktime_t before)
{
	(void)s;
	if (ncut < 4)
		cut_before[ncut++] = before;
}

static ktime_t next_heap, next_all;
static struct sim_timer burst_tm = { .fn = mark, .arg = "t" };
static void burster_a(void *arg)
{
	struct sim *s = arg;
	sim_sleep_burst(s, 200, 1);          /* unseen */
	strcat(order, "A");
	sim_sleep_burst(s, 300, 1);          /* unseen again, no cut asked */
	strcat(order, "a");
	sim_timer_arm(s, &burst_tm, 350);    /* from an unseen end: cuts before 350 */
	sim_sleep_burst(s, 1000000000, 0);
}

static void burster_b(void *arg)
{
	struct sim *s = arg;
	next_heap = sim_next_event_time(s);
	sim_sleep_burst(s, 300, 0);          /* in the heap */
	strcat(order, "b");
	sim_sleep_ns(s, 1000000000);         /* from a heap event: no cut */
}

static void burster_c(void *arg)
{
	struct sim *s = arg;
	sim_sleep_ns(s, 10);
	next_all = sim_next_event_time_all(s);
	next_heap = sim_next_event_time(s);
	sim_sleep_ns(s, 1000000000);
}

static void burst_ends_run_after_other_events_in_the_order_runs_began(void **state)
{
	(void)state;
	struct sim *s = bare_sim();
	struct sthread a, b, c;
	struct sim_timer t300 = { .fn = mark, .arg = "x" };
	order[0] = 0;
	ncut = 0;
	s->unseen_cut = record_cut;
	s->cpu_busy_until = calloc(1, sizeof(*s->cpu_busy_until));
	sthread_start(s, &b, "b", 2, 0, burster_b, s);
	sthread_start(s, &a, "a", 1, 0, burster_a, s);
	sthread_start(s, &c, "c", 3, 0, burster_c, s);
	sim_timer_arm(s, &t300, 300);        /* armed after both runs began */
	s->end = 1000;
	assert_int_equal(sim_run_events(s), 0);
	assert_string_equal(order, "Axbat");
	assert_int_equal(next_all, 200);     /* a's unseen end */
	assert_int_equal(next_heap, 300);    /* b's end and the timer: a's is not in the heap */
	assert_int_equal(ncut, 2);           /* the timer at 350 and a's next burst end */
	assert_int_equal(cut_before[0], 350);
	assert_int_equal(cut_before[1], 1000000000);
	coro_free(&a.co);
	coro_free(&b.co);
	coro_free(&c.co);
	free(s->cpu_busy_until);
	free(s->unseen);
	free(s->heap);
	free(s);
}

/* a wake-up onto a CPU idle for the deep state's residency pays its exit
 * latency; onto one that idled less, or a busy one, only wakeup_ns */
static void wakeups_after_a_long_idle_pay_the_exit_latency(void **state)
{
	(void)state;
	struct sim *s = bare_sim();
	int64_t busy[2] = { 0, 0 };
	struct sthread t = { .cpu = 1 };
	s->ncpus = 2;
	s->cpu_busy_until = busy;
	s->p.idle_exit_us = 200;
	s->p.idle_residency_us = 800;
	s->now = 5000000;
	busy[1] = 5000000 - 800000;                         /* idle exactly 800 us */
	assert_int_equal(wake_up_latency(s, &t), 100 + 200000);
	busy[1] = 5000000 - 799999;                         /* 1 ns short of it */
	assert_int_equal(wake_up_latency(s, &t), 100);
	busy[1] = 5000000 + 1000000;                        /* a burst runs for 1 ms more */
	assert_int_equal(wake_up_latency(s, &t), 100);
	s->p.idle_exit_us = 0;                              /* off */
	busy[1] = 0;
	assert_int_equal(wake_up_latency(s, &t), 100);
	/* through the waitq: the waiter runs 200 us later than wakeup_ns alone */
	s->p.idle_exit_us = 200;
	s->now = 0;
	s->end = 10000000;
	struct sthread w1, w2;
	memset(&wq, 0, sizeof(wq));
	memset(woke_at, 0, sizeof(woke_at));
	sthread_start(s, &w1, "waiter", 1, 1, waiter, s);
	sthread_start(s, &w2, "waker", 2, 0, waker, s);
	busy[1] = 0;
	s->p.idle_residency_us = 0.5;                        /* 1000 ns of idle is enough */
	assert_int_equal(sim_run_events(s), 0);
	assert_int_equal(woke_at[0], 1000 + 100 + 200000);
	coro_free(&w1.co);
	coro_free(&w2.co);
	free(s->heap);
	free(s);
}

/* calc_wheel_index by hand: level 0 below 63 jiffies (+1), level 1 below
 * 504 (granularity 8), level 2 below 4032 (64) */
static void the_timer_wheel_fires_at_its_levels_bucket(void **state)
{
	(void)state;
	assert_int_equal(timer_wheel_expiry(1000, 1), 1002);
	assert_int_equal(timer_wheel_expiry(1000, 62), 1063);
	/* 63: level 1, expiry 1063 -> bucket (1063 >> 3) + 1 = 133 -> 1064 */
	assert_int_equal(timer_wheel_expiry(1000, 63), 1064);
	/* a 200 ms pause at HZ=1000: 1200 is a multiple of 8, still the next bucket */
	assert_int_equal(timer_wheel_expiry(1000, 200), 1208);
	assert_int_equal(timer_wheel_expiry(1001, 100), 1104);
	assert_int_equal(timer_wheel_expiry(1000, 503), 1504);
	/* 504: level 2, 1504 -> (1504 >> 6) + 1 = 24 -> 1536 */
	assert_int_equal(timer_wheel_expiry(1000, 504), 1536);
	/* 5 s at HZ=1000 (the kupdate interval): level 3, granularity 512 */
	assert_int_equal(timer_wheel_expiry(0, 5000), 5120);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(the_timer_wheel_fires_at_its_levels_bucket),
		cmocka_unit_test(timers_rearmed_and_cancelled_fire_once_or_never),
		cmocka_unit_test(wakeups_before_a_wait_are_spent),
		cmocka_unit_test(busy_threads_move_to_the_cpu_that_frees_first),
		cmocka_unit_test(next_event_excludes_the_running_thread),
		cmocka_unit_test(burst_ends_run_after_other_events_in_the_order_runs_began),
		cmocka_unit_test(wakeups_after_a_long_idle_pay_the_exit_latency),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
