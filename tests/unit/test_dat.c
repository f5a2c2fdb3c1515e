/* trace.dat writer and reader: every era's events with edge values go through
 * dat_write and come back (through trace_reader) formatting to the same text
 * line; long gaps use time extends; ties across CPUs keep their order;
 * out-of-type values are counted as inexact; a file of many chunks per CPU
 * reads the same with the chunks decompressed ahead in a second thread and
 * in the caller's, also when it is damaged or closed early. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <cmocka.h>
#include <zstd.h>
#include "trace/dat_file.h"
#include "trace/dat_format.h"
#include "trace/dat_io.h"
#include "trace/dat_read.h"
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
	/* runs of one bdi, a name longer than 15 bytes, and bytes after the
	 * NUL that are not part of the name (the writer caches short names) */
	static const char *const bdis[] = { "8:0", "0:21", "253:0-a-long-bdi-name" };
	const char *b = bdis[(i / 4) % 3];
	snprintf(e->bdi, sizeof(e->bdi), "%s", b);
	if (strlen(b) + 2 < sizeof(e->bdi))
		e->bdi[strlen(b) + 1] = (char)('a' + (i / 12) % 5);
	snprintf(e->reason, sizeof(e->reason), "%s", i & 2 ? "periodic" : "background");
	for (int f = 0; f < F_COUNT; f++)
		e->v[f] = (int64_t)(i * 2654435761u % 100000);
	e->v[F_STATE] = i % 16 == 0 ? 0 : (i & (WB_I_DIRTY_SYNC | WB_I_DIRTY_DATASYNC | WB_I_DIRTY_PAGES)) | (i & 8 ? WB_I_SYNC : 0);
	e->v[F_PAUSE] = -(i % 50);
	e->v[F_THINK] = -(i % 30);
	e->v[F_NR_PAGES] = i % 5 == 0 ? INT64_MAX : -(i % 4);
	e->v[F_OFFSET] = -(int64_t)i;
}

/* A writer on a new temporary file named into path ("...XXXXXX"). */
static struct dat_writer *new_writer(char *path, enum trace_era era)
{
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	close(fd);
	struct dat_writer *w = dat_writer_open(path, era, "test");
	assert_non_null(w);
	return w;
}

static void roundtrip(enum trace_era era)
{
	char path[] = "/tmp/wblab-test-dat.XXXXXX";
	struct dat_writer *w = new_writer(path, era);
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
	/* a comm compared up to its NUL: bytes after it do not count, a prefix
	 * or an extension of the stored comm does */
	make_event(&e, EV_GLOBAL_DIRTY_STATE, 3, 13);
	memcpy(e.comm, "dd\0garbage-here", 16);
	dat_write_event(w, &e);
	assert_int_equal(dat_writer_inexact(w), 3);
	snprintf(e.comm, sizeof(e.comm), "d");
	dat_write_event(w, &e);
	snprintf(e.comm, sizeof(e.comm), "ddd");
	dat_write_event(w, &e);
	assert_int_equal(dat_writer_inexact(w), 5);
	e.pid = 4000;                          /* kept as its first 15 bytes: never equal */
	snprintf(e.comm, sizeof(e.comm), "a-comm-of-16+-bytes");
	dat_write_event(w, &e);
	dat_write_event(w, &e);
	assert_int_equal(dat_writer_inexact(w), 7);
	/* 32-bit fields: 3.2's balance_dirty_pages dirtied is unsigned int,
	 * writeback_start's sync_mode int; each value outside counts once */
	const int64_t u32[] = { -1, INT64_C(1) << 32, 0, UINT32_MAX }, s32[] = { INT64_C(1) << 31, INT32_MIN - INT64_C(1), INT32_MIN, INT32_MAX };
	for (int i = 0; i < 4; i++) {
		make_event(&e, EV_BALANCE_DIRTY_PAGES, 3, 20 + i);
		e.v[F_DIRTIED] = u32[i];
		dat_write_event(w, &e);
		make_event(&e, EV_WRITEBACK_START, 3, 30 + i);
		e.v[F_SYNC_MODE] = s32[i];
		dat_write_event(w, &e);
	}
	assert_int_equal(dat_writer_inexact(w), 11);
	/* the count is of events: one with three values off (two fields out
	 * of their types, and a second comm for its pid) counts once */
	make_event(&e, EV_GLOBAL_DIRTY_STATE, 3, 40);
	e.v[F_DIRTY] = -1;
	e.v[F_WRITEBACK] = -2;
	snprintf(e.comm, sizeof(e.comm), "third");
	dat_write_event(w, &e);
	assert_int_equal(dat_writer_inexact(w), 12);
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

/* A 3.2 trace of n events on 3 CPUs, ~20 zstd chunks per CPU for 300000. */
static void write_big(char *path, int n)
{
	struct dat_writer *w = new_writer(path, ERA_3_2);
	for (int i = 0; i < n; i++) {
		struct wb_event e;
		enum wb_event_type t = (enum wb_event_type)(1 + i % (EV_TYPE_COUNT - 1));
		if (!trace_fmt_get(ERA_3_2, t) || t == EV_WRITEBACK_QUEUE_IO)
			t = EV_BALANCE_DIRTY_PAGES;
		make_event(&e, t, i, (int64_t)i / 3 + (i % 3) * 7);   /* the CPUs interleave */
		dat_write_event(w, &e);
	}
	assert_int_equal(dat_writer_close(w), 0);
}

/* Every event of path as text, one line each, then "rc=R err=E"; max lines. */
static char *read_lines(const char *path, int prefetch, long max)
{
	wbdat_set_prefetch(prefetch);
	size_t cap = 1 << 20, len = 0;
	char *out = malloc(cap), err[512] = "";
	assert_non_null(out);
	struct trace_reader *r = trace_reader_open(path, err, sizeof(err));
	int rc = -2;
	if (r) {
		struct wb_event e;
		for (long k = 0; k < max && (rc = trace_reader_next(r, &e, err, sizeof(err))) == 1; k++) {
			if (len + 600 > cap) {
				cap *= 2;
				out = realloc(out, cap);
				assert_non_null(out);
			}
			len += trace_format_line(ERA_3_2, &e, out + len, 512);
			out[len++] = '\n';
		}
		if (rc < 0)   /* the error stays: a second call gives it again, never a hang */
			assert_int_equal(trace_reader_next(r, &e, err, sizeof(err)), -1);
		trace_reader_close(r);
	}
	snprintf(out + len, cap - len, "rc=%d err=%s", rc, err);
	wbdat_set_prefetch(1);
	return out;
}

/* assert_string_equal would print megabytes: the first difference only */
static void assert_same_text(const char *a, const char *b)
{
	size_t i = 0;
	while (a[i] && a[i] == b[i])
		i++;
	if (a[i] != b[i])
		fail_msg("differ at byte %zu: '%.80s' vs '%.80s'", i, a + i, b + i);
}

static void test_prefetch_reads_the_same(void **s)
{
	(void)s;
	char path[] = "/tmp/wblab-test-dat.XXXXXX";
	write_big(path, 300000);
	char *a = read_lines(path, 1, 1L << 30), *b = read_lines(path, 0, 1L << 30);
	assert_same_text(a, b);
	assert_non_null(strstr(a, "rc=0 err="));
	assert_int_equal(strlen(a) > 20000000, 1);
	free(a);
	free(b);
	/* closed after a few events, with chunks decompressed ahead (ASan: all freed) */
	a = read_lines(path, 1, 10);
	b = read_lines(path, 0, 10);
	assert_same_text(a, b);
	free(a);
	free(b);
	unlink(path);
}

/* Bytes of the CPU data overwritten at a quarter, half and three quarters of
 * the file: the same events, then the same one-line error naming the file. */
static void test_prefetch_damaged_same_error(void **s)
{
	(void)s;
	for (int q = 1; q <= 3; q++) {
		char path[] = "/tmp/wblab-test-dat.XXXXXX";
		write_big(path, 300000);
		FILE *f = fopen(path, "r+b");
		assert_non_null(f);
		fseek(f, 0, SEEK_END);
		long size = ftell(f);
		fseek(f, size * q / 4, SEEK_SET);
		for (int k = 0; k < 64; k++)
			fputc(0xa5, f);
		fclose(f);
		char *a = read_lines(path, 1, 1L << 30), *b = read_lines(path, 0, 1L << 30);
		assert_same_text(a, b);
		char *tail = strstr(a, "rc=-1 err=");
		assert_non_null(tail);
		assert_non_null(strstr(tail, path));
		assert_null(strchr(tail, '\n'));
		assert_true(tail - a > 1000);   /* events before the damage came out */
		free(a);
		free(b);
		unlink(path);
	}
}

/* One byte flipped anywhere in the file: the reader either fails with an
 * error or gives back exactly the undamaged events, never other numbers
 * (zstd frames carry a content checksum; their literals are stored raw, so
 * without it a flipped literal byte decodes into a wrong field). */
static void test_no_silently_wrong_event(void **s)
{
	(void)s;
	char path[] = "/tmp/wblab-test-dat.XXXXXX";
	write_big(path, 20000);
	char *good = read_lines(path, 0, 1L << 30);
	assert_non_null(strstr(good, "rc=0 err="));
	FILE *f = fopen(path, "r+b");
	assert_non_null(f);
	fseek(f, 0, SEEK_END);
	long size = ftell(f);
	int errors = 0, same = 0;
	for (long off = 16; off < size; off += size / 97 + 1) {
		fseek(f, off, SEEK_SET);
		int c = fgetc(f);
		fseek(f, off, SEEK_SET);
		fputc(c ^ 0x10, f);
		fflush(f);
		char *got = read_lines(path, 0, 1L << 30);
		if (!strstr(got, "rc=0 err="))      /* refused at open (-2) or while reading (-1) */
			errors++;
		else if (!strcmp(got, good))
			same++;
		else
			fail_msg("byte %ld of %ld flipped: the file read without an error but with other events", off, size);
		free(got);
		fseek(f, off, SEEK_SET);
		fputc(c, f);
		fflush(f);
	}
	fclose(f);
	assert_true(errors > 50);   /* most bytes are compressed data */
	free(good);
	unlink(path);
}

static void put_le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

/* The file at path, its event formats replaced by the era's without the
 * nfs system's (as a wblab before the 6.x nfs events wrote them) or by all
 * of them: a new formats section, uncompressed, appended, and the options
 * (an uncompressed section) pointed at it. */
static void rewrite_formats(const char *path, enum trace_era era, int with_nfs)
{
	FILE *f = fopen(path, "rb");
	assert_non_null(f);
	static unsigned char buf[1 << 20];
	size_t n = fread(buf, 1, sizeof(buf), f);
	fclose(f);
	assert_true(n > 64 && n < sizeof(buf) - 65536);
	const unsigned char *ver_end = memchr(buf + 23, 0, 64);
	assert_non_null(ver_end);
	uint64_t opt_off = rd64(ver_end + 1);
	assert_int_equal(rd16(buf + opt_off), DAT_OPTION_DONE);
	assert_int_equal(rd16(buf + opt_off + 2) & DAT_SEC_COMPRESS, 0);
	size_t fmt_off = n, p = n + 16;
	char text[4096];
	put_le(buf + p, 2, 4);
	p += 4;
	static const char *const systems[] = { "writeback", "nfs" };
	for (int sy = 0; sy < 2; sy++) {
		memcpy(buf + p, systems[sy], strlen(systems[sy]) + 1);
		p += strlen(systems[sy]) + 1;
		size_t cnt_at = p;
		uint32_t cnt = 0;
		p += 4;
		for (int t = 1; t < EV_TYPE_COUNT && (sy == 0 || with_nfs); t++) {
			const struct dat_event *d = dat_event_get(era, (enum wb_event_type)t);
			if (!d || strcmp(d->system, systems[sy]))
				continue;
			size_t len = dat_event_format(d, text, sizeof(text));
			put_le(buf + p, len, 8);
			memcpy(buf + p + 8, text, len);
			p += 8 + len;
			cnt++;
		}
		put_le(buf + cnt_at, cnt, 4);
	}
	put_le(buf + fmt_off, DAT_OPTION_EVENT_FORMATS, 2);
	put_le(buf + fmt_off + 2, 0, 6);
	put_le(buf + fmt_off + 8, p - fmt_off - 16, 8);
	unsigned char *opts = buf + opt_off + 16;
	size_t on = rd64(buf + opt_off + 8);
	int moved = 0;
	for (size_t q = 0; q + 6 <= on;) {
		uint32_t sz = rd32(opts + q + 2);
		if (rd16(opts + q) == DAT_OPTION_EVENT_FORMATS && sz == 8) {
			put_le(opts + q + 6, fmt_off, 8);
			moved = 1;
		}
		if (rd16(opts + q) == DAT_OPTION_DONE)
			break;
		q += 6 + sz;
	}
	assert_true(moved);
	f = fopen(path, "wb");
	assert_non_null(f);
	assert_int_equal(fwrite(buf, 1, p, f), p);
	fclose(f);
}

/* A record of an event whose format the file does not declare (here a 6.x
 * nfs event in a file whose formats lack the nfs system) is damage, not
 * decoded from the built-in format: trace-cmd would call it unknown. */
static void test_undeclared_event_is_damage(void **s)
{
	(void)s;
	for (int with_nfs = 1; with_nfs >= 0; with_nfs--) {
		char path[] = "/tmp/wblab-test-dat.XXXXXX";
		struct dat_writer *w = new_writer(path, ERA_6X);
		struct wb_event e;
		for (int i = 0; i < 40; i++) {
			make_event(&e, i == 20 ? EV_NFS_INITIATE_WRITE : EV_GLOBAL_DIRTY_STATE, i, i);
			e.v[F_STABLE] = 0;
			dat_write_event(w, &e);
		}
		assert_int_equal(dat_writer_close(w), 0);
		rewrite_formats(path, ERA_6X, with_nfs);
		char *text = read_lines(path, 0, 1L << 30);
		int lines = 0;   /* events read (read_lines prints a 6.x nfs event as an empty line) */
		for (const char *c = text; (c = strchr(c, '\n')); c++)
			lines++;
		if (with_nfs) {   /* the rewriting itself keeps a good file good */
			assert_non_null(strstr(text, "rc=0 err="));
			assert_int_equal(lines, 40);
		} else {
			assert_non_null(strstr(text, "rc=-1 err="));
			assert_true(lines < 40);
		}
		free(text);
		unlink(path);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_era_3_1_rc8), cmocka_unit_test(test_era_3_1),
		cmocka_unit_test(test_era_rc8_ioless), cmocka_unit_test(test_era_3_2),
		cmocka_unit_test(test_era_6x), cmocka_unit_test(test_inexact_counted),
		cmocka_unit_test(test_empty_file_reads), cmocka_unit_test(test_prefetch_reads_the_same),
		cmocka_unit_test(test_prefetch_damaged_same_error),
		cmocka_unit_test(test_no_silently_wrong_event),
		cmocka_unit_test(test_undeclared_event_is_damage),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
