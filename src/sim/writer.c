#include "writer.h"
#include "page_writeback.h"
#include "rand_pages.h"
#include "../throttle/throttle.h"

/* The page a write() copies into is a newly allocated page-cache page.  In a
 * VM with free page reporting (virtio-balloon), free guest frames in blocks
 * of 2^page_reporting_order pages are handed back to the host, and the first
 * touch of such a frame traps to the host, which faults in and zeroes a page:
 * on this project's Firecracker VM a first touch costs ~19 us per page, a
 * re-touch of a still-backed frame ~2 us (docs/current-model.md).  The
 * allocator hands a writer frames block by block, so the cost comes in runs:
 * the first host_backed_mb (memory freed just before the run, not yet taken
 * back) are backed, then each block of host_fault_block_kb is unbacked with
 * probability host_fault_pct (seeded; no draw at all when host_fault_ns is 0). */
static double frame_fault_ns(struct sim *s, struct task *t)
{
	if (s->p.host_fault_ns <= 0 || s->p.host_fault_pct <= 0) {
		t->frame_block_left = UINT64_MAX;
		return 0;
	}
	if (!s->frames_backed_set) {
		s->frames_backed_left = (uint64_t)(s->p.host_backed_mb * 256.0);
		s->frames_backed_set = 1;
	}
	if (!t->frame_block_left) {
		uint64_t pages = (uint64_t)(s->p.host_fault_block_kb / 4);
		t->frame_block_left = pages ? pages : 1;
		/* the frames freed just before the run go first, block by block */
		if (s->frames_backed_left >= t->frame_block_left) {
			s->frames_backed_left -= t->frame_block_left;
			t->frame_block_unbacked = 0;
		} else {
			s->frames_backed_left = 0;
			t->frame_block_unbacked = sim_rand(s) * 100.0 < s->p.host_fault_pct;
		}
	}
	return t->frame_block_unbacked ? s->p.host_fault_ns : 0;
}

/* generic_perform_write loop of `dd if=/dev/zero of=FILE bs=BS`, or with
 * writer.pattern=rand of `fio --rw=randwrite --bs=BS --ioengine=psync` on a
 * preallocated file of writer.file_mb: the same CPU per call and page, only
 * the pages a write lands on may be dirty already (rand_pages.h) */
static void dd_main(void *arg)
{
	struct task *t = arg;
	struct sim *s = t->th.sim;
	double base_page = s->p.cpu_page_ns + s->p.syscall_ns / (double)t->bs_pages;
	for (;;) {
		double per_page = base_page + frame_fault_ns(s, t);
		uint64_t burst = (uint64_t)(s->p.batch_max_us * 1000.0 / per_page);
		if (burst < 1)
			burst = 1;
		if (burst > t->frame_block_left)
			burst = t->frame_block_left;
		/* Dirty as many pages as page-by-page write()s would before anyone
		 * could tell the difference: no further than the throttle's entry
		 * point, and no later than the next event of another thread (the
		 * flusher's scan, an RPC reply, a wakeup), which then sees exactly
		 * the pages a per-page writer would have dirtied by then. */
		if (t->inode->bdi->ops->write_begin)
			t->inode->bdi->ops->write_begin(s, &t->th, t->inode);
		uint64_t n = s->model->pages_before_check(s, t);
		ktime_t start = cpu_free_at(s, &t->th), next = sim_next_event_time(s);
		uint64_t quiet = next > start ? (uint64_t)((double)(next - start - 1) / per_page) : 0;
		if (n > quiet)
			n = quiet ? quiet : 1;
		if (n > burst)
			n = burst;
		cpu_run_from(s, &t->th, start, (ktime_t)((double)n * per_page));
		/* a random write into an already dirty page dirties nothing new:
		 * no accounting, and it does not count towards the ratelimit */
		uint64_t fresh = t->rand_file_pages ?
			rand_fresh_pages(n, t->inode->nr_dirty, t->rand_file_pages, &t->rand_carry) : n;
		if (fresh)
			account_page_dirtied(s, t, fresh);
		t->pages_written += n;
		if (t->frame_block_left != UINT64_MAX)
			t->frame_block_left -= n;
		if (fresh)
			s->model->ratelimited(s, t, fresh);
	}
}

void writer_start(struct sim *s, struct task *t)
{
	char comm[16];
	t->rand_file_pages = writer_rand_file_pages(&s->p);
	snprintf(comm, sizeof(comm), t->rand_file_pages ? "fio" : "dd");
	sthread_start(s, &t->th, comm, 3000 + t->idx, t->th.cpu, dd_main, t);
}
