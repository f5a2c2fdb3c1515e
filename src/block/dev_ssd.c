/* A flash disk (SATA SSD or NVMe; docs/storage-model.md, Flash disk):
 * `parallel` internal units, each writing at bw / parallel; a request takes
 * the unit that frees first and completes latency + bytes * parallel / bw
 * after it starts there.  With at least `parallel` requests queued the device
 * writes at bw; one request alone sees the latency and one unit's rate.
 * Position does not matter.  Simplified: no garbage collection, no SLC cache,
 * no write amplification. */
#include <stdlib.h>
#include "blk.h"

#define SSD_MAX_UNITS 64

struct ssd {
	struct sim *s;
	blk_done_fn done;
	void *ctx;
	double unit_ns_per_sector, latency_ns;
	uint64_t qd, in_flight;
	int units;
	ktime_t free_at[SSD_MAX_UNITS];
	double busy_ns;
};

static void *ssd_create(struct sim *s, const struct dev_params *dp, blk_done_fn done, void *ctx)
{
	struct ssd *d = calloc(1, sizeof(*d));
	if (!d)
		return NULL;
	d->s = s;
	d->done = done;
	d->ctx = ctx;
	d->units = (int)(dp->parallel < 1 ? 1 : dp->parallel > SSD_MAX_UNITS ? SSD_MAX_UNITS : dp->parallel);
	d->unit_ns_per_sector = SECTOR_BYTES / (dp->bw_mbps * 1048576.0 / d->units) * 1e9;
	d->latency_ns = dp->latency_us * 1e3;
	d->qd = dp->queue_depth;
	return d;
}

static void ssd_destroy(void *dev)
{
	free(dev);
}

static int ssd_can_queue(const void *dev)
{
	const struct ssd *d = dev;
	return d->in_flight < d->qd;
}

static void ssd_complete(struct sim *s, void *arg)
{
	struct blk_rq *rq = arg;
	struct ssd *d = rq->dev_priv;
	d->in_flight--;
	d->done(s, d->ctx, rq);
}

static void ssd_queue_rq(struct sim *s, void *dev, struct blk_rq *rq)
{
	struct ssd *d = dev;
	int u = 0;
	for (int i = 1; i < d->units; i++)
		if (d->free_at[i] < d->free_at[u])
			u = i;
	ktime_t start = d->free_at[u] > s->now ? d->free_at[u] : s->now;
	double ns = d->latency_ns + (double)rq->nr_sectors * d->unit_ns_per_sector;
	d->free_at[u] = start + (ktime_t)ns;
	d->busy_ns += ns;
	d->in_flight++;
	rq->dev_priv = d;
	sim_call_at(s, d->free_at[u], ssd_complete, rq);
}

static void ssd_busy(const void *dev, double *busy_s, uint64_t *repositions)
{
	const struct ssd *d = dev;
	*busy_s = d->busy_ns / 1e9 / d->units;
	*repositions = 0;
}

const struct blk_dev_type dev_ssd = {
	.name = "ssd", .create = ssd_create, .destroy = ssd_destroy, .can_queue = ssd_can_queue,
	.queue_rq = ssd_queue_rq, .busy = ssd_busy,
};
