/* The one reader of key/value result files and the one result walker. */
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
#include "result/result.h"
#include "util/util.h"

static char root[64];

static const char *put(const char *name, const char *text)
{
	static char path[4][256];
	static int k;
	char *p = path[k++ % 4];
	snprintf(p, 256, "%s/%s", root, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	return p;
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "/tmp/wblab-unit-kv.XXXXXX");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	return remove_tree(root);
}

static void expect_load_error(const char *path, const char *needle)
{
	struct kvfile f;
	char err[600];
	assert_int_equal(kvf_load(&f, path, err, sizeof(err)), -1);
	if (!strstr(err, needle) || !strstr(err, path) || strchr(err, '\n'))
		fail_msg("%s: error '%s' lacks '%s'", path, err, needle);
	assert_int_equal(f.n, 0);
	kvf_free(&f);
}

static void test_syntax_and_lines(void **state)
{
	(void)state;
	struct kvfile f;
	char err[600];
	const char *p = put("ok", "# c\n\nwrite_bw 12.5\n  key = a b  \r\nempty =\nx\t7\n");
	assert_int_equal(kvf_load(&f, p, err, sizeof(err)), 0);
	assert_int_equal(f.n, 4);
	assert_string_equal(kvf_get(&f, "key")->val, "a b");
	assert_int_equal(kvf_get(&f, "key")->line, 4);
	assert_string_equal(kvf_get(&f, "empty")->val, "");
	double v;
	assert_int_equal(kvf_number(&f, kvf_get(&f, "x"), &v, err, sizeof(err)), 0);
	assert_true(v == 7);
	assert_int_equal(kvf_number(&f, kvf_get(&f, "key"), &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ":4: 'a b' is not a number"));
	assert_null(kvf_get(&f, "nope"));
	kvf_free(&f);
	expect_load_error(put("novalue", "a 1\nlonely\n"), ":2: 'lonely' has no value");
	expect_load_error(put("novalue2", "lonely   \n"), ":1: 'lonely' has no value");
}

static void test_non_finite_rejected(void **state)
{
	(void)state;
	static const char *const bad[] = { "nan", "NaN", "-nan", "inf", "-inf", "Infinity",
					   "nan(0x7)", "1e999" };
	char text[64];
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		snprintf(text, sizeof(text), "a 1\nruntime_s %s\n", bad[i]);
		char want[80];
		snprintf(want, sizeof(want), ":2: runtime_s '%s' is not a finite number", bad[i]);
		expect_load_error(put("nf", text), want);
	}
	/* words that only start like a number are text, not NaN */
	struct kvfile f;
	char err[600];
	assert_int_equal(kvf_load(&f, put("words", "host nancy\nk info\n"), err, sizeof(err)), 0);
	kvf_free(&f);
}

/* a cut file (last line without newline), a number past KV_MAX_NUMBER, and
 * an underflowing one, which is a number */
static void test_cut_and_range(void **state)
{
	(void)state;
	expect_load_error(put("cut", "a 1\nwrite_bw 5"), ":2: the last line has no newline");
	struct kvfile f;
	char err[600];
	double v;
	assert_int_equal(kvf_load(&f, put("num", "write_bw 1e308\ntiny 1e-320\nok -1e15\n"), err,
				  sizeof(err)), 0);
	assert_int_equal(kvf_number(&f, &f.v[0], &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ":1: write_bw 1e308 is out of range"));
	assert_int_equal(kvf_number(&f, &f.v[1], &v, err, sizeof(err)), 0);
	assert_true(v > 0 && v < 1e-300);
	assert_int_equal(kvf_number(&f, &f.v[2], &v, err, sizeof(err)), 0);
	assert_true(v == -1e15);
	kvf_free(&f);
}

static int count_cb(void *arg, const char *key, const char *val)
{
	(void)key;
	(void)val;
	++*(int *)arg;
	return 0;
}

/* a second line of a key would lose to the first without a word (meta's
 * kernel moved a result into another column) */
static void test_repeated_keys(void **state)
{
	(void)state;
	expect_load_error(put("dup", "case a\nkernel x\nkernel y\n"), ":3: 'kernel' appears twice (first on line 2)");
	expect_load_error(put("dup3", "k 1\nj 2\nk 3\nk 4\nj 5\n"), ":3: 'k' appears twice (first on line 1)");
	struct kvfile f;
	char err[600];
	/* keys that share a prefix are different keys */
	assert_int_equal(kvf_load(&f, put("prefix", "k 1\nk2 2\nk_ 3\n"), err, sizeof(err)), 0);
	assert_int_equal(f.n, 3);
	kvf_free(&f);
	/* a list (the plots index) may repeat its keys */
	int n = 0;
	assert_int_equal(kv_read_list(put("index", "made a\nmade b\nmade c\n"), count_cb, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 3);
	n = 0;
	assert_int_equal(kv_read(put("index2", "made a\nmade b\n"), count_cb, &n, err, sizeof(err)), -1);
}

static void test_only_regular_bounded_files(void **state)
{
	(void)state;
	char p[256], q[256];
	snprintf(p, sizeof(p), "%s/zero", root);
	assert_int_equal(symlink("/dev/zero", p), 0);
	expect_load_error(p, "is a symbolic link");
	snprintf(q, sizeof(q), "%s/link", root);
	assert_int_equal(symlink(put("target", "a 1\n"), q), 0);
	expect_load_error(q, "is a symbolic link");
	snprintf(p, sizeof(p), "%s/fifo", root);
	assert_int_equal(mkfifo(p, 0600), 0);
	expect_load_error(p, "not a regular file");
	snprintf(p, sizeof(p), "%s/dir", root);
	assert_int_equal(mkdir(p, 0755), 0);
	expect_load_error(p, "not a regular file");
	expect_load_error("/nonexistent/stats", "No such file");
	/* just over the limit (a sparse file of NULs: one line, no newline) */
	const char *big = put("big", "");
	assert_int_equal(truncate(big, KV_MAX_BYTES + 1), 0);
	expect_load_error(big, "larger than 16 MiB");
	struct kvfile f;
	char err[600];
	assert_int_equal(truncate(big, KV_MAX_BYTES), 0);
	FILE *nl = fopen(big, "r+");   /* the one line ends with its newline */
	assert_non_null(nl);
	assert_int_equal(fseek(nl, KV_MAX_BYTES - 1, SEEK_SET), 0);
	fputc('\n', nl);
	fclose(nl);
	expect_load_error(big, "control byte 0x00 at column 1");   /* NULs are no text */
	nl = fopen(big, "w");          /* blanks: a file of no keys, at the limit */
	assert_non_null(nl);
	for (long i = 0; i < KV_MAX_BYTES - 1; i++)
		fputc(' ', nl);
	fputc('\n', nl);
	fclose(nl);
	assert_int_equal(kvf_load(&f, big, err, sizeof(err)), 0);    /* at the limit: read */
	assert_int_equal(f.n, 0);
	kvf_free(&f);
}

static void mkresult(const char *rel, int with_stats)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", root, rel);
	assert_int_equal(mkdir_p(p), 0);
	if (with_stats) {
		snprintf(p, sizeof(p), "%s/stats", rel);
		put(p, "write_bw 1\n");
	}
}

static void test_walker(void **state)
{
	(void)state;
	mkresult("w/b/r2", 1);
	mkresult("w/a/r1", 1);
	mkresult("w/a/r1/plots", 0);
	mkresult("w/a/.r3.tmp.1", 1);      /* unfinished: hidden */
	mkresult("w/a/nostats", 0);
	mkresult("other/r4", 1);
	char w[256], lnk[256], other[256];
	snprintf(w, sizeof(w), "%s/w", root);
	snprintf(lnk, sizeof(lnk), "%s/w/b/link", root);
	snprintf(other, sizeof(other), "%s/other", root);
	assert_int_equal(symlink(other, lnk), 0);   /* not followed below a DIR */
	const char *dirs[] = { w, other, w };
	struct result_list l;
	char err[600];
	assert_int_equal(result_find(dirs, 3, &l, err, sizeof(err)), 0);
	assert_int_equal(l.n, 3);
	assert_non_null(strstr(l.v[0].path, "/w/a/r1"));
	assert_non_null(strstr(l.v[1].path, "/w/b/r2"));
	assert_non_null(strstr(l.v[2].path, "/other/r4"));
	assert_int_equal(l.v[2].arg, 1);
	result_list_free(&l);
	const char *bad[] = { "/nonexistent" };
	assert_int_equal(result_find(bad, 1, &l, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "/nonexistent"));
}

/* CASE-KERNEL[.RUN]: the one parser, and the formatter it inverts. */
static void test_result_name(void **state)
{
	(void)state;
	struct result_name rn;
	char buf[512];
	assert_int_equal(result_name_parse("ext4-1dd-4k-8p-4096M-1M:10-3.1.0-rc8-nfs-wq4+.3", &rn), 0);
	assert_string_equal(rn.case_name, "ext4-1dd-4k-8p-4096M-1M:10");
	assert_string_equal(rn.kernel, "3.1.0-rc8-nfs-wq4+.3");
	assert_true(rn.has_kernel);
	assert_int_equal(rn.run, 3);
	assert_int_equal(rn.kernel_len, strlen("3.1.0-rc8-nfs-wq4+"));
	assert_int_equal(result_name_format(buf, sizeof(buf), rn.case_name, "3.1.0-rc8-nfs-wq4+", 3), 0);
	assert_string_equal(buf, "ext4-1dd-4k-8p-4096M-1M:10-3.1.0-rc8-nfs-wq4+.3");
	assert_int_equal(result_name_parse("nfs-10dd-4k-8p-4096M-100M:10-current", &rn), 0);
	assert_int_equal(rn.run, 1);
	assert_string_equal(rn.kernel, "current");
	/* .1 and .x are part of the kernel, not a run */
	assert_int_equal(result_name_parse("a-b-c-d-e-f:g-3.1", &rn), 0);
	assert_int_equal(rn.run, 1);
	assert_int_equal(rn.kernel_len, 3);
	/* no sixth '-': all of it is the case */
	assert_int_equal(result_name_parse("a-b-c-d-e-f:g", &rn), 0);
	assert_false(rn.has_kernel);
	assert_string_equal(rn.case_name, "a-b-c-d-e-f:g");
	assert_string_equal(rn.kernel, "");
	assert_int_equal(result_name_parse("a-b-c-d-e-f:g-", &rn), 0);
	assert_true(rn.has_kernel);
	assert_string_equal(rn.kernel, "");
	assert_int_equal(result_name_format(buf, sizeof(buf), "c", "k", 1), 0);
	assert_string_equal(buf, "c-k");
	assert_int_equal(result_name_format(buf, 3, "c", "k", 1), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syntax_and_lines),
		cmocka_unit_test(test_non_finite_rejected),
		cmocka_unit_test(test_cut_and_range),
		cmocka_unit_test(test_repeated_keys),
		cmocka_unit_test(test_only_regular_bounded_files),
		cmocka_unit_test(test_walker),
		cmocka_unit_test(test_result_name),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
