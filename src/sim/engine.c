/* Discrete-event engine: a binary heap of (time, sequence) ordered events.
 * Equal times run in scheduling order, which makes every run deterministic. */
#include <stdlib.h>
#include <string.h>
#include "sim.h"
#include "../throttle/throttle.h"
#include "../util/util.h"

/* One heap slot per thread (its next resume) and per timer (its expiry),
 * moved in place when it is rescheduled and taken out when cancelled, so the
 * heap holds only live events: a thread woken twice, or a timer re-armed,
 * leaves no stale entry behind to be popped and skipped.  Calls (sim_call_at)
 * are one-shot and have no owner.  Order is (time, sequence), the sequence
 * taken when an event is (re)scheduled, exactly as if a new entry had been
 * pushed and the old one skipped, so runs stay byte-identical. */
enum heap_kind { HK_RESUME, HK_CALL, HK_TIMER };

/* 32 bytes, two to a cache line: the order key (time, sequence) as one
 * 128-bit number compared in one step, the kind in the sequence's low bits
 * (sequences are unique, so the bits below them never decide an order). */
struct heap_ent {
	unsigned __int128 key;         /* (time ^ sign bit) << 64 | seq << 2 | kind */
	void *ptr;                     /* sthread, sim_timer, or the call's argument */
	void (*fn)(struct sim *, void *);
};

#define HEAP_D 2                       /* children per node: 2 measured faster than 4 and 8 (bench/loop_limit.c) */

static unsigned __int128 ent_key(ktime_t t, uint64_t seq, enum heap_kind kind)
{
	return (unsigned __int128)((uint64_t)t ^ (1ULL << 63)) << 64 | (seq << 2 | kind);
}

static ktime_t ent_time(const struct heap_ent *e) { return (ktime_t)((uint64_t)(e->key >> 64) ^ (1ULL << 63)); }
static enum heap_kind ent_kind(const struct heap_ent *e) { return (enum heap_kind)((uint64_t)e->key & 3); }

/* where the owner of an entry keeps its position, NULL for a call */
static size_t *owner_pos(const struct heap_ent *e)
{
	switch (ent_kind(e)) {
	case HK_RESUME:
		return &((struct sthread *)e->ptr)->heap_pos;
	case HK_TIMER:
		return &((struct sim_timer *)e->ptr)->heap_pos;
	default:
		return NULL;
	}
}

static void heap_set(struct sim *s, size_t i, const struct heap_ent *e)
{
	s->heap[i] = *e;
	size_t *pos = owner_pos(e);
	if (pos)
		*pos = i + 1;
}

static void sift_up(struct sim *s, size_t i, struct heap_ent e)
{
	while (i > 0) {
		size_t parent = (i - 1) / HEAP_D;
		if (e.key >= s->heap[parent].key)
			break;
		heap_set(s, i, &s->heap[parent]);
		i = parent;
	}
	heap_set(s, i, &e);
}

static void sift_down(struct sim *s, size_t i, struct heap_ent e)
{
	size_t n = s->heap_len;
	for (;;) {
		size_t c = HEAP_D * i + 1, m = c;
		if (c >= n)
			break;
		size_t last = c + HEAP_D < n ? c + HEAP_D : n;
		for (size_t k = c + 1; k < last; k++)
			if (s->heap[k].key < s->heap[m].key)
				m = k;
		if (s->heap[m].key >= e.key)
			break;
		heap_set(s, i, &s->heap[m]);
		i = m;
	}
	heap_set(s, i, &e);
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
	sift_up(s, s->heap_len++, e);
}

/* Removes the entry at i (its owner's position cleared). */
static void heap_remove(struct sim *s, size_t i)
{
	size_t *pos = owner_pos(&s->heap[i]);
	if (pos) {
		*pos = 0;
		if (pos == s->spent)
			s->spent = NULL;
	}
	struct heap_ent last = s->heap[--s->heap_len];
	if (i == s->heap_len)
		return;
	if (i > 0 && last.key < s->heap[(i - 1) / HEAP_D].key)
		sift_up(s, i, last);
	else
		sift_down(s, i, last);
}

/*
 * Unseen bursts.  A dd dirties pages at memory speed, and another thread can
 * tell how many it has dirtied only when it reads what the pages change: the
 * global, bdi and task counters, the inode, the writer's CPU.  A burst that
 * ends without entering the throttle on a local file system changes those
 * at its end and reads nothing another thread writes meanwhile (its own
 * counters, its own CPU's ratelimit), so other writers' such burst ends need
 * not cut it: two dd's no longer hand over page by page.  These bursts' ends
 * are kept outside the heap, and sim_next_event_time() does not see them.
 *
 * The rule that keeps every reader exact: no event from the heap (a flusher
 * pass, an I/O completion, a timer, a throttled writer) may run while an
 * unseen burst spans it, except a burst of its last single page, which a
 * page-by-page writer would have in flight too.  A burst is planned against
 * the heap's next event, so only an event put in the heap later, during an
 * unseen burst's end (a writer's next burst that ends in the throttle, or a
 * barrier below), can land inside one: it cuts every burst that spans it to
 * the pages done before it (writer.c).  A cut end may lie before the event
 * being dispatched; it then runs next, out of time order, which is safe
 * because between the cut end and the event nothing but unseen ends ran, and
 * they read nothing the cut end writes.  An unseen end that finds it must
 * read (its writer would enter the throttle, dirty a clean inode, cross a
 * proportion period, or wait for a busy CPU) first puts itself in the heap at
 * the same time (sim_unseen_barrier), which cuts the others.  What an end
 * writes that depends on its own time, not on the pages (the dirtied_when a
 * clean inode gets), would depend on where the burst was cut: a burst into
 * a clean inode is therefore one page, the page that dirties it.
 *
 * Results are byte-identical to cutting every burst at every event
 * (writer_lookahead=0) when a page's CPU time is a whole number of ns: the
 * page times are the same arithmetic either way.
 */
/* A writer's burst end is ordered after every other event of its time, and
 * among the burst ends of that time by when its writer's run of bursts
 * began (burst_order: the sequence of the resume that started it, so the
 * writer woken first goes first): not by when the burst was planned, which
 * depends on how often other threads' events cut it.  Every other event is
 * ordered by its sequence. */
#define KEY_BURST ((uint64_t)1 << 63)

static unsigned __int128 burst_key(ktime_t when, const struct sthread *t)
{
	return (unsigned __int128)((uint64_t)when ^ (1ULL << 63)) << 64 | KEY_BURST | t->burst_order << 2 | HK_RESUME;
}

static unsigned __int128 unseen_key(const struct sthread *t)
{
	return burst_key(t->unseen_when, t);
}

static void unseen_del(struct sim *s, struct sthread *t)
{
	size_t i = t->unseen_idx - 1;
	s->unseen[i] = s->unseen[--s->nunseen];
	s->unseen[i]->unseen_idx = i + 1;
	t->unseen_idx = 0;
}

static void heap_place(struct sim *s, size_t *pos, struct heap_ent e);

/* An event going into the heap at `when` during an unseen end cuts the
 * writers' bursts that span it (writer.c) */
static void cut_bursts_before(struct sim *s, ktime_t when)
{
	if (s->unseen_dispatch && s->unseen_cut)
		s->unseen_cut(s, when);
}

void sim_burst_move(struct sim *s, struct sthread *t, ktime_t when)
{
	if (t->unseen_idx)
		t->unseen_when = when;
	else if (t->heap_pos)
		heap_place(s, &t->heap_pos, (struct heap_ent){ .key = burst_key(when, t), .ptr = t });
}

/* An owned event at `when`: its slot moved if it has one, else a new one.
 * The slot may be the one of the event being dispatched (s->spent): moving
 * it is a pop and a push in one sift. */
static void heap_schedule(struct sim *s, size_t *pos, enum heap_kind kind, void *ptr, ktime_t when)
{
	cut_bursts_before(s, when);
	heap_place(s, pos, (struct heap_ent){ .key = ent_key(when, s->seq++, kind), .ptr = ptr });
}

static void heap_place(struct sim *s, size_t *pos, struct heap_ent e)
{
	if (!*pos) {
		heap_push(s, e);
		return;
	}
	if (pos == s->spent)
		s->spent = NULL;
	size_t i = *pos - 1;
	/* a later (time, seq) than before unless the time moved earlier */
	if (e.key < s->heap[i].key)
		sift_up(s, i, e);
	else
		sift_down(s, i, e);
}

static void schedule_resume(struct sim *s, struct sthread *t, ktime_t when)
{
	if (t->unseen_idx)
		unseen_del(s, t);
	heap_schedule(s, &t->heap_pos, HK_RESUME, t, when);
}

void sthread_start(struct sim *s, struct sthread *t, const char *comm, int pid, int cpu,
		   void (*fn)(void *), void *arg)
{
	t->sim = s;
	/* NUL-padded: an event copies all 16 bytes, and the trace writer
	 * compares them whole */
	memset(t->comm, 0, sizeof(t->comm));
	snprintf(t->comm, sizeof(t->comm), "%s", comm);
	t->pid = pid;
	t->cpu = cpu;
	t->wake_gen = 0;
	t->heap_pos = 0;
	t->wq_next = NULL;
	t->unseen_idx = 0;
	if (coro_init(&t->co, s->p.stack_kb * 1024, fn, arg)) {
		/* no way to unwind a half-built machine: say why, then stop */
		wb_error("cannot map a %llu KiB stack for thread %s (stack_kb)",
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

/* The current writer's next resume is the end of a burst: in the heap, or
 * if it is unseen beside it. */
void sim_sleep_burst(struct sim *s, ktime_t until, int unseen)
{
	struct sthread *t = s->current;
	t->wake_gen++;
	if (!unseen) {
		cut_bursts_before(s, until);
		heap_place(s, &t->heap_pos, (struct heap_ent){ .key = burst_key(until, t), .ptr = t });
		yield_to_sched(s);
		return;
	}
	if (t->heap_pos)
		heap_remove(s, t->heap_pos - 1);
	if (s->nunseen == s->unseen_cap) {
		size_t cap = s->unseen_cap ? s->unseen_cap * 2 : 16;
		struct sthread **u = realloc(s->unseen, cap * sizeof(*u));
		if (!u)
			abort();
		s->unseen = u;
		s->unseen_cap = cap;
	}
	t->unseen_when = until;
	s->unseen[s->nunseen++] = t;
	t->unseen_idx = s->nunseen;
	yield_to_sched(s);
}

/* An unseen burst's end that must read after all: it goes into the heap at
 * its own place (its time, its writer's order), which cuts the bursts
 * spanning it, and runs after their cut ends. */
void sim_unseen_barrier(struct sim *s)
{
	struct sthread *t = s->current;
	t->wake_gen++;
	cut_bursts_before(s, s->now);
	heap_place(s, &t->heap_pos, (struct heap_ent){ .key = burst_key(s->now, t), .ptr = t });
	yield_to_sched(s);
}

/* The 4.8+ timer wheel (calc_wheel_index): a timeout of n jiffies goes on
 * the first level whose range holds it (level 0 below 63 jiffies, each
 * level 8 times coarser: below 504, below 4032, ...), and fires when its
 * bucket does, at the next multiple of the level's granularity past the
 * expiry: one jiffy late at level 0, 1-8 at level 1 (a 100 ms pause at
 * HZ=1000), 1-64 at level 2.  The wheel's clock is taken to be jiffies
 * (forward_timer_base keeps it so when a CPU leaves idle). */
uint64_t timer_wheel_expiry(uint64_t now, uint64_t n)
{
	unsigned shift = 0;
	while (shift < 24 && n >= (63ULL << shift))
		shift += 3;
	return (((now + n) >> shift) + 1) << shift;
}

void schedule_timeout(struct sim *s, uint64_t n)
{
	struct sthread *t = s->current;
	t->wake_gen++;
	uint64_t now = jiffies(s);
	uint64_t at = n && s->model && s->model->timer_wheel_round_up ? timer_wheel_expiry(now, n) : now + n;
	schedule_resume(s, t, jiffies_to_ktime(s, at));
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
	else if (t->heap_pos)
		heap_remove(s, t->heap_pos - 1);   /* a wake-up that came before this wait is spent */
	yield_to_sched(s);
	/* woken by wake_up_* (which bumped the generation) or by the timeout */
	waitq_remove(wq, t);
	return t->wake_gen != gen;
}

/*
 * try_to_wake_up: the woken thread runs after the wakeup latency (IPI,
 * context switch), plus the exit latency of a deep idle state when its CPU
 * has been idle long enough to be in one.
 *
 * cpuidle's menu governor puts an idle CPU into the deepest state whose
 * target residency fits the idle time it predicts; leaving that state
 * (C6 on Nehalem: 200 us, worth entering from 800 us of idle) delays
 * whatever the wake-up wanted to run.  The model knows the idle time so far
 * (the CPU's last burst ended at cpu_busy_until) and uses it as the
 * prediction: a CPU idle for idle_residency_us or more pays idle_exit_us,
 * one that idled less pays nothing.  Simplified: one deep state (C3's
 * 20 us, entered from 80 us of idle, is not modelled), the governor's
 * prediction is exact, timer expiries stay exact (the wheel's own wake-ups
 * are not delayed; a wake-up may move a pending timeout of the same thread
 * by the latency), interrupt work, which the model does not charge to a
 * CPU, leaves it idle, and a thread whose CPU is busy pays nothing even if
 * select_cpu then moves it to a long-idle one.  With idle_exit_us 0 a
 * wake-up costs wakeup_ns alone.
 */
ktime_t wake_up_latency(const struct sim *s, const struct sthread *t)
{
	ktime_t lat = (ktime_t)s->p.wakeup_ns;
	if (s->p.idle_exit_us > 0 && s->cpu_busy_until &&
	    s->now - s->cpu_busy_until[t->cpu] >= (ktime_t)(s->p.idle_residency_us * 1000))
		lat += (ktime_t)(s->p.idle_exit_us * 1000);
	return lat;
}

void wake_up_thread(struct sim *s, struct sthread *t)
{
	t->wake_gen++;
	schedule_resume(s, t, s->now + wake_up_latency(s, t));
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
	tm->sim = s;
	tm->pending = 1;
	heap_schedule(s, &tm->heap_pos, HK_TIMER, tm, when);
}

void sim_timer_cancel(struct sim_timer *tm)
{
	if (tm->heap_pos)
		heap_remove(tm->sim, tm->heap_pos - 1);
	tm->pending = 0;
}

void sim_call_at(struct sim *s, ktime_t when, void (*fn)(struct sim *, void *), void *arg)
{
	cut_bursts_before(s, when);
	struct heap_ent e = { .key = ent_key(when, s->seq++, HK_CALL), .ptr = arg, .fn = fn };
	heap_push(s, e);
}

/* Where a thread that wants CPU time runs: select_task_rq() reduced to its
 * two effects that matter here.  A thread whose CPU is free stays on it
 * (cache affinity, wake-affine); one whose CPU is busy moves to the CPU that
 * frees first, an idle one if there is any (the idle pull of the load
 * balancer), lowest number first on a tie.  Left out of CFS: weights and
 * vruntime (every thread here has nice 0 and runs in bursts of at most
 * batch_max_us), the migration cost and the balancing interval (a move takes
 * no time), NUMA.  cpu_migrate=0 pins every thread to its first CPU. */
static void select_cpu(struct sim *s, struct sthread *t)
{
	if (!s->p.cpu_migrate || s->cpu_busy_until[t->cpu] <= s->now)
		return;
	int best = t->cpu;
	for (int i = 0; i < s->ncpus; i++)
		if (s->cpu_busy_until[i] < s->cpu_busy_until[best])
			best = i;
	t->cpu = best;
}

ktime_t cpu_free_at(struct sim *s, struct sthread *t)
{
	select_cpu(s, t);
	return s->cpu_busy_until[t->cpu] > s->now ? s->cpu_busy_until[t->cpu] : s->now;
}

ktime_t sim_next_event_time(const struct sim *s)
{
	/* the slot of the event being dispatched is not pending: the next is
	 * the root unless that slot is the root, then the least of its children */
	const struct heap_ent *top = s->heap_len ? &s->heap[0] : NULL;
	if (top && s->spent && *s->spent == 1) {
		top = NULL;
		for (size_t k = 1; k <= HEAP_D && k < s->heap_len; k++)
			if (!top || s->heap[k].key < top->key)
				top = &s->heap[k];
	}
	return top && ent_time(top) < s->end ? ent_time(top) : s->end;
}

/* The next event of any other thread, unseen burst ends included. */
ktime_t sim_next_event_time_all(const struct sim *s)
{
	ktime_t next = sim_next_event_time(s);
	for (size_t i = 0; i < s->nunseen; i++)
		if (s->unseen[i]->unseen_when < next)
			next = s->unseen[i]->unseen_when;
	return next;
}

void cpu_run(struct sim *s, struct sthread *t, ktime_t ns)
{
	cpu_run_from(s, t, cpu_free_at(s, t), ns);
}

void cpu_run_from(struct sim *s, struct sthread *t, ktime_t start, ktime_t ns)
{
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

/* Runs the heap's first event; its slot stays in place while it runs. */
static void dispatch_heap_top(struct sim *s, struct heap_ent *top)
{
	switch (ent_kind(top)) {
	case HK_RESUME: {
		struct sthread *t = top->ptr;
		/* a resume that is not a burst's end starts a run of bursts */
		if (!((uint64_t)top->key & KEY_BURST))
			t->burst_order = (uint64_t)top->key >> 2;
		s->spent = &t->heap_pos;
		s->current = t;
		coro_switch(&s->sched, &t->co);
		s->current = NULL;
		break;
	}
	case HK_TIMER: {
		struct sim_timer *tm = top->ptr;
		s->spent = &tm->heap_pos;
		tm->pending = 0;
		tm->fn(s, tm->arg);
		break;
	}
	case HK_CALL: {
		struct heap_ent e = *top;
		heap_remove(s, 0);
		e.fn(s, e.ptr);
		break;
	}
	}
}

/* Runs events until the end time; returns 0, or -1 if an invariant broke.
 * A thread's or timer's entry stays in place while it is dispatched (marked
 * spent): most reschedule themselves while running, which then moves the
 * entry once instead of popping it and pushing a new one.  One left spent
 * when the dispatch returns is removed then. */
int sim_run_events(struct sim *s)
{
	while (s->heap_len || s->nunseen) {
		struct heap_ent *top = s->heap_len ? &s->heap[0] : NULL;
		struct sthread *u = NULL;
		for (size_t i = 0; i < s->nunseen; i++)
			if (!u || unseen_key(s->unseen[i]) < unseen_key(u))
				u = s->unseen[i];
		if (u && (!top || unseen_key(u) < top->key)) {
			if (u->unseen_when > s->end)
				break;
			s->now = u->unseen_when;
			s->events++;
			s->heap_len_sum += s->heap_len + s->nunseen - 1;
			unseen_del(s, u);
			s->unseen_dispatch = 1;
			s->current = u;
			coro_switch(&s->sched, &u->co);
			s->current = NULL;
			s->unseen_dispatch = 0;
		} else {
			if (ent_time(top) > s->end)
				break;
			s->now = ent_time(top);
			s->events++;
			s->heap_len_sum += s->heap_len + s->nunseen - 1;   /* the others: this one stays in place while it runs */
			dispatch_heap_top(s, top);
		}
		if (s->spent) {
			heap_remove(s, *s->spent - 1);
			s->spent = NULL;
		}
		if (s->p.debug_checks)
			sim_check_invariants(s);
		if (s->error[0])
			return -1;
	}
	s->now = s->end;
	return 0;
}
