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

/* The end of a burst of n pages from burst_start: the one formula for every
 * page count, so a burst cut short ends where a shorter burst would have. */
static ktime_t burst_end(const struct task *t, uint64_t n)
{
	return t->burst_start + (ktime_t)((double)n * t->burst_per_page);
}

/*
 * May this writer plan against the heap's events alone, past other writers'
 * unseen ends (engine.c, "Unseen bursts")?  Under 3.1 not near the end of a
 * task-proportion period: a half-period boundary decays every task's share
 * at the page that crosses it, so there the pages must be counted in the
 * order a per-page writer's would be.  All pages in flight, up to `n` of
 * this burst's, and what every other writer can add until it ends (one more
 * burst each, at most batch_max_us long, and the pages its CPU time allows
 * meanwhile) must stay inside the current half period; otherwise the writer
 * plans against every event, as writer_lookahead=0 does, and no increment
 * can cross a boundary out of turn.
 */
static int may_look_ahead(struct sim *s, ktime_t start, double per_page, uint64_t n)
{
	/* (a writer that waits for its CPU gains nothing: its burst would be
	 * cut again at most other writers' ends, which only adds events) */
	if (!s->p.writer_lookahead || start != s->now)
		return 0;
	if (!s->model->task_dirty_proportion)
		return 1;
	uint64_t half = 1ULL << (s->vm_dirties.shift - 1);
	double pp_min = s->p.cpu_page_ns;      /* no writer copies a page faster */
	uint64_t most = (uint64_t)(s->p.batch_max_us * 1000.0 / pp_min) + 1;
	uint64_t during = (uint64_t)((double)n * per_page / pp_min) + 1;
	uint64_t others = (uint64_t)(s->ntasks - 1) * (most + during + 1);
	return (s->vm_dirties.events & (half - 1)) + s->burst_pages + n + others < half;
}

/*
 * May a burst planned with lookahead run unseen?  Only if its end will read
 * nothing another writer's end writes and write nothing another thread reads
 * before the next event from the heap: it stops short of the throttle's
 * entry point (the entry reads the global counters), its inode is already
 * dirty (marking a clean one arms the flusher's timer and orders the b_dirty
 * list), no host-fault draw (the draws share one random stream) and no
 * random writer (its fresh pages depend on the inode's dirty count).  NFS
 * writers never get here.
 */
static int burst_may_be_unseen(struct sim *s, const struct task *t, uint64_t n, uint64_t n_check)
{
	return n < n_check && !t->rand_file_pages && (t->inode->state & I_DIRTY_PAGES) &&
	       !(s->p.host_fault_ns > 0 && s->p.host_fault_pct > 0);
}

/* Would accounting `fresh` pages at this burst's end read what others
 * write: enter the throttle, dirty a clean inode, or end a proportion
 * period?  (A burst that began unseen may end otherwise: a barrier or a
 * dirty_exceeded set while its last page was in flight.) */
static int end_must_read(struct sim *s, struct task *t, uint64_t fresh)
{
	if (fresh >= s->model->pages_before_check(s, t) || (t->inode->state & I_DIRTY_PAGES) == 0)
		return 1;
	if (s->model->task_dirty_proportion) {
		uint64_t half = 1ULL << (s->vm_dirties.shift - 1);
		if ((s->vm_dirties.events & (half - 1)) + fresh >= half)
			return 1;
	}
	return 0;
}

/* An event going into the heap at `before` while writers' bursts span it:
 * each keeps the pages a writer planning with that event in view would have
 * taken (the quiet rule of dd_main), at least one; a burst that was to end
 * in the throttle then ends short of it, as it would have. */
static void writers_cut(struct sim *s, ktime_t before)
{
	for (int i = 0; i < s->ntasks; i++) {
		struct task *t = &s->tasks[i];
		if (!t->burst_in_flight || &t->th == s->current || burst_end(t, t->burst_n) < before)
			continue;
		uint64_t k = before > t->burst_start ?
			(uint64_t)((double)(before - t->burst_start - 1) / t->burst_per_page) : 0;
		if (k < 1)
			k = 1;
		if (k >= t->burst_n)
			continue;
		ktime_t old_end = burst_end(t, t->burst_n), end = burst_end(t, k);
		/* nothing queues behind a burst spanning an unseen end on its CPU
		 * (a busy CPU makes a barrier), so the CPU frees when it ends */
		if (s->cpu_busy_until[t->th.cpu] == old_end)
			s->cpu_busy_until[t->th.cpu] = end;
		else   /* cannot happen; if it did, the CPU's time would be wrong */
			snprintf(s->error, sizeof(s->error), "burst of %s cut with its CPU taken", t->th.comm);
		s->burst_pages -= t->burst_n - k;
		t->burst_n = k;
		sim_burst_move(s, &t->th, end);
	}
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
		/* an unseen end waits for no other thread's CPU without a barrier,
		 * which puts a burst on that CPU where a per-page writer's is */
		if (s->unseen_dispatch && s->cpu_busy_until[t->th.cpu] > s->now)
			sim_unseen_barrier(s);
		/* the CPU first: the ratelimit counted is the one of the CPU the
		 * pages are copied on, where a moved writer now runs */
		ktime_t start = cpu_free_at(s, &t->th);
		uint64_t n_check = s->model->pages_before_check(s, t), n = n_check;
		int ahead = !t->inode->bdi->ops->write_begin &&
			may_look_ahead(s, start, per_page, n < burst ? n : burst);
		ktime_t next = ahead ? sim_next_event_time(s) : sim_next_event_time_all(s);
		uint64_t quiet = next > start ? (uint64_t)((double)(next - start - 1) / per_page) : 0;
		if (n > quiet)
			n = quiet ? quiet : 1;
		if (n > burst)
			n = burst;
		/* the first page into a clean inode dirties it (__mark_inode_dirty:
		 * dirtied_when, the b_dirty list, the flusher's timer), at that
		 * page, not at the end of a burst however long */
		if (!(t->inode->state & I_DIRTY_PAGES))
			n = 1;
		t->burst_start = start;
		t->burst_per_page = per_page;
		t->burst_n = n;
		if (t->inode->bdi->ops->write_begin) {
			/* NFS: the requests the pages make are shared; no lookahead */
			cpu_run_from(s, &t->th, start, burst_end(t, n) - start);
		} else {
			int unseen = ahead && burst_may_be_unseen(s, t, n, n_check);
			s->burst_pages += n;
			s->cpu_busy_until[t->th.cpu] = burst_end(t, n);
			t->burst_in_flight = 1;
			sim_sleep_burst(s, burst_end(t, n), unseen);
			t->burst_in_flight = 0;
			n = t->burst_n;                 /* a cut may have shortened it */
			s->burst_pages -= n;
		}
		/* a random write into an already dirty page dirties nothing new:
		 * no accounting, and it does not count towards the ratelimit */
		uint64_t fresh = t->rand_file_pages ?
			rand_fresh_pages(n, t->inode->nr_dirty, t->rand_file_pages, &t->rand_carry) : n;
		if (s->unseen_dispatch && fresh && end_must_read(s, t, fresh))
			sim_unseen_barrier(s);
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
	s->unseen_cut = writers_cut;
	sthread_start(s, &t->th, comm, 3000 + t->idx, t->th.cpu, dd_main, t);
}
