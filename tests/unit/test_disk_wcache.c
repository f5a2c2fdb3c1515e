/* The server disk's write-back cache by hand (src/nfs/disk_wcache.c).
 *
 * Platters at 100 MiB/s: 39062.5 ns a page; the SATA link at 250 MiB/s:
 * 15625 ns a page; a 16 MB cache holds 16 * 256 * 39062.5 = 160 ms of
 * platter work.  Empty, 1000 pages go at the link rate (15.625 ms) and leave
 * 1000 * (39062.5 - 15625) = 23.4375 ms owed.  Then 10000 pages after a
 * 10 ms seek: 33.4375 ms owed, room for (160 - 33.4375) / 0.0234375 = 5400
 * pages at the link rate (84.375 ms), the other 4600 at the platters' rate
 * (179.6875 ms): 264.0625 ms, the cache full (160 ms owed), which a flush
 * waits for.  Two pages after a 5 ms seek into the full cache wait the 5 ms,
 * then go at the platters' rate: 5.078125 ms.  Platters faster than the
 * link (500 MiB/s): the link sets the pace and the cache only drains. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "nfs/disk_wcache.h"

#define MS 1000000.0

static void link_rate_then_platter_rate_then_a_full_flush(void **state)
{
	(void)state;
	struct disk_wcache w;
	disk_wcache_init(&w, 16, 100, 250);
	assert_true(w.media_ns == 39062.5 && w.link_ns == 15625 && w.cap_ns == 160 * MS);
	double t = disk_wcache_write_ns(&w, 0, 1000, 0);
	assert_true(t == 15.625 * MS);
	int64_t now = (int64_t)(15.625 * MS);
	assert_true(disk_wcache_owed(&w, now) == 23.4375 * MS);
	assert_true(disk_wcache_owed(&w, now - 1000) == 23.4375 * MS);   /* an earlier time adds nothing */
	t = disk_wcache_write_ns(&w, now, 10000, 10 * MS);
	assert_true(t == 264.0625 * MS);
	now += (int64_t)t;
	assert_true(disk_wcache_owed(&w, now) == 160 * MS);   /* what a journal commit's flush waits */
	t = disk_wcache_write_ns(&w, now, 2, 5 * MS);
	assert_true(t == 5.078125 * MS);
	now += (int64_t)t;
	assert_true(disk_wcache_owed(&w, now) == 160 * MS);
	assert_true(disk_wcache_owed(&w, now + (int64_t)(1000 * MS)) == 0);   /* drained, not below */
}

static void platters_faster_than_the_link_never_fill_it(void **state)
{
	(void)state;
	struct disk_wcache w;
	disk_wcache_init(&w, 16, 500, 250);
	assert_true(w.media_ns == 7812.5 && w.cap_ns == 32 * MS);
	assert_true(disk_wcache_write_ns(&w, 0, 100, 0) == 1.5625 * MS);
	assert_true(disk_wcache_owed(&w, (int64_t)(1.5625 * MS)) == 0);
	/* a 10 ms seek owed first: 100 pages drain 100 * (15625 - 7812.5) ns of it */
	int64_t now = (int64_t)(10 * MS);
	assert_true(disk_wcache_write_ns(&w, now, 100, 10 * MS) == 1.5625 * MS);
	assert_true(disk_wcache_owed(&w, now + (int64_t)(1.5625 * MS)) == 9.21875 * MS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(link_rate_then_platter_rate_then_a_full_flush),
		cmocka_unit_test(platters_faster_than_the_link_never_fill_it),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
