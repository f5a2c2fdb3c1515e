#include <stdlib.h>
#include "blkdev.h"
#include "../sim/page_writeback.h"

struct blkdev *blkdev_create(struct sim *s, struct bdi *bdi)
{
	struct blkdev *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->dp = s->p.disk;
	uint64_t n = d->dp.nr_requests;
	/* blk_queue_congestion_threshold */
	d->congestion_on = n - n / 8 + 1;
	d->congestion_off = n - n / 8 - n / 16 - 1;
	d->max_request_pages = d->dp.max_request_kb / 4 ? d->dp.max_request_kb / 4 : 1;
	d->bdi = bdi;
	return d;
}

void blkdev_destroy(struct blkdev *d)
{
	if (!d)
		return;
	for (struct blk_request *r = d->head, *n; r; r = n) {
		n = r->next;
		free(r);
	}
	for (struct blk_request *r = d->free_list, *n; r; r = n) {
		n = r->next;
		free(r);
	}
	free(d);
}

static ktime_t service_ns(struct sim *s, struct blkdev *d, const struct blk_request *r)
{
	double ns = (double)r->pages * 4096.0 / (d->dp.bw_mbps * 1048576.0) * 1e9;
	if (d->last_inode && d->last_inode != r->inode)
		ns += d->dp.seek_ms * 1e6;
	if (d->dp.jitter_pct > 0)
		ns *= 1.0 + d->dp.jitter_pct / 100.0 * (2.0 * sim_rand(s) - 1.0);
	return (ktime_t)ns;
}

static void start_next(struct sim *s, struct blkdev *d);

/* the disk interrupt: end writeback for the request's pages */
static void request_done(struct sim *s, void *arg)
{
	struct blkdev *d = arg;
	struct blk_request *r = d->head;
	d->head = r->next;
	if (!d->head)
		d->tail = NULL;
	d->busy = 0;
	end_page_writeback(s, r->inode, r->pages, 0);
	d->completed_pages += r->pages;
	r->next = d->free_list;
	d->free_list = r;
	d->queued--;
	if (d->queued < d->congestion_off)
		d->congested = 0;
	if (d->queued < d->dp.nr_requests)
		wake_up_all(s, &d->wait);
	start_next(s, d);
}

static void start_next(struct sim *s, struct blkdev *d)
{
	if (d->busy || !d->head)
		return;
	d->busy = 1;
	ktime_t ns = service_ns(s, d, d->head);
	d->last_inode = d->head->inode;
	sim_call_at(s, s->now + ns, request_done, d);
}

/* get_request_wait + __make_request: sleep while the queue is full */
static void submit_request(struct sim *s, struct blkdev *d, struct inode *inode, uint64_t pages,
			   int from_dirtier)
{
	while (d->queued >= d->dp.nr_requests)
		sim_wait(s, &d->wait, 0);
	struct blk_request *r = d->free_list;
	if (r)
		d->free_list = r->next;
	else if (!(r = malloc(sizeof(*r))))
		abort();
	r->inode = inode;
	r->pages = pages;
	r->from_dirtier = from_dirtier;
	r->next = NULL;
	if (d->tail)
		d->tail->next = r;
	else
		d->head = r;
	d->tail = r;
	d->queued++;
	if (d->queued >= d->congestion_on)
		d->congested = 1;
	start_next(s, d);
}

void blkdev_writepages(struct sim *s, struct sthread *th, struct inode *inode,
		       struct writeback_control *wbc)
{
	struct blkdev *d = inode->bdi->dev;
	int dirtier = th != &inode->bdi->flusher;
	/* write_cache_pages: pages go to writeback one bio at a time; the bio is
	 * submitted (and may wait for a request) before the next one is built */
	while (wbc->nr_to_write > 0 && inode->nr_dirty > 0) {
		uint64_t k = d->max_request_pages;
		if (k > inode->nr_dirty)
			k = inode->nr_dirty;
		if ((int64_t)k > wbc->nr_to_write)
			k = (uint64_t)wbc->nr_to_write;
		cpu_run(s, th, (ktime_t)((double)k * s->p.writeback_page_ns));
		if (k > inode->nr_dirty)
			k = inode->nr_dirty;        /* nothing else takes dirty pages, but be safe */
		set_page_writeback(s, th->cpu, inode, k);
		wbc->nr_to_write -= (int64_t)k;
		inode->bdi->io_count[dirtier]++;
		inode->bdi->io_pages[dirtier] += k;
		submit_request(s, d, inode, k, dirtier);
	}
}

static void blkdev_destroy_dev(void *dev)
{
	blkdev_destroy(dev);
}

const struct bdi_ops blkdev_bdi_ops = {
	.writepages = blkdev_writepages,
	.destroy = blkdev_destroy_dev,
};
