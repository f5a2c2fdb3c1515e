/* The client socket's send buffer by hand (src/nfs/xprt_sndbuf.c).
 *
 * A 4 MiB buffer and 1 MiB WRITEs (1048576 + 148 header bytes = 1048724):
 * three are copied in (unsent 1048724, 2097448, 3146172), a fourth would make
 * 4194896 > 4194304 and waits; once the first is on the wire (unsent
 * 2097448) it fits.  A COMMIT (148 bytes) fits behind three WRITEs.  A request
 * larger than the whole buffer is taken only by an empty buffer.  No buffer
 * (size 0): nothing is ever copied in ahead of the wire. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "nfs/xprt_sndbuf.h"

#define W1M 1048724ULL
#define COMMIT 148ULL

static void four_mib_takes_three_writes_then_a_fourth_after_one_is_sent(void **state)
{
	(void)state;
	struct xprt_sndbuf sb = { .size = 4194304 };
	for (int i = 0; i < 3; i++) {
		assert_true(xprt_sndbuf_fits(&sb, W1M));
		xprt_sndbuf_queue(&sb, W1M);
	}
	assert_int_equal(sb.unsent, 3146172);
	assert_false(xprt_sndbuf_fits(&sb, W1M));
	assert_true(xprt_sndbuf_fits(&sb, COMMIT));
	xprt_sndbuf_sent(&sb, W1M);
	assert_int_equal(sb.unsent, 2097448);
	assert_true(xprt_sndbuf_fits(&sb, W1M));
	xprt_sndbuf_queue(&sb, W1M);
	assert_int_equal(sb.unsent, 3146172);
}

static void an_oversize_request_needs_an_empty_buffer(void **state)
{
	(void)state;
	struct xprt_sndbuf sb = { .size = 1048576 };
	assert_true(xprt_sndbuf_fits(&sb, 2 * W1M));
	xprt_sndbuf_queue(&sb, 2 * W1M);
	assert_false(xprt_sndbuf_fits(&sb, COMMIT));
	xprt_sndbuf_sent(&sb, 2 * W1M);
	assert_int_equal(sb.unsent, 0);
	assert_true(xprt_sndbuf_fits(&sb, COMMIT));
}

static void no_buffer_copies_nothing_ahead_of_the_wire(void **state)
{
	(void)state;
	struct xprt_sndbuf sb = { .size = 0 };
	assert_false(xprt_sndbuf_fits(&sb, COMMIT));
	assert_false(xprt_sndbuf_fits(&sb, W1M));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(four_mib_takes_three_writes_then_a_fourth_after_one_is_sent),
		cmocka_unit_test(an_oversize_request_needs_an_empty_buffer),
		cmocka_unit_test(no_buffer_copies_nothing_ahead_of_the_wire),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
