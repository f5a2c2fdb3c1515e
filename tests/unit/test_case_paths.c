/* Case names and where results go: a CASE or GROUP can never place a
 * result outside -o, a threshold must fit in MEM, and a failed result
 * leaves no directory that was not there before. */
#include <dirent.h>
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "real/options.h"
#include "result/result.h"
#include "util/case.h"
#include "util/util.h"

static void expect_bad_case(const char *s, const char *needle)
{
	struct wb_case c;
	char err[512] = "";
	if (case_parse(s, &c, err, sizeof(err)) == 0)
		fail_msg("case '%s' accepted", s);
	if (!strstr(err, needle) || strchr(err, '\n'))
		fail_msg("case '%s': error '%s' lacks '%s'", s, err, needle);
}

static void test_threshold_must_fit_in_mem(void **state)
{
	(void)state;
	struct wb_case c;
	char err[512];
	expect_bad_case("ext4-1dd-4k-8p-64M-100M:10", "dirty threshold 100M is not below MEM 64M");
	expect_bad_case("ext4-1dd-4k-8p-64M-64M:10", "not below MEM 64M");
	expect_bad_case("ext4-1dd-4k-8p-1024M-100M:2G", "background threshold 2G");
	/* ratios, '*' MEM and thresholds below MEM are fine */
	assert_int_equal(case_parse("ext4-1dd-4k-8p-64M-50:10", &c, err, sizeof(err)), 0);
	assert_int_equal(case_parse("ext4-1dd-4k-*-*-100G:10", &c, err, sizeof(err)), 0);
	assert_int_equal(case_parse("ext4-1dd-4k-8p-4096M-100M:10", &c, err, sizeof(err)), 0);
	assert_int_equal(case_parse("ext4-1dd-4k-8p-4096M-1G:100M", &c, err, sizeof(err)), 0);
}

/* a lower-case size unit is the same case: one name, one group, one column */
static void test_threshold_unit_spelling(void **state)
{
	(void)state;
	struct wb_case c;
	char err[512];
	assert_int_equal(case_parse("ext4-1dd-4K-8p-4096M-100m:10m", &c, err, sizeof(err)), 0);
	assert_string_equal(c.name, "ext4-1dd-4k-8p-4096M-100M:10M");
	assert_string_equal(c.group, "thresh=100M");
	assert_true(c.thresh.is_bytes && c.thresh.value == 100ULL << 20);
	assert_int_equal(case_parse("ext4-1dd-4k-8p-4096M-1g:512k", &c, err, sizeof(err)), 0);
	assert_string_equal(c.name, "ext4-1dd-4k-8p-4096M-1G:512K");
	assert_int_equal(case_parse("ext4-1dd-4k-8p-4096M-20:10", &c, err, sizeof(err)), 0);
	assert_string_equal(c.name, "ext4-1dd-4k-8p-4096M-20:10");
}

static void test_group_stays_inside_out(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"../../x/ext4-1dd-4k-8p-4096M-100M:10", "a/../ext4-1dd-4k-8p-4096M-100M:10",
		"../ext4-1dd-4k-8p-4096M-100M:10",      "/tmp/x/ext4-1dd-4k-8p-4096M-100M:10",
		"/ext4-1dd-4k-8p-4096M-100M:10",        "a//b/ext4-1dd-4k-8p-4096M-100M:10",
		"./ext4-1dd-4k-8p-4096M-100M:10",       ".hidden/ext4-1dd-4k-8p-4096M-100M:10",
		"a/./b/ext4-1dd-4k-8p-4096M-100M:10",   "a/../../ext4-1dd-4k-8p-4096M-100M:10",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_bad_case(bad[i], "case '");
	struct wb_case c;
	char err[512];
	assert_int_equal(case_parse("NFS-thresh=10M/ext4-1dd-4k-8p-4096M-100M:10", &c, err,
				    sizeof(err)), 0);
	assert_string_equal(c.group, "NFS-thresh=10M");
	assert_int_equal(case_parse("a/b.c/ext4-1dd-4k-8p-4096M-100M:10", &c, err, sizeof(err)), 0);
	assert_string_equal(c.group, "a/b.c");
}

/* a control byte in a CASE or GROUP: one line, the byte named, not echoed */
static void test_control_characters_refused(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"a\nb/ext4-1dd-4k-8p-4096M-100M:10", "a\rb/ext4-1dd-4k-8p-4096M-100M:10",
		"a\x7f/ext4-1dd-4k-8p-4096M-100M:10", "\x01/ext4-1dd-4k-8p-4096M-100M:10",
		"g/ext4\t-1dd-4k-8p-4096M-100M:10",  "ext4-1dd-4k-8p-4096M-100M:10\n",
		"a\x1b[31m/ext4-1dd-4k-8p-4096M-100M:10",
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++)
		expect_bad_case(bad[i], "control character");
	char err[200];
	assert_int_equal(case_group_check("a\nb", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "byte 0x0a at offset 1"));
	assert_int_equal(case_group_check("ok/a\x7f", err, sizeof(err)), -1);
	assert_non_null(strstr(err, "byte 0x7f at offset 4"));
	/* bytes above 0x7f (UTF-8) and the printable rest are names */
	assert_int_equal(case_group_check("caf\xc3\xa9/~x y=1", err, sizeof(err)), 0);
	struct wb_case c;
	assert_int_equal(case_parse("caf\xc3\xa9/ext4-1dd-4k-8p-4096M-100M:10", &c, err, sizeof(err)), 0);
	/* result_begin checks a group that did not come through case_parse */
	struct result_dir r;
	char root[] = "/tmp/wblab-unit-cc.XXXXXX";
	assert_non_null(mkdtemp(root));
	snprintf(c.group, sizeof(c.group), "x\ny");
	assert_int_equal(result_begin(&r, root, &c, "k", 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "control character"));
	assert_null(strchr(err, '\n'));
	assert_int_equal(rmdir(root), 0);
}

static int is_dir(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static void test_result_begin_refuses_escapes(void **state)
{
	(void)state;
	struct wb_case c;
	struct result_dir r;
	char err[512], root[] = "/tmp/wblab-unit-rb.XXXXXX", p[4200];
	assert_non_null(mkdtemp(root));
	assert_int_equal(case_parse("ext4-1dd-4k-8p-4096M-100M:10", &c, err, sizeof(err)), 0);
	assert_int_equal(result_begin(&r, "", &c, "k", 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "-o ''"));
	/* a group that did not come through case_parse is checked again */
	snprintf(c.group, sizeof(c.group), "../escaped");
	assert_int_equal(result_begin(&r, root, &c, "k", 1, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'..'"));
	snprintf(p, sizeof(p), "%s/../escaped", root);
	assert_false(is_dir(p));
	snprintf(c.group, sizeof(c.group), "g");
	assert_int_equal(result_begin(&r, root, &c, "..", 1, err, sizeof(err)), -1);
	assert_int_equal(result_begin(&r, root, &c, "a/b", 1, err, sizeof(err)), -1);
	assert_int_equal(rmdir(root), 0);    /* nothing was created */
}

static void test_abort_removes_only_what_begin_made(void **state)
{
	(void)state;
	struct wb_case c;
	struct result_dir r, r2;
	char err[512], root[] = "/tmp/wblab-unit-ab.XXXXXX", p[4200];
	assert_non_null(mkdtemp(root));
	assert_int_equal(case_parse("a/b/ext4-1dd-4k-8p-4096M-100M:10", &c, err, sizeof(err)), 0);
	/* fresh root/a/b: all of it goes on abort, root stays */
	assert_int_equal(result_begin(&r, root, &c, "k", 1, err, sizeof(err)), 0);
	assert_true(is_dir(r.tmp_path));
	result_abort(&r);
	snprintf(p, sizeof(p), "%s/a", root);
	assert_false(is_dir(p));
	assert_true(is_dir(root));
	/* an OUT that did not exist goes too */
	snprintf(p, sizeof(p), "%s/new-out", root);
	assert_int_equal(result_begin(&r, p, &c, "k", 1, err, sizeof(err)), 0);
	result_abort(&r);
	assert_false(is_dir(p));
	/* root/a existed: it stays, root/a/b goes */
	snprintf(p, sizeof(p), "%s/a", root);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(result_begin(&r, root, &c, "k", 1, err, sizeof(err)), 0);
	result_abort(&r);
	assert_true(is_dir(p));
	snprintf(p, sizeof(p), "%s/a/b", root);
	assert_false(is_dir(p));
	/* a parallel job's result in the same group keeps the group alive */
	assert_int_equal(result_begin(&r, root, &c, "k1", 1, err, sizeof(err)), 0);
	assert_int_equal(result_begin(&r2, root, &c, "k2", 1, err, sizeof(err)), 0);
	result_abort(&r);
	assert_true(is_dir(p));
	assert_int_equal(result_commit(&r2), 0);
	assert_true(is_dir(r2.final_path));
	assert_int_equal(remove_tree(root), 0);
}

static int count_entries(const char *dir)
{
	int n = 0;
	DIR *d = opendir(dir);
	assert_non_null(d);
	for (struct dirent *e; (e = readdir(d));)
		n += strcmp(e->d_name, ".") && strcmp(e->d_name, "..");
	closedir(d);
	return n;
}

/* a commit over an earlier result replaces it whole and leaves nothing
 * beside it */
static void test_commit_replaces_and_leaves_nothing(void **state)
{
	(void)state;
	struct wb_case c;
	struct result_dir r1, r2;
	char err[512], root[] = "/tmp/wblab-unit-cm.XXXXXX", p[4200], parent[4200];
	assert_non_null(mkdtemp(root));
	assert_int_equal(case_parse("g/ext4-1dd-4k-8p-4096M-100M:10", &c, err, sizeof(err)), 0);
	assert_int_equal(result_begin(&r1, root, &c, "k", 1, err, sizeof(err)), 0);
	FILE *f = result_fopen(&r1, "stats");
	fputs("one\n", f);
	fclose(f);
	assert_int_equal(result_commit(&r1), 0);
	assert_int_equal(result_begin(&r2, root, &c, "k", 1, err, sizeof(err)), 0);
	f = result_fopen(&r2, "meta");
	fputs("two\n", f);
	fclose(f);
	assert_int_equal(result_commit(&r2), 0);
	/* the second commit's files, none of the first's */
	snprintf(p, sizeof(p), "%s/meta", r2.final_path);
	assert_int_equal(access(p, F_OK), 0);
	snprintf(p, sizeof(p), "%s/stats", r2.final_path);
	assert_int_equal(access(p, F_OK), -1);
	snprintf(parent, sizeof(parent), "%s/g", root);
	assert_int_equal(count_entries(parent), 1);
	assert_int_equal(remove_tree(root), 0);
}

static int parse_run(const char *const *args, int n, char *err, size_t errlen)
{
	static struct run_opts o;
	char *argv[16];
	for (int i = 0; i < n; i++)
		argv[i] = (char *)args[i];
	argv[n] = NULL;
	return run_opts_parse(&o, n, argv, err, errlen);
}

static void test_run_options(void **state)
{
	(void)state;
	char err[512];
	static const char *const tiny[] = { "run", "-t", "1e-300", "ext4-1dd-4k-*-*-100M:10" };
	static const char *const nan_t[] = { "run", "-t", "nan", "ext4-1dd-4k-*-*-100M:10" };
	static const char *const below[] = { "run", "-t", "0.09", "ext4-1dd-4k-*-*-100M:10" };
	static const char *const least[] = { "run", "-t", "0.1", "ext4-1dd-4k-*-*-100M:10" };
	static const char *const empty_o[] = { "run", "-o", "", "ext4-1dd-4k-*-*-100M:10" };
	static const char *const escape[] = { "run", "../../x/ext4-1dd-4k-*-*-100M:10" };
	assert_int_equal(parse_run(tiny, 4, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--runtime: '1e-300'"));
	assert_int_equal(parse_run(nan_t, 4, err, sizeof(err)), -1);
	assert_int_equal(parse_run(below, 4, err, sizeof(err)), -1);
	assert_int_equal(parse_run(least, 4, err, sizeof(err)), 0);
	assert_int_equal(parse_run(empty_o, 4, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "--out: DIR must not be empty"));
	assert_int_equal(parse_run(escape, 2, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "'..'"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_threshold_must_fit_in_mem),
		cmocka_unit_test(test_threshold_unit_spelling),
		cmocka_unit_test(test_group_stays_inside_out),
		cmocka_unit_test(test_control_characters_refused),
		cmocka_unit_test(test_result_begin_refuses_escapes),
		cmocka_unit_test(test_abort_removes_only_what_begin_made),
		cmocka_unit_test(test_commit_replaces_and_leaves_nothing),
		cmocka_unit_test(test_run_options),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
