/* Matrices in one CASE: brace lists, ranges, bare comma lists, nesting, the
 * order of the expansion (golden), errors, and case list files. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "util/case_expand.h"

/* the expansion of s joined by spaces */
static const char *joined(const char *s)
{
	static char out[8192];
	struct case_list l = { 0 };
	char err[256];
	out[0] = 0;
	if (case_expand(s, &l, err, sizeof(err))) {
		snprintf(out, sizeof(out), "ERR %s", err);
		case_list_free(&l);
		return out;
	}
	for (int i = 0; i < l.n; i++) {
		if (i)
			strcat(out, " ");
		strcat(out, l.v[i]);
	}
	case_list_free(&l);
	return out;
}

static void braces_expand_left_field_slowest(void **state)
{
	(void)state;
	assert_string_equal(joined("{ext4,xfs}-{1,2}dd-4k-8p-4096M-{1M,10M}:10"),
			    "ext4-1dd-4k-8p-4096M-1M:10 ext4-1dd-4k-8p-4096M-10M:10 "
			    "ext4-2dd-4k-8p-4096M-1M:10 ext4-2dd-4k-8p-4096M-10M:10 "
			    "xfs-1dd-4k-8p-4096M-1M:10 xfs-1dd-4k-8p-4096M-10M:10 "
			    "xfs-2dd-4k-8p-4096M-1M:10 xfs-2dd-4k-8p-4096M-10M:10");
}

static void ranges_count_up_and_down(void **state)
{
	(void)state;
	assert_string_equal(joined("ext4-{1..3}dd-4k-8p-4096M-1M:10"),
			    "ext4-1dd-4k-8p-4096M-1M:10 ext4-2dd-4k-8p-4096M-1M:10 "
			    "ext4-3dd-4k-8p-4096M-1M:10");
	assert_string_equal(joined("x-{3..1}"), "x-3 x-2 x-1");
	assert_string_equal(joined("x-{5..5}"), "x-5");
}

static void bare_comma_lists_are_fields(void **state)
{
	(void)state;
	assert_string_equal(joined("ext4,xfs-1dd-4k-8p-4096M-100M:10"),
			    "ext4-1dd-4k-8p-4096M-100M:10 xfs-1dd-4k-8p-4096M-100M:10");
	assert_string_equal(joined("ext4-1dd-4k-8p-4096M-100M:5,10"),
			    "ext4-1dd-4k-8p-4096M-100M:5 ext4-1dd-4k-8p-4096M-100M:10");
	assert_string_equal(joined("g1,g2/ext4-1dd"), "g1/ext4-1dd g2/ext4-1dd");
	assert_string_equal(joined("a,b-{1,2}"), "a-1 a-2 b-1 b-2");
}

static void braces_nest(void **state)
{
	(void)state;
	assert_string_equal(joined("x{a,b{1,2}}y"), "xay xb1y xb2y");
	assert_string_equal(joined("x{,s}"), "x xs");
}

static void plain_cases_pass_through(void **state)
{
	(void)state;
	assert_string_equal(joined("thresh=100M/ext4-10dd-4k-8p-4096M-100M:10"),
			    "thresh=100M/ext4-10dd-4k-8p-4096M-100M:10");
}

static void bad_matrices_are_errors(void **state)
{
	(void)state;
	assert_non_null(strstr(joined("{ext4,xfs-1dd"), "without '}'"));
	assert_non_null(strstr(joined("ext4}-1dd"), "without '{'"));
	assert_non_null(strstr(joined(""), "empty"));
	assert_non_null(strstr(joined("x-{1..1000000}"), "too long"));
	assert_non_null(strstr(joined("{1..99}{1..99}{1..99}"), "more than"));
}

static void case_files_have_comments_and_name_lines(void **state)
{
	(void)state;
	char path[] = "/tmp/wblab-cases.XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	const char text[] = "# the local matrix\n\next4-{1,2}dd-4k-8p-4096M-1M:10  # two\n"
			    "  xfs-1dd-4k-8p-4096M-1M:10\r\n";
	assert_int_equal(write(fd, text, sizeof(text) - 1), (ssize_t)(sizeof(text) - 1));
	close(fd);
	struct case_list l = { 0 };
	char err[256];
	assert_int_equal(case_expand_file(path, &l, err, sizeof(err)), 0);
	assert_int_equal(l.n, 3);
	assert_string_equal(l.v[2], "xfs-1dd-4k-8p-4096M-1M:10");
	case_list_free(&l);
	FILE *f = fopen(path, "w");
	fputs("ext4-1dd\nbad case here\n", f);
	fclose(f);
	assert_int_equal(case_expand_file(path, &l, err, sizeof(err)), -1);
	assert_non_null(strstr(err, ":2:"));
	case_list_free(&l);
	f = fopen(path, "w");
	fputs("# nothing\n", f);
	fclose(f);
	assert_int_equal(case_expand_file(path, &l, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no CASE"));
	case_list_free(&l);
	unlink(path);
	assert_int_equal(case_expand_file("/nonexistent/cases", &l, err, sizeof(err)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(braces_expand_left_field_slowest),
		cmocka_unit_test(ranges_count_up_and_down),
		cmocka_unit_test(bare_comma_lists_are_fields),
		cmocka_unit_test(braces_nest),
		cmocka_unit_test(plain_cases_pass_through),
		cmocka_unit_test(bad_matrices_are_errors),
		cmocka_unit_test(case_files_have_comments_and_name_lines),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
