/* A local disk's bdi with the block layer: ->writepages allocates blocks
 * (the file system's model), builds bios of physically contiguous pages and
 * submits them under one plug; the queue gets the era's elevator and the
 * preset device (docs/storage-model.md). */
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "dev_presets.h"
#include "../analysis/stats.h"
#include "../sim/page_writeback.h"
#include "../throttle/throttle.h"
#include "../result/metrics.h"

/* The metrics this file computes: its rows of the one metric table.  The
 * build collects every file's WBLAB_METRIC rows into that table
 * (src/result/metrics.h says what the fields mean). */
/* the simulated block layer */
WBLAB_METRIC(DEV_BIOS, "dev_bios", "", METRIC_NONE, ERAS_NONE, "block", "bios submitted to the device")
WBLAB_METRIC(DEV_MERGES, "dev_merges", "", METRIC_NONE, ERAS_NONE, "block", "bios merged into requests")
WBLAB_METRIC(DEV_REQUEST_KB, "dev_request_kb", "KB", METRIC_HIGHER, ERAS_NONE, "block",
	     "mean dispatched request size")
WBLAB_METRIC(DEV_BUSY_PCT, "dev_busy_pct", "%", METRIC_NONE, ERAS_NONE, "block", "device busy time")
WBLAB_METRIC(DEV_REPOSITIONS_PER_S, "dev_repositions_per_s", "1/s", METRIC_LOWER, ERAS_NONE, "block",
	     "head repositionings (seeks) per second")

const struct elevator_type *elevator_find(const char *name)
{
	if (!strcmp(name, "noop") || !strcmp(name, "none"))
		return &elv_noop;
	if (!strcmp(name, "deadline") || !strcmp(name, "mq-deadline"))
		return &elv_deadline;
	if (!strcmp(name, "cfq"))
		return &elv_cfq;
	return NULL;
}

const struct blk_alloc_type *alloc_find(const char *fs)
{
	if (!strcmp(fs, "xfs"))
		return &alloc_xfs;
	if (!strcmp(fs, "btrfs"))
		return &alloc_btrfs;
	return &alloc_ext4;          /* ext4; ext2 and ext3 simplified to it */
}

struct blk_queue *blk_bdi_create(struct sim *s, struct bdi *bdi, char *err, size_t errlen)
{
	const struct dev_params *dp = &s->p.dev;
	const struct dev_preset *pr = dev_preset_find(dp->model);
	const struct blk_dev_type *dev = !pr ? NULL : pr->kind == DEV_HDD ? &dev_hdd :
					 pr->kind == DEV_SSD ? &dev_ssd : pr->kind == DEV_LOOP ? &dev_loop : NULL;
	if (!dev) {
		snprintf(err, errlen, "dev.model=%s has no block-layer device", dp->model);
		return NULL;
	}
	int mq = s->model->era == ERA_6X;
	const char *elv = dp->elevator;
	if (!strcmp(elv, "auto"))
		elv = mq ? "mq-deadline" : "cfq";
	uint64_t nr = dp->nr_requests;
	if (!nr) {
		/* 3.x: BLKDEV_MAX_RQ; blk-mq: the tags with none, else 2 x min(tags, 128) */
		uint64_t qd = dp->queue_depth;
		nr = !mq ? 128 : elevator_find(elv) == &elv_noop ? qd : 2 * (qd < 128 ? qd : 128);
		if (nr < 2)
			nr = 2;
	}
	struct blk_queue *q = blk_queue_create(s, dp, nr, elv, dev, alloc_find(s->c.fs));
	if (!q) {
		snprintf(err, errlen, "block queue: bad elevator '%s', nr_requests %llu, or out of memory",
			 elv, (unsigned long long)nr);
		return NULL;
	}
	q->has_congestion = !mq;
	q->bdi = bdi;
	q->ioend_pages = blk_ioend_pages(s);
	q->ioend_contiguous = !strcmp(s->c.fs, "xfs");
	return q;
}

static void blk_writepages(struct sim *s, struct sthread *th, struct inode *inode,
			   struct writeback_control *wbc)
{
	struct blk_queue *q = inode->bdi->dev;
	int dirtier = th != &inode->bdi->flusher;
	uint64_t max_pages = q->max_sectors / PAGE_SECTORS ? q->max_sectors / PAGE_SECTORS : 1;
	struct blk_plug plug;
	int64_t giveback = 0;
	if (q->alloc->writepages_bump && wbc->range_cyclic && inode->nr_dirty)
		wbc->nr_to_write = q->alloc->writepages_bump(s, wbc->nr_to_write, inode->nr_dirty, &giveback);
	blk_start_plug(&plug);
	/* write_cache_pages / mpage_da_map_and_submit: the dirty range from
	 * writeback_index is mapped (allocating), then sent as bios of
	 * physically contiguous pages, each submitted before the next is built */
	while (wbc->nr_to_write > 0 && inode->nr_dirty > 0) {
		uint64_t want = inode->nr_dirty;
		if ((int64_t)want > wbc->nr_to_write)
			want = (uint64_t)wbc->nr_to_write;
		uint64_t sector;
		uint64_t k = q->alloc->map(q->alloc_data, inode, inode->writeback_index, want, &sector);
		if (k > max_pages)
			k = max_pages;
		cpu_run(s, th, (ktime_t)((double)k * s->p.writeback_page_ns));
		if (k > inode->nr_dirty)
			k = inode->nr_dirty;
		set_page_writeback(s, th->cpu, inode, k);
		wbc->nr_to_write -= (int64_t)k;
		inode->bdi->io_count[dirtier]++;
		inode->bdi->io_pages[dirtier] += k;
		if (q->ioend_pages)
			blk_ioend_add(&alloc_inode_get(q->alloc_data, inode)->ioends, q->ioend_pages,
				      q->ioend_contiguous, sector, k);
		blk_submit_bio(s, q, &plug, inode, sector, k, dirtier);
	}
	if (q->ioend_pages)
		blk_ioend_submit_done(s, inode, &alloc_inode_get(q->alloc_data, inode)->ioends);
	blk_finish_plug(s, q, &plug);
	wbc->nr_to_write -= giveback;
}

static void blk_page_dirtied(struct sim *s, struct inode *inode, uint64_t n)
{
	(void)s, (void)n;
	struct blk_queue *q = inode->bdi->dev;
	if (q->alloc->dirtied)
		q->alloc->dirtied(q->alloc_data, inode, inode->size);
}

static void blk_report(struct sim *s, struct bdi *bdi, struct stats_acc *st, const struct result_dir *rd)
{
	(void)rd;
	struct blk_queue *q = bdi->dev;
	double busy = 0, secs = (double)s->now / 1e9;
	uint64_t repos = 0;
	q->dev->busy(q->dev_data, &busy, &repos);
	stats_set(st, METRIC_KEY(DEV_BIOS), (double)q->nr_bios);
	stats_set(st, METRIC_KEY(DEV_MERGES), (double)q->nr_merges);
	stats_set(st, METRIC_KEY(DEV_REQUEST_KB), q->nr_dispatched ?
		  (double)q->dispatched_sectors * SECTOR_BYTES / 1024 / (double)q->nr_dispatched : 0);
	/* busy time is booked when an operation starts: the last may end after the run */
	stats_set(st, METRIC_KEY(DEV_BUSY_PCT), secs > 0 ? (busy < secs ? 100 * busy / secs : 100) : 0);
	stats_set(st, METRIC_KEY(DEV_REPOSITIONS_PER_S), secs > 0 ? (double)repos / secs : 0);
	/* the run's own device bandwidth, as a real run's diskstats give it */
	stats_set(st, METRIC_KEY(DEV_WRITE_BW), secs > 0 ? (double)q->completed_pages / 256 / secs : 0);
}

static void blk_bdi_destroy(void *dev)
{
	blk_queue_destroy(dev);
}

const struct bdi_ops blk_bdi_ops = {
	.writepages = blk_writepages,
	.page_dirtied = blk_page_dirtied,
	.report = blk_report,
	.destroy = blk_bdi_destroy,
};
