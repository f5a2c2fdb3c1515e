/* Global page-state counters (mm/vmstat.c) and bdi percpu_counters
 * (lib/percpu_counter.c), both with per-CPU deltas so that readers see the
 * same approximate values the kernel's throttles saw. */
#ifndef WBLAB_VMSTAT_H
#define WBLAB_VMSTAT_H
#include "sim.h"

int vmstat_init(struct sim *s);
void vmstat_destroy(struct sim *s);
/* mod_zone_page_state from `cpu`; increments over-step on fold like __inc_zone_state */
void mod_zone_page_state(struct sim *s, int cpu, enum zone_stat_item item, int64_t delta);
/* global_page_state(): folded value, clamped at 0 */
uint64_t global_page_state(const struct sim *s, enum zone_stat_item item);
/* refresh_cpu_vm_stats for every CPU: the once-per-second fold */
void vmstat_fold_all(struct sim *s);
/* The zone threshold of calculate_normal_threshold() for this machine. */
int vmstat_threshold(int cpus, uint64_t mem_mb);

int percpu_counter_init(struct percpu_counter *c, int ncpus, int batch);
void percpu_counter_destroy(struct percpu_counter *c);
void percpu_counter_add(struct percpu_counter *c, int cpu, int64_t amount);
/* bdi_stat(): approximate read, clamped at 0 */
uint64_t percpu_counter_read(const struct percpu_counter *c);
/* bdi_stat_sum(): exact sum, clamped at 0 */
uint64_t percpu_counter_sum(const struct percpu_counter *c, int ncpus);

void bdi_stat_mod(struct sim *s, struct bdi *bdi, int cpu, enum bdi_stat_item i, int64_t n);
static inline uint64_t bdi_stat(const struct bdi *b, enum bdi_stat_item i) { return percpu_counter_read(&b->stat[i]); }
uint64_t bdi_stat_sum(const struct sim *s, const struct bdi *b, enum bdi_stat_item i);

#endif
