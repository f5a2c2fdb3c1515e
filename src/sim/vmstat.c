#include <stdlib.h>
#include "vmstat.h"
#include "../throttle/throttle.h"
#include "../util/util.h"

int vmstat_threshold(int cpus, uint64_t mem_mb)
{
	/* calculate_normal_threshold: one zone spanning memory (MODEL: no zone split) */
	int t = 2 * fls_u64((uint64_t)cpus) * (1 + fls_u64(mem_mb / 128));
	return t < 125 ? t : 125;
}

int vmstat_init(struct sim *s)
{
	s->vm.diff = calloc((size_t)s->ncpus * NR_VM_ITEMS, sizeof(int64_t));
	s->vm.threshold = s->p.vmstat_drift ? vmstat_threshold(s->ncpus, s->c.mem_mb) : 0;
	/* 3.x counts a dirtied or written page with __inc/__dec_zone_page_state,
	 * which fold half a threshold past it; 6.x's folio accounting
	 * (folio_account_dirtied, __folio_start/end_writeback) goes through
	 * __mod_node_page_state, which folds what the CPU holds and restarts at 0 */
	s->vm.overstep = !s->model || s->model->era != ERA_6X;
	return s->vm.diff ? 0 : -1;
}

void vmstat_destroy(struct sim *s)
{
	free(s->vm.diff);
}

void mod_zone_page_state(struct sim *s, int cpu, enum zone_stat_item item, int64_t delta)
{
	struct vmstat *vm = &s->vm;
	vm->exact[item] += delta;
	if (!vm->threshold) {
		vm->global[item] += delta;
		return;
	}
	/* delta single-page __inc_zone_state (or __dec_zone_state) calls in one
	 * step: the per-CPU diff folds into the global count each time it passes
	 * the threshold t, and restarts half a threshold the other way (3.x), or
	 * at 0 (6.x's __mod_node_page_state of one page, h = 0). */
	int64_t t = vm->threshold, h = vm->overstep ? t / 2 : 0, *d = &vm->diff[cpu * NR_VM_ITEMS + item];
	int64_t old = *d, x = old + delta, cycle = t + 1 + h;
	/* (the remainder without a division when x passed t by less than a cycle) */
	if (x > t)
		*d = -h + (x - (t + 1) < cycle ? x - (t + 1) : (x - (t + 1)) % cycle);
	else if (x < -t)
		*d = h - (-t - 1 - x < cycle ? -t - 1 - x : (-t - 1 - x) % cycle);
	else
		*d = x;
	vm->global[item] += delta - (*d - old);
}

uint64_t global_page_state(const struct sim *s, enum zone_stat_item item)
{
	int64_t v = s->vm.global[item];
	return v < 0 ? 0 : (uint64_t)v;
}

void vmstat_fold_all(struct sim *s)
{
	for (int cpu = 0; cpu < s->ncpus; cpu++)
		for (int i = 0; i < NR_VM_ITEMS; i++) {
			int64_t *d = &s->vm.diff[cpu * NR_VM_ITEMS + i];
			s->vm.global[i] += *d;
			*d = 0;
		}
}

int percpu_counter_init(struct percpu_counter *c, int ncpus, int batch)
{
	c->count = 0;
	c->sum = 0;
	c->batch = batch;
	c->pcpu = calloc((size_t)ncpus, sizeof(int64_t));
	return c->pcpu ? 0 : -1;
}

void percpu_counter_destroy(struct percpu_counter *c)
{
	free(c->pcpu);
	c->pcpu = NULL;
}

/* amount single-page __percpu_counter_add(fbc, +-1, batch) calls in one step:
 * the CPU's share folds into the count each time it reaches +-batch. */
void percpu_counter_add(struct percpu_counter *c, int cpu, int64_t amount)
{
	int64_t x = c->pcpu[cpu] + amount;
	c->sum += amount;
	if (x < c->batch && x > -c->batch) {   /* no fold: spare the division */
		c->pcpu[cpu] = x;
		return;
	}
	int64_t folds = x / c->batch;
	c->count += folds * c->batch;
	c->pcpu[cpu] = x - folds * c->batch;
}

uint64_t percpu_counter_read(const struct percpu_counter *c)
{
	return c->count < 0 ? 0 : (uint64_t)c->count;
}

uint64_t percpu_counter_sum(const struct percpu_counter *c, int ncpus)
{
	(void)ncpus;   /* the running sum spares the loop over the CPUs */
	return c->sum < 0 ? 0 : (uint64_t)c->sum;
}

void bdi_stat_mod(struct sim *s, struct bdi *bdi, int cpu, enum bdi_stat_item i, int64_t n)
{
	percpu_counter_add(&bdi->stat[i], s->p.vmstat_drift ? cpu : 0, n);
}

uint64_t bdi_stat_sum(const struct sim *s, const struct bdi *b, enum bdi_stat_item i)
{
	return percpu_counter_sum(&b->stat[i], s->ncpus);
}
