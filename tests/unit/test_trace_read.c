/* Trace reader: every event of every era, by round trip through the writer and
 * by literal kernel lines; context variants; aliases; malformed lines; the
 * streaming reader's handling of CRLF, NULs, long lines and missing newlines. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "trace/trace_read.h"
#include "trace/trace_write.h"

static int parse(const char *line, struct wb_event *e)
{
	return trace_parse_line(line, strlen(line), e);
}

static void fill_event(struct wb_event *e, enum wb_event_type t, enum trace_era era)
{
	const struct trace_fmt *fmt = trace_fmt_get(era, t);
	memset(e, 0, sizeof(*e));
	e->type = t;
	e->ts_us = 1234567890 + t;
	e->pid = 4321;
	e->cpu = 7;
	snprintf(e->comm, sizeof(e->comm), "%s", t % 2 ? "flush-8:16" : "dd");
	snprintf(e->bdi, sizeof(e->bdi), "8:16");
	if (fmt->work_class && trace_era_has_reason((enum trace_era)era))
		snprintf(e->reason, sizeof(e->reason), "periodic");
	for (int i = 0; i < fmt->nfields; i++) {
		enum wb_field f = fmt->fields[i];
		int64_t v = f == F_STATE ? WB_I_DIRTY_PAGES | WB_I_SYNC : 1000 + 17 * i;
		if (f == F_PAUSE)
			v = -5;   /* negative pauses are real (think time) */
		wb_event_set(e, f, v);
	}
}

static void test_round_trip_all_eras(void **state)
{
	(void)state;
	char line[1024];
	int checked = 0;
	for (int era = 0; era < ERA_COUNT; era++)
		for (int t = 1; t < EV_TYPE_COUNT; t++) {
			const struct trace_fmt *fmt = trace_fmt_get((enum trace_era)era, (enum wb_event_type)t);
			if (!fmt)
				continue;
			struct wb_event in, out;
			fill_event(&in, (enum wb_event_type)t, (enum trace_era)era);
			size_t n = trace_format_line((enum trace_era)era, &in, line, sizeof(line));
			assert_true(n > 0);
			assert_int_equal(trace_parse_line(line, n, &out), 1);
			assert_int_equal(out.type, t);
			assert_int_equal(out.ts_us, in.ts_us);
			assert_int_equal(out.pid, in.pid);
			assert_int_equal(out.cpu, in.cpu);
			assert_string_equal(out.comm, in.comm);
			if (fmt->prefix != PFX_NONE)
				assert_string_equal(out.bdi, "8:16");
			assert_string_equal(out.reason, in.reason);
			for (int i = 0; i < fmt->nfields; i++) {
				enum wb_field f = fmt->fields[i];
				assert_true(wb_event_has(&out, f));
				assert_int_equal(out.v[f], in.v[f]);
			}
			checked++;
		}
	assert_true(checked >= 30);
}

/* The 3.2 example of docs/trace-formats.md and a 3.1 global_dirty_state. */
static void test_era_3x_lines(void **state)
{
	(void)state;
	struct wb_event e;
	assert_int_equal(parse("              dd-3161  [005]   212.513372: balance_dirty_pages: bdi 0:21: "
			       "limit=29418 setpoint=25741 dirty=25700 bdi_setpoint=12870 bdi_dirty=12880 "
			       "dirty_ratelimit=2000 task_ratelimit=1980 dirtied=32 dirtied_pause=32 "
			       "paused=0 pause=12", &e), 1);
	assert_int_equal(e.type, EV_BALANCE_DIRTY_PAGES);
	assert_int_equal(e.ts_us, 212513372);
	assert_string_equal(e.bdi, "0:21");
	assert_int_equal(e.v[F_BDI_SETPOINT], 12870);
	assert_int_equal(e.v[F_PAUSE], 12);
	assert_false(wb_event_has(&e, F_PERIOD));

	assert_int_equal(parse("      flush-0:21-3100  [001]   212.400001: global_dirty_state: dirty=10 "
			       "writeback=20 unstable=30 bg_thresh=40 thresh=50 limit=60 dirtied=70 "
			       "written=80", &e), 1);
	assert_string_equal(e.comm, "flush-0:21");
	assert_int_equal(e.pid, 3100);
	assert_int_equal(e.v[F_UNSTABLE], 30);
	assert_int_equal(e.v[F_WRITTEN], 80);

	assert_int_equal(parse("  dd-1  [000]  1.000000: balance_dirty_written: bdi 8:0 written 123", &e), 1);
	assert_int_equal(e.type, EV_BALANCE_DIRTY_WRITTEN);
	assert_string_equal(e.bdi, "8:0");
	assert_int_equal(e.v[F_WRITTEN], 123);
	assert_int_equal(parse("  dd-1  [000]  1.000000: balance_dirty_start: bdi 8:0", &e), 1);
	assert_int_equal(e.type, EV_BALANCE_DIRTY_START);
	assert_int_equal(parse("  flush-8:0-9 [000] 2.000000: writeback_start: bdi 8:0: sb_dev 0:0 "
			       "nr_pages=1024 sync_mode=0 kupdate=1 range_cyclic=1 background=0 "
			       "reason=periodic", &e), 1);
	assert_int_equal(e.v[F_NR_PAGES], 1024);
	assert_int_equal(e.v[F_KUPDATE], 1);
	assert_string_equal(e.reason, "periodic");
}

/* Lines copied from a 6.18 `trace` file (tests/data). */
static void test_era_6x_lines(void **state)
{
	(void)state;
	struct wb_event e;
	assert_int_equal(parse("              dd-6570    [001] .....   452.204562: balance_dirty_pages: bdi 7:0: "
			       "limit=1220100 setpoint=1067401 dirty=4752 wb_setpoint=5372 wb_dirty=4704 "
			       "dirty_ratelimit=102400 task_ratelimit=102300 dirtied=128 dirtied_pause=128 "
			       "paused=0 pause=0 period=4 think=-3 cgroup_ino=1", &e), 1);
	assert_int_equal(e.cpu, 1);
	assert_int_equal(e.v[F_BDI_SETPOINT], 5372);   /* alias wb_setpoint */
	assert_int_equal(e.v[F_BDI_DIRTY], 4704);      /* alias wb_dirty */
	assert_int_equal(e.v[F_PERIOD], 4);
	assert_int_equal(e.v[F_THINK], -3);
	assert_int_equal(e.v[F_CGROUP_INO], 1);

	assert_int_equal(parse("    kworker/u8:0-12      [000] .....   452.205734: writeback_single_inode: "
			       "bdi 7:0: ino=13 state=I_SYNC|I_SYNC_QUEUED dirtied_when=4295005293 age=0 "
			       "index=3552 to_write=13312 wrote=3552 cgroup_ino=1", &e), 1);
	assert_string_equal(e.comm, "kworker/u8:0");
	assert_int_equal(e.v[F_STATE], WB_I_SYNC);
	assert_int_equal(e.v[F_DIRTIED_WHEN], 4295005293LL);

	assert_int_equal(parse("    kworker/u8:0-12      [000] ...1.   452.205096: writeback_start: bdi 7:0: "
			       "sb_dev 0:0 nr_pages=9223372036854775807 sync_mode=0 kupdate=0 "
			       "range_cyclic=1 background=1 reason=background cgroup_ino=1", &e), 1);
	assert_int_equal(e.v[F_NR_PAGES], INT64_MAX);
	assert_string_equal(e.reason, "background");

	assert_int_equal(parse("              dd-6570    [001] .....   452.204473: writeback_wake_background: "
			       "bdi 7:0: cgroup_ino=1", &e), 1);
	assert_string_equal(e.bdi, "7:0");
	assert_int_equal(parse("    kworker/u8:0-12      [000] ...1.   452.205094: writeback_queue_io: bdi 7:0: "
			       "older=4294997795 age=30000 enqueue=0 reason=periodic cgroup_ino=1", &e), 1);
	assert_int_equal(e.v[F_AGE], 30000);
}

static void test_aliases(void **state)
{
	(void)state;
	struct wb_event e;
	assert_int_equal(parse("x-1 [000] 1.0: global_dirty_state: nr_dirty=1 nr_writeback=2 "
			       "background_thresh=3 dirty_thresh=4 dirty_limit=5 nr_dirtied=6 "
			       "nr_written=7", &e), 1);
	assert_int_equal(e.v[F_DIRTY], 1);
	assert_int_equal(e.v[F_BG_THRESH], 3);
	assert_int_equal(e.v[F_LIMIT], 5);
	assert_int_equal(e.v[F_WRITTEN], 7);
	assert_int_equal(parse("x-1 [000] 1.0: bdi_dirty_ratelimit: bdi 8:0: write_bw=1 avg_write_bw=2 "
			       "dirty_rate=3 dirty_ratelimit=4 task_ratelimit=5 "
			       "balanced_dirty_ratelimit=6 someday_field=oops", &e), 1);
	assert_int_equal(e.v[F_AWRITE_BW], 2);
}

static void test_context_variants(void **state)
{
	(void)state;
	struct wb_event e;
	/* comm with spaces and dashes: split at the last -PID */
	assert_int_equal(parse(" my-task name-1-42 [003] 10.000001: writeback_wake_background: bdi 8:0", &e), 1);
	assert_string_equal(e.comm, "my-task name-1");
	assert_int_equal(e.pid, 42);
	assert_int_equal(e.cpu, 3);
	/* irq-flags column, tgid column, system prefix, nanoseconds */
	assert_int_equal(parse("dd-7 (      7) [001] d..1. 5.123456789: writeback:writeback_wake_background: "
			       "bdi 8:0", &e), 1);
	assert_int_equal(e.pid, 7);
	assert_int_equal(e.ts_us, 5123456);
	/* trace-cmd report, with and without a buffer-instance prefix */
	assert_int_equal(parse("              dd-6570  [001]   452.199488: global_dirty_state:   dirty=41 "
			       "writeback=19 bg_thresh=1 thresh=2 limit=3 dirtied=4 written=5", &e), 1);
	assert_int_equal(e.v[F_DIRTY], 41);
	assert_int_equal(parse("wblab-import-6534:               dd-6570  [001]   452.199488: "
			       "global_dirty_state:   dirty=41 writeback=19 bg_thresh=1 thresh=2 limit=3 "
			       "dirtied=4 written=5", &e), 1);
	assert_string_equal(e.comm, "dd");
	/* short fraction, CRLF */
	assert_int_equal(parse("dd-7 [001] 5.5: writeback_wake_background: bdi 8:0\r\n", &e), 1);
	assert_int_equal(e.ts_us, 5500000);
	/* not events */
	assert_int_equal(parse("# tracer: nop", &e), 0);
	assert_int_equal(parse("   #  TASK-PID  CPU#", &e), 0);
	assert_int_equal(parse("", &e), 0);
	assert_int_equal(parse("cpus=2", &e), 0);
	assert_int_equal(parse("CPU 0 is empty", &e), 0);
	assert_int_equal(parse("dd-7 [001] 5.5: sched_switch: prev_comm=dd", &e), 0);
	assert_int_equal(parse("dd-7 [001] 5.5: writeback_dirty_folio: bdi 8:0: ino=1", &e), 0);
}

static void test_state_bits(void **state)
{
	(void)state;
	struct wb_event e;
	const char *fmt = "f-1 [000] 1.0: writeback_single_inode: bdi 8:0: ino=1 state=%s "
			  "dirtied_when=1 age=2 index=3 to_write=4 wrote=5";
	char line[512];
	snprintf(line, sizeof(line), fmt, "I_DIRTY_SYNC|I_DIRTY_DATASYNC|I_DIRTY_PAGES|I_SYNC");
	assert_int_equal(parse(line, &e), 1);
	assert_int_equal(e.v[F_STATE], 1 | 2 | 4 | 128);
	snprintf(line, sizeof(line), fmt, "I_DIRTY_PAGES|I_REFERENCED|0x4000000");
	assert_int_equal(parse(line, &e), 1);
	assert_int_equal(e.v[F_STATE], 4 | 0x4000000);
	snprintf(line, sizeof(line), fmt, "0");
	assert_int_equal(parse(line, &e), 1);
	assert_int_equal(e.v[F_STATE], 0);
	snprintf(line, sizeof(line), fmt, "");   /* 6.x prints nothing for no flags */
	assert_int_equal(parse(line, &e), 1);
	assert_int_equal(e.v[F_STATE], 0);
}

static void test_malformed(void **state)
{
	(void)state;
	struct wb_event e;
	const char *why;
	const char *bad[] = {
		"dd-1 [000] 1.0: global_dirty_state: dirty=12x writeback=2 bg_thresh=3 thresh=4 limit=5 dirtied=6 written=7",
		"dd-1 [000] 1.0: global_dirty_state: dirty= writeback=2 bg_thresh=3 thresh=4 limit=5 dirtied=6 written=7",
		"dd-1 [000] 1.0: global_dirty_state: dirty=1 writeback=2 bg_thre",
		"dd-1 [000] 1.0: global_dirty_state: dirty=1 writeback=2 bg_thresh=3 thresh=4 limit=5 dirtied=6",
		"dd-1 [000] 1.0: global_dirty_state: dirty=99999999999999999999999 writeback=2",
		"dd-1 [000] 1.0: balance_dirty_start:",
		"dd-1 [000] 1.0: balance_dirty_start: bdi",
		"dd-1 [000] 1.0: balance_dirty_written: bdi 8:0 written x",
		"dd-1 [000] 1.0: balance_dirty_pages: bdi 8:0: limit=1 setpoint=2",
		"dd-1 [000] 1.x: global_dirty_state: dirty=1",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		assert_int_equal(trace_parse_line_why(bad[i], strlen(bad[i]), &e, &why), -1);
		assert_non_null(why);
	}
	/* a bad value of a field we do not know is not an error */
	assert_int_equal(parse("dd-1 [000] 1.0: balance_dirty_start: bdi 8:0 cgroup=/a/b", &e), 1);
}

static char *write_tmp(const char *data, size_t n)
{
	static char path[64];
	snprintf(path, sizeof(path), "/tmp/wblab-test-trace.XXXXXX");
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, data, n), (ssize_t)n);
	close(fd);
	return path;
}

static const char GDS[] = "  flush-8:0-5 [000] 1.000000: global_dirty_state: dirty=1 writeback=2 "
			  "bg_thresh=3 thresh=4 limit=5 dirtied=6 written=7";

static void test_reader_stream(void **state)
{
	(void)state;
	char err[512];
	struct wb_event e;
	/* header, CRLF line, a NUL inside an unknown event, a 200 KB unknown line,
	 * and a last line without its newline */
	size_t big = 200 * 1024, cap = big + 4096, n = 0;
	char *data = malloc(cap);
	n += (size_t)sprintf(data + n, "# tracer: nop\n#\n%s\r\n", GDS);
	n += (size_t)sprintf(data + n, "x-1 [000] 1.5: other_event: a");
	data[n++] = 0;
	n += (size_t)sprintf(data + n, "b\nx-1 [000] 1.6: other_event: ");
	memset(data + n, 'z', big);
	n += big;
	n += (size_t)sprintf(data + n, "\n%s", GDS);
	char *path = write_tmp(data, n);
	char copy_path[] = "/tmp/wblab-test-copy.XXXXXX";
	int cfd = mkstemp(copy_path);
	FILE *copy = fdopen(cfd, "w+");
	struct trace_reader *r = trace_reader_open(path, err, sizeof(err));
	assert_non_null(r);
	assert_false(trace_reader_is_dat(r));
	trace_reader_set_echo(r, copy);
	assert_int_equal(trace_reader_next(r, &e, err, sizeof(err)), 1);
	assert_int_equal(e.v[F_WRITTEN], 7);
	assert_int_equal(trace_reader_lineno(r), 3);
	assert_int_equal(trace_reader_next(r, &e, err, sizeof(err)), 1);
	assert_int_equal(trace_reader_lineno(r), 6);
	assert_int_equal(trace_reader_next(r, &e, err, sizeof(err)), 0);
	trace_reader_close(r);
	/* the echo is a byte-exact copy */
	fflush(copy);
	assert_int_equal(ftell(copy), (long)n);
	rewind(copy);
	char *back = malloc(n);
	assert_int_equal(fread(back, 1, n, copy), n);
	assert_memory_equal(back, data, n);
	fclose(copy);
	unlink(copy_path);
	unlink(path);
	free(back);
	free(data);
}

static void test_reader_errors(void **state)
{
	(void)state;
	char err[512], line[300];
	struct wb_event e;
	int n = snprintf(line, sizeof(line), "%s\n%s\nx-1 [000] 2.0: global_dirty_state: dirty=1 wr\n", GDS, GDS);
	char *path = write_tmp(line, (size_t)n);
	struct trace_reader *r = trace_reader_open(path, err, sizeof(err));
	assert_non_null(r);
	assert_int_equal(trace_reader_next(r, &e, err, sizeof(err)), 1);
	assert_int_equal(trace_reader_next(r, &e, err, sizeof(err)), 1);
	assert_int_equal(trace_reader_next(r, &e, err, sizeof(err)), -1);
	char want[128];
	snprintf(want, sizeof(want), "%s:3: ", path);
	assert_memory_equal(err, want, strlen(want));
	trace_reader_close(r);
	unlink(path);

	/* an over-long line of a known event is an error, not silently cut */
	size_t big = 100 * 1024;
	char *data = malloc(big + 200);
	n = snprintf(data, 200, "x-1 [000] 2.0: global_dirty_state: dirty=1 junk=");
	memset(data + n, '7', big);
	data[n + big] = '\n';
	path = write_tmp(data, (size_t)n + big + 1);
	r = trace_reader_open(path, err, sizeof(err));
	assert_int_equal(trace_reader_next(r, &e, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ":1: "));
	trace_reader_close(r);
	unlink(path);
	free(data);

	assert_null(trace_reader_open("/nonexistent/trace", err, sizeof(err)));
	assert_non_null(strstr(err, "/nonexistent/trace"));

	/* trace-cmd magic but garbage after it */
	path = write_tmp("\x17\x08\x44tracing6\0\0\0garbage", 22);
	r = trace_reader_open(path, err, sizeof(err));
	assert_null(r);
	assert_non_null(strstr(err, path));
	unlink(path);
}

/* Timestamps may wobble back by up to 1 ms (trace_pipe's per-CPU merge);
 * a bigger step back is an error naming the line, never a negative span. */
static void test_reader_time_order(void **state)
{
	(void)state;
	char err[512], buf[1200];
	struct wb_event e;
	static const char *const ts[] = { "10.000000", "10.000900", "10.000100", "9.560000" };
	int n = 0;
	for (int i = 0; i < 4; i++)
		n += snprintf(buf + n, sizeof(buf) - (size_t)n, "  flush-8:0-5 [000] %s: "
			      "global_dirty_state: dirty=1 writeback=2 bg_thresh=3 thresh=4 limit=5 "
			      "dirtied=6 written=7\n", ts[i]);
	char *path = write_tmp(buf, (size_t)n);
	struct trace_reader *r = trace_reader_open(path, err, sizeof(err));
	assert_non_null(r);
	for (int i = 0; i < 3; i++)
		assert_int_equal(trace_reader_next(r, &e, err, sizeof(err)), 1);
	assert_int_equal(e.ts_us, 10000100);
	assert_int_equal(trace_reader_next(r, &e, err, sizeof(err)), -1);
	char want[160];
	snprintf(want, sizeof(want), "%s:4: timestamp 9.560000 goes back 0.440900 s (line 2 ", path);
	if (strncmp(err, want, strlen(want)))
		fail_msg("got '%s'", err);
	assert_null(strchr(err, '\n'));
	trace_reader_close(r);
	unlink(path);
}

static void test_reader_empty(void **state)
{
	(void)state;
	char err[256];
	struct wb_event e;
	char *path = write_tmp("", 0);
	struct trace_reader *r = trace_reader_open(path, err, sizeof(err));
	assert_non_null(r);
	assert_int_equal(trace_reader_next(r, &e, err, sizeof(err)), 0);
	trace_reader_close(r);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_round_trip_all_eras),
		cmocka_unit_test(test_era_3x_lines),
		cmocka_unit_test(test_era_6x_lines),
		cmocka_unit_test(test_aliases),
		cmocka_unit_test(test_context_variants),
		cmocka_unit_test(test_state_bits),
		cmocka_unit_test(test_malformed),
		cmocka_unit_test(test_reader_stream),
		cmocka_unit_test(test_reader_errors),
		cmocka_unit_test(test_reader_time_order),
		cmocka_unit_test(test_reader_empty),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
