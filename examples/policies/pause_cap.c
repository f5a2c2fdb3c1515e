/* Idea (a): a pause cap that scales with the number of dirtiers.
 *
 * 3.2 caps a pause at bdi_max_pause(): 20 ms plus 20 ms per doubling of the
 * dirtiers (estimated as write_bw / dirty_ratelimit).  Here the cap is
 * 10 ms per dirtier instead, within [4 jiffies, MAX_PAUSE]: one dd polls
 * twice as often (smoother, more overhead), ten dds sleep longer than 3.2
 * lets them (fewer wake-ups, burstier).  Everything else is 3.2's. */
#include <wblab/policy.h>

static int64_t pause_cap(const struct wblab_api *wb, const struct wblab_pass *p)
{
	uint64_t cap = p->nr_dirtiers * p->hz / 100;
	if (cap < 4)
		cap = 4;
	if (cap > p->max_pause_limit)
		cap = p->max_pause_limit;
	/* 3.2's pause before its own cap, then this cap */
	return wb->pause_32(p->hz, p->pages_dirtied, p->task_ratelimit, cap);
}

static const struct wblab_policy policy = {
	WBLAB_POLICY_HEADER("pause_cap", "3.2 with the pause cap 10 ms x dirtiers (within 4 jiffies..MAX_PAUSE)"),
	.pause = pause_cap,
};
WBLAB_POLICY(policy)
