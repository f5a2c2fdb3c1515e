/* Floating proportions of lib/proportions.c (3.1/3.2): decaying event shares
 * used for the bdi writeout fraction and (3.1) the per-task dirty share. */
#ifndef WBLAB_PROPORTIONS_H
#define WBLAB_PROPORTIONS_H
#include "sim.h"

#define PROP_FRAC_SHIFT 15
#define PROP_FRAC_BASE (1UL << PROP_FRAC_SHIFT)

/* shift = 2 + ilog2(dirty_total - 1), capped at 48 */
int prop_calc_shift(uint64_t dirty_total);
void prop_descriptor_init(struct prop_descriptor *pd, int shift);
/* Records n events for local (split at half-period boundaries). max_frac < BASE caps it. */
void prop_inc(struct prop_descriptor *pd, struct prop_local *pl, uint64_t n, uint64_t max_frac);
/* The local's share as num/den. */
void prop_fraction(struct prop_descriptor *pd, struct prop_local *pl, uint64_t *num, uint64_t *den);
/* Puts local at a steady share f of events (the "warm" start). */
void prop_warm(struct prop_descriptor *pd, struct prop_local *pl, double f);

#endif
