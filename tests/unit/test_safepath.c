/* canonical_target: the path a root run writes below, resolved once. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>
#include "real/safepath.h"

static char dir[PATH_MAX], real[PATH_MAX];

static int setup(void **s)
{
	(void)s;
	snprintf(dir, sizeof(dir), "/tmp/wblab-test-safepath.XXXXXX");
	if (!mkdtemp(dir) || !realpath(dir, real))
		return -1;
	char p[PATH_MAX + 16];
	snprintf(p, sizeof(p), "%s/d", dir);
	if (mkdir(p, 0755))
		return -1;
	char l[PATH_MAX + 16];
	snprintf(l, sizeof(l), "%s/link", dir);
	return symlink(p, l);
}

static int teardown(void **s)
{
	(void)s;
	char c[PATH_MAX + 32];
	snprintf(c, sizeof(c), "rm -rf '%s'", dir);
	return system(c) == 0 ? 0 : -1;
}

static void test_missing_part_joined(void **s)
{
	(void)s;
	char in[PATH_MAX + 32], out[PATH_MAX], want[PATH_MAX + 32];
	snprintf(in, sizeof(in), "%s/link/a//b/", dir);   /* through the link, an empty component */
	assert_int_equal(canonical_target(in, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "%s/d/a/b", real);
	assert_string_equal(out, want);
	/* the ancestor alone */
	assert_int_equal(existing_ancestor(in, out, sizeof(out)), 0);
	snprintf(want, sizeof(want), "%s/d", real);
	assert_string_equal(out, want);
}

static void test_dot_dot_refused(void **s)
{
	(void)s;
	char in[PATH_MAX + 32], out[PATH_MAX];
	snprintf(in, sizeof(in), "%s/new/../x", dir);
	errno = 0;
	assert_int_equal(canonical_target(in, out, sizeof(out)), -1);
	assert_int_equal(errno, EINVAL);
	snprintf(in, sizeof(in), "%s/new/./x", dir);
	assert_int_equal(canonical_target(in, out, sizeof(out)), -1);
	/* ".." inside the existing part is resolved, not refused */
	snprintf(in, sizeof(in), "%s/d/../d/y", dir);
	assert_int_equal(canonical_target(in, out, sizeof(out)), 0);
}

static void test_too_long(void **s)
{
	(void)s;
	char in[PATH_MAX + 32], out[16];
	snprintf(in, sizeof(in), "%s/d", dir);
	assert_int_equal(canonical_target(in, out, sizeof(out)), -1);
	assert_int_equal(canonical_target("", out, sizeof(out)), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_missing_part_joined),
		cmocka_unit_test(test_dot_dot_refused),
		cmocka_unit_test(test_too_long),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
