/* stats.c against a hand-made trace whose numbers are worked out below by hand.
 *
 * global_dirty_state (ts in s, nr_dirty = dirty + writeback):
 *   t=0    flush  dirty=100 wb=0   thresh=1000 limit=1000 dirtied=0     written=0
 *   t=0.5  dd     dirty=300 wb=100 thresh=300  limit=350  dirtied=1000  written=0
 *   t=1..10 flush dirty=200 wb=0   thresh=1000 limit=1000 dirtied=1000i written=2560i
 *   t=11   flush  same, but written=2560*10 + 99999 (an outlier the rule skips)
 * write_bw: N = 12 flusher samples, n = min(N/10, 100) = 1, end sample N-1-n = 10
 *   (t=10): 25600 pages / 256 / 10 s = 10 MB/s.
 * nr_dirty mean (time-weighted over 0..11 s): (100*0.5 + 400*0.5 + 200*10) / 11
 *   = 2250 / 11 = 204.545.. -> 204.5; dirty mean (100*0.5 + 300*0.5 + 200*10) / 11 = 200.
 * time over limit: the t=0.5 level 400 > max(300, 350) lasts 0.5 s.
 * balance_dirty_pages: pid 100 pauses 10 20 30 40, dirtied 32 each (128 pages);
 *   pid 200 pauses 5 100 0 -5, dirtied 128 128 128 128: the pause-0 event has
 *   period 0, so (3.3+ rules) the task's counter does not restart and its 128
 *   pages show again in the next event; counted once: 384 pages.
 *   Positive pauses sorted 5 10 20 30 40 100: mean 205/6 = 34.1667; nearest rank
 *   p50 = 3rd = 20, p90 = ceil(5.4) = 6th = 100, p99 = 100.
 *   task bw = pages / 256 / 11 s: 0.0455 and 0.1364; Jain (1+3)^2 / (2 (1+9)) = 0.8.
 *   task_ratelimit: four of 1000 and four of 2000 -> mean 1500.
 * bdi_dirty_ratelimit: dirty_ratelimit 100 300, balanced 50 150, awrite_bw 1000 3000.
 * nr_dirty p95 (time-weighted): 100 for 0.5 s, 400 for 0.5 s, 200 for 10 s; sorted
 *   100 (0.5), 200 (10.5 cumulative >= 0.95 * 11 = 10.45) -> 200.
 * steady task_ratelimit: events from t=0 to 11 s, second half from 5.5 s: only
 *   the two pid-200 events at 10.5 and 10.6 s (2000 each) -> 2000. */
#include <malloc.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "analysis/stats.h"
#include "trace/trace_read.h"
#include "stats_text.h"

static void feed_line(struct stats_acc *s, const char *line)
{
	struct wb_event e;
	assert_int_equal(trace_parse_line(line, strlen(line), &e), 1);
	stats_feed(s, &e);
}

static void gds(struct stats_acc *s, const char *comm, int pid, double t, int dirty, int wb,
		int thresh, int limit, long dirtied, long written)
{
	char line[512];
	snprintf(line, sizeof(line), "%16s-%-5d [000] %12.6f: global_dirty_state: dirty=%d "
		 "writeback=%d bg_thresh=%d thresh=%d limit=%d dirtied=%ld written=%ld",
		 comm, pid, t, dirty, wb, thresh / 2, thresh, limit, dirtied, written);
	feed_line(s, line);
}

static void bdp(struct stats_acc *s, int pid, double t, int dirtied, int pause, int task_rl,
		int paused)
{
	char line[512];
	snprintf(line, sizeof(line), "              dd-%-5d [001] %12.6f: balance_dirty_pages: bdi 8:0: "
		 "limit=1000 setpoint=800 dirty=300 wb_setpoint=400 wb_dirty=150 dirty_ratelimit=1000 "
		 "task_ratelimit=%d dirtied=%d dirtied_pause=32 paused=%d pause=%d period=%d think=0 "
		 "cgroup_ino=1", pid, t, task_rl, dirtied, paused, pause, pause);
	feed_line(s, line);
}

static void bdr(struct stats_acc *s, double t, int rl, int balanced, int awbw)
{
	char line[512];
	snprintf(line, sizeof(line), "              dd-100   [001] %12.6f: bdi_dirty_ratelimit: bdi 8:0: "
		 "write_bw=1 awrite_bw=%d dirty_rate=3 dirty_ratelimit=%d task_ratelimit=5 "
		 "balanced_dirty_ratelimit=%d cgroup_ino=1", t, awbw, rl, balanced);
	feed_line(s, line);
}


static char *hand_trace_stats(void)
{
	struct stats_acc *s = stats_new();
	gds(s, "flush-8:0", 9, 0.0, 100, 0, 1000, 1000, 0, 0);
	bdp(s, 100, 0.1, 32, 10, 1000, 0);
	bdp(s, 100, 0.2, 32, 20, 1000, 0);
	bdr(s, 0.3, 100, 50, 1000);
	gds(s, "dd", 100, 0.5, 300, 100, 300, 350, 1000, 0);
	bdp(s, 100, 0.6, 32, 30, 1000, 250);
	bdp(s, 100, 0.7, 32, 40, 1000, 0);
	bdp(s, 200, 0.8, 128, 5, 2000, 0);
	bdp(s, 200, 0.9, 128, 100, 2000, 0);
	bdr(s, 0.95, 300, 150, 3000);
	for (int i = 1; i <= 10; i++)
		gds(s, "flush-8:0", 9, i, 200, 0, 1000, 1000, 1000L * i, 2560L * i);
	bdp(s, 200, 10.5, 128, 0, 2000, 0);
	bdp(s, 200, 10.6, 128, -5, 2000, 0);
	gds(s, "flush-8:0", 9, 11, 200, 0, 1000, 1000, 11000, 25600 + 99999);
	return stats_text(s);
}

/* The value of "name" in a stats text, as printed. */
static const char *stat_of(const char *text, const char *name, char *out, size_t cap)
{
	size_t n = strlen(name);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, name, n) && p[n] == ' ') {
			size_t m = strcspn(p + n + 1, "\n");
			snprintf(out, cap, "%.*s", (int)m, p + n + 1);
			return out;
		}
	return "(missing)";
}

#define EXPECT(text, name, want) do { \
	char v_[64]; \
	assert_string_equal(stat_of(text, name, v_, sizeof(v_)), want); \
} while (0)

static void test_write_bw_follows_the_flusher_sample_rule(void **state)
{
	(void)state;
	char *t = hand_trace_stats();
	EXPECT(t, "write_bw", "10");
	EXPECT(t, "flusher_samples", "12");
	EXPECT(t, "gds_samples", "13");
	EXPECT(t, "duration_s", "11");
	EXPECT(t, "written_pages", "125599");
	EXPECT(t, "dirtied_pages", "11000");
	free(t);
}

/* nr_dirty_tail_max_mb: the lowest writer pid's last 500 samples.  Flusher
 * samples (5000 pages), an interrupt-context one (pid 0, 9999) and another
 * process's (pid 300, 8888: global_dirty_state is system-wide) do not
 * count; pid 3001 comes first (3000 pages) but pid 3000, which shows up
 * later, is the first writer: of its 600 samples the first 100 (2560 pages)
 * fall outside the last 500, whose peak is one sample of 1280 pages = 5 MB. */
static void test_tail_peak_is_the_first_writers_last_500_samples(void **state)
{
	(void)state;
	struct stats_acc *s = stats_new();
	gds(s, "flush-0:21", 1500, 0.0, 5000, 0, 1000, 1000, 0, 0);
	gds(s, "dd", 3001, 0.1, 3000, 0, 1000, 1000, 0, 0);
	gds(s, "<idle>", 0, 0.2, 9999, 0, 1000, 1000, 0, 0);
	gds(s, "systemd-journal", 300, 0.3, 8888, 0, 1000, 1000, 0, 0);   /* not a writer */
	for (int i = 0; i < 600; i++) {
		int v = i < 100 ? 2560 : i == 350 ? 1280 : 700 + i % 50;
		gds(s, "dd", 3000, 1.0 + i * 0.01, v, 0, 1000, 1000, i, 0);
		gds(s, "dd", 3001, 1.001 + i * 0.01, 3000, 0, 1000, 1000, i, 0);
	}
	gds(s, "flush-0:21", 1500, 9.0, 5000, 0, 1000, 1000, 600, 0);
	char *buf = stats_text(s);
	EXPECT(buf, "nr_dirty_tail_max_mb", "5");
	EXPECT(buf, "nr_dirty_max_mb", "39.0586");   /* every sample: the pid 0 one */
	free(buf);
	/* no writer sample at all: the metric is absent, not 0 */
	s = stats_new();
	gds(s, "flush-0:21", 1500, 0.0, 5000, 0, 1000, 1000, 0, 0);
	gds(s, "flush-0:21", 1500, 1.0, 5000, 0, 1000, 1000, 0, 0);
	buf = stats_text(s);
	EXPECT(buf, "nr_dirty_tail_max_mb", "(missing)");
	free(buf);
}

static void test_levels_are_time_weighted(void **state)
{
	(void)state;
	char *t = hand_trace_stats();
	EXPECT(t, "nr_dirty_tail_max_mb", "1.5625");   /* the dd's one sample, 400 pages */
	EXPECT(t, "nr_dirty_mean_pages", "204.5000");
	EXPECT(t, "dirty_mean_pages", "200");
	EXPECT(t, "nr_dirty_max_pages", "400");
	EXPECT(t, "dirty_max_pages", "300");
	EXPECT(t, "writeback_max_pages", "100");
	EXPECT(t, "time_over_limit_s", "0.5000");
	free(t);
}

static void test_pause_statistics_count_positive_pauses(void **state)
{
	(void)state;
	char *t = hand_trace_stats();
	EXPECT(t, "bdp_events", "8");
	EXPECT(t, "pause_count", "6");
	EXPECT(t, "pause_ms_mean", "34.1667");
	EXPECT(t, "pause_ms_p50", "20");
	EXPECT(t, "pause_ms_p90", "100");
	EXPECT(t, "pause_ms_p99", "100");
	EXPECT(t, "pause_ms_max", "100");
	EXPECT(t, "paused_ms_max", "250");
	EXPECT(t, "task_ratelimit_mean_kbps", "1500");
	EXPECT(t, "ratelimit_updates", "2");
	EXPECT(t, "dirty_ratelimit_mean_kbps", "200");
	EXPECT(t, "balanced_ratelimit_mean_kbps", "100");
	EXPECT(t, "avg_write_bw_mean_kbps", "2000");
	free(t);
}

static void test_p95_and_steady_rate_come_from_bounded_histograms(void **state)
{
	(void)state;
	char *t = hand_trace_stats();
	EXPECT(t, "nr_dirty_p95_pages", "200");
	EXPECT(t, "task_ratelimit_steady_kbps", "2000");
	free(t);
}

/* A long trace: bins coarsen and levels bucket, memory stays constant; the
 * figures stay right (1.6 % level resolution). */
/* Heap bytes in use (glibc's arena and mmapped blocks); 0 growth is exact
 * when nothing allocates between two calls. */
static size_t heap_in_use(void)
{
	struct mallinfo2 m = mallinfo2();
	return m.uordblks + m.hblkhd;
}

/* 1 if heap_in_use sees allocations at all: not under ASan, whose allocator
 * glibc's mallinfo2 does not know. */
static int heap_measurable(void)
{
	size_t before = heap_in_use();
	char *volatile p = malloc(100000);
	assert_non_null(p);
	p[0] = 1;
	size_t during = heap_in_use();
	free(p);
	return during >= before + 100000;
}

/* 100000 s of trace, one event every 0.5 s.  The heap in use after 1/10 of
 * it and after all of it must be the same: no sample lists, only rings and
 * histograms.  The results still come out of the bounded structures. */
static void test_memory_does_not_grow_with_trace_length(void **state)
{
	(void)state;
	int measurable = heap_measurable();
	struct stats_acc *s = stats_new();
	struct wb_event e;
	memset(&e, 0, sizeof(e));
	snprintf(e.comm, sizeof(e.comm), "dd");
	e.pid = 7;
	size_t heap_1x = 0, heap_10x;
	for (int64_t i = 0; i <= 200000; i++) {
		if (i == 20000)
			heap_1x = heap_in_use();
		e.ts_us = i * 500000;
		e.present = 0;
		if (i % 2) {
			e.type = EV_BALANCE_DIRTY_PAGES;
			wb_event_set(&e, F_TASK_RATELIMIT, i < 100000 ? 1000 : 3000);
			wb_event_set(&e, F_PAUSE, 10);
		} else {
			e.type = EV_GLOBAL_DIRTY_STATE;
			/* 96 % of the time at 1000 pages, 4 % at 50000 */
			wb_event_set(&e, F_DIRTY, (i / 2) % 25 == 0 ? 50000 : 1000);
			wb_event_set(&e, F_THRESH, 100000);
			wb_event_set(&e, F_LIMIT, 100000);
		}
		stats_feed(s, &e);
	}
	heap_10x = heap_in_use();
	if (measurable) {
		print_message("heap in use after 20000 events %zu, after 200000 %zu bytes\n", heap_1x,
			      heap_10x);
		assert_int_equal(heap_10x, heap_1x);
	} else {
		print_message("heap not measurable here (ASan allocator): growth not checked\n");
	}
	char *buf = stats_text(s);
	EXPECT(buf, "task_ratelimit_steady_kbps", "3000");
	EXPECT(buf, "nr_dirty_p95_pages", "1000");
	free(buf);
}

static void test_fairness_is_derived_from_balance_dirty_pages(void **state)
{
	(void)state;
	char *t = hand_trace_stats();
	EXPECT(t, "tasks", "2");
	EXPECT(t, "task_bw_0", "0.0455");
	EXPECT(t, "task_bw_1", "0.1364");
	EXPECT(t, "fairness_jain", "0.8000");
	EXPECT(t, "task_bw_from_trace", "1");   /* a lower bound, and marked so */
	free(t);
}

/* Producer-supplied progress overrides the bdp estimate; Jain of 1, 1, 4 MB/s
 * is 36 / (3 * 18) = 0.6667. */
static void test_fairness_uses_task_progress_when_given(void **state)
{
	(void)state;
	struct stats_acc *s = stats_new();
	stats_task(s, 3, 256 * 40, 10);
	stats_task(s, 1, 256 * 10, 10);
	stats_task(s, 2, 256 * 20, 20);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	stats_write(s, f);
	fclose(f);
	EXPECT(buf, "tasks", "3");
	EXPECT(buf, "task_bw_0", "1");
	EXPECT(buf, "task_bw_2", "4");
	EXPECT(buf, "task_bw_sum", "6");
	EXPECT(buf, "fairness_jain", "0.6667");
	EXPECT(buf, "task_bw_from_trace", "(missing)");   /* the producer's counts */
	/* no event fed: the trace's rows are unknown, absent, not 0 */
	EXPECT(buf, "write_bw", "(missing)");
	EXPECT(buf, "nr_dirty_mean_pages", "(missing)");
	EXPECT(buf, "duration_s", "(missing)");
	free(buf);
	stats_free(s);
}

/* Device stalls on a synthetic series (t in s, writeback, written):
 * 0.0 wb 10 w 100; 0.1 wb 10 w 100; 0.35 wb 10 w 100  -> run 0.0..0.35 = 350 ms: a stall
 * 0.4 wb 10 w 150 (progress: new run); 0.5 wb 10 w 150 -> run 0.4..0.5 = 100 ms: none
 * 0.6 wb 0 w 150 (nothing pending ends it); 0.7 wb 0 w 150; 1.0 wb 0 w 150: no run
 * 1.1 wb 5 w 160; 1.3 wb 5 w 160; 1.3 wb 5 w 160 -> 200 ms exactly: a stall
 * 1.4 wb 5 w 170; 2.0 wb 5 w 170 -> open at the end, 600 ms: a stall, closed by stats_write.
 * So 3 stalls, 0.35 + 0.2 + 0.6 = 1.15 s, the longest 600 ms. */
static void test_stalls_from_global_dirty_state(void **state)
{
	(void)state;
	struct stats_acc *s = stats_new();
	const double t[] = { 0, 0.1, 0.35, 0.4, 0.5, 0.6, 0.7, 1.0, 1.1, 1.3, 1.3, 1.4, 2.0 };
	const int wb[] = { 10, 10, 10, 10, 10, 0, 0, 0, 5, 5, 5, 5, 5 };
	const long w[] = { 100, 100, 100, 150, 150, 150, 150, 150, 160, 160, 160, 170, 170 };
	for (int i = 0; i < 13; i++)
		gds(s, "flush-8:0", 9, t[i], 50, wb[i], 1000, 1000, 0, w[i]);
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_int_equal(stats_write(s, f), 0);
	/* written twice: the open run is closed on a copy */
	assert_int_equal(stats_write(s, f), 0);
	fclose(f);
	stats_free(s);
	EXPECT(buf, "stall_count", "3");
	EXPECT(buf, "stall_s_total", "1.1500");
	EXPECT(buf, "stall_ms_max", "600");
	free(buf);
}

/* 3.1 has no setpoint: the control block gives the swing of nr_dirty about
 * the freerun ceiling (thresh 1000, bg 500: 750; ramp-up at t=1), not the
 * setpoint rows.  Peak 900@2, trough 800@3: amplitude 50 pages. */
static void test_control_rows_of_an_ioful_trace(void **state)
{
	(void)state;
	struct stats_acc *s = stats_new();
	static const int nr[] = { 0, 800, 900, 800, 900 };
	for (int i = 0; i < 5; i++) {
		gds(s, "flush-8:0", 9, i, nr[i], 0, 1000, 1000, 100L * i, 100L * i);
		char line[128];
		snprintf(line, sizeof(line), "              dd-100   [000] %12.6f: balance_dirty_start: "
			 "bdi 8:0", i + 0.5);
		feed_line(s, line);
	}
	char *buf = stats_text(s);
	EXPECT(buf, "dirty_osc_amp_pages", "50");
	EXPECT(buf, "setpoint_err_mean_pages", "(missing)");
	EXPECT(buf, "settle_start_s", "(missing)");
	EXPECT(buf, "task_ratelimit_fair_ratio", "(missing)");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_write_bw_follows_the_flusher_sample_rule),
		cmocka_unit_test(test_stalls_from_global_dirty_state),
		cmocka_unit_test(test_levels_are_time_weighted),
		cmocka_unit_test(test_tail_peak_is_the_first_writers_last_500_samples),
		cmocka_unit_test(test_pause_statistics_count_positive_pauses),
		cmocka_unit_test(test_p95_and_steady_rate_come_from_bounded_histograms),
		cmocka_unit_test(test_memory_does_not_grow_with_trace_length),
		cmocka_unit_test(test_fairness_is_derived_from_balance_dirty_pages),
		cmocka_unit_test(test_fairness_uses_task_progress_when_given),
		cmocka_unit_test(test_control_rows_of_an_ioful_trace),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
