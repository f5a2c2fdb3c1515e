/* The request queue: get_request with nr_requests slots and the 3.x
 * congestion marks, bio merging (plug list, then the elevator's queue, by
 * sector adjacency up to max_sectors), plugging of one writepages pass, and
 * the dispatch of requests to the device as it has room (blk-core.c,
 * elevator.c of 3.x; blk-mq's plug and tags in 6.x, docs/storage-model.md). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "alloc.h"
#include "../sim/page_writeback.h"

void (*blk_end_io_hook)(struct sim *s, struct blk_rq *rq);

static unsigned hash_of(uint64_t sector)
{
	return (unsigned)((sector * 0x9E3779B97F4A7C15ULL) >> 58) % BLK_HASH;
}

static void hash_add(struct blk_queue *q, struct blk_rq *rq)
{
	unsigned e = hash_of(rq->sector + rq->nr_sectors), st = hash_of(rq->sector);
	rq->hnext = q->hash_end[e];
	q->hash_end[e] = rq;
	rq->snext = q->hash_start[st];
	q->hash_start[st] = rq;
	rq->hashed = 1;
}

static void hash_del(struct blk_queue *q, struct blk_rq *rq)
{
	if (!rq->hashed)
		return;
	struct blk_rq **pp = &q->hash_end[hash_of(rq->sector + rq->nr_sectors)];
	while (*pp != rq)
		pp = &(*pp)->hnext;
	*pp = rq->hnext;
	pp = &q->hash_start[hash_of(rq->sector)];
	while (*pp != rq)
		pp = &(*pp)->snext;
	*pp = rq->snext;
	rq->hashed = 0;
}

static struct blk_rq *find_ending_at(struct blk_queue *q, uint64_t sector)
{
	for (struct blk_rq *rq = q->hash_end[hash_of(sector)]; rq; rq = rq->hnext)
		if (rq->sector + rq->nr_sectors == sector)
			return rq;
	return NULL;
}

static struct blk_rq *find_starting_at(struct blk_queue *q, uint64_t sector)
{
	for (struct blk_rq *rq = q->hash_start[hash_of(sector)]; rq; rq = rq->snext)
		if (rq->sector == sector)
			return rq;
	return NULL;
}

/* the segments of b appended to a (back) or prepended (front); 0 if too many inodes */
static int segs_merge(struct blk_rq *a, const struct blk_seg *bs, int bn, int front)
{
	struct blk_seg out[2 * BLK_SEGS];
	int n = 0;
	const struct blk_seg *first = front ? bs : a->seg, *second = front ? a->seg : bs;
	int n1 = front ? bn : a->nseg, n2 = front ? a->nseg : bn;
	for (int i = 0; i < n1; i++)
		out[n++] = first[i];
	for (int i = 0; i < n2; i++) {
		if (n && out[n - 1].inode == second[i].inode)
			out[n - 1].pages += second[i].pages;
		else
			out[n++] = second[i];
	}
	if (n > BLK_SEGS)
		return 0;
	memcpy(a->seg, out, (size_t)n * sizeof(out[0]));
	a->nseg = n;
	return 1;
}

static int try_merge(struct blk_queue *q, struct blk_rq *rq, uint64_t sector, uint64_t nr,
		     const struct blk_seg *segs, int nseg, int *front)
{
	if (rq->nr_sectors + nr > q->max_sectors)
		return 0;
	if (rq->sector + rq->nr_sectors == sector) {
		if (!segs_merge(rq, segs, nseg, 0))
			return 0;
		*front = 0;
	} else if (sector + nr == rq->sector) {
		if (!segs_merge(rq, segs, nseg, 1))
			return 0;
		rq->sector = sector;
		*front = 1;
	} else {
		return 0;
	}
	rq->nr_sectors += nr;
	return 1;
}

static void throtl_timer_fn(struct sim *s, void *arg);

struct blk_queue *blk_queue_create(struct sim *s, const struct dev_params *dp, uint64_t nr_requests,
				   const char *elevator, const struct blk_dev_type *dev,
				   const struct blk_alloc_type *alloc)
{
	const struct elevator_type *e = elevator_find(elevator);
	if (!e || nr_requests < 2)
		return NULL;
	struct blk_queue *q = calloc(1, sizeof(*q));
	if (!q)
		return NULL;
	q->sim = s;
	q->elv = e;
	q->dev = dev;
	q->alloc = alloc;
	q->nr_requests = nr_requests;
	q->max_sectors = dp->max_sectors_kb * 1024 / SECTOR_BYTES;
	/* blk_queue_congestion_threshold */
	uint64_t n = nr_requests;
	q->congestion_on = n - n / 8 + 1;
	q->congestion_off = n - n / 8 - n / 16 - 1;
	if (dp->throttle_mbps > 0) {
		q->thr_bytes_per_ns = dp->throttle_mbps * 1048576.0 / 1e9;
		q->thr_slice_ns = (ktime_t)(dp->throttle_slice_ms * 1e6);
		q->thr_timer.fn = throtl_timer_fn;
		q->thr_timer.arg = q;
	}
	if (e->init(q) || !(q->dev_data = dev->create(s, dp, blk_end_request, q)) ||
	    (alloc && !(q->alloc_data = alloc->create((uint64_t)(dp->capacity_gb * 1e9 / SECTOR_BYTES))))) {
		blk_queue_destroy(q);
		return NULL;
	}
	return q;
}

void blk_queue_destroy(struct blk_queue *q)
{
	if (!q)
		return;
	if (q->elv_data)
		q->elv->exit(q);
	if (q->dev_data)
		q->dev->destroy(q->dev_data);
	if (q->alloc_data)
		q->alloc->destroy(q->alloc_data);
	/* wherever they are: free, plugged, queued or in the device */
	for (struct blk_rq *r = q->all, *n; r; r = n) {
		n = r->all_next;
		free(r);
	}
	free(q);
}

/* blk-throttle's write_bps test (tg_within_bps_limit): the budget is the
 * rate times the time since the slice began rounded up to whole slices, so
 * what waited is released in bursts of up to a slice's worth at each slice
 * boundary (the real capped traces: completions of 2-8 requests at once,
 * 100-150 ms apart), not one request every size/rate.  A new slice starts
 * only when nothing waited and the last one is over (throtl_slice_used with
 * nothing queued); while requests wait the slice runs on, so no budget is
 * lost.  Returns 0 when rq may go now, else the ns to wait. */
static ktime_t throtl_wait(struct blk_queue *q, ktime_t now, const struct blk_rq *rq)
{
	double bytes = (double)rq->nr_sectors * SECTOR_BYTES;
	if (!q->thr_backlog && now >= q->thr_end) {
		q->thr_start = now;
		q->thr_disp_bytes = 0;
	}
	ktime_t elapsed = now - q->thr_start;
	ktime_t rnd = (elapsed / q->thr_slice_ns + 1) * q->thr_slice_ns;
	double allowed = q->thr_bytes_per_ns * (double)rnd;
	if (q->thr_disp_bytes + bytes <= allowed) {
		q->thr_disp_bytes += bytes;
		if (q->thr_end < q->thr_start + rnd)
			q->thr_end = q->thr_start + rnd;
		return 0;
	}
	ktime_t wait = (ktime_t)ceil((q->thr_disp_bytes + bytes - allowed) / q->thr_bytes_per_ns);
	return wait + (rnd - elapsed);
}

static void dispatch_to_driver(struct sim *s, struct blk_queue *q, struct blk_rq *rq)
{
	q->in_driver++;
	q->nr_dispatched++;
	q->dispatched_sectors += rq->nr_sectors;
	q->dev->queue_rq(s, q->dev_data, rq);
}

static void run_queue(struct sim *s, struct blk_queue *q);

static void throtl_timer_fn(struct sim *s, void *arg)
{
	run_queue(s, arg);
}

static void run_queue(struct sim *s, struct blk_queue *q)
{
	while (q->dev->can_queue(q->dev_data)) {
		struct blk_rq *rq = q->thr_held;
		if (!rq) {
			rq = q->elv->dispatch(q);
			if (!rq) {
				q->thr_backlog = 0;
				break;
			}
			hash_del(q, rq);
		}
		if (q->thr_bytes_per_ns > 0) {
			ktime_t wait = throtl_wait(q, s->now, rq);
			if (wait > 0) {
				q->thr_held = rq;
				q->thr_backlog = 1;
				/* the pending timer fires on a tick */
				uint64_t j = (uint64_t)((s->now + wait) * (ktime_t)s->p.hz / NSEC_PER_SEC) + 1;
				sim_timer_arm(s, &q->thr_timer, jiffies_to_ktime(s, j));
				break;
			}
			q->thr_held = NULL;
		}
		dispatch_to_driver(s, q, rq);
	}
}

static void free_request(struct sim *s, struct blk_queue *q, struct blk_rq *rq)
{
	rq->next = q->free_list;
	q->free_list = rq;
	q->count--;
	if (q->count < q->congestion_off)
		q->congested = 0;
	if (q->count < q->nr_requests)
		wake_up_all(s, &q->wait);
}

/* a request enters the elevator: elv_attempt_insert_merge (back merge with a
 * queued request that ends where it starts), else elevator add */
static void insert_request(struct sim *s, struct blk_queue *q, struct blk_rq *rq)
{
	struct blk_rq *prev = find_ending_at(q, rq->sector);
	int front, ok = 0;
	if (prev) {
		hash_del(q, prev);      /* its end moves */
		ok = try_merge(q, prev, rq->sector, rq->nr_sectors, rq->seg, rq->nseg, &front);
		hash_add(q, prev);
	}
	if (ok) {
		q->elv->merged(q, prev, 0);
		q->nr_merges++;
		free_request(s, q, rq);
		return;
	}
	hash_add(q, rq);
	q->elv->add(q, rq);
}

void blk_start_plug(struct blk_plug *plug)
{
	memset(plug, 0, sizeof(*plug));
}

static void flush_plug(struct sim *s, struct blk_queue *q, struct blk_plug *plug)
{
	/* the plug holds one writepages pass: already in sector order */
	while (plug->list.head) {
		struct blk_rq *rq = plug->list.head;
		rq_list_del(&plug->list, rq);
		insert_request(s, q, rq);
	}
	run_queue(s, q);
}

void blk_finish_plug(struct sim *s, struct blk_queue *q, struct blk_plug *plug)
{
	flush_plug(s, q, plug);
}

void blk_submit_bio(struct sim *s, struct blk_queue *q, struct blk_plug *plug, struct inode *inode,
		    uint64_t sector, uint64_t pages, int from_dirtier)
{
	uint64_t nr = pages * PAGE_SECTORS;
	struct blk_seg seg = { inode, pages };
	int front;
	q->nr_bios++;
	/* attempt_plug_merge */
	if (plug)
		for (struct blk_rq *rq = plug->list.tail; rq; rq = rq->prev)
			if (try_merge(q, rq, sector, nr, &seg, 1, &front)) {
				q->nr_merges++;
				return;
			}
	/* elv_merge: a queued request ending where the bio starts, or starting where it ends */
	struct blk_rq *rq = find_ending_at(q, sector);
	if (!rq)
		rq = find_starting_at(q, sector + nr);
	if (rq) {
		hash_del(q, rq);
		int ok = try_merge(q, rq, sector, nr, &seg, 1, &front);
		hash_add(q, rq);
		if (ok) {
			q->elv->merged(q, rq, front);
			q->nr_merges++;
			return;
		}
	}
	/* get_request_wait: a sleeping submitter's plug is flushed first (io_schedule) */
	while (q->count >= q->nr_requests) {
		if (plug && plug->list.head)
			flush_plug(s, q, plug);
		else
			sim_wait(s, &q->wait, 0);
	}
	rq = q->free_list;
	struct blk_rq *all_next;
	if (rq) {
		q->free_list = rq->next;
		all_next = rq->all_next;
	} else {
		if (!(rq = malloc(sizeof(*rq))))
			abort();
		all_next = q->all;
		q->all = rq;
	}
	memset(rq, 0, sizeof(*rq));
	rq->all_next = all_next;
	rq->sector = sector;
	rq->nr_sectors = nr;
	rq->seg[0] = seg;
	rq->nseg = 1;
	rq->from_dirtier = from_dirtier;
	q->count++;
	q->nr_rqs++;
	if (q->has_congestion && q->count >= q->congestion_on)
		q->congested = 1;
	if (plug) {
		rq_list_append(&plug->list, rq);
		if (plug->list.n >= BLK_MAX_REQUEST_COUNT)
			flush_plug(s, q, plug);
	} else {
		insert_request(s, q, rq);
		run_queue(s, q);
	}
}

void blk_end_request(struct sim *s, void *arg, struct blk_rq *rq)
{
	struct blk_queue *q = arg;
	q->in_driver--;
	if (q->end_io) {
		q->end_io(s, q, rq);
	} else if (blk_end_io_hook) {
		blk_end_io_hook(s, rq);
	} else {
		for (int i = 0; i < rq->nseg; i++) {
			struct inode *inode = rq->seg[i].inode;
			if (q->ioend_pages)
				blk_ioend_completed(s, inode, &alloc_inode_get(q->alloc_data, inode)->ioends,
						    rq->seg[i].pages);
			else
				end_page_writeback(s, inode, rq->seg[i].pages, 0);
			q->completed_pages += rq->seg[i].pages;
		}
	}
	free_request(s, q, rq);
	run_queue(s, q);
}
