#include "writer.h"
#include "page_writeback.h"
#include "../throttle/throttle.h"

/* generic_perform_write loop of `dd if=/dev/zero of=FILE bs=BS` */
static void dd_main(void *arg)
{
	struct task *t = arg;
	struct sim *s = t->th.sim;
	double per_page = s->p.cpu_page_ns + s->p.syscall_ns / (double)t->bs_pages;
	uint64_t burst = (uint64_t)(s->p.batch_max_us * 1000.0 / per_page);
	if (burst < 1)
		burst = 1;
	for (;;) {
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
		account_page_dirtied(s, t, n);
		t->pages_written += n;
		s->model->ratelimited(s, t, n);
	}
}

void writer_start(struct sim *s, struct task *t)
{
	char comm[16];
	snprintf(comm, sizeof(comm), "dd");
	sthread_start(s, &t->th, comm, 3000 + t->idx, t->th.cpu, dd_main, t);
}
