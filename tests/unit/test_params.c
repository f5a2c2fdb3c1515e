/* Model parameters: every key of the table has a range that --set and
 * sim_check enforce, and the simulator survives both ends of every range.
 * The loops run over params_desc(), so a new parameter is covered as soon
 * as it is in the table. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "analysis/stats.h"
#include "sim/sim.h"
#include "throttle/throttle.h"
#include "util/case.h"

static int set(struct sim_params *p, const char *key, const char *val, char *err, size_t n)
{
	char a[256];
	snprintf(a, sizeof(a), "%s=%s", key, val);
	err[0] = 0;
	return params_set(p, a, err, n);
}

/* Rejected with one line naming the key and the value, and p untouched. */
static void expect_rejected(const struct param_desc *d, const char *val)
{
	struct sim_params p, before;
	char err[512];
	params_defaults(&p);
	before = p;
	if (set(&p, d->key, val, err, sizeof(err)) == 0)
		fail_msg("--set %s=%s accepted (range %g..%g)", d->key, val, d->min, d->max);
	if (!strstr(err, d->key) || !strchr(err, '\'') || strchr(err, '\n'))
		fail_msg("--set %s=%s: unclear error '%s'", d->key, val, err);
	assert_memory_equal(&p, &before, sizeof(p));
}

static void fmt(char *buf, size_t n, const struct param_desc *d, double v)
{
	if (d->type == PT_U64)
		snprintf(buf, n, "%.0f", v);
	else
		snprintf(buf, n, "%.17g", v);
}

static void test_every_default_in_range(void **state)
{
	(void)state;
	struct sim_params p;
	char err[256];
	params_defaults(&p);
	assert_true(params_count() > 30);
	for (size_t i = 0; i < params_count(); i++) {
		const struct param_desc *d = params_desc(i);
		if (d->type == PT_NAME)
			continue;   /* names, not numbers: test_params_names */
		if (!(d->min <= d->def && d->def <= d->max))
			fail_msg("%s: default %g outside %g..%g", d->key, d->def, d->min, d->max);
		assert_true(isfinite(d->min) && isfinite(d->max));
	}
	assert_int_equal(params_check(&p, err, sizeof(err)), 0);
	assert_null(params_desc(params_count()));
}

static void test_boundaries_accepted(void **state)
{
	(void)state;
	for (size_t i = 0; i < params_count(); i++) {
		const struct param_desc *d = params_desc(i);
		if (d->type == PT_NAME)
			continue;   /* names, not numbers: test_params_names */
		double ends[2] = { d->min, d->max };
		for (int e = 0; e < 2; e++) {
			struct sim_params p;
			char v[64], err[512];
			params_defaults(&p);
			fmt(v, sizeof(v), d, ends[e]);
			if (set(&p, d->key, v, err, sizeof(err)))
				fail_msg("--set %s=%s rejected: %s", d->key, v, err);
			assert_true(params_get(&p, d) == ends[e]);
			assert_int_equal(params_check(&p, err, sizeof(err)), 0);
		}
	}
}

static void test_outside_and_absurd_rejected(void **state)
{
	(void)state;
	static const char *const absurd[] = { "1e300", "-1e300", "-1", "nan", "NaN", "-nan", "inf",
					      "-inf", "infinity", "1e400", "", "1x", "0x", " 1",
					      "99999999999999999999999" };
	for (size_t i = 0; i < params_count(); i++) {
		const struct param_desc *d = params_desc(i);
		if (d->type == PT_NAME)
			continue;   /* names, not numbers: test_params_names */
		char v[64];
		/* just outside either end: the next double, or the next integer */
		double below = d->type == PT_U64 ? d->min - 1 : nextafter(d->min, -INFINITY);
		double above = d->type == PT_U64 ? d->max + 1 : nextafter(d->max, INFINITY);
		fmt(v, sizeof(v), d, below);
		expect_rejected(d, v);
		fmt(v, sizeof(v), d, above);
		expect_rejected(d, v);
		for (size_t a = 0; a < sizeof(absurd) / sizeof(absurd[0]); a++)
			if (strcmp(absurd[a], "-1") || d->min > -1)
				expect_rejected(d, absurd[a]);
		if (d->type == PT_U64 && d->max - d->min >= 1) {
			snprintf(v, sizeof(v), "%.1f", d->min + 0.5);
			expect_rejected(d, v);
		}
	}
}

/* A field written directly (calibration_apply, library callers) is checked
 * by sim_check with the same ranges. */
static void test_sim_check_uses_ranges(void **state)
{
	(void)state;
	struct wb_case c;
	char err[512];
	assert_int_equal(case_parse("ext4-1dd-4k-4p-1024M-10M:10", &c, err, sizeof(err)), 0);
	for (size_t i = 0; i < params_count(); i++) {
		const struct param_desc *d = params_desc(i);
		if (d->type == PT_NAME)
			continue;   /* names, not numbers: test_params_names */
		struct sim_params p;
		params_defaults(&p);
		char *field = (char *)&p + d->offset;
		if (d->type == PT_U64)
			*(uint64_t *)field = (uint64_t)d->max + 1;
		else
			*(double *)field = NAN;
		assert_int_equal(sim_check(&c, &p, err, sizeof(err)), -1);
		if (!strstr(err, d->key))
			fail_msg("sim_check error for %s does not name it: %s", d->key, err);
	}
}

/* sim_param_unused: each rule by hand, and a key that matters gets NULL. */
static void test_unused_parameters_are_named(void **state)
{
	(void)state;
	struct wb_case nfs, ext4;
	char err[256];
	assert_int_equal(case_parse("nfs-1dd-4k-8p-4096M-100M:10", &nfs, err, sizeof(err)), 0);
	assert_int_equal(case_parse("ext4-1dd-4k-8p-4096M-100M:10", &ext4, err, sizeof(err)), 0);
	const struct throttle_model *cur = throttle_lookup("current"), *io = throttle_lookup("3.2-ioless");
	assert_non_null(cur);
	assert_non_null(io);
	struct sim_params p;
	params_defaults(&p);
	assert_non_null(sim_param_unused("disk.bw_mbps", &nfs, &p, io));
	assert_non_null(sim_param_unused("dev.rpm", &nfs, &p, io));
	assert_non_null(sim_param_unused("nfs.net_mbps", &ext4, &p, io));
	assert_null(sim_param_unused("nfs.net_mbps", &nfs, &p, io));
	assert_null(sim_param_unused("dev.rpm", &ext4, &p, io));
	/* disk.* describe the fifo device: alone they select it, beside another
	 * dev.model they do nothing */
	assert_int_equal(params_set(&p, "disk.bw_mbps=20", err, sizeof(err)), 0);
	assert_null(sim_param_unused("disk.bw_mbps", &ext4, &p, io));
	params_defaults(&p);
	assert_int_equal(params_set(&p, "dev.model=hdd-2011", err, sizeof(err)), 0);
	assert_int_equal(params_set(&p, "disk.bw_mbps=20", err, sizeof(err)), 0);
	assert_non_null(sim_param_unused("disk.bw_mbps", &ext4, &p, io));
	params_defaults(&p);
	assert_non_null(sim_param_unused("bdi_strict_limit", &ext4, &p, io));
	assert_null(sim_param_unused("bdi_strict_limit", &ext4, &p, cur));
	assert_non_null(sim_param_unused("writer.file_mb", &nfs, &p, cur));
	assert_int_equal(params_set(&p, "writer.pattern=rand", err, sizeof(err)), 0);
	assert_null(sim_param_unused("writer.file_mb", &nfs, &p, cur));
	assert_non_null(sim_param_unused("idle_residency_us", &nfs, &p, io));
	assert_non_null(sim_param_unused("host_fault_pct", &ext4, &p, cur));
	assert_int_equal(params_set(&p, "idle_exit_us=200", err, sizeof(err)), 0);
	assert_int_equal(params_set(&p, "host_fault_ns=19000", err, sizeof(err)), 0);
	assert_null(sim_param_unused("idle_residency_us", &nfs, &p, io));
	assert_null(sim_param_unused("host_fault_pct", &ext4, &p, cur));
	assert_null(sim_param_unused("hz", &ext4, &p, io));
}

/* Short runs at each end of each range, on a disk and an NFS case: under
 * ASan+UBSan this is where ktime_t overflow or a zero divisor would show. */
static void run_one(const char *cs, const struct sim_params *p, const char *what)
{
	struct wb_case c;
	char err[512];
	static const char *const models[] = { "3.2-ioless", "current" };
	assert_int_equal(case_parse(cs, &c, err, sizeof(err)), 0);
	for (size_t k = 0; k < 2; k++) {
		struct sim *s = calloc(1, sizeof(*s));
		assert_non_null(s);
		if (sim_init(s, &c, p, throttle_lookup(models[k]), 1, err, sizeof(err))) {
			/* relations between parameters (min_slots <= max_slots) may refuse */
			assert_non_null(strstr(err, "must not exceed"));
			free(s);
			return;
		}
		s->stats = stats_new();
		if (sim_run(s, 1.5))
			fail_msg("%s %s %s: %s", cs, models[k], what, s->error);
		stats_free(s->stats);
		sim_destroy(s);
		free(s);
	}
}

/* a named parameter takes each of its names and nothing else */
static void test_params_names(void **state)
{
	(void)state;
	int rows = 0;
	for (size_t i = 0; i < params_count(); i++) {
		const struct param_desc *d = params_desc(i);
		if (d->type != PT_NAME)
			continue;
		rows++;
		for (size_t n = 0; d->names[n]; n++) {
			struct sim_params p;
			char err[512];
			params_defaults(&p);
			if (set(&p, d->key, d->names[n], err, sizeof(err)))
				fail_msg("--set %s=%s rejected: %s", d->key, d->names[n], err);
			assert_true(params_get(&p, d) == (double)n);
			assert_int_equal(params_check(&p, err, sizeof(err)), 0);
		}
		struct sim_params p;
		char err[512];
		params_defaults(&p);
		assert_int_not_equal(set(&p, d->key, "no-such-name", err, sizeof(err)), 0);
		assert_non_null(strstr(err, "unknown name"));
	}
	assert_true(rows >= 2);
}

/* Numbers are decimal; an integer key takes any whole one.  Two spellings
 * of one value parse to the same value (a sweep compares them so). */
static void test_number_spellings(void **state)
{
	(void)state;
	static const char *const hz1000[] = { "1000", "1e3", "1E3", "1000.0", "1000.", "+1000",
					      "10000e-1", "1.0e+3" };
	static const char *const bw40[] = { "40", "40.0", "4e1", "40.000", "+40", "400e-1" };
	static const char *const refused_any[] = { "0x3e8", "0X3E8", "0x1p10", "1e", "1e+", ".",
						   "e3", "1.0.0", "1,0", "--1", "1e3x", "1000 " };
	struct sim_params p;
	char err[512];
	double v;
	for (size_t i = 0; i < sizeof(hz1000) / sizeof(hz1000[0]); i++) {
		params_defaults(&p);
		p.hz = 1;
		if (set(&p, "hz", hz1000[i], err, sizeof(err)))
			fail_msg("--set hz=%s rejected: %s", hz1000[i], err);
		assert_int_equal(p.hz, 1000);
		char a[64];
		snprintf(a, sizeof(a), "hz=%s", hz1000[i]);
		assert_int_equal(params_parse_value(a, &v, err, sizeof(err)), 0);
		assert_true(v == 1000);
	}
	for (size_t i = 0; i < sizeof(bw40) / sizeof(bw40[0]); i++) {
		char a[64];
		snprintf(a, sizeof(a), "disk.bw_mbps=%s", bw40[i]);
		assert_int_equal(params_parse_value(a, &v, err, sizeof(err)), 0);
		assert_true(v == 40);
	}
	assert_int_equal(params_parse_value("disk.bw_mbps=.5", &v, err, sizeof(err)), 0);
	assert_true(v == 0.5);
	/* not whole: an integer key refuses it, a real one takes it */
	params_defaults(&p);
	expect_rejected(params_desc(0), "1000.5");
	expect_rejected(params_desc(0), "1.0005e3");
	for (size_t i = 0; i < params_count(); i++) {
		const struct param_desc *d = params_desc(i);
		if (d->type == PT_NAME)
			continue;
		for (size_t k = 0; k < sizeof(refused_any) / sizeof(refused_any[0]); k++)
			expect_rejected(d, refused_any[k]);
	}
	/* a name's value is its index: one name, one value */
	double a, b;
	assert_int_equal(params_parse_value("dev.model=ssd", &a, err, sizeof(err)), 0);
	assert_int_equal(params_parse_value("dev.model=fifo", &b, err, sizeof(err)), 0);
	assert_true(a != b);
	assert_int_equal(params_parse_value("hz=0x3e8", &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "bad value '0x3e8'"));
}

static void test_simulate_at_every_boundary(void **state)
{
	(void)state;
	for (size_t i = 0; i < params_count(); i++) {
		const struct param_desc *d = params_desc(i);
		if (d->type == PT_NAME)
			continue;   /* names, not numbers: test_params_names */
		double ends[2] = { d->min, d->max };
		for (int e = 0; e < 2; e++) {
			struct sim_params p;
			char v[64], err[512], what[160];
			params_defaults(&p);
			fmt(v, sizeof(v), d, ends[e]);
			assert_int_equal(set(&p, d->key, v, err, sizeof(err)), 0);
			snprintf(what, sizeof(what), "%s=%s", d->key, v);
			run_one("ext4-2dd-4k-2p-1024M-10M:10", &p, what);
			run_one("nfs-2dd-4k-2p-1024M-10M:10", &p, what);
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_default_in_range),
		cmocka_unit_test(test_boundaries_accepted),
		cmocka_unit_test(test_outside_and_absurd_rejected),
		cmocka_unit_test(test_sim_check_uses_ranges),
		cmocka_unit_test(test_params_names),
		cmocka_unit_test(test_unused_parameters_are_named),
		cmocka_unit_test(test_number_spellings),
		cmocka_unit_test(test_simulate_at_every_boundary),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
