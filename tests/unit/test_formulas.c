/* Formula values against the hand-computed vectors of docs/throttling-model.md,
 * Test vectors, and our own hand calculations (shown in the comments). */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>
#include "sim/sim.h"
#include "sim/page_writeback.h"
#include "sim/proportions.h"
#include "sim/vmstat.h"
#include "throttle/ioless.h"
#include "throttle/throttle.h"
#include "util/case.h"

static struct sim S;
static struct bdi B;

/* Test vectors setup: thresh 200000, bg 100000, limit 200000, write_bw 25600, one bdi */
static int setup(void **state)
{
	(void)state;
	memset(&S, 0, sizeof(S));
	memset(&B, 0, sizeof(B));
	S.p.hz = 1000;
	S.global_dirty_limit = 200000;
	B.avg_write_bandwidth = 25600;
	B.dirty_ratelimit = 25600;
	return 0;
}

static uint64_t pos(uint64_t dirty, uint64_t bdi_thresh, uint64_t bdi_dirty)
{
	struct dirty_throttle_control dtc = { .wb = &B, .thresh = 200000, .bg_thresh = 100000,
		.dirty = dirty, .wb_thresh = bdi_thresh, .wb_dirty = bdi_dirty };
	return bdi_position_ratio(&S, &dtc);
}

static void test_pos_ratio_global_line(void **state)
{
	(void)state;
	static const uint64_t dirty[] = { 150001, 160000, 170000, 175000, 180000, 190000, 199000, 199999, 200000, 250000 };
	static const uint64_t want[] = { 2294, 1335, 1056, 1023, 991, 744, 104, 1, 0, 0 };
	for (size_t i = 0; i < sizeof(dirty) / sizeof(dirty[0]); i++)
		assert_int_equal(pos(dirty[i], 200000, dirty[i]), want[i]);
}

static void test_pos_ratio_reserve_area(void **state)
{
	(void)state;
	static const uint64_t bdi_dirty[] = { 5000, 20000, 50000, 99999 };
	static const uint64_t want[] = { 14984, 8990, 3296, 1398 };
	for (size_t i = 0; i < 4; i++)
		assert_int_equal(pos(175000, 200000, bdi_dirty[i]), want[i]);
}

static void test_pos_ratio_ramp_up(void **state)
{
	(void)state;
	/* t = max(1000, 25000/8 = 3125): bdi_dirty is far past x_intercept: 1024/4 */
	assert_int_equal(pos(175000, 1000, 175000), 256);
}

static void test_bdi_max_pause(void **state)
{
	(void)state;
	static const uint64_t n[] = { 1, 2, 4, 10, 100, 1000 };
	static const uint64_t hz1000[] = { 20, 39, 59, 78, 137, 200 };
	static const uint64_t hz250[] = { 5, 9, 14, 19, 34, 50 };
	for (size_t i = 0; i < 6; i++) {
		B.dirty_ratelimit = 25600 / n[i];
		S.p.hz = 1000;
		assert_int_equal(bdi_max_pause(&S, &B, 175000), hz1000[i]);
		S.p.hz = 250;
		assert_int_equal(bdi_max_pause(&S, &B, 175000), hz250[i]);
	}
	/* small pool: 1000 * 1000 / (8 * 25600 + 1) = 4.88 -> 4, and the floor is 4 */
	S.p.hz = 1000;
	B.dirty_ratelimit = 25600;
	assert_int_equal(bdi_max_pause(&S, &B, 1000), 4);
	assert_int_equal(bdi_max_pause(&S, &B, 0), 4);
}

static void test_dirty_poll_interval(void **state)
{
	(void)state;
	static const uint64_t gap[] = { 256, 1000, 25600, 50000, 100000 };
	static const uint64_t want[] = { 16, 16, 128, 128, 256 };
	for (size_t i = 0; i < 5; i++)
		assert_int_equal(dirty_poll_interval(200000 - gap[i], 200000), want[i]);
	assert_int_equal(dirty_poll_interval(300000, 200000), 1);
}

static void test_proportion_shift(void **state)
{
	(void)state;
	assert_int_equal(prop_calc_shift(209715), 19);
	/* seed thresholds 1M/10M/100M/1G */
	assert_int_equal(prop_calc_shift(256), 9);
	assert_int_equal(prop_calc_shift(2560), 13);
	assert_int_equal(prop_calc_shift(25600), 16);
	assert_int_equal(prop_calc_shift(262144), 19);
}

static void test_proportion_cold_start(void **state)
{
	(void)state;
	/* a new local's fraction after k of its own events is k / (P + k), P = 2^(s-1) */
	struct prop_descriptor pd;
	struct prop_local a = { 0, 0 }, b = { 0, 0 };
	uint64_t num, den;
	prop_descriptor_init(&pd, 9);        /* P = 256 */
	prop_inc(&pd, &a, 100, PROP_FRAC_BASE);
	prop_fraction(&pd, &a, &num, &den);
	assert_int_equal(num, 100);
	assert_int_equal(den, 356);
	/* events of another source in the next half period halve a's count */
	prop_inc(&pd, &b, 256, PROP_FRAC_BASE);
	prop_fraction(&pd, &a, &num, &den);
	assert_int_equal(num, 50);           /* one half period boundary crossed */
	assert_int_equal(den, 256 + (356 % 256));
}

static void test_ratelimit_pages(void **state)
{
	(void)state;
	/* 3.1: 32 GiB, 32 CPUs: 8388608 / 1024 = 8192, capped to 1024 */
	struct sim s;
	memset(&s, 0, sizeof(s));
	s.ncpus = 32;
	s.total_pages = 8388608;
	throttle_lookup("3.1-vanilla")->init(&s);
	assert_int_equal(s.ratelimit_pages, 1024);
	s.total_pages = 4096;                 /* tiny box: floor 16 */
	throttle_lookup("3.1-vanilla")->init(&s);
	assert_int_equal(s.ratelimit_pages, 16);
	/* 3.2: thresh / (cpus * 32), at least 16: 16 / 16 / 25 / 256 for the seed */
	static const char *th[] = { "1M", "10M", "100M", "1024M" };
	static const uint64_t want[] = { 16, 16, 25, 256 };
	for (int i = 0; i < 4; i++) {
		char cs[128], err[256];
		snprintf(cs, sizeof(cs), "nfs-1dd-4k-32p-32768M-%s:10", th[i]);
		assert_int_equal(case_parse(cs, &s.c, err, sizeof(err)), 0);
		s.dirtyable_pages = 8000000;
		throttle_lookup("3.2-ioless")->init(&s);
		assert_int_equal(s.ratelimit_pages, want[i]);
	}
}

static void test_dirty_thresholds(void **state)
{
	(void)state;
	struct sim s;
	char err[256];
	uint64_t bg, thresh;
	memset(&s, 0, sizeof(s));
	s.dirtyable_pages = 7700000;
	/* 1M with background 10% of ~30 GiB: bg >= thresh, so bg = thresh / 2 */
	assert_int_equal(case_parse("nfs-1dd-4k-32p-32768M-1M:10", &s.c, err, sizeof(err)), 0);
	dirty_thresholds(&s, &bg, &thresh);
	assert_int_equal(thresh, 256);
	assert_int_equal(bg, 128);
	/* ratios: 20% and 10% of (dirtyable + 1) */
	assert_int_equal(case_parse("ext4-1dd-4k-8p-4096M-20:10", &s.c, err, sizeof(err)), 0);
	s.dirtyable_pages = 999999;
	dirty_thresholds(&s, &bg, &thresh);
	assert_int_equal(thresh, 200000);
	assert_int_equal(bg, 100000);
	/* byte background below the byte threshold is kept */
	assert_int_equal(case_parse("ext4-1dd-4k-8p-4096M-100M:50M", &s.c, err, sizeof(err)), 0);
	dirty_thresholds(&s, &bg, &thresh);
	assert_int_equal(thresh, 25600);
	assert_int_equal(bg, 12800);
}

static void test_vmstat_threshold(void **state)
{
	(void)state;
	/* 2 * fls(32) * (1 + fls(16384 / 128)) = 2 * 6 * 9 = 108
	 * (docs/throttling-model.md, Per-CPU counter drift) */
	assert_int_equal(vmstat_threshold(32, 16384), 108);
	assert_int_equal(vmstat_threshold(32, 32768), 120);
	assert_int_equal(vmstat_threshold(1024, 1 << 20), 125);
	/* 8 CPUs, 4 GiB: 2 * 4 * (1 + 6) = 56 */
	assert_int_equal(vmstat_threshold(8, 4096), 56);
}

/* a 2-CPU, 4 GiB machine with per-CPU drift: vmstat threshold 2 * 2 * 7 = 28 */
static void vmstat_machine(struct sim *s)
{
	memset(s, 0, sizeof(*s));
	s->ncpus = 2;
	s->p.vmstat_drift = 1;
	s->c.cpus = 2;
	s->c.mem_mb = 4096;
	assert_int_equal(vmstat_init(s), 0);
}

static void test_vmstat_drift_fold(void **state)
{
	(void)state;
	/* increments stay per-CPU until over the threshold, then fold with a half
	 * threshold over-step (__inc_zone_state) */
	struct sim s;
	vmstat_machine(&s);
	assert_int_equal(s.vm.threshold, 28);
	mod_zone_page_state(&s, 1, NR_FILE_DIRTY, 28);
	assert_int_equal(global_page_state(&s, NR_FILE_DIRTY), 0);
	mod_zone_page_state(&s, 1, NR_FILE_DIRTY, 1);      /* 29 > 28: fold 29 + 14 */
	assert_int_equal(global_page_state(&s, NR_FILE_DIRTY), 43);
	mod_zone_page_state(&s, 0, NR_FILE_DIRTY, -10);    /* pending on CPU 0 */
	assert_int_equal(global_page_state(&s, NR_FILE_DIRTY), 43);
	vmstat_fold_all(&s);                               /* 43 - 14 - 10 = 19 */
	assert_int_equal(global_page_state(&s, NR_FILE_DIRTY), 19);
	assert_int_equal(s.vm.exact[NR_FILE_DIRTY], 19);
	vmstat_destroy(&s);
}

/* A batch of n pages must leave the counters exactly where n single-page
 * calls leave them (the simulator batches; the kernel counts page by page). */
static void test_batches_equal_single_pages(void **state)
{
	(void)state;
	struct sim a, b;
	vmstat_machine(&a);                   /* threshold 28, over-step 14 */
	vmstat_machine(&b);
	struct percpu_counter pa, pb;
	assert_int_equal(percpu_counter_init(&pa, 2, 24), 0);
	assert_int_equal(percpu_counter_init(&pb, 2, 24), 0);
	/* mixed signs and sizes, several crossings per batch */
	const int64_t steps[] = { 100, -7, 43, -250, 1, 29, -29, 500, -3, 77 };
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		int64_t n = steps[i], one = n > 0 ? 1 : -1;
		mod_zone_page_state(&a, 1, NR_FILE_DIRTY, n);
		percpu_counter_add(&pa, 1, n);
		for (int64_t k = 0; k != n; k += one) {
			mod_zone_page_state(&b, 1, NR_FILE_DIRTY, one);
			percpu_counter_add(&pb, 1, one);
		}
		assert_int_equal(a.vm.global[NR_FILE_DIRTY], b.vm.global[NR_FILE_DIRTY]);
		assert_int_equal(a.vm.diff[1 * NR_VM_ITEMS + NR_FILE_DIRTY],
				 b.vm.diff[1 * NR_VM_ITEMS + NR_FILE_DIRTY]);
		assert_int_equal(pa.count, pb.count);
		assert_int_equal(pa.pcpu[1], pb.pcpu[1]);
	}
	vmstat_destroy(&a);
	vmstat_destroy(&b);
	percpu_counter_destroy(&pa);
	percpu_counter_destroy(&pb);
}

/* 6.x folio accounting: __mod_node_page_state folds what the CPU holds once
 * it passes the threshold and restarts at 0 (no half-threshold over-step) */
static void test_vmstat_6x_fold_without_overstep(void **state)
{
	(void)state;
	static const struct throttle_model m6 = { .name = "6x", .era = ERA_6X };
	struct sim a, b;
	memset(&a, 0, sizeof(a));
	a.model = &m6;
	a.ncpus = 2;
	a.p.vmstat_drift = 1;
	a.c.cpus = 2;
	a.c.mem_mb = 4096;
	b = a;
	struct sim c = a;
	assert_int_equal(vmstat_init(&a), 0);
	assert_int_equal(vmstat_init(&b), 0);
	assert_int_equal(vmstat_init(&c), 0);
	assert_int_equal(a.vm.threshold, 28);
	mod_zone_page_state(&a, 1, NR_FILE_DIRTY, 28);
	assert_int_equal(global_page_state(&a, NR_FILE_DIRTY), 0);
	mod_zone_page_state(&a, 1, NR_FILE_DIRTY, 1);      /* 29 > 28: fold 29, diff 0 */
	assert_int_equal(global_page_state(&a, NR_FILE_DIRTY), 29);
	assert_int_equal(a.vm.diff[1 * NR_VM_ITEMS + NR_FILE_DIRTY], 0);
	/* 100 more: folds at the 29th, 58th and 87th page (29 each), 13 left on the CPU */
	mod_zone_page_state(&a, 1, NR_FILE_DIRTY, 100);
	assert_int_equal(global_page_state(&a, NR_FILE_DIRTY), 29 + 29 + 29 + 29);
	assert_int_equal(a.vm.diff[1 * NR_VM_ITEMS + NR_FILE_DIRTY], 13);
	/* and a batch is the same as single pages, in both directions */
	const int64_t steps[] = { 129, -7, 43, -250, 1, 29, -29, 500, -3, 77 };
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		int64_t n = steps[i], one = n > 0 ? 1 : -1;
		mod_zone_page_state(&b, 1, NR_FILE_DIRTY, n);
		for (int64_t k = 0; k != n; k += one)
			mod_zone_page_state(&c, 0, NR_WRITEBACK, one);
		assert_int_equal(b.vm.global[NR_FILE_DIRTY], c.vm.global[NR_WRITEBACK]);
		assert_int_equal(b.vm.diff[1 * NR_VM_ITEMS + NR_FILE_DIRTY], c.vm.diff[0 * NR_VM_ITEMS + NR_WRITEBACK]);
	}
	vmstat_destroy(&a);
	vmstat_destroy(&b);
	vmstat_destroy(&c);
}

static void test_vmstat_batch_by_hand(void **state)
{
	(void)state;
	struct sim s;
	vmstat_machine(&s);                   /* threshold 28 */
	/* 100 pages: fold at the 29th (+43, diff -14) and the 72nd (+43, diff -14),
	 * then 28 more: diff 14, global 86 */
	mod_zone_page_state(&s, 0, NR_FILE_DIRTY, 100);
	assert_int_equal(s.vm.diff[NR_FILE_DIRTY], 14);
	assert_int_equal(global_page_state(&s, NR_FILE_DIRTY), 86);
	/* -60 pages: down to -28 after 42, fold at -29 (43rd: global -43, diff 14),
	 * 17 more: diff -3; global 43 */
	mod_zone_page_state(&s, 0, NR_FILE_DIRTY, -60);
	assert_int_equal(s.vm.diff[NR_FILE_DIRTY], -3);
	assert_int_equal(global_page_state(&s, NR_FILE_DIRTY), 43);
	vmstat_destroy(&s);
}

static void test_percpu_counter(void **state)
{
	(void)state;
	struct percpu_counter c;
	assert_int_equal(percpu_counter_init(&c, 4, 24), 0);  /* batch for 4 CPUs: 8*(1+2) */
	percpu_counter_add(&c, 1, 23);
	assert_int_equal(percpu_counter_read(&c), 0);
	assert_int_equal(percpu_counter_sum(&c, 4), 23);
	percpu_counter_add(&c, 1, 1);                          /* reaches the batch: folds */
	assert_int_equal(percpu_counter_read(&c), 24);
	percpu_counter_add(&c, 2, -5);
	assert_int_equal(percpu_counter_read(&c), 24);
	assert_int_equal(percpu_counter_sum(&c, 4), 19);
	percpu_counter_destroy(&c);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup(test_pos_ratio_global_line, setup),
		cmocka_unit_test_setup(test_pos_ratio_reserve_area, setup),
		cmocka_unit_test_setup(test_pos_ratio_ramp_up, setup),
		cmocka_unit_test_setup(test_bdi_max_pause, setup),
		cmocka_unit_test(test_dirty_poll_interval),
		cmocka_unit_test(test_proportion_shift),
		cmocka_unit_test(test_proportion_cold_start),
		cmocka_unit_test(test_ratelimit_pages),
		cmocka_unit_test(test_dirty_thresholds),
		cmocka_unit_test(test_vmstat_threshold),
		cmocka_unit_test(test_vmstat_drift_fold),
		cmocka_unit_test(test_batches_equal_single_pages),
		cmocka_unit_test(test_vmstat_batch_by_hand),
		cmocka_unit_test(test_vmstat_6x_fold_without_overstep),
		cmocka_unit_test(test_percpu_counter),
	};
	return cmocka_run_group_tests_name("formulas", tests, NULL, NULL);
}
