/* The NFS client's rules by hand (src/nfs/nfs_rules.c).
 *
 * Congestion marks, 3.x mainline / 6.x: a 4 GiB client has totalram 1048576
 * pages, nfs_congestion_kb = 16 * sqrt(1048576) * 4 = 65536 KiB, so on =
 * 16384 pages and off = 16384 - 4096 = 12288.  Writeback of 16384 pages is not
 * yet congested (the test is >), one more page is; back down to 12288 it
 * stays congested (the test is <), one page less clears it and wakes.
 * nfs-wq4 at a 100 MiB threshold (102400 KiB): kb = min(65536, (102400 +
 * 1024) / 8 = 12928) -> on = 3232, off = 3232 - min(404, 256) = 2976; at
 * 1 MiB: (1024 + 1024) / 8 = 256 KiB -> on = 64, off = 64 - 8 = 56.  The
 * 256 MiB cap: 32 GiB gives 16 * 2896 * 4 = 185344 KiB (below the cap), a
 * 128 GiB client 16 * 5792 * 4 = 370688 -> capped at 262144 = 65536 pages.
 *
 * nfs_writepages while congested: flag (3.x, 6.x to 5.17) goes on, skip
 * (5.18) returns, wait (2024) sleeps; a sync call (WB_SYNC_ALL) always goes.
 *
 * nfs_write_inode, WB_SYNC_NONE, a file with 1000 requests:
 *   3.1: 500 on the commit list (not more than half) -> later; 501 -> send;
 *        501 with a COMMIT in flight -> later; 0 -> later (3.1 has no early
 *        return, it re-marks the inode);
 *   3.2: the same, but 0 -> nothing at all;
 *   6.x: 10 of 1000 with 1 page under WRITE -> later; 10 with none -> send,
 *        even with a COMMIT in flight; WB_SYNC_ALL sends with WRITEs out. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <cmocka.h>
#include "nfs/nfs_rules.h"

static void mainline_marks_have_a_quarter_of_hysteresis(void **state)
{
	(void)state;
	struct nfs_congestion c;
	nfs_congestion_init(&c, 65536, 0, 0);
	assert_int_equal(c.on, 16384);
	assert_int_equal(c.off, 12288);
	nfs_congestion_inc(&c, 16384);
	assert_false(c.congested);
	nfs_congestion_inc(&c, 1);
	assert_true(c.congested);
	assert_int_equal(nfs_congestion_dec(&c, 4097), 0);   /* 12288: not below off */
	assert_true(c.congested);
	assert_int_equal(nfs_congestion_dec(&c, 1), 1);      /* 12287: cleared, wake */
	assert_false(c.congested);
	assert_int_equal(nfs_congestion_dec(&c, 1), 0);      /* no second wake */
}

static void wq4_scales_the_limit_to_the_dirty_threshold(void **state)
{
	(void)state;
	struct nfs_congestion c;
	nfs_congestion_init(&c, 65536, 1, 102400);
	assert_int_equal(c.on, 3232);
	assert_int_equal(c.off, 2976);
	nfs_congestion_init(&c, 65536, 1, 1024);
	assert_int_equal(c.on, 64);
	assert_int_equal(c.off, 56);
	nfs_congestion_init(&c, 370688, 0, 0);
	assert_int_equal(c.on, 65536);
	nfs_congestion_init(&c, 185344, 0, 0);
	assert_int_equal(c.on, 46336);
}

static void writepages_gate_per_kernel(void **state)
{
	(void)state;
	assert_int_equal(nfs_writepages_gate(NFS_CONG_FLAG, 0, 1), NFS_GATE_GO);
	assert_int_equal(nfs_writepages_gate(NFS_CONG_SKIP, 0, 1), NFS_GATE_SKIP);
	assert_int_equal(nfs_writepages_gate(NFS_CONG_WAIT, 0, 1), NFS_GATE_WAIT);
	assert_int_equal(nfs_writepages_gate(NFS_CONG_WAIT, 0, 0), NFS_GATE_GO);
	assert_int_equal(nfs_writepages_gate(NFS_CONG_SKIP, 1, 1), NFS_GATE_GO);
	assert_int_equal(nfs_writepages_gate(NFS_CONG_WAIT, 1, 1), NFS_GATE_GO);
}

static void commit_rules_31_32_6x(void **state)
{
	(void)state;
	const struct nfs_client_era *v31 = &nfs_client_3_1, *v32 = &nfs_client_3_2, *v6 = &nfs_client_6x;
	assert_int_equal(nfs_commit_decide(v31, 0, 500, 1000, 0, 0), NFS_COMMIT_LATER);
	assert_int_equal(nfs_commit_decide(v31, 0, 501, 1000, 0, 0), NFS_COMMIT_SEND);
	assert_int_equal(nfs_commit_decide(v31, 0, 501, 1000, 0, 1), NFS_COMMIT_LATER);
	assert_int_equal(nfs_commit_decide(v31, 0, 0, 1000, 0, 0), NFS_COMMIT_LATER);
	assert_int_equal(nfs_commit_decide(v31, 1, 10, 1000, 0, 0), NFS_COMMIT_SEND);
	assert_int_equal(nfs_commit_decide(&nfs_client_3_1_wq4, 0, 501, 1000, 400, 0), NFS_COMMIT_SEND);
	assert_int_equal(nfs_commit_decide(v32, 0, 500, 1000, 0, 0), NFS_COMMIT_LATER);
	assert_int_equal(nfs_commit_decide(v32, 0, 501, 1000, 0, 0), NFS_COMMIT_SEND);
	assert_int_equal(nfs_commit_decide(v32, 0, 0, 1000, 0, 0), NFS_COMMIT_NOTHING);
	assert_int_equal(nfs_commit_decide(v6, 0, 10, 1000, 1, 0), NFS_COMMIT_LATER);
	assert_int_equal(nfs_commit_decide(v6, 0, 10, 1000, 0, 0), NFS_COMMIT_SEND);
	assert_int_equal(nfs_commit_decide(v6, 0, 10, 1000, 0, 1), NFS_COMMIT_SEND);
	assert_int_equal(nfs_commit_decide(v6, 1, 10, 1000, 500, 0), NFS_COMMIT_SEND);
	assert_int_equal(nfs_commit_decide(v6, 0, 0, 1000, 0, 0), NFS_COMMIT_NOTHING);
}

/* The 3.1 rule after a COMMIT reply, hand-worked from the vanilla 100M/1dd
 * trace (docs/nfs-model.md, "Vanilla's serial WRITE/COMMIT: second pass"):
 * the reply leaves 10252 pages that became unstable while the COMMIT ran.
 * The flusher's first write_inode comes when the dd has dirtied 3083 more
 * pages (npages 13335): 10252 > 6667, so the next COMMIT goes at once and
 * the dd's refill crosses the wire while it runs (back to back).  Had the
 * refill reached the dd's limit first (npages 22551), 10252 <= 11275 and the
 * COMMIT would wait until 11276 pages are unstable: a gap, the serial cycle
 * the published vanilla rows show. */
static void commit_31_after_a_reply_depends_on_the_refill(void **state)
{
	(void)state;
	const struct nfs_client_era *v31 = &nfs_client_3_1;
	assert_int_equal(nfs_commit_decide(v31, 0, 10252, 13335, 3083, 0), NFS_COMMIT_SEND);
	assert_int_equal(nfs_commit_decide(v31, 0, 10252, 22551, 12299, 0), NFS_COMMIT_LATER);
	assert_int_equal(nfs_commit_decide(v31, 0, 11275, 22551, 0, 0), NFS_COMMIT_LATER);
	assert_int_equal(nfs_commit_decide(v31, 0, 11276, 22551, 0, 0), NFS_COMMIT_SEND);
	/* the COMMIT that is still running blocks the next one whatever the counts */
	assert_int_equal(nfs_commit_decide(v31, 0, 22000, 22551, 0, 1), NFS_COMMIT_LATER);
}

static void era_bits_as_the_kernels_shipped_them(void **state)
{
	(void)state;
	assert_int_equal(nfs_client_3_1.congestion, NFS_CONG_FLAG);
	assert_int_equal(nfs_client_3_2.congestion, NFS_CONG_FLAG);
	assert_int_equal(nfs_client_6x.congestion, NFS_CONG_WAIT);
	assert_true(nfs_client_6x.unstable_as_writeback && nfs_client_6x.io_completion_commit);
	assert_false(nfs_client_3_2.unstable_as_writeback || nfs_client_3_1_wq4.commit_after_writeback);
	assert_true(nfs_client_3_1_wq4.writeback_wait && !nfs_client_6x.writeback_wait);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(mainline_marks_have_a_quarter_of_hysteresis),
		cmocka_unit_test(wq4_scales_the_limit_to_the_dirty_threshold),
		cmocka_unit_test(writepages_gate_per_kernel),
		cmocka_unit_test(commit_rules_31_32_6x),
		cmocka_unit_test(commit_31_after_a_reply_depends_on_the_refill),
		cmocka_unit_test(era_bits_as_the_kernels_shipped_them),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
