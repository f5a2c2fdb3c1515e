/* Pure logic of `wblab run`: journal parsing and reverse replay, the journal
 * file round trip (in a temporary dir), and option parsing.  No root needed. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "real/journal.h"
#include "real/options.h"
#include "util/util.h"

static void parse_entries(void **state)
{
	(void)state;
	const char text[] = "dir\t/s/mnt\nmount\t/s/mnt\t/dev/loop3\n"
			    "sysctl\tvm.dirty_ratio\t20\tvm.dirty_bytes\t0\n";
	struct jentry e[8];
	int n = journal_parse(text, strlen(text), e, 8);
	assert_int_equal(n, 3);
	assert_string_equal(e[0].kind, "dir");
	assert_int_equal(e[0].nargs, 1);
	assert_string_equal(e[1].args[1], "/dev/loop3");
	assert_int_equal(e[2].nargs, 4);
	assert_string_equal(e[2].args[3], "0");
	assert_int_equal(e[1].off, 11);  /* "dir\t/s/mnt\n" */
}

static void torn_last_line_ignored(void **state)
{
	(void)state;
	const char text[] = "dir\t/s/mnt\nmount\t/s/m";
	struct jentry e[4];
	assert_int_equal(journal_parse(text, strlen(text), e, 4), 1);
}

static void malformed_rejected(void **state)
{
	(void)state;
	struct jentry e[4];
	assert_int_equal(journal_parse("\tx\n", 3, e, 4), -1);            /* no kind */
	assert_int_equal(journal_parse("a\t1\t2\t3\t4\t5\n", 12, e, 4), -1); /* too many args */
	assert_int_equal(journal_parse("a\nb\nc\n", 6, e, 2), -1);        /* over max */
}

static char order[64];

static int record(const struct jentry *e, void *arg)
{
	(void)arg;
	strcat(order, e->kind);
	return strcmp(e->kind, "F") == 0 ? -1 : 0;
}

static void replay_newest_first(void **state)
{
	(void)state;
	const char text[] = "A\nB\nF\nC\n";
	struct jentry e[8];
	int n = journal_parse(text, strlen(text), e, 8);
	order[0] = 0;
	assert_int_equal(journal_replay(e, n, record, NULL), 1);  /* F failed, rest went on */
	assert_string_equal(order, "CFBA");
}

static void file_round_trip(void **state)
{
	(void)state;
	char dir[] = "/tmp/wblab-test-journal.XXXXXX";
	assert_non_null(mkdtemp(dir));
	struct journal j, j2;
	char err[256];
	assert_int_equal(journal_open(&j, dir, err, sizeof(err)), 0);
	assert_int_equal(journal_open(&j2, dir, err, sizeof(err)), -1);  /* locked */
	assert_non_null(strstr(err, "another wblab run"));
	assert_int_equal(journal_add(&j, "A", "1", NULL), 0);
	off_t mark = journal_mark(&j);
	assert_int_equal(journal_add(&j, "B", "2", NULL), 0);
	assert_int_equal(journal_add(&j, "C", "x", "y", NULL), 0);
	assert_int_equal(journal_add(&j, "D", "tab\there", NULL), -1);   /* refused */
	order[0] = 0;
	assert_int_equal(journal_undo_to(&j, mark, record, NULL), 0);
	assert_string_equal(order, "CB");
	assert_int_equal(journal_mark(&j), mark);     /* truncated back to the mark */
	order[0] = 0;
	assert_int_equal(journal_undo_to(&j, 0, record, NULL), 0);
	assert_string_equal(order, "A");
	assert_int_equal(journal_mark(&j), 0);
	/* a failed undo keeps the journal for a later --cleanup */
	assert_int_equal(journal_add(&j, "F", NULL), 0);
	assert_int_equal(journal_undo_to(&j, 0, record, NULL), 1);
	assert_true(journal_mark(&j) > 0);
	journal_close(&j);
	char p[128];
	snprintf(p, sizeof(p), "%s/journal", dir);
	unlink(p);
	rmdir(dir);
}

static int parse(struct run_opts *o, char *err, ...)
{
	char *argv[16];
	int argc = 0;
	va_list ap;
	va_start(ap, err);
	argv[argc++] = "run";
	for (char *a; (a = va_arg(ap, char *)) != NULL;)
		argv[argc++] = a;
	va_end(ap);
	argv[argc] = NULL;
	return run_opts_parse(o, argc, argv, err, 256);
}

static void options(void **state)
{
	(void)state;
	static struct run_opts o;
	char err[256];
	assert_int_equal(parse(&o, err, "-t", "2.5", "-o", "r", "--repeat", "3", "--no-trace",
			       "ext4-2dd-4k-*-*-100M:10", "xfs-1dd-1M-2p-1024M-10:5", NULL), 0);
	assert_true(o.runtime == 2.5);
	assert_string_equal(o.out, "r");
	assert_int_equal(o.repeat, 3);
	assert_int_equal(o.no_trace, 1);
	assert_int_equal(o.ncases, 2);
	assert_int_equal(o.cases[0].ndd, 2);
	assert_int_equal(o.cases[0].cpus, 0);     /* '*' until the machine fills it */
	assert_string_equal(o.cases[1].fs, "xfs");
	assert_string_equal(o.scratch, "/var/tmp/wblab");
	assert_int_equal(parse(&o, err, "--cleanup", NULL), 0);
	assert_int_equal(o.cleanup, 1);
	assert_int_equal(parse(&o, err, "--cleanup", "ext4-1dd-4k-*-*-1G:10", NULL), -1);
	assert_int_equal(parse(&o, err, "--bogus", "ext4-1dd-4k-*-*-1G:10", NULL), -1);
	assert_non_null(strstr(err, "--bogus"));
	assert_int_equal(parse(&o, err, "-t", "0", "ext4-1dd-4k-*-*-1G:10", NULL), -1);
	assert_int_equal(parse(&o, err, "--scratch", "rel", "ext4-1dd-4k-*-*-1G:10", NULL), -1);
	assert_int_equal(parse(&o, err, "--dev", "/dev/sdz", "ext4-1dd-4k-*-*-1G:10", NULL), -1);
	assert_non_null(strstr(err, "--yes-destroy"));
	assert_int_equal(parse(&o, err, "nfs-1dd-4k-*-*-1G:10", NULL), -1);
	assert_non_null(strstr(err, "NFS"));
	assert_int_equal(parse(&o, err, "tmpfs-1dd-4k-*-*-1G:10", NULL), -1);
	assert_int_equal(parse(&o, err, NULL), -1);
	assert_non_null(strstr(err, "no CASE"));
	assert_int_equal(parse(&o, err, "--no-trace", "--overhead", "ext4-1dd-4k-*-*-1G:10", NULL), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(parse_entries),
		cmocka_unit_test(torn_last_line_ignored),
		cmocka_unit_test(malformed_rejected),
		cmocka_unit_test(replay_newest_first),
		cmocka_unit_test(file_round_trip),
		cmocka_unit_test(options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
