/* bench/loop_limit: the event loop's own ceiling, events per CPU second with
 * no model behind it: NTHREADS simulated threads that only sleep (a heap of
 * about the size the 10 dd cases hold; two coroutine switches per event,
 * into the thread and back), on the engine wblab sim uses.  bench/sim-speed prints each case's events per
 * CPU second against it. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include "sim/sim.h"

int sim_run_events(struct sim *s);

#define NTHREADS 12

static void sleeper(void *arg)
{
	struct sthread *t = arg;
	/* unequal periods: each wake-up lands somewhere inside the heap */
	ktime_t period = 1000 + 37 * t->pid;
	for (;;)
		sim_sleep_ns(t->sim, period);
}

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* events per CPU second of the bare loop */
double loop_limit_events_per_s(void)
{
	struct sim *s = calloc(1, sizeof(*s));
	struct sthread *t = calloc(NTHREADS, sizeof(*t));
	if (!s || !t)
		return 0;
	s->p.stack_kb = 64;
	s->end = 400000000LL;    /* 0.4 s: about 4 M events */
	for (int i = 0; i < NTHREADS; i++)
		sthread_start(s, &t[i], "sleeper", i, 0, sleeper, &t[i]);
	double t0 = cpu_now();
	sim_run_events(s);
	double cpu = cpu_now() - t0;
	double rate = cpu > 0 ? (double)s->events / cpu : 0;
	for (int i = 0; i < NTHREADS; i++)
		coro_free(&t[i].co);
	free(s->heap);
	free(s);
	free(t);
	return rate;
}
