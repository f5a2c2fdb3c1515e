/* plot.c: display decimation and series extraction from hand-made traces.
 *
 * tests/data/plot/small-6x.trace (t0 = 100 s, 1 MB = 256 pages):
 *   global_dirty_state dirty 256 512 1024 -> 1 2 4 MB; no unstable, so the sum is
 *   "dirty+writeback": 1 3 6 MB; dirtied 10000 10512 12560 -> 0 2 10 MB since the
 *   first event, written 5000 5256 7560 -> 0 1 10 MB.
 *   balance_dirty_pages of dd-501 (the first non-flusher pid): dirtied 32 (period
 *   0: nr_dirtied not reset) 64 (period 0) 128 (period 4: reset) 32 -> cumulative
 *   32 64 128 160 pages, 0.625 MB (a plain sum would say 256); dd-502: 256 pages =
 *   1 MB; the kworker's event is a flusher's and counts for no task.
 *   bdi_dirty_ratelimit in KB/s: write_bw 102400 -> 100 MB/s, balanced 20480 -> 20.
 * tests/data/plot/small-nfs.trace: 3.1 layout, unstable present, no
 *   balance_dirty_pages; nfs_commit_unstable_pages ret=0 is left out, ret=512 ->
 *   2 MB sent, write_chunk 1024 -> 4 MB; nfs_commit_release len=256 -> 1 MB. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "analysis/report.h"
#include "analysis/svg_inline.h"
#include "analysis/plot.h"
#include "util/util.h"

#ifndef DATA
#define DATA "tests/data/plot/"
#endif

struct pts {
	int n;
	int64_t t[64];
	double v[64];
	double vmin, vmax;
	int64_t last_t;
	int ordered;
	size_t total;
};

static int collect(void *arg, int64_t t, double v)
{
	struct pts *p = arg;
	if (p->total == 0) {
		p->vmin = p->vmax = v;
		p->ordered = 1;
	} else if (t < p->last_t) {
		p->ordered = 0;
	}
	if (v < p->vmin)
		p->vmin = v;
	if (v > p->vmax)
		p->vmax = v;
	p->last_t = t;
	if (p->n < 64) {
		p->t[p->n] = t;
		p->v[p->n] = v;
		p->n++;
	}
	p->total++;
	return 0;
}

static struct pts points(const struct plot_series *s)
{
	struct pts p;
	memset(&p, 0, sizeof(p));
	assert_non_null(s);
	plot_series_each(s, collect, &p);
	return p;
}

/* A million points with one spike and one dip: both survive, output is capped. */
static void decimation_keeps_min_max(void **state)
{
	(void)state;
	struct plot_series s;
	plot_series_init(&s, 200);
	for (int64_t i = 0; i < 1000000; i++) {
		double v = (double)(i % 100);
		if (i == 777777)
			v = 5000;
		if (i == 123457)
			v = -42;
		assert_int_equal(plot_series_add(&s, i * 10, v), 0);
	}
	struct pts p = points(&s);
	assert_true(p.total <= 200);
	assert_true(p.total >= 100);
	assert_true(p.ordered);
	assert_true(p.vmax == 5000);
	assert_true(p.vmin == -42);
	assert_int_equal(s.fed, 1000000);
	plot_series_free(&s);
}

/* Below the cap nothing is lost: every point comes back, in order. */
static void decimation_short_series_exact(void **state)
{
	(void)state;
	struct plot_series s;
	plot_series_init(&s, 0);
	for (int i = 0; i < 10; i++)
		plot_series_add(&s, 1000000 + (int64_t)i * 250000, i * 1.5);
	struct pts p = points(&s);
	assert_int_equal(p.n, 10);
	for (int i = 0; i < 10; i++) {
		assert_int_equal(p.t[i], 1000000 + (int64_t)i * 250000);
		assert_true(p.v[i] == i * 1.5);
	}
	plot_series_free(&s);
}

/* Timestamps going backwards (per-CPU buffers) land in the first bucket. */
static void decimation_out_of_order(void **state)
{
	(void)state;
	struct plot_series s;
	plot_series_init(&s, 8);
	plot_series_add(&s, 1000, 1);
	plot_series_add(&s, 500, 7);
	plot_series_add(&s, 100000, 2);
	for (int i = 0; i < 100; i++)
		plot_series_add(&s, 100000 + i * 1000, 3);
	/* beyond +-2^53 us a point is not drawn, though it would sort into bucket 0 */
	plot_series_add(&s, -(INT64_C(1) << 53) - 1, 1e9);
	plot_series_add(&s, INT64_MIN, 1e9);
	struct pts p = points(&s);
	assert_true(p.total <= 8);
	assert_true(p.vmax == 7);
	plot_series_free(&s);
	/* the same through the event feed, whose common case skips plot_series_add */
	struct plot_run *r = plot_run_new("test", 0);
	struct wb_event e;
	memset(&e, 0, sizeof(e));
	e.type = EV_GLOBAL_DIRTY_STATE;
	const int64_t ts[] = { 1000, -(INT64_C(1) << 53) - 1, INT64_MIN, 1001, 1002 };   /* bucket 0 cached */
	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		e.ts_us = ts[i];
		wb_event_set(&e, F_DIRTY, ts[i] < 0 ? 1 << 30 : 256);
		plot_run_feed(r, &e);
	}
	p = points(plot_run_series(r, PG_GLOBAL_DIRTY_STATE, "dirty"));
	assert_true(p.vmax == 1.0 && p.total == 3);
	plot_run_free(r);
}

/* every point of a series, for comparing two whole series */
struct all_pts {
	size_t n;
	int64_t t[4096];
	double v[4096];
};

static int collect_all(void *arg, int64_t t, double v)
{
	struct all_pts *p = arg;
	if (p->n < 4096) {
		p->t[p->n] = t;
		p->v[p->n] = v;
	}
	p->n++;
	return 0;
}

/* Starting at the span's width gives the very buckets that coarsening from
 * 1 us reaches for a series spanning it, without coarsening on the way; a
 * series spanning less keeps the coarser buckets, min and max intact. */
static void expected_span_same_buckets(void **state)
{
	(void)state;
	const int64_t span = 30000000;   /* 30 s */
	struct plot_series a, b, c;
	plot_series_init(&a, 2000);
	plot_series_init(&b, 2000);
	plot_series_init(&c, 2000);
	plot_series_expect_span(&b, span);
	plot_series_expect_span(&c, span);
	assert_int_equal(b.width0, 32768);   /* 30 s / 2^15 us < 1000 buckets <= 30 s / 2^14 */
	uint64_t x = 12345;
	int64_t t = 0;
	double v = 0, cmin = 1e300, cmax = -1e300;
	while (t <= span - 20000) {
		x = x * 6364136223846793005ULL + 1442695040888963407ULL;
		t += 1 + (int64_t)(x >> 50);          /* 1 us .. 16 ms steps */
		v += (double)((int64_t)(x >> 40) % 7) - 3;
		plot_series_add(&a, t, v);
		plot_series_add(&b, t, v);
		if (t < span / 10) {
			plot_series_add(&c, t, v);
			cmin = v < cmin ? v : cmin;
			cmax = v > cmax ? v : cmax;
		}
	}
	assert_int_equal(a.width, b.width0);
	assert_int_equal(b.width, b.width0);     /* b never coarsened */
	static struct all_pts pa, pb;
	memset(&pa, 0, sizeof(pa));
	memset(&pb, 0, sizeof(pb));
	plot_series_each(&a, collect_all, &pa);
	plot_series_each(&b, collect_all, &pb);
	assert_true(pa.n > 1000 && pa.n <= 2000);
	assert_int_equal(pa.n, pb.n);
	for (size_t i = 0; i < pa.n; i++) {
		assert_int_equal(pa.t[i], pb.t[i]);
		assert_true(pa.v[i] == pb.v[i]);
	}
	struct pts pc = points(&c);
	assert_int_equal(c.width, c.width0);
	assert_true(c.used <= 100);             /* a tenth of the span: a tenth of the buckets */
	assert_true(pc.ordered && pc.vmin == cmin && pc.vmax == cmax);
	plot_series_free(&a);
	plot_series_free(&b);
	plot_series_free(&c);
}

static struct plot_run *load(const char *name)
{
	char err[512];
	struct plot_run *r = plot_run_new("test", 0);
	assert_non_null(r);
	if (plot_run_load(r, name, err, sizeof(err)) != 0)
		fail_msg("%s", err);
	return r;
}

static void assert_series(const struct plot_run *r, enum plot_graph g, const char *title, int n,
			  const double *mb)
{
	struct pts p = points(plot_run_series(r, g, title));
	assert_int_equal(p.n, n);
	for (int i = 0; i < n; i++)
		if (p.v[i] < mb[i] - 1e-9 || p.v[i] > mb[i] + 1e-9)
			fail_msg("%s[%d] = %g, want %g", title, i, p.v[i], mb[i]);
}

static void extract_6x(void **state)
{
	(void)state;
	struct plot_run *r = load(DATA "small-6x.trace");
	assert_int_equal(plot_run_t0(r), 100000000);
	assert_series(r, PG_GLOBAL_DIRTY_STATE, "dirty", 3, (double[]){ 1, 2, 4 });
	assert_series(r, PG_GLOBAL_DIRTY_STATE, "dirty+writeback+unstable", 3, (double[]){ 1, 3, 6 });
	assert_series(r, PG_GLOBAL_DIRTY_STATE, "limit", 3, (double[]){ 10, 10, 2600.0 / 256 });
	assert_null(plot_run_series(r, PG_GLOBAL_DIRTY_STATE, "unstable"));
	assert_series(r, PG_GLOBAL_DIRTIED_WRITTEN, "dirtied", 3, (double[]){ 0, 2, 10 });
	assert_series(r, PG_GLOBAL_DIRTIED_WRITTEN, "written", 3, (double[]){ 0, 1, 10 });
	assert_int_equal(plot_run_bdp_pid(r), 501);
	assert_series(r, PG_BDP_TASK_BW, "dd-501", 4,
		      (double[]){ 32 / 256.0, 64 / 256.0, 128 / 256.0, 160 / 256.0 });
	assert_series(r, PG_BDP_TASK_BW, "dd-502", 1, (double[]){ 1 });
	assert_null(plot_run_series(r, PG_BDP_TASK_BW, "kworker/u8:1-40"));
	assert_series(r, PG_BDP_PAUSE, "pause", 4, (double[]){ 0, 0, 4, 8 });
	assert_series(r, PG_BDP_PAUSE, "dirtied", 4, (double[]){ 32, 64, 128, 32 });
	assert_series(r, PG_BDP_PAGES, "bdi dirty", 4,
		      (double[]){ 760 / 256.0, 790 / 256.0, 820 / 256.0, 830 / 256.0 });
	assert_series(r, PG_BDP_PAGES, "balanced ratelimit", 1, (double[]){ 20 });
	assert_series(r, PG_BDP_BANDWIDTH, "write bandwidth", 1, (double[]){ 100 });
	assert_series(r, PG_BDP_BANDWIDTH, "task ratelimit", 1, (double[]){ 90 });
	for (int g = 0; g < PG_NFS_COMMIT; g++)
		assert_true(plot_run_has(r, (enum plot_graph)g));
	assert_false(plot_run_has(r, PG_NFS_COMMIT));
	plot_run_free(r);
}

static void extract_nfs_no_bdp(void **state)
{
	(void)state;
	struct plot_run *r = load(DATA "small-nfs.trace");
	assert_true(plot_run_has(r, PG_GLOBAL_DIRTY_STATE));
	assert_true(plot_run_has(r, PG_NFS_COMMIT));
	assert_false(plot_run_has(r, PG_BDP_PAGES));
	assert_false(plot_run_has(r, PG_BDP_BANDWIDTH));
	assert_false(plot_run_has(r, PG_BDP_TASK_BW));
	assert_string_equal(plot_run_missing(r, PG_BDP_PAGES), "no balance_dirty_pages events");
	assert_series(r, PG_GLOBAL_DIRTY_STATE, "dirty+writeback+unstable", 2,
		      (double[]){ 450 / 256.0, 300 / 256.0 });
	assert_series(r, PG_NFS_COMMIT, "send commit", 1, (double[]){ 2 });
	assert_series(r, PG_NFS_COMMIT, "write chunk", 1, (double[]){ 4 });
	assert_series(r, PG_NFS_COMMIT, "release commit", 1, (double[]){ 1 });
	plot_run_free(r);
}

static char *slurp(const char *path)
{
	FILE *f = fopen(path, "r");
	assert_non_null(f);
	static char buf[1 << 16];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* .dat blocks and the .gp script, for one run and overlaid. */
static void write_graph_files(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_plot.XXXXXX", err[512], p[256];
	assert_non_null(mkdtemp(dir));
	struct plot_run *runs[2] = { load(DATA "small-6x.trace"), load(DATA "small-nfs.trace") };
	assert_int_equal(plot_write_graph(runs, 1, PG_BDP_PAGES, "t", dir, err, sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s/balance_dirty_pages-pages.gp", dir);
	const char *gp = slurp(p);
	assert_non_null(strstr(gp, "set logscale y2 2"));
	assert_non_null(strstr(gp, "'balance_dirty_pages-pages.png'"));
	assert_non_null(strstr(gp, "'balance_dirty_pages-pages.svg'"));
	assert_non_null(strstr(gp, "pid 501"));
	assert_non_null(strstr(gp, "index 0 using 1:2"));
	snprintf(p, sizeof(p), "%s/balance_dirty_pages-pages.dat", dir);
	const char *dat = slurp(p);
	assert_non_null(strstr(dat, "# index 0: limit"));
	assert_non_null(strstr(dat, "\n0.600000 10\n"));   /* seconds from t0, MB */

	/* Overlay: second run dashed, keys name both runs. */
	assert_int_equal(plot_write_graph(runs, 2, PG_GLOBAL_DIRTY_STATE, "t", dir, err, sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s/global_dirty_state.gp", dir);
	gp = slurp(p);
	assert_non_null(strstr(gp, "dt 2"));
	assert_non_null(strstr(gp, "title 'unstable'"));
	assert_null(strstr(gp, "'unstable (test)'"));   /* the run is named once, in its key entry */
	assert_non_null(strstr(gp, "set terminal pngcairo"));
	/* a legend line per run, and the second run in its own colours */
	assert_non_null(strstr(gp, "dt 1 lw 2 title 'solid: test'"));
	assert_non_null(strstr(gp, "dt 2 lw 2 title 'dashed: test'"));
	const char *d2 = strstr(gp, "index 3 using");    /* run 1's dirty; run 2's come later */
	assert_non_null(d2);
	assert_non_null(strstr(gp, "lc rgb '#1f77b4' dt 1 title 'dirty'"));
	assert_null(strstr(d2, "lc rgb '#1f77b4' dt 2 title 'dirty'"));
	/* A graph neither run can draw is refused. */
	assert_int_equal(plot_write_graph(runs + 1, 1, PG_BDP_PAUSE, "t", dir, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no balance_dirty_pages events"));
	plot_run_free(runs[0]);
	plot_run_free(runs[1]);
	remove_tree(dir);
}


/* A saved plot-series reads back as the same series, counts and pid. */
static void saved_series_roundtrip(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_plot.XXXXXX", err[512], p[256];
	assert_non_null(mkdtemp(dir));
	struct plot_run *a = load(DATA "small-6x.trace");
	snprintf(p, sizeof(p), "%s/plot-series", dir);
	assert_int_equal(plot_run_save(a, p, 1234), 0);
	assert_int_equal(plot_series_trace_bytes(p), 1234);
	struct plot_run *b = plot_run_new("test", 0);
	if (plot_run_load_series(b, p, err, sizeof(err)))
		fail_msg("%s", err);
	assert_int_equal(plot_run_t0(b), plot_run_t0(a));
	assert_int_equal(plot_run_bdp_pid(b), 501);
	for (int g = 0; g < PG_COUNT; g++)
		assert_int_equal(plot_run_has(b, (enum plot_graph)g), plot_run_has(a, (enum plot_graph)g));
	assert_series(b, PG_GLOBAL_DIRTY_STATE, "dirty", 3, (double[]){ 1, 2, 4 });
	assert_series(b, PG_BDP_TASK_BW, "dd-501", 4,
		      (double[]){ 32 / 256.0, 64 / 256.0, 128 / 256.0, 160 / 256.0 });
	assert_series(b, PG_BDP_PAUSE, "pause", 4, (double[]){ 0, 0, 4, 8 });
	assert_int_equal(plot_run_series(b, PG_BDP_PAUSE, "pause")->fed,
			 plot_run_series(a, PG_BDP_PAUSE, "pause")->fed);
	/* a damaged file is an error naming file and line */
	FILE *f = fopen(p, "a");
	fputs("garbage here\n", f);
	fclose(f);
	struct plot_run *c = plot_run_new("test", 0);
	assert_int_equal(plot_run_load_series(c, p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "plot-series:"));
	assert_non_null(strstr(err, "not a plot-series line"));
	/* timestamps at the ends of int64 (t - t0 would overflow into a bucket
	 * before the first) are refused by line, and a 64-bit inode number stays
	 * whole */
	f = fopen(p, "w");
	fputs("plot-series 1\nt0 0\nseries ino:4294967308 2 2\n0 1\n10 2\n"
	      "series dirty 3 3\n-9223372036854775808 1\n9223372036854775807 2\n0 1\n", f);
	fclose(f);
	struct plot_run *d = plot_run_new("test", 0);
	assert_int_equal(plot_run_load_series(d, p, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "plot-series:7:"));
	assert_non_null(plot_run_series(d, PG_FILE_PROGRESS, "ino 4294967308"));
	plot_run_free(a);
	plot_run_free(b);
	plot_run_free(c);
	plot_run_free(d);
	remove_tree(dir);
}

static void feed_bdp_event(struct plot_run *r, int64_t us, int64_t pause, int64_t task_kbps)
{
	struct wb_event e;
	memset(&e, 0, sizeof(e));
	e.type = EV_BALANCE_DIRTY_PAGES;
	e.ts_us = us;
	e.pid = 100;
	strcpy(e.comm, "dd");
	wb_event_set(&e, F_PAUSE, pause);
	wb_event_set(&e, F_PAUSED, 0);
	wb_event_set(&e, F_DIRTIED, 32);
	wb_event_set(&e, F_LIMIT, 2560);
	wb_event_set(&e, F_DIRTY, 1000);
	wb_event_set(&e, F_TASK_RATELIMIT, task_kbps);
	wb_event_set(&e, F_DIRTY_RATELIMIT, task_kbps);
	assert_int_equal(plot_run_feed(r, &e), 0);
}

/* A 1200 ms first pause does not set the axis of 10 ms steady pauses: the
 * y range follows the steady part and the outlier is marked on the top edge;
 * the log2 ratelimit axis is labelled 0.01, 0.1, ..., never 0.00390625. */
static void robust_axes_and_plain_tics(void **state)
{
	(void)state;
	char dir[] = "/tmp/test_plot.XXXXXX", err[512], p[256];
	assert_non_null(mkdtemp(dir));
	struct plot_run *r = plot_run_new("test", 0);
	feed_bdp_event(r, 100000, 1200, 4);      /* 4 KB/s = 0.00390625 MB/s */
	for (int i = 2; i <= 1000; i++)
		feed_bdp_event(r, i * 100000LL, 10, 102400);
	assert_int_equal(plot_write_graph(&r, 1, PG_BDP_PAUSE, "t", dir, err, sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s/balance_dirty_pages-pause.gp", dir);
	const char *gp = slurp(p);
	assert_non_null(strstr(gp, "set yrange [0:10.5]\n"));
	assert_non_null(strstr(gp, "above the y range (max 1200)"));
	snprintf(p, sizeof(p), "%s/balance_dirty_pages-pause.dat", dir);
	const char *dat = slurp(p);
	assert_non_null(strstr(dat, "marks on the top edge"));
	assert_non_null(strstr(dat, "\n0.000000 10.5\n"));   /* the outlier at t = 0, on the edge */
	assert_int_equal(plot_write_graph(&r, 1, PG_BDP_PAGES, "t", dir, err, sizeof(err)), 0);
	snprintf(p, sizeof(p), "%s/balance_dirty_pages-pages.gp", dir);
	gp = slurp(p);
	assert_non_null(strstr(gp, "set logscale y2 2"));
	assert_non_null(strstr(gp, "set y2tics ('0.01' 0.01, '0.1' 0.1, '1' 1, '10' 10, '100' 100)"));
	assert_null(strstr(gp, "0.0039"));
	plot_run_free(r);
	remove_tree(dir);
}

static void graph_names(void **state)
{
	(void)state;
	assert_string_equal(plot_graph_name(PG_BDP_TASK_BW), "balance_dirty_pages-task-bw");
	assert_int_equal(plot_graph_lookup("nfs-commit"), PG_NFS_COMMIT);
	assert_int_equal(plot_graph_lookup("nope"), -1);
}


/* the saved series' number formatting is printf's %.9g and %lld, byte for
 * byte: page fractions, rates, integers, and values it must hand to printf */
static void saved_numbers_print_as_printf(void **state)
{
	(void)state;
	char a[64], b[64];
	const double fixed[] = { 0, 1, -1, 0.5, 0.00390625, 1.0 / 1024, 123456789, 999999999,
				 1e9, 1234567890.5, 1e-4, 0.0001220703125, 3.0517578125e-05, -0.0,
				 0.1, 1.0 / 3, 12345.678901, 1e300, -2.5e-7, 4096.0 / 1048576 * 37,
				 12345678.25 /* a tie: to even, down */, 12345678.75, 50.13671875,
				 999999999.5 /* carries to 1e+09 */, -0.000123977661,
				 7, -123456789, 100000000, 4096, -1e8 /* whole numbers: the integer path */ };
	for (size_t i = 0; i < sizeof(fixed) / sizeof(fixed[0]); i++) {
		int n = fmt_g9(a, fixed[i]);
		snprintf(b, sizeof(b), "%.9g", fixed[i]);
		assert_string_equal(a, b);
		assert_int_equal(n, (int)strlen(b));
	}
	uint64_t x = 88172645463325252ULL;
	for (int i = 0; i < 200000; i++) {
		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		/* k pages in MB, KB/s in MB/s, and arbitrary doubles */
		double v = i % 3 == 0 ? (double)(x % 100000000) / 256
			 : i % 3 == 1 ? (double)(int64_t)(x % 2000000000 - 1000000000) / 1024
			 : (double)(x >> 11) / 9007199254740992.0 * 1e6;
		fmt_g9(a, v);
		snprintf(b, sizeof(b), "%.9g", v);
		assert_string_equal(a, b);
		long long t = (long long)((x >> 1) >> (i % 63)) * (i % 2 ? 1 : -1);   /* 1 to 19 digits */
		fmt_lld(a, t);
		snprintf(b, sizeof(b), "%lld", t);
		assert_string_equal(a, b);
	}
	fmt_lld(a, INT64_MIN);
	assert_string_equal(a, "-9223372036854775808");
}

/* tenths of a pixel as the report prints them, from snprintf: the integer
 * part (dropped when 0 and there are tenths), '.' and the tenths if any */
static void tenths_text(long t, char *out, size_t n)
{
	long a = labs(t);
	const char *sign = t < 0 ? "-" : "";
	if (a % 10 == 0)
		snprintf(out, n, "%s%ld", sign, a / 10);
	else if (a < 10)
		snprintf(out, n, "%s.%ld", sign, a % 10);
	else
		snprintf(out, n, "%s%ld.%ld", sign, a / 10, a % 10);
}

static char *compacted(const char *d)
{
	static char buf[4096];
	char *m = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&m, &n);
	const char *e = svg_compact_path(f, d, '"');
	fclose(f);
	snprintf(buf, sizeof(buf), "%s", e ? m : "(copied)");
	free(m);
	return buf;
}

/* the report's path rewriting, worked by hand: 22.25 x 10 = 222.5 rounds
 * away from zero to 223 (v2.3), l repeats implicitly, a negative step
 * prints its sign, and anything but M/L/Z numbers is copied as it is */
static void report_paths_are_rewritten_to_relative_tenths(void **state)
{
	(void)state;
	assert_string_equal(compacted("M10.00,20.00 L15.50,20.00 L15.50,22.25 L17.00,23.00 Z\""),
			    "M10,20h5.5v2.3l1.5,.7Z");
	assert_string_equal(compacted("M0.05,100.00 L1.00,99.00 L2.00,98.00 L1.90,98.00\""),
			    "M.1,100l.9-1 1-1h-.1");
	assert_string_equal(compacted("M1,2 C3,4 5,6\""), "(copied)");
	assert_string_equal(compacted("M1,2 L3\""), "(copied)");
	/* every number reads as strtod reads it: one M of random values */
	srand(7);
	for (int i = 0; i < 20000; i++) {
		char d[64], want[96];
		int dec = rand() % 4;
		double v = (double)(rand() % 2000000) / 100.0 - 5000.0;
		snprintf(d, sizeof(d), "M%.*f,%.*f\"", dec, v, dec, -v / 3);
		char *e;
		long X = lround(strtod(d + 1, &e) * 10), Y = lround(strtod(e + 1, NULL) * 10);
		char xo[40], yo[40];
		tenths_text(X, xo, sizeof(xo));
		tenths_text(Y, yo, sizeof(yo));
		snprintf(want, sizeof(want), "M%s,%s", xo, yo);
		if (strcmp(compacted(d), want))
			fail_msg("%s: %s, want %s", d, compacted(d), want);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(report_paths_are_rewritten_to_relative_tenths),
		cmocka_unit_test(decimation_keeps_min_max),
		cmocka_unit_test(decimation_short_series_exact),
		cmocka_unit_test(decimation_out_of_order),
		cmocka_unit_test(expected_span_same_buckets),
		cmocka_unit_test(extract_6x),
		cmocka_unit_test(extract_nfs_no_bdp),
		cmocka_unit_test(write_graph_files),
		cmocka_unit_test(graph_names),
		cmocka_unit_test(saved_series_roundtrip),
		cmocka_unit_test(saved_numbers_print_as_printf),
		cmocka_unit_test(robust_axes_and_plain_tics),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
