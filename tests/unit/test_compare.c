/* Unit tests of src/analysis/compare.c on synthetic result directories.
 * Run from the repository root (tests/run-all.sh does): the seed golden is
 * read from tests/data/compare/. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <jansson.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "analysis/compare.h"
#include "util/util.h"

static char root[256];

static void write_file(const char *path, const char *text)
{
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}

/* ROOT/sub/GROUP/CASE-KERNEL[.RUN]/{meta,stats}; returns the dir. */
static char *mkres(const char *sub, const char *group, const char *cs, const char *kernel,
		   int run, const char *stats)
{
	static char dir[1024];
	char path[1200], meta[1024], fs[16], job[16], bs[16], cpus[16], mem[16], tb[32];
	if (run >= 2)
		snprintf(dir, sizeof(dir), "%s/%s/%s/%s-%s.%d", root, sub, group, cs, kernel, run);
	else
		snprintf(dir, sizeof(dir), "%s/%s/%s/%s-%s", root, sub, group, cs, kernel);
	assert_int_equal(mkdir_p(dir), 0);
	assert_int_equal(sscanf(cs, "%15[^-]-%15[^-]-%15[^-]-%15[^-]-%15[^-]-%31s", fs, job, bs,
				cpus, mem, tb), 6);
	char *colon = strchr(tb, ':');
	*colon = 0;
	snprintf(meta, sizeof(meta), "case %s\ngroup %s\nkernel %s\nfs %s\njob %s\nbs %s\n"
		 "cpus %s\nmem %s\nthresh %s\nbg %s\nrun %d\nsource test\n", cs, group, kernel,
		 fs, job, bs, cpus, mem, tb, colon + 1, run);
	snprintf(path, sizeof(path), "%s/meta", dir);
	write_file(path, meta);
	snprintf(path, sizeof(path), "%s/stats", dir);
	write_file(path, stats);
	return dir;
}

static char *mkbw(const char *sub, const char *group, const char *cs, const char *kernel,
		  int run, double bw)
{
	char stats[128];
	snprintf(stats, sizeof(stats), "write_bw %.4f\nduration_s 600\n", bw);
	return mkres(sub, group, cs, kernel, run, stats);
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/wblab-test-compare.XXXXXX");
	assert_non_null(mkdtemp(root));
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	remove_tree(root);
	return 0;
}

static char *sub_path(const char *sub)
{
	static char p[2][512];
	static int i;
	i ^= 1;
	snprintf(p[i], sizeof(p[i]), "%s/%s", root, sub);
	return p[i];
}

static int build(struct cmp_options *o, int n, const char *const *dirs, struct cmp_table **t,
		 char *err)
{
	return cmp_build(o, dirs, n, t, err, 512);
}

/* Renders t as text into a malloc'd string. */
static char *render(const struct cmp_table *t, enum cmp_format fmt)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	assert_int_equal(cmp_write(t, fmt, f), 0);
	fclose(f);
	return buf;
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	if (!f)
		fail_msg("cannot open %s (run from the repository root)", path);
	static char buf[16384];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

static void test_change(void **state)
{
	(void)state;
	double p = 0;
	assert_int_equal(cmp_change(0, 5, &p), 0);
	assert_int_equal(cmp_change(5, 0, &p), 0);
	assert_int_equal(cmp_change(20, 25, &p), 1);
	assert_float_equal(p, 25.0, 1e-12);
	enum cmp_format f;
	assert_int_equal(cmp_parse_format("json", &f), 0);
	assert_int_equal(f, CMP_JSON);
	assert_int_equal(cmp_parse_format("xml", &f), -1);
}

/* The seed table from 24 dirs holding values that print as the seed does. */
static void test_seed_golden(void **state)
{
	(void)state;
	FILE *v = fopen("tests/data/compare/seed-values.tsv", "r");
	if (!v)
		fail_msg("cannot open tests/data/compare/seed-values.tsv (run from the repo root)");
	char line[512], gc[256];
	double base, nw;
	while (fgets(line, sizeof(line), v)) {
		if (line[0] == '#')
			continue;
		assert_int_equal(sscanf(line, "%255s %lf %lf", gc, &base, &nw), 3);
		char *slash = strchr(gc, '/');
		*slash = 0;
		mkbw("vanilla", gc, slash + 1, "3.1.0-rc8-vanilla+", 1, base);
		mkbw("wq4", gc, slash + 1, "3.1.0-rc8-nfs-wq4+", 1, nw);
	}
	fclose(v);
	struct cmp_options o = { 0 };
	const char *dirs[] = { sub_path("vanilla"), sub_path("wq4") };
	struct cmp_table *t;
	char err[512];
	assert_int_equal(build(&o, 2, dirs, &t, err), CMP_OK);
	assert_int_equal(t->nrows, 12);
	assert_string_equal(t->cols[0], "3.1.0-rc8-vanilla+");
	char *out = render(t, CMP_TEXT);
	assert_string_equal(out, slurp("tests/data/compare/seed-table.golden"));
	free(out);
	out = render(t, CMP_JSON);
	assert_string_equal(out, slurp("tests/data/compare/seed-table.json"));
	free(out);
	cmp_free(t);

	/* the same dirs in the other order: the first DIR is the baseline */
	const char *rev[] = { dirs[1], dirs[0] };
	assert_int_equal(build(&o, 2, rev, &t, err), CMP_OK);
	assert_string_equal(t->cols[0], "3.1.0-rc8-nfs-wq4+");
	cmp_free(t);
}

static void test_mask_fs_and_thresh(void **state)
{
	(void)state;
	mkbw("m", "thresh=1G", "ext4-10dd-4k-8p-4096M-1024M:10", "k1", 1, 50);
	mkbw("m", "thresh=1G", "xfs-10dd-4k-8p-4096M-1024M:10", "k1", 1, 40);
	mkbw("m", "thresh=100M", "ext4-10dd-4k-8p-4096M-100M:10", "k1", 1, 30);
	const char *dirs[] = { sub_path("m") };
	struct cmp_options o = { .field = "fs" };
	struct cmp_table *t;
	char err[512];
	assert_int_equal(build(&o, 1, dirs, &t, err), CMP_OK);
	assert_int_equal(t->nrows, 1);
	assert_string_equal(t->rows[0].key, "thresh=1G/X-10dd-4k-8p-4096M-1024M:10-k1");
	assert_int_equal(t->nsingle, 1);
	cmp_free(t);

	o.field = "thresh";
	o.grep = (const char *const[]){ "ext4" };
	o.ngrep = 1;
	assert_int_equal(build(&o, 1, dirs, &t, err), CMP_OK);
	assert_int_equal(t->nrows, 1);
	assert_string_equal(t->rows[0].key, "thresh=X/ext4-10dd-4k-8p-4096M-X:10-k1");
	assert_int_equal(t->ncols, 2);
	assert_string_equal(t->cols[0], "100M");
	assert_string_equal(t->cols[1], "1024M");
	cmp_free(t);
}

static void test_repeats_stddev_geomean(void **state)
{
	(void)state;
	const char *cs = "ext4-1dd-4k-8p-4096M-100M:10";
	mkbw("r", "thresh=100M", cs, "A", 1, 100);
	mkbw("r", "thresh=100M", cs, "A", 2, 110);
	mkbw("r", "thresh=100M", cs, "A", 3, 90);
	mkbw("r", "thresh=100M", cs, "B", 1, 150);
	mkbw("r", "thresh=100M", "ext4-10dd-4k-8p-4096M-100M:10", "A", 1, 50);
	mkbw("r", "thresh=100M", "ext4-10dd-4k-8p-4096M-100M:10", "B", 1, 25);
	const char *dirs[] = { sub_path("r") };
	struct cmp_options o = { .stddev = 1, .geomean = 1 };
	struct cmp_table *t;
	char err[512];
	assert_int_equal(build(&o, 1, dirs, &t, err), CMP_OK);
	assert_int_equal(t->nrows, 2);
	assert_int_equal(t->nresults, 6);
	const struct cmp_cell *a = &t->rows[1].cells[0];   /* "...1dd..." sorts after "...10dd..." */
	assert_int_equal(a->runs, 3);
	assert_float_equal(a->mean, 100, 1e-9);
	assert_float_equal(a->stddev, 10, 1e-9);
	assert_float_equal(t->total[0], 150, 1e-9);
	assert_float_equal(t->total[1], 175, 1e-9);
	assert_int_equal(t->ngeomean, 2);
	assert_float_equal(t->geomean[0], sqrt(50.0 * 100), 1e-9);
	char *out = render(t, CMP_TEXT);
	assert_non_null(strstr(out, "                  100.00 \xc2\xb1" "10%        +50.0%       150.00        "
				    "thresh=100M/ext4-1dd-4k-8p-4096M-100M:10-X\n"));
	assert_non_null(strstr(out, "GEOMEAN write_bw\n"));
	free(out);
	cmp_free(t);
}

/* Welch's t-test: equal means are not significant, a shift well beyond the
 * noise is; textbook value: t = 8.66, df = 2 gives p = 0.0131. */
static void test_welch(void **state)
{
	(void)state;
	double p;
	struct cmp_cell a = { .runs = 4, .mean = 102.5, .stddev = 1.29 };
	struct cmp_cell same = { .runs = 4, .mean = 102.5, .stddev = 1.29 };
	struct cmp_cell shifted = { .runs = 4, .mean = 122.5, .stddev = 1.29 };
	struct cmp_cell one = { .runs = 1, .mean = 200 };
	assert_int_equal(cmp_welch(&a, &same, &p), 0);
	assert_true(p > 0.99);
	assert_int_equal(cmp_welch(&a, &shifted, &p), 1);
	assert_true(p < 1e-6);
	assert_int_equal(cmp_welch(&a, &one, &p), -1);
	struct cmp_cell x = { .runs = 3, .mean = 100, .stddev = 10 }, y = { .runs = 2, .mean = 150 };
	assert_int_equal(cmp_welch(&x, &y, &p), 1);
	assert_true(fabs(p - 0.01307) < 1e-4);
	struct cmp_cell z1 = { .runs = 2, .mean = 5 }, z2 = { .runs = 3, .mean = 5 };
	assert_int_equal(cmp_welch(&z1, &z2, &p), 0);
}

static void test_missing_cell_and_formats(void **state)
{
	(void)state;
	mkbw("x", "g", "ext4-1dd-4k-8p-4096M-1G:10", "A", 1, 10);
	mkbw("x", "g", "ext4-1dd-4k-8p-4096M-1G:10", "B", 1, 20);
	mkbw("x", "g", "ext4-1dd-4k-8p-4096M-1G:10", "C\"q", 1, 40);
	mkbw("x", "g", "xfs-1dd-4k-8p-4096M-1G:10", "A", 1, 10);
	mkbw("x", "g", "xfs-1dd-4k-8p-4096M-1G:10", "C\"q", 1, 5);
	const char *dirs[] = { sub_path("x") };
	struct cmp_options o = { 0 };
	struct cmp_table *t;
	char err[512];
	assert_int_equal(build(&o, 1, dirs, &t, err), CMP_OK);
	assert_int_equal(t->rows[1].cells[1].runs, 0);
	char *out = render(t, CMP_TEXT);
	assert_non_null(strstr(out, "                   10.00                      0.00       -50.0%"
				    "         5.00  g/xfs-1dd-4k-8p-4096M-1G:10-X\n"));
	assert_non_null(strstr(out, "                   20.00        +0.0%        20.00      +125.0%"
				    "        45.00  TOTAL write_bw\n"));
	free(out);
	out = render(t, CMP_JSON);
	/* read back with jansson: the quote in C"q survives, a missing cell is null */
	json_error_t jerr;
	json_t *j = json_loads(out, 0, &jerr);
	assert_non_null(j);
	assert_string_equal(json_string_value(json_array_get(json_object_get(j, "columns"), 2)), "C\"q");
	json_t *cells = json_object_get(json_array_get(json_object_get(j, "rows"), 1), "cells");
	assert_true(json_is_integer(json_object_get(json_array_get(cells, 0), "mean")));
	assert_int_equal(json_integer_value(json_object_get(json_array_get(cells, 0), "mean")), 10);
	assert_true(json_is_null(json_object_get(json_array_get(cells, 0), "stddev")));
	assert_true(json_is_null(json_array_get(cells, 1)));
	assert_int_equal(json_integer_value(json_object_get(json_array_get(cells, 2), "mean")), 5);
	assert_int_equal(json_array_size(json_object_get(j, "env_diff")), 0);
	json_decref(j);
	free(out);
	out = render(t, CMP_TSV);
	assert_non_null(strstr(out, "key\tkernel\twrite_bw\tstddev\truns\tchange_pct\tp_value\t"
				    "significant\n"));
	assert_non_null(strstr(out, "g/xfs-1dd-4k-8p-4096M-1G:10-X\tB\t\t\t0\t\t\t\n"));
	assert_non_null(strstr(out, "TOTAL write_bw\tC\"q\t45\t\t\t125\t\t\n"));
	free(out);
	cmp_free(t);
}

static void test_errors(void **state)
{
	(void)state;
	mkbw("e", "g", "ext4-1dd-4k-8p-4096M-1G:10", "A", 1, 10);
	char *d = mkres("e", "g", "ext4-1dd-4k-8p-4096M-1G:10", "B", 1, "write_bw 1\nx 1.5.3\n");
	char bad[1100];
	snprintf(bad, sizeof(bad), "%s/stats:2: '1.5.3' is not a number", d);
	const char *dirs[] = { sub_path("e") };
	struct cmp_options o = { 0 };
	struct cmp_table *t;
	char err[512];
	assert_int_equal(build(&o, 1, dirs, &t, err), CMP_EINPUT);
	assert_null(t);
	assert_string_equal(err, bad);

	o.metric = "nope";
	o.grep = (const char *const[]){ "-A$" };
	o.ngrep = 1;
	assert_int_equal(build(&o, 1, dirs, &t, err), CMP_EUSAGE);
	assert_string_equal(err, "unknown metric 'nope'; available: write_bw duration_s");

	/* an unknown field has its own status (report takes it as a usage
	 * error and an unknown metric as a table it leaves out), said first */
	o.field = "kernal";
	assert_int_equal(build(&o, 1, dirs, &t, err), CMP_EFIELD);
	assert_non_null(strstr(err, "unknown field 'kernal'"));
	o.field = NULL;

	o.metric = NULL;
	o.grep = (const char *const[]){ "nothing-matches" };
	assert_int_equal(build(&o, 1, dirs, &t, err), CMP_EEMPTY);
	assert_non_null(strstr(err, "no result left after -g/-v"));

	o.grep = (const char *const[]){ "-A$" };
	assert_int_equal(build(&o, 1, dirs, &t, err), CMP_EEMPTY);
	assert_non_null(strstr(err, "nothing to compare"));

	o.grep = (const char *const[]){ "[" };
	assert_int_equal(build(&o, 1, dirs, &t, err), CMP_EUSAGE);
	assert_non_null(strstr(err, "bad regex"));

	o.ngrep = 0;
	const char *none[] = { sub_path("does-not-exist") };
	assert_int_equal(build(&o, 1, none, &t, err), CMP_EINPUT);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_change),
		cmocka_unit_test(test_welch),
		cmocka_unit_test_setup_teardown(test_seed_golden, setup, teardown),
		cmocka_unit_test_setup_teardown(test_mask_fs_and_thresh, setup, teardown),
		cmocka_unit_test_setup_teardown(test_repeats_stddev_geomean, setup, teardown),
		cmocka_unit_test_setup_teardown(test_missing_cell_and_formats, setup, teardown),
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
