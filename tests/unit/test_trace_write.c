/* The hand-rolled trace writer against printf: every line it formats must be
 * what the kernel's "%16s-%-5d [%03d] %5lu.%06lu: event: field=%ld..." gives. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "trace/trace_write.h"
#include "trace/trace_read.h"

static void gds_event(struct wb_event *e, int64_t v, int64_t ts_us, const char *comm, int pid, int cpu)
{
	memset(e, 0, sizeof(*e));
	e->type = EV_GLOBAL_DIRTY_STATE;
	e->ts_us = ts_us;
	e->pid = pid;
	e->cpu = cpu;
	snprintf(e->comm, sizeof(e->comm), "%s", comm);
	for (int f = F_DIRTY; f <= F_WRITTEN; f++)
		wb_event_set(e, (enum wb_field)f, v + f);
}

static void expect_line(const struct wb_event *e, int64_t v)
{
	char got[512], want[512];
	size_t n = trace_format_line(ERA_3_2, e, got, sizeof(got));
	got[n] = 0;
	snprintf(want, sizeof(want),
		 "%16s-%-5d [%03d] %5" PRId64 ".%06" PRId64 ": global_dirty_state: dirty=%" PRId64
		 " writeback=%" PRId64 " unstable=%" PRId64 " bg_thresh=%" PRId64 " thresh=%" PRId64
		 " limit=%" PRId64 " dirtied=%" PRId64 " written=%" PRId64,
		 e->comm, e->pid, e->cpu, e->ts_us / 1000000, e->ts_us % 1000000, v + F_DIRTY,
		 v + F_WRITEBACK, v + F_UNSTABLE, v + F_BG_THRESH, v + F_THRESH, v + F_LIMIT,
		 v + F_DIRTIED, v + F_WRITTEN);
	assert_string_equal(got, want);
}

static void test_integers_like_printf(void **state)
{
	(void)state;
	static const int64_t vals[] = { 0, 1, 8, 9, 10, 11, 98, 99, 100, 12345, 999999, 1000000,
		4294967295LL, 9999999999999LL, 999999999999999999LL, -1, -9, -10, -12345,
		INT64_MAX - 8, INT64_MIN };
	struct wb_event e;
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		int64_t v = vals[i] == INT64_MIN ? INT64_MIN : vals[i];
		if (v == INT64_MIN) {
			/* field values v + f would overflow; check INT64_MIN alone */
			gds_event(&e, 0, 0, "dd", 1, 0);
			wb_event_set(&e, F_DIRTY, INT64_MIN);
			char got[512];
			size_t n = trace_format_line(ERA_3_2, &e, got, sizeof(got));
			got[n] = 0;
			assert_non_null(strstr(got, "dirty=-9223372036854775808 "));
			continue;
		}
		gds_event(&e, v, 12345678, "dd", 3000, 5);
		expect_line(&e, v);
	}
}

static void test_header_and_time(void **state)
{
	(void)state;
	struct wb_event e;
	static const int64_t ts[] = { 0, 1, 999999, 1000000, 99999999999LL, 123456789012LL };
	for (size_t i = 0; i < sizeof(ts) / sizeof(ts[0]); i++) {
		gds_event(&e, 7, ts[i], "flush-8:0", 1500, 1);
		expect_line(&e, 7);
		gds_event(&e, 7, ts[i], "kworker/u16:2-x", 12, 123);
		expect_line(&e, 7);
	}
}

/* The writer (with its per-thread header cache) gives the same bytes as
 * trace_format_line, also when pids share a cache slot or a thread changes cpu. */
static void test_writer_matches_formatter(void **state)
{
	(void)state;
	char path[] = "/tmp/wblab-tw.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	struct trace_writer w;
	assert_int_equal(trace_writer_open(&w, path, ERA_3_2), 0);
	char expect[65536] = "# tracer: nop\n#\n";
	size_t len = strlen(expect);
	struct wb_event e;
	static const struct { const char *comm; int pid, cpu; } th[] = {
		{ "dd", 3000, 0 }, { "dd", 3064, 0 }, { "dd", 3000, 1 }, { "flush-8:0", 1500, 2 },
		{ "dd2", 3000, 1 },
	};
	for (int i = 0; i < 40; i++) {
		int k = i % 5;
		gds_event(&e, i * 37, 1000 * i, th[k].comm, th[k].pid, th[k].cpu);
		trace_write_event(&w, &e);
		len += trace_format_line(ERA_3_2, &e, expect + len, sizeof(expect) - len - 1);
		expect[len++] = '\n';
	}
	assert_int_equal(trace_writer_close(&w), 0);
	char got[65536];
	FILE *f = fdopen(fd, "r");
	size_t n = fread(got, 1, sizeof(got), f);
	fclose(f);
	unlink(path);
	assert_int_equal(n, len);
	assert_memory_equal(got, expect, len);
}

/* The 6.x nfs events, written as nfstrace.h's TP_printk prints them (worked
 * by hand: dev 0:53 is MKDEV(0, 53) = 53, printed %02x:%02x as "00:35"; the
 * verifier's bytes 01..08 in memory order are the u64 0x0807060504030201),
 * parse to those values and print back byte for byte. */
static void test_nfs_6x_events_round_trip(void **state)
{
	(void)state;
	static const struct { const char *line; enum wb_event_type t; } cases[] = {
		{ "    kworker/u8:0-1500  [002]    12.000100: nfs_initiate_write: fileid=00:35:1234 "
		  "fhandle=0x0a0b0c0d offset=1048576 count=524288 stable=UNSTABLE", EV_NFS_INITIATE_WRITE },
		{ "          <idle>-0     [000]    12.004000: nfs_writeback_done: error=524288 "
		  "fileid=00:35:1234 fhandle=0x0a0b0c0d offset=1048576 count=524288 res=524288 "
		  "stable=FILE_SYNC verifier=0102030405060708", EV_NFS_WRITEBACK_DONE },
		{ "    kworker/u8:0-1500  [001]    13.000000: nfs_initiate_commit: fileid=00:35:1234 "
		  "fhandle=0x0a0b0c0d offset=0 count=0", EV_NFS_INITIATE_COMMIT },
		{ "          <idle>-0     [000]    13.250000: nfs_commit_done: error=-5 fileid=00:35:1234 "
		  "fhandle=0x0a0b0c0d offset=0 stable=DATA_SYNC verifier=0102030405060708", EV_NFS_COMMIT_DONE },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct wb_event e;
		assert_int_equal(trace_parse_line(cases[i].line, strlen(cases[i].line), &e), 1);
		assert_int_equal(e.type, cases[i].t);
		assert_int_equal(e.v[F_DEV], 53);
		assert_int_equal(e.v[F_INO], 1234);
		assert_int_equal(e.v[F_FHANDLE], 0x0a0b0c0d);
		if (cases[i].t == EV_NFS_WRITEBACK_DONE) {
			assert_int_equal(e.v[F_ERROR], 524288);
			assert_int_equal(e.v[F_RES], 524288);
			assert_int_equal(e.v[F_STABLE], 2);
			assert_true((uint64_t)e.v[F_VERIFIER] == 0x0807060504030201ULL);
		}
		if (cases[i].t == EV_NFS_COMMIT_DONE) {
			assert_int_equal(e.v[F_ERROR], -5);
			assert_int_equal(e.v[F_STABLE], 1);
		}
		char got[512];
		size_t n = trace_format_line(ERA_6X, &e, got, sizeof(got));
		got[n] = 0;
		assert_string_equal(got, cases[i].line);
		/* the 3.x eras have none of them */
		assert_int_equal(trace_format_line(ERA_3_2, &e, got, sizeof(got)), 0);
	}
	/* 5.6-5.19 printed status= where 6.0 on prints error= (and after res=) */
	static const char v5[] = "          <idle>-0     [000]    12.004000: nfs_writeback_done: "
		"fileid=00:35:1234 fhandle=0x0a0b0c0d offset=0 count=4096 res=4096 status=4096 "
		"stable=UNSTABLE verifier=0102030405060708";
	struct wb_event e5;
	assert_int_equal(trace_parse_line(v5, strlen(v5), &e5), 1);
	assert_int_equal(e5.v[F_ERROR], 4096);
	/* damaged values are errors, not zeros */
	static const char *const bad[] = {
		"  kworker/u8:0-1500  [002]    12.000100: nfs_initiate_write: fileid=00:35 fhandle=0x1 "
		"offset=0 count=1 stable=UNSTABLE",
		"  kworker/u8:0-1500  [002]    12.000100: nfs_initiate_write: fileid=00:35:9 fhandle=0x1 "
		"offset=0 count=1 stable=MAYBE",
		"          <idle>-0     [000]    13.250000: nfs_commit_done: error=0 fileid=00:35:1 "
		"fhandle=0x1 offset=0 stable=FILE_SYNC verifier=01020304",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		struct wb_event e;
		assert_int_equal(trace_parse_line(bad[i], strlen(bad[i]), &e), -1);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_integers_like_printf),
		cmocka_unit_test(test_header_and_time),
		cmocka_unit_test(test_writer_matches_formatter),
		cmocka_unit_test(test_nfs_6x_events_round_trip),
	};
	return cmocka_run_group_tests_name("trace_write", tests, NULL, NULL);
}
