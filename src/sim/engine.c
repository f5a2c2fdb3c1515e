/* Discrete-event engine: a binary heap of (time, sequence) ordered events.
 * Equal times run in scheduling order, which makes every run deterministic. */
#include <stdlib.h>
#include <string.h>
#include "sim.h"

enum heap_kind { HK_RESUME, HK_CALL, HK_TIMER };

struct heap_ent {
	ktime_t t;
	uint64_t seq;
	enum heap_kind kind;
	uint64_t gen;
	void *ptr;
	void (*fn)(struct sim *, void *);
};

static int ent_less(const struct heap_ent *a, const struct heap_ent *b)
{
	return a->t < b->t || (a->t == b->t && a->seq < b->seq);
}

static void heap_push(struct sim *s, struct heap_ent e)
{
	if (s->heap_len == s->heap_cap) {
		size_t cap = s->heap_cap ? s->heap_cap * 2 : 256;
		struct heap_ent *h = realloc(s->heap, cap * sizeof(*h));
		if (!h)
			abort();
		s->heap = h;
		s->heap_cap = cap;
	}
	e.seq = s->seq++;
	size_t i = s->heap_len++;
	while (i > 0) {
		size_t parent = (i - 1) / 2;
		if (!ent_less(&e, &s->heap[parent]))
			break;
		s->heap[i] = s->heap[parent];
		i = parent;
	}
	s->heap[i] = e;
}

static struct heap_ent heap_pop(struct sim *s)
{
	struct heap_ent top = s->heap[0];
	struct heap_ent last = s->heap[--s->heap_len];
	size_t i = 0, n = s->heap_len;
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		const struct heap_ent *best = &last;
		if (l < n && ent_less(&s->heap[l], best)) {
			m = l;
			best = &s->heap[l];
		}
		if (r < n && ent_less(&s->heap[r], best))
			m = r;
		if (m == i)
			break;
		s->heap[i] = s->heap[m];
		i = m;
	}
	if (n)
		s->heap[i] = last;
	return top;
}

static void schedule_resume(struct sim *s, struct sthread *t, ktime_t when)
{
	struct heap_ent e = { .t = when, .kind = HK_RESUME, .gen = t->wake_gen, .ptr = t };
	heap_push(s, e);
}

void sthread_start(struct sim *s, struct sthread *t, const char *comm, int pid, int cpu,
		   void (*fn)(void *), void *arg)
{
	t->sim = s;
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	t->pid = pid;
	t->cpu = cpu;
	t->wake_gen = 0;
	t->wq_next = NULL;
	if (coro_init(&t->co, s->p.stack_kb * 1024, fn, arg)) {
		/* no way to unwind a half-built machine: say why, then stop */
		fprintf(stderr, "wblab: cannot map a %llu KiB stack for thread %s (stack_kb)\n",
			(unsigned long long)s->p.stack_kb, comm);
		abort();
	}
	schedule_resume(s, t, s->now);
}

/* Give control back to the scheduler until something resumes this thread. */
static void yield_to_sched(struct sim *s)
{
	struct sthread *t = s->current;
	coro_switch(&t->co, &s->sched);
}

void sim_sleep_ns(struct sim *s, ktime_t ns)
{
	struct sthread *t = s->current;
	t->wake_gen++;
	schedule_resume(s, t, s->now + (ns > 0 ? ns : 0));
	yield_to_sched(s);
}

void schedule_timeout(struct sim *s, uint64_t n)
{
	struct sthread *t = s->current;
	t->wake_gen++;
	schedule_resume(s, t, jiffies_to_ktime(s, jiffies(s) + n));
	yield_to_sched(s);
}

static void waitq_remove(struct waitq *wq, struct sthread *t)
{
	struct sthread **pp = &wq->head, *prev = NULL;
	while (*pp && *pp != t) {
		prev = *pp;
		pp = &(*pp)->wq_next;
	}
	if (!*pp)
		return;
	*pp = t->wq_next;
	if (wq->tail == t)
		wq->tail = prev;
	t->wq_next = NULL;
}

int sim_wait(struct sim *s, struct waitq *wq, uint64_t timeout)
{
	struct sthread *t = s->current;
	uint64_t gen = ++t->wake_gen;
	t->wq_next = NULL;
	if (wq->tail)
		wq->tail->wq_next = t;
	else
		wq->head = t;
	wq->tail = t;
	if (timeout)
		schedule_resume(s, t, jiffies_to_ktime(s, jiffies(s) + timeout));
	yield_to_sched(s);
	/* woken by wake_up_* (which bumped the generation) or by the timeout */
	waitq_remove(wq, t);
	return t->wake_gen != gen;
}

/* try_to_wake_up: the woken thread runs after the wakeup latency (IPI,
 * idle exit, context switch) */
void wake_up_thread(struct sim *s, struct sthread *t)
{
	t->wake_gen++;
	schedule_resume(s, t, s->now + (ktime_t)s->p.wakeup_ns);
}

void wake_up_all(struct sim *s, struct waitq *wq)
{
	struct sthread *t = wq->head;
	wq->head = wq->tail = NULL;
	while (t) {
		struct sthread *next = t->wq_next;
		t->wq_next = NULL;
		wake_up_thread(s, t);
		t = next;
	}
}

void sim_timer_arm(struct sim *s, struct sim_timer *tm, ktime_t when)
{
	tm->gen++;
	tm->pending = 1;
	struct heap_ent e = { .t = when, .kind = HK_TIMER, .gen = tm->gen, .ptr = tm };
	heap_push(s, e);
}

void sim_timer_cancel(struct sim_timer *tm)
{
	tm->gen++;
	tm->pending = 0;
}

void sim_call_at(struct sim *s, ktime_t when, void (*fn)(struct sim *, void *), void *arg)
{
	struct heap_ent e = { .t = when, .kind = HK_CALL, .ptr = arg, .fn = fn };
	heap_push(s, e);
}

ktime_t cpu_free_at(const struct sim *s, const struct sthread *t)
{
	return s->cpu_busy_until[t->cpu] > s->now ? s->cpu_busy_until[t->cpu] : s->now;
}

ktime_t sim_next_event_time(const struct sim *s)
{
	return s->heap_len && s->heap[0].t < s->end ? s->heap[0].t : s->end;
}

void cpu_run(struct sim *s, struct sthread *t, ktime_t ns)
{
	ktime_t start = cpu_free_at(s, t);
	s->cpu_busy_until[t->cpu] = start + ns;
	sim_sleep_ns(s, start + ns - s->now);
}

double sim_rand(struct sim *s)
{
	/* xorshift64*: tiny, fast and the same on every platform */
	uint64_t x = s->rng;
	x ^= x >> 12;
	x ^= x << 25;
	x ^= x >> 27;
	s->rng = x;
	return (double)((x * 2685821657736338717ULL) >> 11) / 9007199254740992.0;
}

/* Runs events until the end time; returns 0, or -1 if an invariant broke. */
int sim_run_events(struct sim *s)
{
	while (s->heap_len) {
		if (s->heap[0].t > s->end)
			break;
		struct heap_ent e = heap_pop(s);
		s->now = e.t;
		s->events++;
		switch (e.kind) {
		case HK_RESUME: {
			struct sthread *t = e.ptr;
			if (e.gen != t->wake_gen)
				continue;
			s->current = t;
			coro_switch(&s->sched, &t->co);
			s->current = NULL;
			break;
		}
		case HK_TIMER: {
			struct sim_timer *tm = e.ptr;
			if (e.gen != tm->gen)
				continue;
			tm->pending = 0;
			tm->fn(s, tm->arg);
			break;
		}
		case HK_CALL:
			e.fn(s, e.ptr);
			break;
		}
		if (s->p.debug_checks)
			sim_check_invariants(s);
		if (s->error[0])
			return -1;
	}
	s->now = s->end;
	return 0;
}
