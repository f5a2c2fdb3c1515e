#include "proportions.h"
#include "../util/util.h"

int prop_calc_shift(uint64_t dirty_total)
{
	int s = 2 + (dirty_total > 1 ? ilog2_u64(dirty_total - 1) : 0);
	return s > 48 ? 48 : s;
}

void prop_descriptor_init(struct prop_descriptor *pd, int shift)
{
	pd->shift = shift;
	pd->events = 0;
}

/* prop_norm_percpu: catch the local up with the half periods it missed. */
static void prop_norm(struct prop_descriptor *pd, struct prop_local *pl)
{
	uint64_t half = 1ULL << (pd->shift - 1);
	uint64_t g = pd->events & ~(half - 1);
	if (pl->period == g)
		return;
	uint64_t missed = (g - pl->period) >> (pd->shift - 1);
	pl->events = missed >= 64 ? 0 : pl->events >> missed;
	pl->period = g;
}

void prop_inc(struct prop_descriptor *pd, struct prop_local *pl, uint64_t n, uint64_t max_frac)
{
	uint64_t half = 1ULL << (pd->shift - 1);
	while (n) {
		prop_norm(pd, pl);
		if (max_frac < PROP_FRAC_BASE) {
			uint64_t num, den;
			prop_fraction(pd, pl, &num, &den);
			if (num > den * max_frac / PROP_FRAC_BASE)
				return;
		}
		/* do not let one batch straddle a half-period boundary */
		uint64_t room = half - (pd->events & (half - 1));
		uint64_t k = n < room ? n : room;
		pl->events += k;
		pd->events += k;
		n -= k;
	}
}

void prop_fraction(struct prop_descriptor *pd, struct prop_local *pl, uint64_t *num, uint64_t *den)
{
	uint64_t half = 1ULL << (pd->shift - 1);
	prop_norm(pd, pl);
	*num = pl->events;
	*den = half + (pd->events & (half - 1));
}

void prop_warm(struct prop_descriptor *pd, struct prop_local *pl, double f)
{
	/* a source producing share f of all events settles at about f of the period */
	uint64_t half = 1ULL << (pd->shift - 1);
	if (pd->events < 2 * half)
		pd->events = 2 * half;
	pl->period = pd->events & ~(half - 1);
	pl->events = (uint64_t)(f * (double)(half + (pd->events & (half - 1))));
}
