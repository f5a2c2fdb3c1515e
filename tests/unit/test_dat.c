/* trace.dat writer and reader: every era's events with edge values go through
 * dat_write and come back (through trace_reader) formatting to the same text
 * line; long gaps use time extends; ties across CPUs keep their order;
 * out-of-type values are counted as inexact. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include "trace/dat_write.h"
#include "trace/trace_read.h"
#include "trace/trace_write.h"

#define NEV 5000

static void make_event(struct wb_event *e, enum wb_event_type t, int i, int64_t ts)
{
	static const char *const comms[] = { "dd", "flush-8:0", "kworker/u8:0" };
	memset(e, 0, sizeof(*e));
	e->type = t;
	e->ts_us = ts;
	e->cpu = i % 3;
	e->pid = i % 3 == 0 ? 3000 + i % 7 : 1500 + i % 3;
	snprintf(e->comm, sizeof(e->comm), "%s", i % 3 == 0 ? comms[0] : comms[i % 3]);
	if (i % 3 == 0 && e->pid != 3000 + i % 7)
		abort();
	snprintf(e->bdi, sizeof(e->bdi), "%s", i & 1 ? "8:0" : "0:21");
	snprintf(e->reason, sizeof(e->reason), "%s", i & 2 ? "periodic" : "background");
	for (int f = 0; f < F_COUNT; f++)
		e->v[f] = (int64_t)(i * 2654435761u % 100000);
	e->v[F_STATE] = i % 16 == 0 ? 0 : (i & (WB_I_DIRTY_SYNC | WB_I_DIRTY_DATASYNC | WB_I_DIRTY_PAGES)) | (i & 8 ? WB_I_SYNC : 0);
	e->v[F_PAUSE] = -(i % 50);
	e->v[F_THINK] = -(i % 30);
	e->v[F_NR_PAGES] = i % 5 == 0 ? INT64_MAX : -(i % 4);
	e->v[F_OFFSET] = -(int64_t)i;
}

static void roundtrip(enum trace_era era)
{
	char path[] = "/tmp/wblab-test-dat.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	struct dat_writer *w = dat_writer_open(path, era, "test");
	assert_non_null(w);
	static char want[NEV][512];
	int n = 0;
	int64_t ts = 0;
	for (int i = 0; i < NEV; i++) {
		struct wb_event e;
		enum wb_event_type t = (enum wb_event_type)(1 + i % (EV_TYPE_COUNT - 1));
		ts += i % 97 == 0 ? 400000 : i % 3 == 0 ? 1 : 0;   /* gaps > 2^27 ns, and ties */
		make_event(&e, t, i, ts);
		if (!trace_fmt_get(era, t) || t == EV_WRITEBACK_QUEUE_IO)
			continue;
		dat_write_event(w, &e);
		size_t len = trace_format_line(era, &e, want[n], sizeof(want[n]));
		want[n++][len] = 0;
	}
	assert_int_equal(dat_writer_inexact(w), 0);
	assert_int_equal(dat_writer_close(w), 0);

	char err[512];
	struct trace_reader *r = trace_reader_open(path, err, sizeof(err));
	assert_non_null(r);
	assert_int_equal(trace_reader_era(r), (int)era);
	struct wb_event e;
	int got = 0, rc;
	while ((rc = trace_reader_next(r, &e, err, sizeof(err))) == 1) {
		char line[512];
		size_t len = trace_format_line(era, &e, line, sizeof(line));
		line[len] = 0;
		assert_true(got < n);
		assert_string_equal(line, want[got]);
		got++;
	}
	assert_int_equal(rc, 0);
	assert_int_equal(got, n);
	trace_reader_close(r);
	unlink(path);
}

static void test_era_3_1_rc8(void **s) { (void)s; roundtrip(ERA_3_1_RC8); }
static void test_era_3_1(void **s) { (void)s; roundtrip(ERA_3_1); }
static void test_era_rc8_ioless(void **s) { (void)s; roundtrip(ERA_3_1_RC8_IOLESS); }
static void test_era_3_2(void **s) { (void)s; roundtrip(ERA_3_2); }
static void test_era_6x(void **s) { (void)s; roundtrip(ERA_6X); }

static void test_inexact_counted(void **s)
{
	(void)s;
	char path[] = "/tmp/wblab-test-dat.XXXXXX";
	int fd = mkstemp(path);
	close(fd);
	struct dat_writer *w = dat_writer_open(path, ERA_3_2, "test");
	struct wb_event e;
	make_event(&e, EV_GLOBAL_DIRTY_STATE, 3, 10);
	e.v[F_DIRTY] = -1;                     /* unsigned long */
	dat_write_event(w, &e);
	make_event(&e, EV_WRITEBACK_START, 3, 11);
	snprintf(e.reason, sizeof(e.reason), "nonsense");
	dat_write_event(w, &e);
	make_event(&e, EV_GLOBAL_DIRTY_STATE, 3, 12);
	snprintf(e.comm, sizeof(e.comm), "other");   /* pid 3003 had comm dd */
	dat_write_event(w, &e);
	assert_int_equal(dat_writer_inexact(w), 3);
	assert_int_equal(dat_writer_close(w), 0);
	unlink(path);
}

static void test_empty_file_reads(void **s)
{
	(void)s;
	char path[] = "/tmp/wblab-test-dat.XXXXXX", err[256];
	int fd = mkstemp(path);
	close(fd);
	struct dat_writer *w = dat_writer_open(path, ERA_6X, "test");
	assert_int_equal(dat_writer_close(w), 0);
	struct trace_reader *r = trace_reader_open(path, err, sizeof(err));
	assert_non_null(r);
	struct wb_event e;
	assert_int_equal(trace_reader_next(r, &e, err, sizeof(err)), 0);
	trace_reader_close(r);
	unlink(path);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_era_3_1_rc8), cmocka_unit_test(test_era_3_1),
		cmocka_unit_test(test_era_rc8_ioless), cmocka_unit_test(test_era_3_2),
		cmocka_unit_test(test_era_6x), cmocka_unit_test(test_inexact_counted),
		cmocka_unit_test(test_empty_file_reads),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
