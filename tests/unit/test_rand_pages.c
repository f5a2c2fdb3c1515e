/* The random writer's counter rules by hand (src/sim/rand_pages.c).
 *
 * Fresh pages: 2 random writes into a 4-page file with nothing dirty hit
 * 4 (1 - (3/4)^2) = 1.75 new pages: 1 now, 0.75 carried; 2 more with 1 page
 * dirty: 3 * 7/16 = 1.3125 + 0.75 = 2.0625: 2, 0.0625 carried.  A full file
 * takes no fresh pages.  1000 writes into a 64256 MiB file (16449536 pages)
 * lose 1000 * 999 / (2 F) = 0.03 pages to re-dirtying: 999, carry 0.97.
 *
 * Runs: 8 of a 9-page file's 5 dirty pages, q = 4/8: 1 + 7/2 = 4.5 runs:
 * 4, then 5 with the carry.  A file that is all dirty is one run, cut into
 * ceil(10/4) = 3 WRITEs of at most 4 pages.  Three pages of a 1000-page file
 * holding one dirty page (d - 1 = 0): three runs.  23000 pages of a 64256 MiB
 * file holding 256 MiB dirty, 100 times: 100 (1 + 22999 (1 - q)) = 2290837.
 *
 * The split: 10 pages in 4 WRITEs are 3, 3, 2, 2. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "sim/rand_pages.h"

static void fresh_pages_are_the_pages_not_hit_before(void **state)
{
	(void)state;
	double c = 0;
	assert_int_equal(rand_fresh_pages(2, 0, 4, &c), 1);
	assert_true(c > 0.7499 && c < 0.7501);
	assert_int_equal(rand_fresh_pages(2, 1, 4, &c), 2);
	assert_true(c > 0.0624 && c < 0.0626);
	c = 0;
	assert_int_equal(rand_fresh_pages(5, 4, 4, &c), 0);
	assert_int_equal(rand_fresh_pages(0, 0, 4, &c), 0);
	c = 0;
	assert_int_equal(rand_fresh_pages(1000, 0, 64256ULL * 256, &c), 999);
	assert_true(c > 0.96 && c < 0.98);
}

static void runs_follow_the_dirty_density(void **state)
{
	(void)state;
	double c = 0;
	assert_int_equal(rand_runs(8, 5, 9, 256, &c), 4);
	assert_int_equal(rand_runs(8, 5, 9, 256, &c), 5);
	c = 0;
	assert_int_equal(rand_runs(10, 10, 10, 4, &c), 3);
	c = 0;
	assert_int_equal(rand_runs(3, 1, 1000, 256, &c), 3);
	assert_int_equal(rand_runs(0, 1, 1000, 256, &c), 0);
	/* a sparse 64 GiB file: nearly every page its own WRITE */
	c = 0;
	uint64_t w = 0;
	for (int i = 0; i < 100; i++)
		w += rand_runs(23000, 65536, 64256ULL * 256, 256, &c);
	/* 100 (1 + 22999 (1 - 65535 / 16449535)) = 2290837.19 */
	assert_true(w >= 2290836 && w <= 2290837);
}

static void the_split_sizes_differ_by_at_most_a_page(void **state)
{
	(void)state;
	uint64_t left = 10, parts = 4, got[4];
	for (int i = 0; i < 4; i++) {
		got[i] = rand_next_part(left, parts--);
		left -= got[i];
	}
	assert_int_equal(got[0], 3);
	assert_int_equal(got[1], 3);
	assert_int_equal(got[2], 2);
	assert_int_equal(got[3], 2);
	assert_int_equal(left, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(fresh_pages_are_the_pages_not_hit_before),
		cmocka_unit_test(runs_follow_the_dirty_density),
		cmocka_unit_test(the_split_sizes_differ_by_at_most_a_page),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
