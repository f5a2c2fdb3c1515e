/* Flexible proportions (lib/flex_proportions.c, Linux 3.6+): each wb's share
 * of writeback completions, with every count halved once per period of wall
 * time instead of per period of events (docs/current-kernel.md section 5).
 * Counts are kept exactly (the kernel's percpu read error is not modelled). */
#ifndef WBLAB_FLEX_PROPORTIONS_H
#define WBLAB_FLEX_PROPORTIONS_H
#include "sim.h"

#define FPROP_FRAC_SHIFT 10
#define FPROP_FRAC_BASE (1UL << FPROP_FRAC_SHIFT)

void fprop_global_init(struct fprop_global *g);
/* Ages the global count by `periods` halvings; 0 (and no change) when the
 * count is already down to 1, which stops the aging timer. */
int fprop_new_period(struct fprop_global *g, uint64_t periods);
/* n events for local; max_frac < FPROP_FRAC_BASE trims what would push the
 * local's share above max_frac / FPROP_FRAC_BASE. */
void fprop_inc(struct fprop_global *g, struct fprop_local *l, uint64_t n, uint64_t max_frac);
/* The local's share as num/den (den >= num, den >= 1). */
void fprop_fraction(struct fprop_global *g, struct fprop_local *l, uint64_t *num, uint64_t *den);
/* Puts a local at share f of a settled global count (warm start). */
void fprop_warm(struct fprop_global *g, struct fprop_local *l, double f);

/* The global wb_domain's completion hook: counts n completions for bdi and
 * starts the aging timer (3 s of jiffies) if it is stopped. */
void wb_domain_writeout_add(struct sim *s, struct bdi *bdi, uint64_t n);
/* The aging period in jiffies (VM_COMPLETIONS_PERIOD_LEN = 3 s). */
uint64_t vm_completions_period(const struct sim *s);

#endif
