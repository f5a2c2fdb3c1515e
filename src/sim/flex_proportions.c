#include "flex_proportions.h"

void fprop_global_init(struct fprop_global *g)
{
	/* starts at 1 so that a fraction never divides by zero */
	g->events = 1;
	g->period = 0;
}

int fprop_new_period(struct fprop_global *g, uint64_t periods)
{
	if (g->events <= 1)
		return 0;
	g->events = periods >= 64 ? 0 : g->events >> periods;
	g->period += periods;
	return 1;
}

/* Lazily apply the halvings a local missed since it was last touched. */
static void fprop_reflect_period(const struct fprop_global *g, struct fprop_local *l)
{
	if (l->period >= g->period)
		return;
	uint64_t d = g->period - l->period;
	l->events = d >= 64 ? 0 : l->events >> d;
	l->period = g->period;
}

void fprop_fraction(struct fprop_global *g, struct fprop_local *l, uint64_t *num, uint64_t *den)
{
	fprop_reflect_period(g, l);
	*num = l->events;
	*den = g->events;
	if (*den <= *num)
		*den = *num ? *num : 1;
}

void fprop_inc(struct fprop_global *g, struct fprop_local *l, uint64_t n, uint64_t max_frac)
{
	fprop_reflect_period(g, l);
	if (max_frac < FPROP_FRAC_BASE) {
		/* __fprop_add_percpu_max: nothing once the share is over max_frac,
		 * else at most the m that brings (num + m) / (den + m) to it,
		 * rounded up (so the share may end a hair above the cap) */
		uint64_t num, den;
		fprop_fraction(g, l, &num, &den);
		int64_t tmp = (int64_t)(den * max_frac) - (int64_t)(num * FPROP_FRAC_BASE);
		int64_t span = (int64_t)(FPROP_FRAC_BASE - max_frac);
		if (tmp < 0)
			return;
		if (tmp < (int64_t)n * span)
			n = (uint64_t)((tmp + span - 1) / span);
		if (!n)
			return;
	}
	l->events += n;
	g->events += n;
}

void fprop_warm(struct fprop_global *g, struct fprop_local *l, double f)
{
	/* about what one period of completions at 100 MiB/s leaves after aging */
	if (g->events < 2 * 25600)
		g->events = 2 * 25600;
	l->period = g->period;
	l->events = (uint64_t)(f * (double)g->events);
}

uint64_t vm_completions_period(const struct sim *s)
{
	return 3 * s->p.hz;
}

/* Timer: age by the periods that passed (more than one if it fired late). */
static void writeout_period(struct sim *s, void *arg)
{
	(void)arg;
	uint64_t len = vm_completions_period(s), now = jiffies(s);
	uint64_t miss = now > s->period_time ? (now - s->period_time) / len : 0;
	if (!fprop_new_period(&s->completions, miss + 1)) {
		s->period_time = 0;
		return;
	}
	s->period_time += (miss + 1) * len;
	if (!s->period_time)
		s->period_time = 1;
	sim_timer_arm(s, &s->period_timer, jiffies_to_ktime(s, s->period_time));
}

void wb_domain_writeout_add(struct sim *s, struct bdi *bdi, uint64_t n)
{
	fprop_inc(&s->completions, &bdi->wb_completions, n,
		  FPROP_FRAC_BASE * bdi->max_ratio / 100);
	if (s->period_time)
		return;
	s->period_time = jiffies(s) + vm_completions_period(s);
	if (!s->period_time)
		s->period_time = 1;
	s->period_timer.fn = writeout_period;
	s->period_timer.arg = NULL;
	sim_timer_arm(s, &s->period_timer, jiffies_to_ktime(s, s->period_time));
}
