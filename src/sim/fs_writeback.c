#include <string.h>
#include "fs_writeback.h"
#include "page_writeback.h"
#include "trace_emit.h"
#include "vmstat.h"
#include "../throttle/throttle.h"
#include "../trace/trace_format.h"

#define INODE(n) list_entry((n), struct inode, i_wb_list)

static uint64_t kupdate_interval(const struct sim *s)
{
	return s->p.dirty_writeback_centisecs * 10 * s->p.hz / 1000;
}

static uint64_t expire_interval(const struct sim *s)
{
	return s->p.dirty_expire_centisecs * 10 * s->p.hz / 1000;
}

int wb_has_dirty_io(const struct bdi *bdi)
{
	return !list_empty(&bdi->b_dirty) || !list_empty(&bdi->b_io) || !list_empty(&bdi->b_more_io);
}

int writeback_in_progress(const struct bdi *bdi)
{
	return bdi->wb_running;
}

static void flusher_wake(struct sim *s, struct bdi *bdi)
{
	/* wake_up_process() only matters to a flusher that sleeps between rounds */
	if (bdi->flusher_sleeping && !bdi->flusher_kicked) {
		bdi->flusher_kicked = 1;
		wake_up_thread(s, &bdi->flusher);
	}
}

static void wakeup_timer_fn(struct sim *s, void *arg)
{
	flusher_wake(s, arg);
}

void __mark_inode_dirty(struct sim *s, struct inode *inode, unsigned flags)
{
	struct bdi *bdi = inode->bdi;
	if ((inode->state & flags) == flags)
		return;
	int was_dirty = inode->state & I_DIRTY;
	inode->state |= flags;
	/* under writeback, or already on a list: only the flags change */
	if ((inode->state & I_SYNC) || was_dirty)
		return;
	int wakeup = !wb_has_dirty_io(bdi);
	inode->dirtied_when = jiffies(s);
	list_move(&inode->i_wb_list, &bdi->b_dirty);
	if (wakeup)
		sim_timer_arm(s, &bdi->wakeup_timer,
			      jiffies_to_ktime(s, jiffies(s) + kupdate_interval(s)));
}

/* redirty_tail: back to b_dirty's head, keeping b_dirty ordered by age */
static void redirty_tail(struct sim *s, struct inode *inode)
{
	struct bdi *bdi = inode->bdi;
	if (!list_empty(&bdi->b_dirty)) {
		struct inode *head = INODE(bdi->b_dirty.next);
		if (inode->dirtied_when < head->dirtied_when)
			inode->dirtied_when = jiffies(s);
	}
	list_move(&inode->i_wb_list, &bdi->b_dirty);
}

static void requeue_io(struct inode *inode)
{
	list_move(&inode->i_wb_list, &inode->bdi->b_more_io);
}

/* queue_io: b_more_io first, then expired b_dirty inodes, oldest at the tail */
static void queue_io(struct sim *s, struct bdi *bdi, const int64_t *older_than)
{
	(void)s;
	struct list_node tmp;
	list_init(&tmp);
	list_splice_init(&bdi->b_more_io, &bdi->b_io);
	while (!list_empty(&bdi->b_dirty)) {
		struct inode *inode = INODE(list_last(&bdi->b_dirty));
		if (older_than && (int64_t)inode->dirtied_when > *older_than)
			break;
		list_del_init(&inode->i_wb_list);
		list_add(&inode->i_wb_list, &tmp);
	}
	/* tmp holds them newest-first at the head; put them behind b_more_io's */
	list_splice_init(&tmp, &bdi->b_io);
}

static int64_t writeback_chunk_size(struct sim *s, struct bdi *bdi, const struct wb_writeback_work *w)
{
	if (w->sync_all)
		return INT64_MAX;
	int64_t pages = (int64_t)(bdi->avg_write_bandwidth / 2);
	int64_t scope = (int64_t)(s->global_dirty_limit / 8);
	if (scope < pages)
		pages = scope;
	if (w->nr_pages < pages)
		pages = w->nr_pages;
	pages = (pages + MIN_WRITEBACK_PAGES) / MIN_WRITEBACK_PAGES * MIN_WRITEBACK_PAGES;
	return pages;
}

static void trace_single_inode(struct sim *s, struct sthread *th, struct inode *inode,
			       int64_t to_write, int64_t wrote)
{
	struct wb_event e;
	if (!trace_fmt_get(s->model->era, EV_WRITEBACK_SINGLE_INODE))
		return;
	ev_begin(s, th, &e, EV_WRITEBACK_SINGLE_INODE, inode->bdi);
	uint64_t now = jiffies(s);
	int64_t age = (int64_t)(now - inode->dirtied_when);
	wb_event_set(&e, F_INO, (int64_t)inode->ino);
	wb_event_set(&e, F_STATE, inode->state);
	wb_event_set(&e, F_DIRTIED_WHEN, (int64_t)inode->dirtied_when);
	/* 3.1-rc8 printed age in ms, later kernels in seconds */
	int rc8 = s->model->era == ERA_3_1_RC8 || s->model->era == ERA_3_1_RC8_IOLESS;
	wb_event_set(&e, F_AGE, rc8 ? age * 1000 / (int64_t)s->p.hz : age / (int64_t)s->p.hz);
	wb_event_set(&e, F_INDEX, (int64_t)inode->writeback_index);
	wb_event_set(&e, F_TO_WRITE, to_write);
	wb_event_set(&e, F_WROTE, wrote);
	ev_emit(s, &e);
}

/* writeback_single_inode for WB_SYNC_NONE (docs/throttling-model.md, writeback_single_inode requeue
 * rules) */
static void writeback_single_inode(struct sim *s, struct sthread *th, struct inode *inode,
				   struct writeback_control *wbc)
{
	if (inode->state & I_SYNC) {
		requeue_io(inode);
		return;
	}
	int64_t to_write = wbc->nr_to_write;
	inode->state |= I_SYNC;
	inode->state &= ~I_DIRTY_PAGES;
	if (s->model->writepages_begin)
		s->model->writepages_begin(s, inode->bdi);
	inode->bdi->ops->writepages(s, th, inode, wbc);
	if (s->model->writepages_end)
		s->model->writepages_end(s, inode->bdi);
	unsigned dirty = inode->state & (I_DIRTY_SYNC | I_DIRTY_DATASYNC);
	inode->state &= ~dirty;
	if (dirty && inode->bdi->ops->write_inode)
		inode->bdi->ops->write_inode(s, th, inode, wbc);
	inode->state &= ~I_SYNC;
	if (inode->nr_dirty) {
		inode->state |= I_DIRTY_PAGES;
		if (wbc->nr_to_write <= 0)
			requeue_io(inode);
		else
			redirty_tail(s, inode);
	} else if (inode->state & I_DIRTY) {
		redirty_tail(s, inode);
	} else {
		list_del_init(&inode->i_wb_list);
	}
	wake_up_all(s, &inode->sync_wq);
	trace_single_inode(s, th, inode, to_write, to_write - wbc->nr_to_write);
}

/* writeback_sb_inodes / __writeback_inodes_wb with one superblock (docs/throttling-model.md,
 * writeback_sb_inodes and the chunk size) */
static int64_t write_inodes(struct sim *s, struct sthread *th, struct bdi *bdi,
			    struct wb_writeback_work *w)
{
	uint64_t start = jiffies(s);
	int64_t wrote = 0;
	while (!list_empty(&bdi->b_io)) {
		struct inode *inode = INODE(list_last(&bdi->b_io));
		/* every visit costs CPU: a flusher that keeps finding an inode
		 * under another writer's I_SYNC spins in time, as in the kernel */
		cpu_run(s, th, (ktime_t)s->p.writeback_inode_ns);
		if (list_empty(&bdi->b_io) || INODE(list_last(&bdi->b_io)) != inode)
			continue;
		int64_t chunk = writeback_chunk_size(s, bdi, w);
		struct writeback_control wbc = { .nr_to_write = chunk, .chunk = chunk, .for_kupdate = w->for_kupdate,
			.for_background = w->for_background, .range_cyclic = 1, .sync_all = w->sync_all };
		writeback_single_inode(s, th, inode, &wbc);
		int64_t written = chunk - wbc.nr_to_write;
		w->nr_pages -= written;
		wrote += written;
		if (!(inode->state & I_DIRTY))
			wrote++;
		if (wbc.pages_skipped)
			redirty_tail(s, inode);
		if (wrote && (jiffies(s) > start + s->p.hz / 10 || w->nr_pages <= 0))
			break;
	}
	return wrote;
}

static void trace_work(struct sim *s, struct sthread *th, struct bdi *bdi, enum wb_event_type t,
		       const struct wb_writeback_work *w)
{
	struct wb_event e;
	if (!trace_fmt_get(s->model->era, t))
		return;
	ev_begin(s, th, &e, t, bdi);
	wb_event_set(&e, F_NR_PAGES, w->nr_pages == INT64_MAX ? INT64_MAX : w->nr_pages);
	wb_event_set(&e, F_SYNC_MODE, w->sync_all);
	wb_event_set(&e, F_KUPDATE, w->for_kupdate);
	wb_event_set(&e, F_RANGE_CYCLIC, 1);
	wb_event_set(&e, F_BACKGROUND, w->for_background);
	/* a copy, not snprintf: this runs at every writeback round (~600
	 * instructions a call, 10 % of an NFS run) */
	size_t n = w->reason ? strnlen(w->reason, sizeof(e.reason) - 1) : 0;
	memcpy(e.reason, w->reason ? w->reason : "", n);
	e.reason[n] = 0;
	ev_emit(s, &e);
}

/* wb_update_bandwidth: the flusher's estimate after a round; a control with
 * only the bdi set (thresh 0) leaves the limit and the ratelimit alone */
static void wb_update_bandwidth(struct sim *s, struct bdi *bdi, uint64_t start_time)
{
	struct dirty_throttle_control gdtc = { .wb = bdi };
	__bdi_update_bandwidth(s, &gdtc, start_time);
}

/* wb_writeback (docs/throttling-model.md, wb_writeback)
 *
 * A work runs rounds: refill b_io from b_dirty/b_more_io when it is empty
 * (queue_io: inodes dirtied before the cutoff), write a batch, and go on
 * while a round wrote something.  The cutoff is what keeps a work from
 * livelocking on inodes dirtied after it began.  3.1 and 3.2 fix it at the
 * work's start for everything but kupdate (expired = older than
 * dirty_expire); from 3.3 a background work takes every inode dirty "now" at
 * each refill, since background and kupdate works yield to any other work
 * anyway: the `current` model's rule (wb_writeback_refill).  5.x+ also goes
 * round again after a round that wrote nothing while this call has not
 * refilled b_io yet: leftovers of an earlier work are no reason to wait on
 * b_more_io. */
static int64_t wb_writeback(struct sim *s, struct bdi *bdi, struct wb_writeback_work *w)
{
	struct sthread *th = &bdi->flusher;
	uint64_t wb_start = jiffies(s);
	int64_t older_than = (int64_t)wb_start;
	int64_t nr_pages = w->nr_pages;
	int refill = s->model->wb_writeback_refill;
	int queued = 0;   /* any refill in this call (it stays set, as in the kernel) */
	for (;;) {
		if (w->nr_pages <= 0)
			break;
		if (w->for_background && !s->model->over_bground_thresh(s, bdi))
			break;
		if (w->for_kupdate) {
			/* the run starts long after boot: in its first expire
			 * interval no inode it dirtied has expired yet */
			older_than = (int64_t)jiffies(s) - (int64_t)expire_interval(s);
		} else if (w->for_background && refill) {
			older_than = (int64_t)jiffies(s);
		}
		trace_work(s, th, bdi, EV_WRITEBACK_START, w);
		if (list_empty(&bdi->b_io)) {
			queue_io(s, bdi, &older_than);
			queued = 1;
		}
		int64_t progress = write_inodes(s, th, bdi, w);
		trace_work(s, th, bdi, EV_WRITEBACK_WRITTEN, w);
		if (!s->model->bandwidth_from_writepages)
			wb_update_bandwidth(s, bdi, wb_start);
		if (progress || (refill && !queued))
			continue;
		if (list_empty(&bdi->b_more_io))
			break;
		trace_work(s, th, bdi, EV_WRITEBACK_WAIT, w);
		struct inode *inode = INODE(list_last(&bdi->b_more_io));
		if (inode->state & I_SYNC) {
			while (inode->state & I_SYNC)
				sim_wait(s, &inode->sync_wq, 0);
		} else {
			/* MODEL: nothing to wait for and nothing written; back off a
			 * jiffy instead of spinning at one instant */
			schedule_timeout(s, 1);
		}
	}
	return nr_pages - w->nr_pages;
}

static int64_t wb_check_old_data_flush(struct sim *s, struct bdi *bdi)
{
	uint64_t interval = kupdate_interval(s), now = jiffies(s);
	if (!interval || now < bdi->last_old_flush + interval)
		return 0;
	bdi->last_old_flush = now;
	/* get_nr_dirty_pages: 3.x adds the unstable NFS pages, 5.8+ has none */
	uint64_t nr = global_page_state(s, NR_FILE_DIRTY) +
		      (s->model->wb_writeback_refill ? 0 : global_page_state(s, NR_UNSTABLE_NFS));
	for (int i = 0; i < s->ninodes; i++)
		nr += (s->inodes[i].state & I_DIRTY) ? 1 : 0;
	if (!nr)
		return 0;
	struct wb_writeback_work w = { .nr_pages = (int64_t)nr, .for_kupdate = 1, .reason = "periodic" };
	return wb_writeback(s, bdi, &w);
}

static int64_t wb_check_background_flush(struct sim *s, struct bdi *bdi)
{
	if (!s->model->over_bground_thresh(s, bdi))
		return 0;
	struct wb_writeback_work w = { .nr_pages = INT64_MAX, .for_background = 1,
				       .reason = "background" };
	return wb_writeback(s, bdi, &w);
}

/* bdi_writeback_thread */
static void flusher_main(void *arg)
{
	struct bdi *bdi = arg;
	struct sim *s = bdi->flusher.sim;
	for (;;) {
		sim_timer_cancel(&bdi->wakeup_timer);
		bdi->wb_running = 1;
		wb_check_old_data_flush(s, bdi);
		wb_check_background_flush(s, bdi);
		bdi->wb_running = 0;
		bdi->flusher_kicked = 0;
		bdi->flusher_sleeping = 1;
		struct waitq idle = { 0 };    /* woken only through flusher_wake */
		uint64_t interval = kupdate_interval(s);
		if (wb_has_dirty_io(bdi) && interval)
			sim_wait(s, &idle, interval);
		else
			sim_wait(s, &idle, 0);
		bdi->flusher_sleeping = 0;
	}
}

void bdi_flusher_start(struct sim *s, struct bdi *bdi, int pid)
{
	char comm[32];
	if (s->model->flusher_comm)
		snprintf(comm, sizeof(comm), "%.15s", s->model->flusher_comm);
	else
		snprintf(comm, sizeof(comm), "flush-%.9s", bdi->name);
	bdi->wakeup_timer.fn = wakeup_timer_fn;
	bdi->wakeup_timer.arg = bdi;
	bdi->last_old_flush = jiffies(s);
	sthread_start(s, &bdi->flusher, comm, pid, s->flusher_cpu, flusher_main, bdi);
}

void bdi_start_background_writeback(struct sim *s, struct sthread *th, struct bdi *bdi)
{
	struct wb_event e;
	ev_begin(s, th, &e, EV_WRITEBACK_WAKE_BACKGROUND, bdi);
	ev_emit(s, &e);
	bdi->background_kicks++;
	flusher_wake(s, bdi);
}

int64_t writeback_inodes_wb(struct sim *s, struct sthread *th, struct bdi *bdi, int64_t nr_pages)
{
	struct wb_writeback_work w = { .nr_pages = nr_pages, .reason = "balance_dirty_pages" };
	if (list_empty(&bdi->b_io))
		queue_io(s, bdi, NULL);
	write_inodes(s, th, bdi, &w);
	return nr_pages - w.nr_pages;
}
