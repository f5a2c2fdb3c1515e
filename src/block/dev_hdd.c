/* A rotational disk with NCQ and a write-back cache (docs/storage-model.md,
 * Rotational disk).
 *   positioning(from, to) = 0 when `to` continues where the head is, else
 *       track + (full_stroke - track) * sqrt(|to - from| / capacity)
 *       + rotational latency, u * one revolution with u uniform in [0, 1)
 *       from the run's seeded generator (mean: half a turn);
 *   media time of n bytes = n / bw.
 * With a cache of cache_mb, a write received over the link (n / link_mbps)
 * completes as soon as it fits in the cache; the cache coalesces adjacent
 * extents and destages them nearest-first in the sweep direction (C-LOOK from
 * the head), up to 1 MiB per media operation.  Without a cache the drive
 * serves its queued requests (up to queue_depth) nearest-first and completes
 * each after its media write.
 * Simplified: one zone (constant media rate), no track skew, no read-ahead,
 * no cache flush commands (the file systems' barriers are not modelled). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "blk.h"

#define DESTAGE_MAX_SECTORS 2048

struct extent { uint64_t start, len; };

struct hdd {
	struct sim *s;
	blk_done_fn done;
	void *ctx;
	double cap_sectors, ns_per_sector, link_ns_per_sector, t2t_ns, stroke_ns, rev_ns;
	uint64_t qd, cache_sectors;
	struct rq_list pend;            /* received, not yet in the cache / on the media */
	uint64_t in_flight;
	int link_busy, media_busy;
	uint64_t head;                  /* sector after the last media write */
	struct extent *ext;             /* cache contents, sorted by start, disjoint */
	size_t next, ecap;
	uint64_t cached;                /* sectors held, including the one being destaged */
	uint64_t destage_len;
	struct blk_rq *media_rq;        /* write-through: the request on the media */
	double busy_ns;
	uint64_t repositions;
};

double hdd_seek_ns(const void *dev, uint64_t from, uint64_t to)
{
	const struct hdd *h = dev;
	if (from == to)
		return 0;
	double d = (double)(to > from ? to - from : from - to);
	double frac = d / h->cap_sectors;
	if (frac > 1)
		frac = 1;
	return h->t2t_ns + (h->stroke_ns - h->t2t_ns) * sqrt(frac);
}

static void *hdd_create(struct sim *s, const struct dev_params *dp, blk_done_fn done, void *ctx)
{
	struct hdd *h = calloc(1, sizeof(*h));
	if (!h)
		return NULL;
	h->s = s;
	h->done = done;
	h->ctx = ctx;
	h->cap_sectors = dp->capacity_gb * 1e9 / SECTOR_BYTES;
	h->ns_per_sector = SECTOR_BYTES / (dp->bw_mbps * 1048576.0) * 1e9;
	h->link_ns_per_sector = SECTOR_BYTES / (dp->link_mbps * 1048576.0) * 1e9;
	h->t2t_ns = dp->track_ms * 1e6;
	h->stroke_ns = dp->full_stroke_ms * 1e6;
	h->rev_ns = 60e9 / dp->rpm;
	h->qd = dp->queue_depth;
	h->cache_sectors = (uint64_t)(dp->cache_mb * 1048576.0 / SECTOR_BYTES);
	return h;
}

static void hdd_destroy(void *dev)
{
	struct hdd *h = dev;
	free(h->ext);
	free(h);
}

static int hdd_can_queue(const void *dev)
{
	const struct hdd *h = dev;
	return h->in_flight < h->qd;
}

static void cache_insert(struct hdd *h, uint64_t start, uint64_t len)
{
	size_t lo = 0, hi = h->next;
	while (lo < hi) {          /* first extent starting after `start` */
		size_t mid = (lo + hi) / 2;
		if (h->ext[mid].start <= start)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t i = lo;
	int merge_prev = i > 0 && h->ext[i - 1].start + h->ext[i - 1].len == start;
	int merge_next = i < h->next && start + len == h->ext[i].start;
	if (merge_prev && merge_next) {
		h->ext[i - 1].len += len + h->ext[i].len;
		memmove(&h->ext[i], &h->ext[i + 1], (h->next - i - 1) * sizeof(h->ext[0]));
		h->next--;
	} else if (merge_prev) {
		h->ext[i - 1].len += len;
	} else if (merge_next) {
		h->ext[i].start = start;
		h->ext[i].len += len;
	} else {
		if (h->next == h->ecap) {
			size_t cap = h->ecap ? 2 * h->ecap : 64;
			struct extent *e = realloc(h->ext, cap * sizeof(*e));
			if (!e)
				abort();
			h->ext = e;
			h->ecap = cap;
		}
		memmove(&h->ext[i + 1], &h->ext[i], (h->next - i) * sizeof(h->ext[0]));
		h->ext[i] = (struct extent){ start, len };
		h->next++;
	}
	h->cached += len;
}

static void media_kick(struct hdd *h);
static void link_kick(struct hdd *h);

static void destage_done(struct sim *s, void *arg)
{
	(void)s;
	struct hdd *h = arg;
	h->media_busy = 0;
	h->cached -= h->destage_len;
	h->destage_len = 0;
	link_kick(h);
	media_kick(h);
}

static void through_done(struct sim *s, void *arg)
{
	struct hdd *h = arg;
	struct blk_rq *rq = h->media_rq;
	h->media_busy = 0;
	h->media_rq = NULL;
	h->in_flight--;
	h->done(s, h->ctx, rq);
	media_kick(h);
}

static double media_op(struct hdd *h, uint64_t start, uint64_t len)
{
	double pos = hdd_seek_ns(h, h->head, start);
	if (h->head != start) {
		pos += sim_rand(h->s) * h->rev_ns;
		h->repositions++;
	}
	double ns = pos + (double)len * h->ns_per_sector;
	h->head = start + len;
	h->busy_ns += ns;
	return ns;
}

static void media_kick(struct hdd *h)
{
	if (h->media_busy)
		return;
	if (!h->cache_sectors) {
		/* write-through NCQ: the nearest queued request */
		struct blk_rq *best = NULL;
		double best_ns = 0;
		for (struct blk_rq *rq = h->pend.head; rq; rq = rq->next) {
			double ns = hdd_seek_ns(h, h->head, rq->sector);
			if (!best || ns < best_ns) {
				best = rq;
				best_ns = ns;
			}
		}
		if (!best)
			return;
		rq_list_del(&h->pend, best);
		h->media_busy = 1;
		h->media_rq = best;
		sim_call_at(h->s, h->s->now + (ktime_t)media_op(h, best->sector, best->nr_sectors),
			    through_done, h);
		return;
	}
	if (!h->next)
		return;
	/* C-LOOK: the first extent at or after the head, else the lowest */
	size_t lo = 0, hi = h->next;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (h->ext[mid].start + h->ext[mid].len <= h->head)
			lo = mid + 1;
		else
			hi = mid;
	}
	size_t i = lo < h->next ? lo : 0;
	struct extent *e = &h->ext[i];
	uint64_t start = e->start;
	uint64_t len = e->len < DESTAGE_MAX_SECTORS ? e->len : DESTAGE_MAX_SECTORS;
	e->start += len;
	e->len -= len;
	if (!e->len) {
		memmove(&h->ext[i], &h->ext[i + 1], (h->next - i - 1) * sizeof(h->ext[0]));
		h->next--;
	}
	h->media_busy = 1;
	h->destage_len = len;
	sim_call_at(h->s, h->s->now + (ktime_t)media_op(h, start, len), destage_done, h);
}

static void link_done(struct sim *s, void *arg)
{
	struct hdd *h = arg;
	struct blk_rq *rq = h->pend.head;
	rq_list_del(&h->pend, rq);
	h->link_busy = 0;
	cache_insert(h, rq->sector, rq->nr_sectors);
	h->in_flight--;
	h->done(s, h->ctx, rq);
	media_kick(h);
	link_kick(h);
}

/* the oldest received request crosses the link once it fits in the cache
 * (an empty cache takes any request) */
static void link_kick(struct hdd *h)
{
	struct blk_rq *rq = h->pend.head;
	if (h->link_busy || !rq)
		return;
	if (h->cached && h->cached + rq->nr_sectors > h->cache_sectors)
		return;
	h->link_busy = 1;
	sim_call_at(h->s, h->s->now + (ktime_t)((double)rq->nr_sectors * h->link_ns_per_sector),
		    link_done, h);
}

static void hdd_queue_rq(struct sim *s, void *dev, struct blk_rq *rq)
{
	(void)s;
	struct hdd *h = dev;
	h->in_flight++;
	rq_list_append(&h->pend, rq);
	if (h->cache_sectors)
		link_kick(h);
	else
		media_kick(h);
}

static void hdd_busy(const void *dev, double *busy_s, uint64_t *repositions)
{
	const struct hdd *h = dev;
	*busy_s = h->busy_ns / 1e9;
	*repositions = h->repositions;
}

const struct blk_dev_type dev_hdd = {
	.name = "hdd", .create = hdd_create, .destroy = hdd_destroy, .can_queue = hdd_can_queue,
	.queue_rq = hdd_queue_rq, .busy = hdd_busy,
};
