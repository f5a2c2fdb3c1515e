/* The block layer (src/block/): elevator merge and dispatch order on
 * hand-made request streams, each file system's block positions for
 * hand-made write patterns, each device's service time computed by hand, and
 * a long sequential stream reproducing a device's bandwidth within 1 %.
 * Devices and queues run on a bare simulator: only call events, no threads. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <math.h>
#include <cmocka.h>
#include "block/blk.h"
#include "block/alloc.h"
#include "throttle/throttle.h"

int sim_run_events(struct sim *s);

static void bare_sim(struct sim *s)
{
	memset(s, 0, sizeof(*s));
	s->rng = 12345;
	s->end = INT64_MAX / 2;
}

static void run(struct sim *s)
{
	sim_run_events(s);
	s->end = INT64_MAX / 2;
}

static struct dev_params hdd_params(double cache_mb)
{
	struct dev_params dp = { .bw_mbps = 57, .capacity_gb = 500, .rpm = 7200, .track_ms = 1.0,
				 .full_stroke_ms = 16, .cache_mb = cache_mb, .link_mbps = 280,
				 .queue_depth = 31, .max_sectors_kb = 512 };
	return dp;
}

/* ---- a device that holds one request until the test completes it -------- */

struct hold { struct blk_rq *cur; uint64_t order[16]; int n; blk_done_fn done; void *ctx; };
static struct hold *the_hold;

static void *hold_create(struct sim *s, const struct dev_params *dp, blk_done_fn done, void *ctx)
{
	(void)s, (void)dp;
	struct hold *h = calloc(1, sizeof(*h));
	h->done = done;
	h->ctx = ctx;
	the_hold = h;
	return h;
}
static void hold_destroy(void *d) { free(d); }
static int hold_can_queue(const void *d) { return !((const struct hold *)d)->cur; }
static void hold_queue_rq(struct sim *s, void *d, struct blk_rq *rq)
{
	(void)s;
	struct hold *h = d;
	h->cur = rq;
	if (h->n < 16)
		h->order[h->n++] = rq->sector;
}
static void hold_busy(const void *d, double *b, uint64_t *r) { (void)d; *b = 0; *r = 0; }
static const struct blk_dev_type dev_hold = { "hold", hold_create, hold_destroy, hold_can_queue,
					      hold_queue_rq, hold_busy };

static void no_end_io(struct sim *s, struct blk_rq *rq) { (void)s, (void)rq; }

static void complete_current(struct sim *s, struct blk_queue *q)
{
	struct blk_rq *rq = the_hold->cur;
	the_hold->cur = NULL;
	blk_end_request(s, q, rq);
}

static struct inode ino_a, ino_b;

/* A (2000) goes to the device at once; B (2100) and C (1990) wait while A is
 * served.  The head is at 2008 when A completes. */
static void dispatch_order(const char *elv, uint64_t want[3])
{
	struct sim s;
	bare_sim(&s);
	struct dev_params dp = hdd_params(0);
	blk_end_io_hook = no_end_io;
	struct blk_queue *q = blk_queue_create(&s, &dp, 128, elv, &dev_hold, NULL);
	assert_non_null(q);
	blk_submit_bio(&s, q, NULL, &ino_a, 2000, 1, 0);
	blk_submit_bio(&s, q, NULL, &ino_a, 2100, 1, 0);
	blk_submit_bio(&s, q, NULL, &ino_b, 1990, 1, 0);
	complete_current(&s, q);
	complete_current(&s, q);
	complete_current(&s, q);
	assert_int_equal(the_hold->n, 3);
	for (int i = 0; i < 3; i++)
		assert_int_equal(the_hold->order[i], want[i]);
	assert_int_equal(q->count, 0);
	blk_queue_destroy(q);
	blk_end_io_hook = NULL;
	free(s.heap);
}

/* A queue with its own end_io (the NFS server's disk) gets each completed
 * request, merged segments and all, and no page writeback ends: A goes to
 * the device at once, C back-merges into B (two inodes in one request). */
static int hook_calls, end_io_calls;
static uint64_t end_io_pages, end_io_last_sector, end_io_last_len;
static int end_io_last_nseg;
static void counting_hook(struct sim *s, struct blk_rq *rq) { (void)s, (void)rq; hook_calls++; }
static void queue_end_io(struct sim *s, struct blk_queue *q, struct blk_rq *rq)
{
	(void)s;
	assert_ptr_equal(q->end_io_ctx, &end_io_calls);
	end_io_calls++;
	for (int i = 0; i < rq->nseg; i++)
		end_io_pages += rq->seg[i].pages;
	end_io_last_sector = rq->sector;
	end_io_last_len = rq->nr_sectors;
	end_io_last_nseg = rq->nseg;
}

static void a_queue_end_io_replaces_page_writeback_completion(void **state)
{
	(void)state;
	struct sim s;
	bare_sim(&s);
	struct dev_params dp = hdd_params(0);
	hook_calls = end_io_calls = 0;
	end_io_pages = 0;
	blk_end_io_hook = counting_hook;
	struct blk_queue *q = blk_queue_create(&s, &dp, 128, "noop", &dev_hold, NULL);
	assert_non_null(q);
	q->end_io = queue_end_io;
	q->end_io_ctx = &end_io_calls;
	blk_submit_bio(&s, q, NULL, &ino_a, 2000, 1, 0);
	blk_submit_bio(&s, q, NULL, &ino_a, 3000, 2, 0);
	blk_submit_bio(&s, q, NULL, &ino_b, 3016, 3, 0);
	complete_current(&s, q);
	assert_int_equal(end_io_calls, 1);
	assert_int_equal(end_io_pages, 1);
	complete_current(&s, q);
	assert_int_equal(end_io_calls, 2);
	assert_int_equal(end_io_pages, 6);
	assert_int_equal(end_io_last_sector, 3000);
	assert_int_equal(end_io_last_len, 40);
	assert_int_equal(end_io_last_nseg, 2);
	assert_int_equal(hook_calls, 0);
	assert_int_equal(q->count, 0);
	blk_queue_destroy(q);
	blk_end_io_hook = NULL;
	free(s.heap);
}

static void noop_dispatches_in_arrival_order(void **state)
{
	(void)state;
	dispatch_order("noop", (uint64_t[]){ 2000, 2100, 1990 });
}

/* one-way sweep: nothing above 2008 but B, then the sweep restarts at the
 * oldest (C) */
static void deadline_sweeps_one_way_then_restarts_at_the_oldest(void **state)
{
	(void)state;
	dispatch_order("mq-deadline", (uint64_t[]){ 2000, 2100, 1990 });
}

/* from 2008: C is 18 sectors back (36 with the penalty), B 92 ahead: C first */
static void cfq_takes_a_short_backward_seek_at_twice_its_cost(void **state)
{
	(void)state;
	dispatch_order("cfq", (uint64_t[]){ 2000, 1990, 2100 });
}

/* C 200 sectors back (400 with the penalty) loses to B 92 ahead */
static void cfq_prefers_forward_when_the_back_seek_costs_more(void **state)
{
	(void)state;
	struct sim s;
	bare_sim(&s);
	struct dev_params dp = hdd_params(0);
	blk_end_io_hook = no_end_io;
	struct blk_queue *q = blk_queue_create(&s, &dp, 128, "cfq", &dev_hold, NULL);
	blk_submit_bio(&s, q, NULL, &ino_a, 2000, 1, 0);
	blk_submit_bio(&s, q, NULL, &ino_a, 2100, 1, 0);
	blk_submit_bio(&s, q, NULL, &ino_b, 1808, 1, 0);
	complete_current(&s, q);
	complete_current(&s, q);
	assert_int_equal(the_hold->order[1], 2100);
	assert_int_equal(the_hold->order[2], 1808);
	complete_current(&s, q);
	blk_queue_destroy(q);
	blk_end_io_hook = NULL;
	free(s.heap);
}

static void queued_bios_merge_at_back_and_front_up_to_max_sectors(void **state)
{
	(void)state;
	struct sim s;
	bare_sim(&s);
	struct dev_params dp = hdd_params(0);
	dp.max_sectors_kb = 16;         /* 32 sectors: four pages */
	blk_end_io_hook = no_end_io;
	struct blk_queue *q = blk_queue_create(&s, &dp, 128, "deadline", &dev_hold, NULL);
	blk_submit_bio(&s, q, NULL, &ino_a, 100000, 1, 0);   /* in service */
	blk_submit_bio(&s, q, NULL, &ino_a, 3000, 1, 0);
	blk_submit_bio(&s, q, NULL, &ino_a, 3008, 1, 0);     /* back merge */
	blk_submit_bio(&s, q, NULL, &ino_b, 2992, 1, 0);     /* front merge, another inode */
	assert_int_equal(q->nr_merges, 2);
	assert_int_equal(q->count, 2);
	blk_submit_bio(&s, q, NULL, &ino_a, 3016, 2, 0);     /* would be 40 sectors: new request */
	assert_int_equal(q->count, 3);
	assert_int_equal(q->nr_merges, 2);
	complete_current(&s, q);
	struct blk_rq *rq = the_hold->cur;
	assert_int_equal(rq->sector, 2992);
	assert_int_equal(rq->nr_sectors, 24);
	assert_int_equal(rq->nseg, 2);                        /* B's page, then A's two */
	assert_ptr_equal(rq->seg[0].inode, &ino_b);
	assert_int_equal(rq->seg[1].pages, 2);
	complete_current(&s, q);
	assert_int_equal(the_hold->cur->sector, 3016);
	complete_current(&s, q);
	assert_int_equal(q->count, 0);
	blk_queue_destroy(q);
	blk_end_io_hook = NULL;
	free(s.heap);
}

/* a plugged pass merges in the plug and reaches the device only at unplug */
static void a_plugged_pass_merges_and_waits_for_the_unplug(void **state)
{
	(void)state;
	struct sim s;
	bare_sim(&s);
	struct dev_params dp = hdd_params(0);
	blk_end_io_hook = no_end_io;
	struct blk_queue *q = blk_queue_create(&s, &dp, 128, "noop", &dev_hold, NULL);
	struct blk_plug plug;
	blk_start_plug(&plug);
	for (int i = 0; i < 8; i++)
		blk_submit_bio(&s, q, &plug, &ino_a, 4000 + 8 * (uint64_t)i, 1, 0);
	assert_null(the_hold->cur);
	assert_int_equal(q->count, 1);
	blk_finish_plug(&s, q, &plug);
	assert_non_null(the_hold->cur);
	assert_int_equal(the_hold->cur->nr_sectors, 64);
	complete_current(&s, q);
	blk_queue_destroy(q);
	blk_end_io_hook = NULL;
	free(s.heap);
}

static void congestion_marks_follow_the_3x_thresholds(void **state)
{
	(void)state;
	struct sim s;
	bare_sim(&s);
	struct dev_params dp = hdd_params(0);
	blk_end_io_hook = no_end_io;
	struct blk_queue *q = blk_queue_create(&s, &dp, 128, "noop", &dev_hold, NULL);
	q->has_congestion = 1;
	assert_int_equal(q->congestion_on, 113);
	assert_int_equal(q->congestion_off, 103);
	for (uint64_t i = 0; i < 113; i++)
		blk_submit_bio(&s, q, NULL, &ino_a, 10000 * (i + 1), 1, 0);
	assert_int_equal(q->congested, 1);
	for (int i = 0; i < 10; i++)
		complete_current(&s, q);
	assert_int_equal(q->count, 103);
	assert_int_equal(q->congested, 1);
	complete_current(&s, q);
	assert_int_equal(q->congested, 0);
	while (the_hold->cur)
		complete_current(&s, q);
	blk_queue_destroy(q);
	blk_end_io_hook = NULL;
	free(s.heap);
}

/* ---- allocation --------------------------------------------------------- */

static uint64_t map(const struct blk_alloc_type *t, void *a, struct inode *in, uint64_t off,
		    uint64_t want, uint64_t *n)
{
	uint64_t sector;
	*n = t->map(a, in, off, want, &sector);
	return sector;
}

#define C0 ALLOC_FIRST_SECTOR

static void ext4_interleaves_files_in_normalised_windows(void **state)
{
	(void)state;
	struct inode a = { .ino = 12 }, b = { .ino = 13 };
	void *al = alloc_ext4.create(1ULL << 30);
	uint64_t n;
	a.size = b.size = 200;                     /* 800 KiB: a 1 MiB window from offset 0 */
	assert_int_equal(map(&alloc_ext4, al, &a, 0, 200, &n), C0);
	assert_int_equal(n, 200);
	assert_int_equal(map(&alloc_ext4, al, &b, 0, 200, &n), C0 + 256 * 8);
	a.size = 5000;                             /* 20 MiB: 8 MiB windows, minus what A has */
	assert_int_equal(map(&alloc_ext4, al, &a, 200, 100, &n), C0 + 200 * 8);   /* rest of A's 1 MiB */
	assert_int_equal(n, 56);
	assert_int_equal(map(&alloc_ext4, al, &a, 256, 100, &n), C0 + 512 * 8);   /* [1M, 8M) after B's */
	assert_int_equal(n, 100);
	assert_int_equal(map(&alloc_ext4, al, &a, 356, 5000, &n), C0 + 612 * 8);
	assert_int_equal(n, 2048 - 356);
	b.size = 5000;
	assert_int_equal(map(&alloc_ext4, al, &b, 200, 56, &n), C0 + 456 * 8);
	assert_int_equal(map(&alloc_ext4, al, &b, 256, 10, &n), C0 + (512 + 1792) * 8);
	assert_int_equal(map(&alloc_ext4, al, &a, 2048, 10, &n), C0 + (512 + 2 * 1792) * 8);  /* next 8 MiB */
	assert_int_equal(n, 10);
	alloc_ext4.destroy(al);
	/* 2.4 MiB files: 2 MiB windows, so c's second window comes after d's */
	struct inode c = { .ino = 14, .size = 600 }, d = { .ino = 15, .size = 600 };
	al = alloc_ext4.create(1ULL << 30);
	assert_int_equal(map(&alloc_ext4, al, &c, 0, 10, &n), C0);
	assert_int_equal(n, 10);
	assert_int_equal(map(&alloc_ext4, al, &d, 0, 10, &n), C0 + 512 * 8);
	assert_int_equal(map(&alloc_ext4, al, &c, 512, 10, &n), C0 + 1024 * 8);
	alloc_ext4.destroy(al);
}

/* Reservations by hand: each time a page passes the reservation's end E,
 * the new end is E + 1 + p, p the largest power of two <= (E + 2) / 2,
 * clamped to 16..2^21 pages.  From 0: 17, 34, 67, 132, 261, 518, 1031,
 * 2056, 4105, 8202. */
static void xfs_extents_grow_with_the_file_through_eof_preallocation(void **state)
{
	(void)state;
	struct inode a = { .ino = 12 }, b = { .ino = 13 };
	void *al = alloc_xfs.create(1ULL << 30);
	uint64_t n;
	alloc_xfs.dirtied(al, &a, 1000);             /* reserve to 1031 */
	alloc_xfs.dirtied(al, &b, 10);               /* reserve to 17 (the 64 KiB minimum) */
	assert_int_equal(map(&alloc_xfs, al, &a, 0, 100, &n), C0);
	assert_int_equal(n, 100);
	assert_int_equal(map(&alloc_xfs, al, &b, 0, 10, &n), C0 + 1031 * 8);
	assert_int_equal(map(&alloc_xfs, al, &a, 100, 5000, &n), C0 + 100 * 8);  /* still contiguous */
	assert_int_equal(n, 931);
	alloc_xfs.dirtied(al, &a, 1031);             /* inside the reservation: no change */
	alloc_xfs.dirtied(al, &a, 3000);             /* past it: 2056, then 4105 */
	assert_int_equal(map(&alloc_xfs, al, &a, 1031, 100, &n), C0 + (1031 + 17) * 8);
	uint64_t s2 = map(&alloc_xfs, al, &a, 4104, 1, &n);
	assert_int_equal(s2, C0 + (1031 + 17 + 4104 - 1031) * 8);                /* one 3074-page extent */
	assert_int_equal(map(&alloc_xfs, al, &a, 1031, 1ULL << 20, &n), C0 + (1031 + 17) * 8);
	assert_int_equal(n, 3074);
	alloc_xfs.destroy(al);
}

/* The writer may account any number of pages in one call: the reservations
 * must be those of page-by-page writes however the 5000 pages arrive. */
static void xfs_reservations_do_not_depend_on_how_pages_arrive(void **state)
{
	(void)state;
	static const uint64_t step[] = { 1, 7, 300, 5000 };
	for (size_t k = 0; k < sizeof(step) / sizeof(step[0]); k++) {
		struct inode a = { .ino = 12 };
		void *al = alloc_xfs.create(1ULL << 30);
		uint64_t n;
		for (uint64_t size = 0; size < 5000;) {
			size = size + step[k] < 5000 ? size + step[k] : 5000;
			alloc_xfs.dirtied(al, &a, size);
		}
		assert_int_equal(map(&alloc_xfs, al, &a, 0, 1, &n), C0);           /* allocates the reservation */
		assert_int_equal(map(&alloc_xfs, al, &a, 0, 1ULL << 22, &n), C0);  /* and reports its length */
		assert_int_equal(n, 8202);
		alloc_xfs.destroy(al);
	}
}

static void btrfs_lands_interleaved_writeback_sequentially(void **state)
{
	(void)state;
	struct inode a = { .ino = 12 }, b = { .ino = 13 };
	void *al = alloc_btrfs.create(1ULL << 30);
	uint64_t n;
	assert_int_equal(map(&alloc_btrfs, al, &a, 0, 10, &n), C0);
	assert_int_equal(map(&alloc_btrfs, al, &b, 0, 10, &n), C0 + 80);
	assert_int_equal(map(&alloc_btrfs, al, &a, 10, 22, &n), C0 + 160);
	assert_int_equal(map(&alloc_btrfs, al, &b, 10, 5, &n), C0 + 160 + 22 * 8);
	alloc_btrfs.destroy(al);
}

/* ---- devices: service times by hand -------------------------------------- */

static ktime_t done_at[64];
static int ndone;
static void record_done(struct sim *s, void *ctx, struct blk_rq *rq)
{
	(void)ctx, (void)rq;
	if (ndone < 64)
		done_at[ndone] = s->now;
	ndone++;
}

static struct blk_rq *mkrq(uint64_t sector, uint64_t nr)
{
	struct blk_rq *rq = calloc(1, sizeof(*rq));
	rq->sector = sector;
	rq->nr_sectors = nr;
	return rq;
}

#define MS 1e6
static const double xfer512k = 512.0 / 1024 / 57 * 1e9;    /* ns of 512 KiB at 57 MiB/s */

static void hdd_write_through_pays_seek_and_rotation_off_the_head(void **state)
{
	(void)state;
	struct sim s;
	bare_sim(&s);
	struct dev_params dp = hdd_params(0);
	ndone = 0;
	void *d = dev_hdd.create(&s, &dp, record_done, NULL);
	struct blk_rq *r1 = mkrq(0, 1024), *r2 = mkrq(1024, 1024), *r3 = mkrq(1024 + 1024 + 244140625, 1024);
	dev_hdd.queue_rq(&s, d, r1);             /* head at 0: contiguous */
	run(&s);
	s.now = done_at[0];
	assert_true(fabs((double)done_at[0] - xfer512k) < 2);
	dev_hdd.queue_rq(&s, d, r2);
	run(&s);
	s.now = done_at[1];
	assert_true(fabs((double)(done_at[1] - done_at[0]) - xfer512k) < 2);
	/* a quarter of the disk away: 1 + 15 * sqrt(1/4) = 8.5 ms, plus u of 8.333 ms */
	struct sim t = { .rng = s.rng };
	double u = sim_rand(&t);
	assert_true(fabs(hdd_seek_ns(d, 2048, r3->sector) - 8.5 * MS) < 2);
	dev_hdd.queue_rq(&s, d, r3);
	run(&s);
	double want = 8.5 * MS + u * 60e9 / 7200 + xfer512k;
	assert_true(fabs((double)(done_at[2] - done_at[1]) - want) < 3);
	dev_hdd.destroy(d);
	free(r1), free(r2), free(r3), free(s.heap);
}

static void hdd_cache_completes_on_arrival_then_destages(void **state)
{
	(void)state;
	struct sim s;
	bare_sim(&s);
	struct dev_params dp = hdd_params(1);    /* 1 MiB: two requests */
	ndone = 0;
	void *d = dev_hdd.create(&s, &dp, record_done, NULL);
	struct blk_rq *r[3];
	for (int i = 0; i < 3; i++) {
		r[i] = mkrq((uint64_t)i * 1024, 1024);
		dev_hdd.queue_rq(&s, d, r[i]);
	}
	run(&s);
	double link = 512.0 / 1024 / 280 * 1e9;
	assert_int_equal(ndone, 3);
	assert_true(fabs((double)done_at[0] - link) < 2);
	assert_true(fabs((double)done_at[1] - 2 * link) < 2);
	/* the media starts on the first as soon as it is in; the third crosses
	 * the link once that destage has freed its 512 KiB */
	assert_true(fabs((double)done_at[2] - (link + xfer512k + link)) < 4);
	double busy;
	uint64_t repos;
	dev_hdd.busy(d, &busy, &repos);
	assert_true(fabs(busy - 3 * xfer512k / 1e9) < 1e-8);
	assert_int_equal(repos, 0);
	dev_hdd.destroy(d);
	for (int i = 0; i < 3; i++)
		free(r[i]);
	free(s.heap);
}

static void ssd_units_serve_in_parallel_after_a_fixed_latency(void **state)
{
	(void)state;
	struct sim s;
	bare_sim(&s);
	struct dev_params dp = { .bw_mbps = 200, .latency_us = 50, .parallel = 4, .queue_depth = 32 };
	ndone = 0;
	void *d = dev_ssd.create(&s, &dp, record_done, NULL);
	struct blk_rq *r[5];
	for (int i = 0; i < 5; i++) {
		r[i] = mkrq((uint64_t)i * 99991, 1024);
		dev_ssd.queue_rq(&s, d, r[i]);
	}
	run(&s);
	double one = 50e3 + 0.5 / 50 * 1e9;      /* 50 us + 512 KiB at a unit's 50 MiB/s */
	for (int i = 0; i < 4; i++)
		assert_true(fabs((double)done_at[i] - one) < 2);
	assert_true(fabs((double)done_at[4] - 2 * one) < 2);
	dev_ssd.destroy(d);
	for (int i = 0; i < 5; i++)
		free(r[i]);
	free(s.heap);
}

static void loop_requests_share_the_host_bandwidth(void **state)
{
	(void)state;
	struct sim s;
	bare_sim(&s);
	struct dev_params dp = { .bw_mbps = 100, .latency_us = 100, .queue_depth = 128 };
	ndone = 0;
	void *d = dev_loop.create(&s, &dp, record_done, NULL);
	struct blk_rq *a = mkrq(0, 1024), *b = mkrq(5000, 2048);
	dev_loop.queue_rq(&s, d, a);
	dev_loop.queue_rq(&s, d, b);
	run(&s);
	/* both at 50 MiB/s until a's 512 KiB are through (10 ms), then b alone:
	 * its last 512 KiB at 100 MiB/s (5 ms) */
	assert_true(fabs((double)done_at[0] - (10e6 + 100e3)) < 3);
	assert_true(fabs((double)done_at[1] - (15e6 + 100e3)) < 3);
	dev_loop.destroy(d);
	free(a), free(b), free(s.heap);
}

/* ---- a long sequential stream runs at the device's bandwidth ------------- */

struct stream { const struct blk_dev_type *t; void *d; struct blk_rq *rq[32]; uint64_t next, left; };

static void stream_done(struct sim *s, void *ctx, struct blk_rq *rq)
{
	struct stream *st = ctx;
	done_at[0] = s->now;
	if (!st->left)
		return;
	st->left--;
	rq->sector = st->next;
	st->next += rq->nr_sectors;
	st->t->queue_rq(s, st->d, rq);
}

static void stream_bw(const struct blk_dev_type *t, struct dev_params dp)
{
	struct sim s;
	bare_sim(&s);
	struct stream st = { .t = t, .left = 20000 - 31 };
	st.d = t->create(&s, &dp, stream_done, &st);
	for (int i = 0; i < 31; i++) {
		st.rq[i] = mkrq(st.next, 1024);
		st.next += 1024;
		t->queue_rq(&s, st.d, st.rq[i]);
	}
	run(&s);
	double mib = 20000 * 0.5, secs = (double)done_at[0] / 1e9;
	double bw = mib / secs;
	assert_true(fabs(bw / dp.bw_mbps - 1) < 0.01);
	t->destroy(st.d);
	for (int i = 0; i < 31; i++)
		free(st.rq[i]);
	free(s.heap);
}

static void a_long_sequential_stream_runs_at_the_device_bandwidth(void **state)
{
	(void)state;
	stream_bw(&dev_hdd, hdd_params(32));
	stream_bw(&dev_hdd, hdd_params(0));
	stream_bw(&dev_ssd, (struct dev_params){ .bw_mbps = 250, .latency_us = 60, .parallel = 4, .queue_depth = 31 });
	stream_bw(&dev_loop, (struct dev_params){ .bw_mbps = 1000, .latency_us = 100, .queue_depth = 128 });
}

/* blk-throttle in front of a fast loop device: 20 requests of 1 MiB queued
 * at t = 0 behind a 10 MiB/s cap with 100 ms slices.  The budget is the rate
 * times the time since the slice began rounded up to whole slices: 1 MiB at
 * once, then a request that needs 100 ms more budget waits that plus the
 * rest of the slice, and the next slice boundary releases two (3 MiB
 * allowed by 300 ms), every 200 ms.  The device behind completes each burst
 * within ~2 ms; the long-run rate is the cap. */
static ktime_t thr_done[32];
static int thr_n;
static void thr_end_io(struct sim *s, struct blk_rq *rq)
{
	(void)rq;
	if (thr_n < 32)
		thr_done[thr_n] = s->now;
	thr_n++;
}

static void a_throttle_releases_a_slice_of_budget_at_a_time(void **state)
{
	(void)state;
	struct sim s;
	bare_sim(&s);
	s.p.hz = 250;
	struct dev_params dp = { .bw_mbps = 1000, .queue_depth = 128, .max_sectors_kb = 1024,
				 .throttle_mbps = 10, .throttle_slice_ms = 100 };
	blk_end_io_hook = thr_end_io;
	thr_n = 0;
	struct blk_queue *q = blk_queue_create(&s, &dp, 128, "noop", &dev_loop, NULL);
	assert_non_null(q);
	for (uint64_t i = 0; i < 20; i++)
		blk_submit_bio(&s, q, NULL, &ino_a, 10000000 * i, 256, 0);
	run(&s);
	assert_int_equal(thr_n, 20);
	assert_true(thr_done[0] < 2 * MS);
	/* the rest in pairs, one pair per 200 ms (+ the timer's tick) */
	for (int i = 1; i + 1 < 20; i += 2) {
		assert_true(thr_done[i + 1] - thr_done[i] < 2 * MS);
		assert_true(thr_done[i] > (ktime_t)(200 * MS) * ((i + 1) / 2));
		assert_true(thr_done[i] < (ktime_t)(210 * MS) * ((i + 1) / 2) + 5 * MS);
	}
	/* 19 MiB after the first at 10 MiB/s, within the slices' rounding */
	double rate = 19.0 / ((double)(thr_done[19] - thr_done[0]) / 1e9);
	assert_true(rate > 9.0 && rate < 10.6);
	blk_queue_destroy(q);
	blk_end_io_hook = NULL;
	free(s.heap);
}

/* ---- the file system's completion unit (blk_ioend.c) ---------------------- */

static uint64_t ended_calls, ended_pages[8];
static void record_end(struct sim *s, struct inode *inode, uint64_t pages)
{
	(void)s, (void)inode;
	if (ended_calls < 8)
		ended_pages[ended_calls] = pages;
	ended_calls++;
}

static int ioend_teardown(void **state)
{
	(void)state;
	blk_ioend_end_hook = NULL;
	return 0;
}

static void ioend_start(void)
{
	ended_calls = 0;
	memset(ended_pages, 0, sizeof(ended_pages));
	blk_ioend_end_hook = record_end;
}

/* 12 contiguous bios of 256 pages in one writepages (3072 pages): ext4 makes
 * io_ends of 2048 and 1024 pages; each ends only when its last page is done */
static void ext4_io_ends_are_8_mib_and_end_when_all_their_pages_completed(void **state)
{
	(void)state;
	struct blk_ioends io = { 0 };
	ioend_start();
	for (int i = 0; i < 12; i++)
		blk_ioend_add(&io, 2048, 0, 1000 + (uint64_t)i * 256 * PAGE_SECTORS, 256);
	blk_ioend_submit_done(NULL, &ino_a, &io);
	blk_ioend_completed(NULL, &ino_a, &io, 2000);
	assert_int_equal(ended_calls, 0);
	blk_ioend_completed(NULL, &ino_a, &io, 48);
	assert_int_equal(ended_calls, 1);
	assert_int_equal(ended_pages[0], 2048);
	blk_ioend_completed(NULL, &ino_a, &io, 1000);
	assert_int_equal(ended_calls, 1);
	blk_ioend_completed(NULL, &ino_a, &io, 24);
	assert_int_equal(ended_calls, 2);
	assert_int_equal(ended_pages[1], 1024);
	assert_int_equal(io.ended, 3072);
	assert_int_equal(io.n, 0);
	blk_ioends_free(&io);
	blk_ioend_end_hook = NULL;
}

/* xfs: 100 pages at sector 0 and 100 at 800 are one run (800 = 100 pages of
 * 8 sectors); 50 at 5000 start a new ioend.  The file's 50 completed pages
 * are credited to the oldest ioend first, so nothing ends until 200 more. */
static void an_xfs_ioend_is_one_contiguous_run_credited_in_submission_order(void **state)
{
	(void)state;
	struct blk_ioends io = { 0 };
	ioend_start();
	blk_ioend_add(&io, 4096, 1, 0, 100);
	blk_ioend_add(&io, 4096, 1, 800, 100);
	blk_ioend_add(&io, 4096, 1, 5000, 50);
	blk_ioend_submit_done(NULL, &ino_a, &io);
	blk_ioend_completed(NULL, &ino_a, &io, 50);
	assert_int_equal(ended_calls, 0);
	blk_ioend_completed(NULL, &ino_a, &io, 150);
	assert_int_equal(ended_calls, 1);
	assert_int_equal(ended_pages[0], 200);
	blk_ioend_completed(NULL, &ino_a, &io, 50);
	assert_int_equal(ended_calls, 2);
	assert_int_equal(ended_pages[1], 50);
	/* a limit closes a run too: 4096 + 10 contiguous pages are two ioends */
	struct blk_ioends big = { 0 };
	blk_ioend_add(&big, 4096, 1, 0, 4096);
	blk_ioend_add(&big, 4096, 1, 4096 * PAGE_SECTORS, 10);
	blk_ioend_submit_done(NULL, &ino_a, &big);
	assert_int_equal(big.n, 2);
	blk_ioends_free(&io);
	blk_ioends_free(&big);
	blk_ioend_end_hook = NULL;
}

/* pages completed while writepages still builds the ioend wait for its close */
static void an_open_ioend_never_ends_before_writepages_is_done(void **state)
{
	(void)state;
	struct blk_ioends io = { 0 };
	ioend_start();
	blk_ioend_add(&io, 2048, 0, 0, 100);
	blk_ioend_completed(NULL, &ino_a, &io, 100);
	assert_int_equal(ended_calls, 0);
	blk_ioend_submit_done(NULL, &ino_a, &io);
	assert_int_equal(ended_calls, 1);
	assert_int_equal(ended_pages[0], 100);
	/* many ioends in flight at once: the ring grows and keeps their order */
	for (int i = 0; i < 40; i++) {
		blk_ioend_add(&io, 2048, 0, 0, 10 + (uint64_t)i);
		blk_ioend_submit_done(NULL, &ino_a, &io);
	}
	assert_int_equal(io.n, 40);
	blk_ioend_completed(NULL, &ino_a, &io, 10 + 11 + 12);
	assert_int_equal(ended_calls, 4);
	assert_int_equal(ended_pages[3], 12);
	/* more completed than submitted (pages that bypassed the ioends): an
	 * error on the run, and the count stays at what was submitted */
	struct sim s;
	bare_sim(&s);
	struct inode ino = { .ino = 7 };
	struct blk_ioends bad = { 0 };
	blk_ioend_add(&bad, 2048, 0, 0, 10);
	blk_ioend_submit_done(&s, &ino, &bad);
	blk_ioend_completed(&s, &ino, &bad, 15);
	assert_non_null(strstr(s.error, "inode 7 completed 15 pages, 5 more than it submitted"));
	assert_int_equal(bad.completed, 10);
	blk_ioends_free(&bad);
	blk_ioends_free(&io);
	blk_ioend_end_hook = NULL;
}

static void ioends_apply_to_current_on_ext4_and_xfs_only(void **state)
{
	(void)state;
	struct sim s;
	bare_sim(&s);
	s.model = throttle_lookup("current");
	assert_non_null(s.model);
	snprintf(s.p.dev.ioend, sizeof(s.p.dev.ioend), "auto");
	snprintf(s.c.fs, sizeof(s.c.fs), "ext4");
	assert_int_equal(blk_ioend_pages(&s), 2048);
	snprintf(s.c.fs, sizeof(s.c.fs), "xfs");
	assert_int_equal(blk_ioend_pages(&s), 4096);
	snprintf(s.c.fs, sizeof(s.c.fs), "btrfs");
	assert_int_equal(blk_ioend_pages(&s), 0);
	snprintf(s.c.fs, sizeof(s.c.fs), "ext4");
	snprintf(s.p.dev.ioend, sizeof(s.p.dev.ioend), "request");
	assert_int_equal(blk_ioend_pages(&s), 0);
	snprintf(s.p.dev.ioend, sizeof(s.p.dev.ioend), "auto");
	s.model = throttle_lookup("3.2-ioless");
	assert_non_null(s.model);
	assert_int_equal(blk_ioend_pages(&s), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(noop_dispatches_in_arrival_order),
		cmocka_unit_test(a_queue_end_io_replaces_page_writeback_completion),
		cmocka_unit_test(deadline_sweeps_one_way_then_restarts_at_the_oldest),
		cmocka_unit_test(cfq_takes_a_short_backward_seek_at_twice_its_cost),
		cmocka_unit_test(cfq_prefers_forward_when_the_back_seek_costs_more),
		cmocka_unit_test(queued_bios_merge_at_back_and_front_up_to_max_sectors),
		cmocka_unit_test(a_plugged_pass_merges_and_waits_for_the_unplug),
		cmocka_unit_test(congestion_marks_follow_the_3x_thresholds),
		cmocka_unit_test(ext4_interleaves_files_in_normalised_windows),
		cmocka_unit_test(xfs_extents_grow_with_the_file_through_eof_preallocation),
		cmocka_unit_test(xfs_reservations_do_not_depend_on_how_pages_arrive),
		cmocka_unit_test(btrfs_lands_interleaved_writeback_sequentially),
		cmocka_unit_test(hdd_write_through_pays_seek_and_rotation_off_the_head),
		cmocka_unit_test(hdd_cache_completes_on_arrival_then_destages),
		cmocka_unit_test(ssd_units_serve_in_parallel_after_a_fixed_latency),
		cmocka_unit_test(loop_requests_share_the_host_bandwidth),
		cmocka_unit_test(a_long_sequential_stream_runs_at_the_device_bandwidth),
		cmocka_unit_test(a_throttle_releases_a_slice_of_budget_at_a_time),
		cmocka_unit_test_teardown(ext4_io_ends_are_8_mib_and_end_when_all_their_pages_completed, ioend_teardown),
		cmocka_unit_test_teardown(an_xfs_ioend_is_one_contiguous_run_credited_in_submission_order, ioend_teardown),
		cmocka_unit_test_teardown(an_open_ioend_never_ends_before_writepages_is_done, ioend_teardown),
		cmocka_unit_test(ioends_apply_to_current_on_ext4_and_xfs_only),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
