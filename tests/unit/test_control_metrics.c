/* stats_control.c on synthetic series whose answers are worked out by hand.
 *
 * Thresholds thresh=1000 bg_thresh=600 limit=1000: freerun ceiling 800, hard
 * limit 1000, setpoint (800 + 1000) / 2 = 900; the 5 % band is 855..945 and
 * ramp-up ends at the first nr_dirty >= 855.
 *
 * Tracking (test_setpoint_error_settling_and_swing): nr_dirty at t (s)
 *   0:0 1:500 2:900 3:990 4:810 5:990 6:810 7:900 8:904 9:896 9.5:900
 *   ramp-up ends at t=2; levels held to the next sample, T = 7.5 s:
 *   |e| = 0 (1 s), 90 (4 s), 0 (1 s), 4 (1 s), 4 (0.5 s)
 *   mean |e| = 366 / 7.5 = 48.8; RMS = sqrt(32424 / 7.5) = 65.751 -> 65.8
 *   in %: 366 / 9 / 7.5 = 5.422 -> 5.42; RMS sqrt((400 + 1.5 (4/9)^2) / 7.5)
 *   = 7.3057 -> 7.31; in band 1 + 2.5 of 7.5 s = 46.7 %.
 *   Settling: in band from t=7, still at t=8 (1 s) -> settle_start_s 7.
 *   Swing (hysteresis 1 % of 900 = 9): peak 990@3, trough 810@4, peak 990@5,
 *   trough 810@6; 904/896 differ by 8 < 9: no turning point.  Swings 180 x 3
 *   -> amplitude 90 pages = 10 % of 900; periods 5-3 and 6-4 -> 2 s.
 *   write_bw_steady: written 0 until t=2, then 256 pages/s to t=8 (1536),
 *   then 512 pages/s; dirtied grows until t=8: from the ramp-up (t=2, 0) to
 *   t=8 (1536): 1536 pages / 256 / 6 s = 1 MB/s (from t=0: 0.75; to the
 *   last sample: 1.2).
 *
 * Disturbances (test_disturbances_are_writer_and_setpoint_changes):
 *   nr_dirty 0:900 1:900 -> settled at once (settle_start_s 0).  A second
 *   writer at t=2 is a disturbance; 2.5:1000 3:950 out, 4:920 5:910 in ->
 *   settled again from 4: 2 s.  At t=6 the thresholds double (setpoint
 *   1800): a disturbance; 6:910 out, 7:1790 8:1800 in -> 1 s.  Two
 *   disturbances, settle_s_mean 1.5, settle_s_max 2.
 *
 * Fair share and rate swing (test_fair_share_and_ratelimit_swing): avg
 *   write_bw 1200 KB/s, three writers -> fair share 400; task_ratelimit
 *   400, 400, 500 -> ratios 1, 1, 1.25: mean 1.0833, |ratio - 1| 8.3333 %.
 *   dirty_ratelimit 1000 1100 1000 1100 1000 at t=1..5: peak 1100@2,
 *   trough 1000@3, peak 1100@4 -> swings 100, 100: amplitude 50 KB/s,
 *   period 2 s. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>
#include "analysis/stats_control.h"

static struct wb_event ev(enum wb_event_type type, double t, int pid)
{
	struct wb_event e;
	memset(&e, 0, sizeof(e));
	e.type = type;
	e.ts_us = (int64_t)(t * 1e6 + 0.5);
	e.pid = pid;
	snprintf(e.bdi, sizeof(e.bdi), "8:0");
	return e;
}

static void gds(struct control_acc *c, double t, long nr, long thresh, long dirtied, long written)
{
	struct wb_event e = ev(EV_GLOBAL_DIRTY_STATE, t, 9);
	wb_event_set(&e, F_DIRTY, nr / 2);
	wb_event_set(&e, F_WRITEBACK, nr - nr / 2);
	wb_event_set(&e, F_THRESH, thresh);
	wb_event_set(&e, F_BG_THRESH, thresh * 6 / 10);
	wb_event_set(&e, F_LIMIT, thresh);
	wb_event_set(&e, F_DIRTIED, dirtied);
	wb_event_set(&e, F_WRITTEN, written);
	control_feed(c, &e);
}

static void bdp(struct control_acc *c, double t, int pid, long task_rl)
{
	struct wb_event e = ev(EV_BALANCE_DIRTY_PAGES, t, pid);
	wb_event_set(&e, F_TASK_RATELIMIT, task_rl);
	control_feed(c, &e);
}

static void bdr(struct control_acc *c, double t, long awrite_bw, long dirty_rl)
{
	struct wb_event e = ev(EV_BDI_DIRTY_RATELIMIT, t, 9);
	wb_event_set(&e, F_AWRITE_BW, awrite_bw);
	wb_event_set(&e, F_DIRTY_RATELIMIT, dirty_rl);
	control_feed(c, &e);
}

static char *written(const struct control_acc *c, int ioless)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	assert_non_null(f);
	control_write(c, f, ioless);
	fclose(f);
	return buf;
}

static const char *stat_of(const char *text, const char *name, char *out, size_t cap)
{
	size_t n = strlen(name);
	for (const char *p = text; p && *p; p = strchr(p, '\n'), p = p ? p + 1 : NULL)
		if (!strncmp(p, name, n) && p[n] == ' ') {
			snprintf(out, cap, "%.*s", (int)strcspn(p + n + 1, "\n"), p + n + 1);
			return out;
		}
	return "(missing)";
}

#define EXPECT(text, name, want) do { \
	char v_[64]; \
	assert_string_equal(stat_of(text, name, v_, sizeof(v_)), want); \
} while (0)

/* the tracking series of the header comment, fed to a new accumulator */
static struct control_acc *tracking_series(void)
{
	static const double t[] = { 0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 9.5 };
	static const long nr[] = { 0, 500, 900, 990, 810, 990, 810, 900, 904, 896, 900 };
	struct control_acc *c = calloc(1, sizeof(*c));
	assert_non_null(c);
	control_init(c);
	for (int i = 0; i < 11; i++) {
		double w = t[i] < 2 ? 0 : t[i] <= 8 ? 256 * (t[i] - 2) : 1536 + 512 * (t[i] - 8);
		gds(c, t[i], nr[i], 1000, (long)(1000 * (t[i] < 8 ? t[i] : 8)), (long)w);
	}
	return c;
}

static void test_setpoint_error_settling_and_swing(void **state)
{
	(void)state;
	struct control_acc *c = tracking_series();
	char *s = written(c, 1);
	EXPECT(s, "write_bw_steady", "1");
	EXPECT(s, "setpoint_mean_pages", "900");
	EXPECT(s, "setpoint_err_mean_pages", "48.8000");
	EXPECT(s, "setpoint_err_rms_pages", "65.8000");
	EXPECT(s, "setpoint_err_mean_pct", "5.4200");
	EXPECT(s, "setpoint_err_rms_pct", "7.3100");
	EXPECT(s, "setpoint_band_pct", "46.7000");
	EXPECT(s, "settle_start_s", "7");
	EXPECT(s, "disturbances", "0");
	EXPECT(s, "settle_s_mean", "(missing)");
	EXPECT(s, "dirty_osc_amp_pages", "90");
	EXPECT(s, "dirty_osc_amp_pct", "10");
	EXPECT(s, "dirty_osc_period_s", "2");
	/* no balance_dirty_pages/bdi_dirty_ratelimit events: nothing to say */
	EXPECT(s, "ratelimit_osc_amp_kbps", "(missing)");
	EXPECT(s, "task_ratelimit_fair_ratio", "(missing)");
	free(s);
	/* 3.1 (no setpoint): the setpoint rows are absent, the swing is about
	 * the freerun ceiling 800, which ramp-up reaches at t=2 as well */
	s = written(c, 0);
	EXPECT(s, "setpoint_err_mean_pages", "(missing)");
	EXPECT(s, "settle_start_s", "(missing)");
	EXPECT(s, "dirty_osc_amp_pages", "90");
	EXPECT(s, "dirty_osc_amp_pct", "11.2500");
	EXPECT(s, "write_bw_steady", "1");
	free(s);
	free(c);
}

/* write_bw_steady ends at the writers' last growing sample: the same series
 * as above, then the flusher (a 6.x kworker) samples at t=12 after a stray
 * page was dirtied, as a real trace's final sync does; counting it would give
 * (1536 + 512 * 4 + 1) pages / 256 / 10 s = 1.4004 MB/s instead of 1 */
static void test_steady_window_ends_at_a_writer(void **state)
{
	(void)state;
	struct control_acc *c = tracking_series();
	struct wb_event e = ev(EV_GLOBAL_DIRTY_STATE, 12, 1500);
	snprintf(e.comm, sizeof(e.comm), "kworker/u8:4");
	wb_event_set(&e, F_DIRTY, 450);
	wb_event_set(&e, F_WRITEBACK, 450);
	wb_event_set(&e, F_THRESH, 1000);
	wb_event_set(&e, F_BG_THRESH, 600);
	wb_event_set(&e, F_LIMIT, 1000);
	wb_event_set(&e, F_DIRTIED, 8001);
	wb_event_set(&e, F_WRITTEN, 1536 + 512 * 4 + 1);
	control_feed(c, &e);
	char *s = written(c, 1);
	EXPECT(s, "write_bw_steady", "1");
	free(s);
	/* a writer's sample there does end the window: from t=2 to 12.5,
	 * 3585 pages / 256 / 10.5 s = 1.3337 */
	snprintf(e.comm, sizeof(e.comm), "dd");
	e.ts_us = 12500000;
	wb_event_set(&e, F_DIRTIED, 8002);
	control_feed(c, &e);
	s = written(c, 1);
	EXPECT(s, "write_bw_steady", "1.3337");
	free(s);
	free(c);
}

static void test_disturbances_are_writer_and_setpoint_changes(void **state)
{
	(void)state;
	struct control_acc *c = calloc(1, sizeof(*c));
	control_init(c);
	static const double t[] = { 0, 1, 2.5, 3, 4, 5, 6, 7, 8 };
	static const long nr[] = { 900, 900, 1000, 950, 920, 910, 910, 1790, 1800 };
	int g = 0;
	for (int k = 0; k <= 16; k++) {      /* every 0.5 s */
		double now = k * 0.5;
		if (g < 9 && t[g] <= now) {
			gds(c, t[g], nr[g], t[g] >= 6 ? 2000 : 1000, 0, 0);
			g++;
		}
		bdp(c, now, 1, 100);
		if (now >= 2)
			bdp(c, now, 2, 100);
	}
	char *s = written(c, 1);
	EXPECT(s, "settle_start_s", "0");
	EXPECT(s, "disturbances", "2");
	EXPECT(s, "settle_s_mean", "1.5000");
	EXPECT(s, "settle_s_max", "2");
	free(s);
	free(c);
}

static void test_fair_share_and_ratelimit_swing(void **state)
{
	(void)state;
	struct control_acc *c = calloc(1, sizeof(*c));
	control_init(c);
	gds(c, 0, 900, 1000, 0, 0);
	static const long rl[] = { 1000, 1100, 1000, 1100, 1000 };
	/* the three writers are known before the measured events */
	bdp(c, 0.5, 100, 0);
	bdp(c, 0.5, 101, 0);
	bdp(c, 0.5, 102, 0);
	for (int i = 0; i < 5; i++) {
		bdr(c, 1 + i, 1200, rl[i]);
		bdp(c, 1.1 + i, 100, 400);
		bdp(c, 1.2 + i, 101, 400);
		bdp(c, 1.3 + i, 102, 500);
	}
	char *s = written(c, 1);
	EXPECT(s, "task_ratelimit_fair_ratio", "1.0833");
	EXPECT(s, "task_ratelimit_fair_err_pct", "8.3333");
	EXPECT(s, "ratelimit_osc_amp_kbps", "50");
	EXPECT(s, "ratelimit_osc_period_s", "2");
	free(s);
	free(c);
}

/* Swings under the hysteresis are noise: a ripple of 8 around 900
 * (threshold 9) has no turning point, one of 10 has (amplitude 5, period
 * 0.2 s). */
static void test_swing_hysteresis(void **state)
{
	(void)state;
	struct ctl_swing w = { 0 };
	double amp = -1, per = -1;
	for (int i = 0; i < 20; i++)
		ctl_swing_feed(&w, i * 100000, i % 2 ? 904 : 896, 9);
	assert_true(ctl_swing_amplitude(&w, &amp));
	assert_true(amp == 0);
	assert_false(ctl_swing_period_s(&w, &per));
	memset(&w, 0, sizeof(w));
	for (int i = 0; i < 20; i++)
		ctl_swing_feed(&w, i * 100000, i % 2 ? 905 : 895, 9);
	assert_true(ctl_swing_amplitude(&w, &amp));
	assert_true(amp == 5);
	assert_true(ctl_swing_period_s(&w, &per));
	assert_true(per > 0.1999 && per < 0.2001);
	/* the first sample is no peak: 1000 900 1000 900 has one trough and
	 * one peak (one swing of 100), no period */
	memset(&w, 0, sizeof(w));
	for (int i = 0; i < 4; i++)
		ctl_swing_feed(&w, i * 1000000, i % 2 ? 900 : 1000, 9);
	assert_true(ctl_swing_amplitude(&w, &amp));
	assert_true(amp == 50);
	assert_false(ctl_swing_period_s(&w, &per));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_setpoint_error_settling_and_swing),
		cmocka_unit_test(test_steady_window_ends_at_a_writer),
		cmocka_unit_test(test_disturbances_are_writer_and_setpoint_changes),
		cmocka_unit_test(test_fair_share_and_ratelimit_swing),
		cmocka_unit_test(test_swing_hysteresis),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
