/* calibrate.c against a hand-made result directory.
 *
 * trace (ts in s): global_dirty_state at 0 (thresh=5000) and 20; the writer
 * dd-100 pauses 40 ms and 60 ms (0.1 s); bdi_dirty_ratelimit awrite_bw at
 * t = 1, 2, 3 (102400: before the midpoint 10 s, ignored) and at t = 11..15
 * with 4096 8192 8192 16384 8192 KB/s: median 8192 KB/s = 8 MiB/s.
 * stats: dev_write_bw 6 MiB/s -> disk.bw_mbps = max(6, 8) = 8.
 * Writers: 102400 MiB = 26214400 pages in 2 dd x 20 s = 40 s minus 0.1 s of
 * pauses; the simulated flusher's 26214400 x 1000 ns = 26.2144 s leaves
 * 4 CPUs x 20 s - that = 53.79 s, more than 39.9 s, so busy = 39.9 s and per
 * page 39.9 s / 26214400 = 1522.06 ns; cpu_page_ns = 1522.06 - syscall 800 ns
 * / 1 page (4k writes) = 722.06.  The threshold is bytes (20M): dirtyable 92. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "analysis/calibrate.h"

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void bdr(FILE *f, double t, int awbw)
{
	fprintf(f, "              dd-100   [001] %12.6f: bdi_dirty_ratelimit: bdi 8:0: "
		"write_bw=1 awrite_bw=%d dirty_rate=3 dirty_ratelimit=4 task_ratelimit=5 "
		"balanced_dirty_ratelimit=6 cgroup_ino=1\n", t, awbw);
}

static void bdp(FILE *f, double t, int pause)
{
	fprintf(f, "              dd-100   [001] %12.6f: balance_dirty_pages: bdi 8:0: "
		"limit=1000 setpoint=800 dirty=300 wb_setpoint=400 wb_dirty=150 dirty_ratelimit=1000 "
		"task_ratelimit=1000 dirtied=32 dirtied_pause=32 paused=0 pause=%d period=%d think=0 "
		"cgroup_ino=1\n", t, pause, pause);
}

static void gds(FILE *f, const char *comm, double t)
{
	fprintf(f, "%16s-9     [000] %12.6f: global_dirty_state: dirty=100 writeback=0 "
		"bg_thresh=2500 thresh=5000 limit=5000 dirtied=0 written=0\n", comm, t);
}

static void make_result(char *dir)
{
	assert_non_null(mkdtemp(dir));
	put(dir, "meta", "group = thresh=20M\ncase = ext4-2dd-4k-4p-1024M-20M:10\nsource = real\n");
	put(dir, "stats", "write_bw 6\ndev_write_bw 6\nwriters_mb 102400\nruntime_s 20\n");
	char path[512];
	snprintf(path, sizeof(path), "%s/trace", dir);
	FILE *f = fopen(path, "w");
	assert_non_null(f);
	gds(f, "flush-8:0", 0);
	for (int i = 1; i <= 3; i++)
		bdr(f, i, 102400);
	bdp(f, 4, 40);
	bdp(f, 5, 60);
	const int late[] = { 4096, 8192, 8192, 16384, 8192 };
	for (int i = 0; i < 5; i++)
		bdr(f, 11 + i, late[i]);
	gds(f, "flush-8:0", 20);
	fclose(f);
}

static void remove_result(const char *dir)
{
	const char *names[] = { "meta", "stats", "trace" };
	char path[512];
	for (int i = 0; i < 3; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
}

static void calibrates_hand_result(void **state)
{
	(void)state;
	char dir[] = "/tmp/wblab-calXXXXXX";
	make_result(dir);
	struct calibration cal;
	char err[512] = "";
	int rc = calibrate_dir(dir, 250, &cal, err, sizeof(err));
	remove_result(dir);
	assert_int_equal(rc, 0);
	assert_true(cal.awrite_bw_steady == 8.0);
	assert_true(cal.bw_mbps == 8.0);
	assert_true(cal.pause_s > 0.0999 && cal.pause_s < 0.1001);
	assert_true(cal.per_page_ns > 1522.0 && cal.per_page_ns < 1522.1);
	assert_true(cal.cpu_page_ns > 722.0 && cal.cpu_page_ns < 722.1);
	assert_true(cal.dirtyable_pct == 92);
	assert_true(cal.hz == 250);
}

static void missing_trace_is_an_error(void **state)
{
	(void)state;
	char dir[] = "/tmp/wblab-calXXXXXX";
	make_result(dir);
	char path[512];
	snprintf(path, sizeof(path), "%s/trace", dir);
	unlink(path);
	struct calibration cal;
	char err[512] = "";
	int rc = calibrate_dir(dir, 250, &cal, err, sizeof(err));
	remove_result(dir);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err, "trace"));
}

/* With the writers' own CPU time: 52.4288 s over 26214400 pages = 2000 ns a
 * page, minus 800 ns of syscall = 1200 ns, whatever the wall time was; with
 * a --device-bw cap of 55 the device rate is the cap; the bdi knobs of env
 * are carried over. */
static void cpu_time_cap_and_knobs_are_used(void **state)
{
	(void)state;
	char dir[] = "/tmp/wblab-calXXXXXX";
	make_result(dir);
	put(dir, "stats", "write_bw 6\ndev_write_bw 6\nwriters_mb 102400\nruntime_s 20\n"
			  "writers_cpu_s 52.4288\n");
	put(dir, "params", "device_bw_mbps = 55\n");
	put(dir, "env", "device = /dev/loop3\nbdi.strict_limit = 1\nbdi.max_ratio = 40\n");
	struct calibration cal;
	char err[512] = "";
	int rc = calibrate_dir(dir, 250, &cal, err, sizeof(err));
	char p[512];
	snprintf(p, sizeof(p), "%s/params", dir);
	unlink(p);
	snprintf(p, sizeof(p), "%s/env", dir);
	unlink(p);
	remove_result(dir);
	assert_int_equal(rc, 0);
	assert_true(cal.per_page_ns > 1999.99 && cal.per_page_ns < 2000.01);
	assert_true(cal.cpu_page_ns > 1199.99 && cal.cpu_page_ns < 1200.01);
	assert_true(cal.bw_mbps == 55);
	assert_int_equal(cal.bdi_strict_limit, 1);
	assert_int_equal(cal.bdi_max_ratio, 40);
	assert_int_equal(cal.loop_device, 1);
}

static void a_simulated_result_is_refused(void **state)
{
	(void)state;
	char dir[] = "/tmp/wblab-calXXXXXX";
	make_result(dir);
	put(dir, "meta", "group = thresh=20M\ncase = ext4-2dd-4k-4p-1024M-20M:10\nsource = sim\n");
	struct calibration cal;
	char err[512] = "";
	int rc = calibrate_dir(dir, 250, &cal, err, sizeof(err));
	remove_result(dir);
	assert_int_equal(rc, -1);
	assert_non_null(strstr(err, "not a result of 'wblab run'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(calibrates_hand_result),
		cmocka_unit_test(missing_trace_is_an_error),
		cmocka_unit_test(cpu_time_cap_and_knobs_are_used),
		cmocka_unit_test(a_simulated_result_is_refused),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
