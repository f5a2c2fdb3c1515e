#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "calibrate.h"
#include "stats.h"
#include "../result/result.h"
#include "../trace/trace_read.h"
#include "../util/util.h"
#include "../result/metrics.h"

#define DEFAULT_SYSCALL_NS 800.0   /* params.c default: fixed cost of one write() */
#define DEFAULT_WRITEBACK_PAGE_NS 1000.0   /* params.c default: flusher CPU per page */
#define MIN_CPU_PAGE_NS 100.0
#define MAX_PAGE_ORDER 10         /* x86-64: the buddy allocator's largest order */
#define PAGEBLOCK_ORDER 9         /* x86-64 with huge pages: 2 MiB */

struct kv_want { const char *key; char val[256]; int found; double num; };

/* The wanted keys of DIR/name (numeric: each must be a finite number).  A
 * missing file is an error only if required; a malformed one always is. */
static int read_keys(const char *dir, const char *name, struct kv_want *w, int required,
		     int numeric, char *err, size_t errlen)
{
	char path[4200];
	struct stat st;
	struct kvfile f;
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (!required && lstat(path, &st) != 0)
		return 0;
	int rc = kvf_load(&f, path, err, errlen);
	for (; !rc && w->key; w++) {
		const struct kv *e = kvf_get(&f, w->key);
		if (!e)
			continue;
		snprintf(w->val, sizeof(w->val), "%s", e->val);
		w->found = 1;
		if (numeric && kvf_number(&f, e, &w->num, err, errlen))
			rc = -1;
	}
	kvf_free(&f);
	return rc;
}

static double num(const struct kv_want *w, const char *key, double dflt)
{
	for (; w->key; w++)
		if (strcmp(w->key, key) == 0 && w->found)
			return w->num;
	return dflt;
}

#define COST_BUCKETS 400          /* 0.25 us each: 0..100 us per page */
#define COST_BUCKET_NS 250.0
#define COST_GAP_US 2000          /* a longer gap held a sleep, not only CPU */
#define COST_WINDOW_PAGES 256
#define FAULT_MIN_PAGES 10000     /* sampled pages needed to split the cost */

struct trace_facts {
	double pause_s;            /* writers' sleeps */
	double awrite_median;      /* KB/s, second half */
	int64_t first_gds_thresh;  /* -1: none */
	/* the first bdi_dirty_ratelimit event: the bdi's state at the start, KB/s (0: none) */
	int64_t init_awrite_bw, init_dirty_ratelimit;
	/* global_dirty_state: the written counter's span and the stalls */
	uint64_t ngds;
	int64_t gds_first_us, gds_last_us, written_first, written_last;
	struct stats_stall stall;
	/* the writers' dirtying cost: pages by cost per page (wall time x the
	 * writers running at once / pages) over intervals between two
	 * global_dirty_state samples of writers no more than COST_GAP_US apart */
	double par;                /* min(writers, CPUs), set before the pass */
	uint64_t cost_pages[COST_BUCKETS];
	int64_t cost_last_us, cost_last_dirtied, win_us, win_pages;
	/* pass 2: the windows again, classified against the fast limit, to
	 * tell the fast share of the trace's second half */
	double cost_limit_ns;      /* 0 in pass 1 */
	int64_t cost_mid_us;
	uint64_t cost_total, tail_pages, tail_fast;
};

/* Windows of at least COST_WINDOW_PAGES: the global dirtied counter moves in
 * per-CPU batches (vmstat thresholds, tens of pages), so one interval between
 * two samples is noise; the fast and slow runs are 1000-2000 pages long. */
static void cost_feed(struct trace_facts *tf, int64_t ts_us, int64_t dirtied)
{
	int64_t dt = ts_us - tf->cost_last_us, dp = dirtied - tf->cost_last_dirtied;
	if (tf->cost_last_us && dt >= 0 && dt < COST_GAP_US && dp >= 0) {
		tf->win_us += dt;
		tf->win_pages += dp;
		if (tf->win_pages >= COST_WINDOW_PAGES) {
			double ns = (double)tf->win_us * 1000.0 * tf->par / (double)tf->win_pages;
			size_t b = (size_t)(ns / COST_BUCKET_NS);
			uint64_t pages = (uint64_t)tf->win_pages;
			if (b < COST_BUCKETS && tf->cost_limit_ns <= 0) {
				tf->cost_pages[b] += pages;
			} else if (b < COST_BUCKETS) {
				if (ts_us >= tf->cost_mid_us) {
					tf->tail_pages += pages;
					if (((double)b + 0.5) * COST_BUCKET_NS < tf->cost_limit_ns)
						tf->tail_fast += pages;
				}
			}
			tf->win_us = tf->win_pages = 0;
		}
	} else {
		tf->win_us = tf->win_pages = 0;
	}
	tf->cost_last_us = ts_us;
	tf->cost_last_dirtied = dirtied;
}

/* the writers' samples feed the windows; a writer's sleep ends one (its
 * sleep is no dirtying cost, for it or, sharing the window, the others) */
static void cost_event(struct trace_facts *tf, const struct wb_event *e)
{
	if (e->type == EV_GLOBAL_DIRTY_STATE && !stats_is_flusher(e->comm) && wb_event_has(e, F_DIRTIED))
		cost_feed(tf, e->ts_us, e->v[F_DIRTIED]);
	if (e->type == EV_BALANCE_DIRTY_PAGES && !stats_is_flusher(e->comm) && e->v[F_PAUSE] > 0) {
		tf->win_us = tf->win_pages = 0;
		tf->cost_last_us = 0;
	}
}

/* The fast runs' limit: the split of the windows' cost into two classes
 * that best separates them on a log scale (Otsu's rule on the page-weighted
 * histogram: the largest w0 w1 (m0 - m1)^2 of the log costs), as a bucket
 * boundary in ns; 0 when too few pages were sampled or all share a bucket.
 * A rule like "below twice the fastest tenth" fails when the fast pages are
 * under a tenth: the tenth then lies in the slow runs. */
static double cost_fast_limit(const struct trace_facts *tf, uint64_t *total)
{
	double w = 0, sum = 0;
	*total = 0;
	for (size_t b = 0; b < COST_BUCKETS; b++) {
		double n = (double)tf->cost_pages[b];
		*total += tf->cost_pages[b];
		w += n;
		sum += n * log(((double)b + 0.5) * COST_BUCKET_NS);
	}
	if (*total < FAULT_MIN_PAGES)
		return 0;
	double w0 = 0, s0 = 0, best = 0, limit = 0;
	for (size_t b = 0; b + 1 < COST_BUCKETS; b++) {
		double n = (double)tf->cost_pages[b];
		w0 += n;
		s0 += n * log(((double)b + 0.5) * COST_BUCKET_NS);
		double w1 = w - w0;
		if (w0 <= 0 || w1 <= 0)
			continue;
		double d = s0 / w0 - (sum - s0) / w1;
		double v = w0 * w1 * d * d;
		if (v > best) {
			best = v;
			limit = (double)(b + 1) * COST_BUCKET_NS;
		}
	}
	return limit;
}

/* Pass 1 over the trace: the writers' sleeps, the first threshold and the
 * trace's time span.  Pass 2 takes the median of the kernel's own write
 * bandwidth estimate over the second half in value buckets, so memory stays
 * constant however long the trace (the estimate starts at 100 MiB/s, hence
 * the second half only). */
static int trace_pass(const char *path, struct trace_facts *tf, int64_t *first, int64_t *last,
		      int64_t mid, uint64_t *hist, char *err, size_t errlen)
{
	struct trace_reader *r = trace_reader_open_result(path, err, errlen);
	if (!r)
		return -1;
	struct wb_event e;
	int rc;
	while ((rc = trace_reader_next(r, &e, err, errlen)) == 1) {
		if (hist) {
			if (e.type == EV_BDI_DIRTY_RATELIMIT && wb_event_has(&e, F_AWRITE_BW) &&
			    e.ts_us >= mid)
				hist[stats_level_bucket(e.v[F_AWRITE_BW])]++;
			if (tf->cost_limit_ns > 0)
				cost_event(tf, &e);
			continue;
		}
		if (*first < 0)
			*first = e.ts_us;
		*last = e.ts_us;
		if (e.type == EV_BDI_DIRTY_RATELIMIT && !tf->init_dirty_ratelimit &&
		    wb_event_has(&e, F_AWRITE_BW) && e.v[F_DIRTY_RATELIMIT] > 0) {
			tf->init_awrite_bw = e.v[F_AWRITE_BW];
			tf->init_dirty_ratelimit = e.v[F_DIRTY_RATELIMIT];
		}
		if (e.type == EV_GLOBAL_DIRTY_STATE) {
			if (tf->first_gds_thresh < 0)
				tf->first_gds_thresh = e.v[F_THRESH];
			if (!tf->ngds++) {
				tf->gds_first_us = e.ts_us;
				tf->written_first = e.v[F_WRITTEN];
			}
			tf->gds_last_us = e.ts_us;
			tf->written_last = e.v[F_WRITTEN];
			stats_stall_feed(&tf->stall, e.ts_us, e.v[F_WRITEBACK], e.v[F_WRITTEN]);
		}
		if (e.type == EV_BALANCE_DIRTY_PAGES && !stats_is_flusher(e.comm) && e.v[F_PAUSE] > 0)
			tf->pause_s += (double)e.v[F_PAUSE] / 1000.0;
		cost_event(tf, &e);
	}
	trace_reader_close(r);
	return rc < 0 ? -1 : 0;
}

static int read_trace_facts(const char *dir, struct trace_facts *tf, double par, char *err, size_t errlen)
{
	char path[4200];
	trace_result_path(dir, path, sizeof(path));
	memset(tf, 0, sizeof(*tf));
	tf->par = par;
	tf->first_gds_thresh = -1;
	int64_t first = -1, last = 0;
	if (trace_pass(path, tf, &first, &last, 0, NULL, err, errlen))
		return -1;
	uint64_t *hist = calloc(STATS_LEVEL_BUCKETS, sizeof(*hist));
	if (!hist) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	tf->cost_limit_ns = cost_fast_limit(tf, &tf->cost_total);
	tf->cost_mid_us = first + (last - first) / 2;
	tf->cost_last_us = tf->cost_last_dirtied = tf->win_us = tf->win_pages = 0;
	int rc = trace_pass(path, tf, &first, &last, first + (last - first) / 2, hist, err, errlen);
	uint64_t n = 0, seen = 0;
	for (int b = 0; b < STATS_LEVEL_BUCKETS; b++)
		n += hist[b];
	for (int b = 0; n && b < STATS_LEVEL_BUCKETS; b++) {
		seen += hist[b];
		if (seen > n / 2) {
			tf->awrite_median = stats_level_value(b);
			break;
		}
	}
	free(hist);
	stats_stall_end(&tf->stall);
	return rc;
}

static int read_case(const char *dir, struct calibration *cal, char *err, size_t errlen)
{
	struct kv_want meta[] = { { "case", "", 0, 0 }, { "group", "", 0, 0 },
				  { "source", "", 0, 0 }, { NULL, "", 0, 0 } };
	if (read_keys(dir, "meta", meta, 1, 0, err, errlen))
		return -1;
	if (!meta[0].found) {
		snprintf(err, errlen, "%s/meta has no 'case'", dir);
		return -1;
	}
	/* the device, CPU and knob figures come from what only `wblab run` records */
	if (!meta[2].found || strcmp(meta[2].val, "real") != 0) {
		snprintf(err, errlen, "%s is not a result of 'wblab run' (meta source '%s'); calibrate "
			 "and validate take real runs only", dir, meta[2].found ? meta[2].val : "");
		return -1;
	}
	char full[512];
	if (meta[1].found)
		snprintf(full, sizeof(full), "%s/%s", meta[1].val, meta[0].val);
	else
		snprintf(full, sizeof(full), "%s", meta[0].val);
	if (case_parse(full, &cal->c, err, errlen))
		return -1;
	if (!cal->c.cpus || !cal->c.mem_mb) {
		snprintf(err, errlen, "%s: case '%s' lacks CPUS or MEM", dir, full);
		return -1;
	}
	return 0;
}

/* dirtyable memory share, when the threshold is a ratio (6.x truncates it to 1/4096) */
static double derive_dirtyable_pct(const struct calibration *cal, int64_t thresh)
{
	if (cal->c.thresh.is_bytes || thresh <= 0 || !cal->c.thresh.value)
		return 92;
	double ratio = (double)(cal->c.thresh.value * 4096 / 100) / 4096.0;
	double pct = (double)thresh / ratio / ((double)cal->c.mem_mb * 256.0) * 100.0;
	return pct > 1 && pct <= 100 ? pct : 92;
}

/* Writer CPU per page.  The writers' own CPU time (getrusage of each writer
 * process) is what a page costs them; their wall time outside pauses is not,
 * for it holds every non-pause wait (page allocation, journal locks, a device
 * stall felt through the file system), and a simulated writer charged those
 * as CPU could never outrun the device and would never be throttled.  The
 * wall-time rule is kept only for results that lack the CPU time. */
static double writer_page_ns(const struct calibration *cal, double pages)
{
	if (cal->writers_cpu_s > 0 && pages > 0)
		return cal->writers_cpu_s / pages * 1e9;
	double busy = cal->c.ndd * cal->runtime_s - cal->pause_s;
	/* the simulated flusher spends writeback_page_ns per page on the same CPUs */
	double cpus_free = cal->c.cpus * cal->runtime_s - pages * DEFAULT_WRITEBACK_PAGE_NS * 1e-9;
	busy = fmin(busy, cpus_free);
	return pages > 0 && busy > 0 ? busy / pages * 1e9 : 0;
}

/* The share of a CPU the writers got while they wanted one.  On a machine
 * shared with other work (here: load average 6.5 on 2 CPUs while the matrix
 * ran) a writer runnable for the whole runtime got 6-9 s of CPU in 15 s; the
 * simulator has no other tenants, so a simulated writer charged only its own
 * CPU time per page runs 1.5-2x faster than the real one.  The writers could
 * have run for their wall time outside pauses, at most on every CPU but for
 * what the flusher spends; what they got over that is the share, and the
 * simulated writer's per-page and per-call costs are its CPU costs over the
 * share (a CPU of 1/share the speed).  Only when the device was idle part
 * of the run (its capacity from the busy time): a writer held back by the
 * device also waits inside write() (journal, page and writeback waits under a
 * --device-bw cap), which is no CPU contention.  Without the CPU time
 * (older results) the share is 1: the wall-time rule already holds every wait. */
static double writer_cpu_share(const struct calibration *cal)
{
	double flusher_s = cal->dev_write_bw * 256.0 * cal->runtime_s * DEFAULT_WRITEBACK_PAGE_NS * 1e-9;
	double could = fmin(cal->c.ndd * cal->runtime_s - cal->pause_s,
			    cal->c.cpus * cal->runtime_s - flusher_s);
	if (!cal->busy_capacity || cal->writers_cpu_s <= 0 || could <= 0)
		return 1;
	return fmin(fmax(cal->writers_cpu_s / could, 0.05), 1);
}

#define LOOP_TAGS 128            /* blk-mq loop: hw queue depth */
#define MAX_LATENCY_US 100000.0  /* dev.latency_us's range */

/* Device stalls and Little's law from the trace's global_dirty_state.
 * Outside the stalls (which the stall process models), L = mean writeback
 * pages, X = written pages per second, W = L / X; the share of W the
 * bandwidth explains is L / bw (L pages drained at the device's rate), the
 * rest is the per-request latency; the device holds L / request-size
 * requests at once. */
static void derive_device(struct calibration *cal, const struct trace_facts *tf)
{
	const struct stats_stall *st = &tf->stall;
	cal->span_s = tf->ngds > 1 ? (double)(tf->gds_last_us - tf->gds_first_us) / 1e6 : 0;
	cal->stall_count = (double)st->count;
	cal->stall_s_total = st->total_us / 1e6;
	cal->stall_ms_max = st->max_us / 1e3;
	/* a --device-bw cap: blk-throttle in front of the loop device dispatches
	 * at the cap whatever the device behind it does, and what queued there
	 * through a stall completes at the loop device's own rate afterwards, so
	 * the long-run rate is the cap (the stalls are reported, not modelled) */
	if (st->count && cal->span_s > cal->stall_s_total && cal->device_cap_mbps <= 0) {
		cal->stall_ms = cal->stall_s_total * 1e3 / cal->stall_count;
		/* the loop model draws the next stall from the end of the last */
		cal->stall_every_s = (cal->span_s - cal->stall_s_total) / cal->stall_count;
	}
	double req_pages = cal->max_request_kb / 4;
	double run_s = cal->span_s - cal->stall_s_total;
	double written = (double)(tf->written_last - tf->written_first);
	cal->queue_depth = LOOP_TAGS;
	if (run_s > 0 && written > 0) {
		cal->wb_mean_pages = (st->wb_area - st->wb_area_stalled) / 1e6 / run_s;
		cal->xput_pages_s = written / run_s;
		cal->wait_ms = cal->wb_mean_pages / cal->xput_pages_s * 1e3;
		double transfer_ms = cal->wb_mean_pages / (cal->bw_mbps * 256.0) * 1e3;
		cal->latency_us = fmin(fmax((cal->wait_ms - transfer_ms) * 1e3, 0), MAX_LATENCY_US);
		/* a capacity from the busy time already holds each request's time
		 * in flight, and the rest of W is the pages' wait in the flusher's
		 * bios and plug, which the simulated block layer has itself */
		if (cal->busy_capacity)
			cal->latency_us = 0;
		cal->queue_depth = fmin(fmax(round(cal->wb_mean_pages / req_pages), 1), LOOP_TAGS);
	}
	/* Under a cap the pages in flight wait in blk-throttle's queue.  With
	 * the device's busy time the model has both: the throttle at the cap,
	 * releasing a slice's budget at each slice boundary, and behind it the
	 * loop device at its own rate while busy, all its tags, no extra latency
	 * (the real completions come 2-8 requests at once, 100-150 ms apart).
	 * Without it (older results) a single server at the cap stands in. */
	if (cal->device_cap_mbps > 0) {
		cal->queue_depth = 1;
		if (cal->dev_busy_s > 0 && cal->dev_busy_s < cal->runtime_s &&
		    cal->dev_write_bw * cal->runtime_s / cal->dev_busy_s > cal->device_cap_mbps) {
			cal->throttle_mbps = cal->device_cap_mbps;
			cal->bw_mbps = cal->dev_write_bw * cal->runtime_s / cal->dev_busy_s;
			cal->queue_depth = LOOP_TAGS;
			cal->latency_us = 0;
		}
	}
}

#define INIT_BW_KBPS 102400.0  /* a new bdi's estimates: 100 MiB/s */

/* The bdi's estimates at the start.  A loop device's bdi is made with the
 * device and outlives each attachment, so a run starts with the write
 * bandwidth and dirty_ratelimit the previous run on that device left (at
 * 1.7 GB/s after a native run, at the cap after a capped one), not at a new
 * bdi's 100 MiB/s.  The first bdi_dirty_ratelimit event shows them after one
 * update: the average moves by at most 1/8 of its distance to the new
 * sample there, and the ratelimit by at most 1/8 of its distance to the
 * balanced rate, so they are what the bdi started with to within that. */
static void derive_bdi_start(struct calibration *cal, const struct trace_facts *tf)
{
	int seen = tf->init_dirty_ratelimit > 0 && tf->init_awrite_bw > 0;
	cal->init_write_bw_kbps = seen ? (double)tf->init_awrite_bw : INIT_BW_KBPS;
	cal->init_dirty_ratelimit_kbps = seen ? (double)tf->init_dirty_ratelimit : INIT_BW_KBPS;
}

#define FAULT_MIN_SHARE 0.02      /* below this the cost is one figure */
#define FAULT_MAX_NS 1e6          /* host_fault_ns's range */
#define FAULT_MAX_POOL 0.95       /* a pool is at most this share of the run */

/* The writers' cost per page in two parts: the fast runs and the rest.  A
 * real writer's cost per page is not one figure in a VM with free page
 * reporting: frames the host took back cost a host fault on first touch
 * (19 us against 2 us here), and they come in blocks, so the trace shows
 * runs of fast and slow dirtying.  The fast runs' cost is the page-weighted
 * mean of the lower class of cost_fast_limit's split; the slow share is the
 * rest, and its second half in time gives the blocks' share.  The mean cost
 * stays what the CPU time says (cpu_page_ns above): the fast runs get the
 * fast cost, and host_fault_ns is what the slow share must add to make up
 * the mean.  The block is the kernel's reporting unit, 2^order pages. */
static void derive_frame_faults(struct calibration *cal, const struct trace_facts *tf, double bs_pages)
{
	uint64_t total, fast = 0;
	double fast_ns = 0, mean_ns = 0;
	double limit = cost_fast_limit(tf, &total);
	if (limit <= 0)
		return;
	for (size_t b = 0; b < COST_BUCKETS; b++) {
		double c = ((double)b + 0.5) * COST_BUCKET_NS;
		mean_ns += (double)tf->cost_pages[b] * c;
		if (c < limit) {
			fast += tf->cost_pages[b];
			fast_ns += (double)tf->cost_pages[b] * c;
		}
	}
	mean_ns /= (double)total;
	cal->fast_page_ns = fast ? fast_ns / (double)fast : 0;
	cal->slow_share = 1.0 - (double)fast / (double)total;
	/* the fast share of the trace's second half is the blocks' share; what
	 * the whole run had beyond it came first, from the frames freed just
	 * before the run (a pool the allocator hands out first) */
	double tail_fast = tf->tail_pages >= FAULT_MIN_PAGES / 2 ? (double)tf->tail_fast / (double)tf->tail_pages
			   : 1 - cal->slow_share;   /* too little after the midpoint: no pool */
	double run_fast = 1.0 - cal->slow_share;
	double pool = tail_fast < 1 ? (run_fast - tail_fast) / (1 - tail_fast) : 0;
	pool = pool < FAULT_MIN_SHARE ? 0 : fmin(pool, FAULT_MAX_POOL);
	double slow = (1 - pool) * (1 - tail_fast);
	double fast_page = fmax(cal->fast_page_ns - cal->syscall_ns / bs_pages, MIN_CPU_PAGE_NS);
	/* two runs of distinct cost or none: the slow class must cost at least
	 * twice the fast one (one spread-out run splits too, into close halves) */
	double slow_ns = total > fast ? (mean_ns * (double)total - fast_ns) / (double)(total - fast) : 0;
	if (cal->slow_share < FAULT_MIN_SHARE || slow < FAULT_MIN_SHARE || fast_page >= cal->cpu_page_ns ||
	    slow_ns < 2 * cal->fast_page_ns)
		return;
	double fault_ns = (cal->cpu_page_ns - fast_page) / slow;
	if (fault_ns > FAULT_MAX_NS)
		return;
	cal->host_fault_pct = 100.0 * (1 - tail_fast);
	cal->host_fault_ns = fault_ns;
	cal->host_backed_mb = pool * cal->writers_mb;
	int order = cal->page_reporting_order >= 0 ? cal->page_reporting_order : PAGEBLOCK_ORDER;
	cal->host_fault_block_kb = 4.0 * (double)(1 << order);
	cal->cpu_page_ns = fast_page;
}

static void derive(struct calibration *cal, const struct trace_facts *tf, double write_bw)
{
	double bs_pages = (double)(cal->c.bs / PAGE_SIZE_BYTES ? cal->c.bs / PAGE_SIZE_BYTES : 1);
	double stall_s = fmin(tf->stall.total_us / 1e6, 0.9 * cal->runtime_s);
	/* the device: a block-throttling cap is the device's rate by construction;
	 * else what reached it over the time it was not stalled (the stall
	 * process takes the rest), or the kernel's estimate while it was busy */
	cal->bw_mbps = cal->device_cap_mbps > 0
		       ? cal->device_cap_mbps
		       : fmax(cal->dev_write_bw * cal->runtime_s / (cal->runtime_s - stall_s),
			      cal->awrite_bw_steady);
	/* What reached the device is the offered load; it is the device's
	 * capacity only if the device was busy throughout.  Writers bound by
	 * their CPU leave a native loop device idle most of the time (a request
	 * in flight 3-12 s of 15 by io_ticks here), and a model device calibrated
	 * at the offered load runs at utilisation 1, queueing pages the real one
	 * never held.  Its rate while busy is the capacity. */
	if (cal->device_cap_mbps <= 0 && cal->dev_busy_s > 0 && cal->dev_busy_s < cal->runtime_s - stall_s &&
	    cal->dev_write_bw * cal->runtime_s / cal->dev_busy_s > cal->bw_mbps) {
		cal->bw_mbps = cal->dev_write_bw * cal->runtime_s / cal->dev_busy_s;
		cal->busy_capacity = 1;
	}
	if (cal->bw_mbps <= 0)
		cal->bw_mbps = write_bw > 0 ? write_bw : 57;
	cal->max_request_kb = cal->dev_write_kb_mean > 0 ? 4 * round(cal->dev_write_kb_mean / 4) : 512;
	cal->max_request_kb = fmin(fmax(cal->max_request_kb, 4), 65536);
	cal->nr_requests = LOOP_TAGS;    /* blk-mq loop: 128 tags */
	derive_device(cal, tf);
	cal->per_page_ns = writer_page_ns(cal, cal->writers_mb * 256.0);
	cal->cpu_share = writer_cpu_share(cal);
	cal->syscall_ns = DEFAULT_SYSCALL_NS / cal->cpu_share;
	cal->cpu_page_ns = cal->per_page_ns > 0
			   ? (cal->per_page_ns - DEFAULT_SYSCALL_NS / bs_pages) / cal->cpu_share : 2500;
	cal->cpu_page_ns = fmax(cal->cpu_page_ns, MIN_CPU_PAGE_NS);
	cal->dirtyable_pct = derive_dirtyable_pct(cal, tf->first_gds_thresh);
	derive_bdi_start(cal, tf);
	derive_frame_faults(cal, tf, bs_pages);
}

/* an order 0..MAX_PAGE_ORDER from text; -1 if it is not one */
static int order_of(const char *v)
{
	char *end;
	long n = strtol(v, &end, 10);
	return end != v && (*end == 0 || *end == '\n') && n >= 0 && n <= MAX_PAGE_ORDER ? (int)n : -1;
}

/* The reporting order a kernel command line asks for: its last
 * page_reporting.page_reporting_order=N before a "--" (what follows that goes
 * to init).  The kernel refuses an order above MAX_PAGE_ORDER and keeps
 * pageblock_order, as it does when none is given: -1 then. */
static int reporting_order(const char *cmdline)
{
	static const char key[] = "page_reporting.page_reporting_order=";
	const char *stop = strstr(cmdline, " -- "), *p = cmdline, *hit = NULL;
	while ((p = strstr(p, key)) && (!stop || p < stop)) {
		if (p == cmdline || p[-1] == ' ')
			hit = p + sizeof(key) - 1;
		p += sizeof(key) - 1;
	}
	if (!hit)
		return -1;
	char word[16];
	size_t n = strcspn(hit, " ");
	if (n >= sizeof(word))
		return -1;
	memcpy(word, hit, n);
	word[n] = 0;
	return order_of(word);
}

/* The scheduler in brackets of env's io_scheduler ("[none] mq-deadline ..."),
 * when the simulator has it; else "" (the era's default). */
static void pick_elevator(const char *sched, char *out, size_t n)
{
	static const char *const known[] = { "none", "mq-deadline", NULL };
	out[0] = 0;
	const char *a = strchr(sched, '['), *b = a ? strchr(a, ']') : NULL;
	if (!b)
		return;
	for (int i = 0; known[i]; i++)
		if ((size_t)(b - a - 1) == strlen(known[i]) && strncmp(a + 1, known[i], strlen(known[i])) == 0)
			snprintf(out, n, "%s", known[i]);
}

int calibrate_dir(const char *dir, double hz, struct calibration *cal, char *err, size_t errlen)
{
	memset(cal, 0, sizeof(*cal));
	if (read_case(dir, cal, err, errlen))
		return -1;
	/* the writers' sleeps and the kernel's bandwidth estimate come from the
	 * trace: say so plainly for a run made without one */
	char tp[4200], dp[4200];
	struct stat tst;
	snprintf(tp, sizeof(tp), "%s/trace", dir);
	snprintf(dp, sizeof(dp), "%s/trace.dat", dir);
	if (stat(tp, &tst) && stat(dp, &tst)) {
		snprintf(err, errlen, "%s: no trace (a run made with --no-trace): calibrating needs one", dir);
		return -1;
	}
	struct kv_want st[] = {
		{ METRIC_KEY(DEV_WRITE_BW), "", 0, 0 }, { METRIC_KEY(WRITERS_MB), "", 0, 0 },
		{ METRIC_KEY(DEV_WRITE_KB_MEAN), "", 0, 0 }, { METRIC_KEY(RUNTIME_S), "", 0, 0 },
		{ METRIC_KEY(DURATION_S), "", 0, 0 }, { METRIC_KEY(WRITE_BW), "", 0, 0 },
		{ METRIC_KEY(DIRTIED_MB), "", 0, 0 }, { METRIC_KEY(WRITERS_CPU_S), "", 0, 0 },
		{ METRIC_KEY(DEV_BUSY_S), "", 0, 0 }, { NULL, "", 0, 0 }
	};
	struct kv_want pa[] = { { "runtime_s", "", 0, 0 }, { "runtime", "", 0, 0 },
				{ "device_bw_mbps", "", 0, 0 }, { NULL, "", 0, 0 } };
	struct kv_want env[] = { { "device", "", 0, 0 }, { "io_scheduler", "", 0, 0 },
				 { "proc_cmdline", "", 0, 0 }, { "page_reporting_order", "", 0, 0 },
				 { NULL, "", 0, 0 } };
	struct kv_want knobs[] = { { "bdi.strict_limit", "", 0, 0 }, { "bdi.min_ratio", "", 0, 0 },
				   { "bdi.max_ratio", "", 0, 0 }, { NULL, "", 0, 0 } };
	if (read_keys(dir, "stats", st, 1, 1, err, errlen) ||
	    read_keys(dir, "params", pa, 0, 1, err, errlen) ||
	    read_keys(dir, "env", env, 0, 0, err, errlen) ||
	    read_keys(dir, "env", knobs, 0, 1, err, errlen))
		return -1;
	cal->writers_cpu_s = num(st, METRIC_KEY(WRITERS_CPU_S), 0);
	cal->device_cap_mbps = num(pa, "device_bw_mbps", 0);
	/* the knobs in force during the run, so the model runs under them too */
	cal->bdi_strict_limit = num(knobs, "bdi.strict_limit", 0) != 0;
	cal->bdi_min_ratio = (int)num(knobs, "bdi.min_ratio", 0);
	cal->bdi_max_ratio = (int)num(knobs, "bdi.max_ratio", 100);
	cal->runtime_s = num(pa, "runtime_s", num(pa, "runtime", num(st, METRIC_KEY(RUNTIME_S),
					      num(st, METRIC_KEY(DURATION_S), 0))));
	if (cal->runtime_s <= 0) {
		snprintf(err, errlen, "%s: no runtime in params or stats", dir);
		return -1;
	}
	cal->dev_write_bw = num(st, METRIC_KEY(DEV_WRITE_BW), 0);
	cal->dev_busy_s = num(st, METRIC_KEY(DEV_BUSY_S), 0);
	cal->writers_mb = num(st, METRIC_KEY(WRITERS_MB), num(st, METRIC_KEY(DIRTIED_MB), 0));
	cal->dev_write_kb_mean = num(st, METRIC_KEY(DEV_WRITE_KB_MEAN), 0);
	cal->loop_device = env[0].found && strncmp(env[0].val, "/dev/loop", 9) == 0;
	if (env[1].found)
		pick_elevator(env[1].val, cal->elevator, sizeof(cal->elevator));
	cal->page_reporting_order = env[3].found ? order_of(env[3].val)
				    : env[2].found ? reporting_order(env[2].val) : -1;
	struct trace_facts tf;
	if (read_trace_facts(dir, &tf, fmin(cal->c.ndd, cal->c.cpus), err, errlen))
		return -1;
	cal->pause_s = tf.pause_s;
	cal->awrite_bw_steady = tf.awrite_median / 1024.0;
	cal->hz = hz;
	derive(cal, &tf, num(st, METRIC_KEY(WRITE_BW), 0));
	return 0;
}

struct cal_key { const char *key; double value; const char *why; const char *name; };

static int cal_keys(const struct calibration *c, struct cal_key *k)
{
	int n = 0;
	k[n++] = (struct cal_key){ "hz", c->hz, "kernel tick rate of the machine", NULL };
	k[n++] = (struct cal_key){ "dev.model", 0, "the block layer's loop device (wblab run writes to a loop device)",
				   "loop" };
	if (c->elevator[0])
		k[n++] = (struct cal_key){ "dev.elevator", 0, "the run's io_scheduler (env)", c->elevator };
	if (c->throttle_mbps > 0)
		k[n++] = (struct cal_key){ "dev.throttle_mbps", c->throttle_mbps,
					   "the run's --device-bw cap: blk-throttle in front of the device", NULL };
	k[n++] = (struct cal_key){ "dev.bw_mbps", c->bw_mbps,
				   c->throttle_mbps > 0 ? "the device behind the cap: its rate while busy (io_ticks)"
				   : c->device_cap_mbps > 0 ? "the run's --device-bw cap"
				   : "max(device MiB/s while not stalled, while busy (io_ticks), median kernel write_bw estimate, 2nd half)",
				   NULL };
	k[n++] = (struct cal_key){ "dev.nr_requests", c->nr_requests, "blk-mq loop: 128 tags", NULL };
	k[n++] = (struct cal_key){ "dev.max_sectors_kb", c->max_request_kb, "mean device write size", NULL };
	k[n++] = (struct cal_key){ "dev.queue_depth", c->queue_depth,
				   c->throttle_mbps > 0 ? "blk-mq loop: 128 tags behind the throttle"
				   : c->device_cap_mbps > 0 ? "--device-bw: blk-throttle serves one request at a time"
				   : "Little's law: mean writeback pages / request size (1..128)", NULL };
	k[n++] = (struct cal_key){ "dev.latency_us", c->latency_us,
				   "Little's law: (writeback pages / written pages per s) - writeback pages / bw",
				   NULL };
	if (c->stall_ms > 0) {
		k[n++] = (struct cal_key){ "dev.stall_every_s", c->stall_every_s,
					   "time not stalled / stalls in the trace", NULL };
		k[n++] = (struct cal_key){ "dev.stall_ms", c->stall_ms, "mean stall in the trace", NULL };
	}
	k[n++] = (struct cal_key){ "syscall_ns", c->syscall_ns, "800 ns of CPU per write() over the writers' CPU share",
				   NULL };
	k[n++] = (struct cal_key){ "cpu_page_ns", c->cpu_page_ns,
				   c->host_fault_ns > 0 ? "writers' cost per page in their fast runs (trace), minus syscall_ns"
				   : c->writers_cpu_s > 0 ? "writers' own CPU time per page, minus syscall_ns, over their CPU share"
				   : "writer time per page outside pauses, minus syscall_ns (no CPU time recorded)",
				   NULL };
	if (c->host_fault_ns > 0) {
		k[n++] = (struct cal_key){ "host_fault_ns", c->host_fault_ns,
					   "the slow share's extra cost per page, so that the mean is the CPU time's", NULL };
		k[n++] = (struct cal_key){ "host_fault_pct", c->host_fault_pct,
					   "share of the sampled pages of the trace's second half in the slow class (the best two-class split of their cost)", NULL };
		k[n++] = (struct cal_key){ "host_backed_mb", c->host_backed_mb,
					   "the fast pages beyond the second half's share, of what the writers wrote: frames freed just before the run",
					   NULL };
		k[n++] = (struct cal_key){ "host_fault_block_kb", c->host_fault_block_kb,
					   "free page reporting's block: 4 KiB << the order the kernel took (env; 2 MiB pageblocks by default)",
					   NULL };
	}
	k[n++] = (struct cal_key){ "dirtyable_pct", c->dirtyable_pct,
				   c->c.thresh.is_bytes ? "the default: a threshold in bytes does not give it"
							: "from thresh, a ratio of it", NULL };
	k[n++] = (struct cal_key){ "bdi_init_write_bw_kbps", c->init_write_bw_kbps,
				   "the bdi's avg write_bw at the first bdi_dirty_ratelimit event (the bdi outlives the attachment)",
				   NULL };
	k[n++] = (struct cal_key){ "bdi_init_dirty_ratelimit_kbps", c->init_dirty_ratelimit_kbps,
				   "the bdi's dirty_ratelimit at the first bdi_dirty_ratelimit event", NULL };
	k[n++] = (struct cal_key){ "bdi_strict_limit", c->bdi_strict_limit, "the device's bdi knob in env", NULL };
	k[n++] = (struct cal_key){ "bdi_min_ratio", c->bdi_min_ratio, "the device's bdi knob in env", NULL };
	k[n++] = (struct cal_key){ "bdi_max_ratio", c->bdi_max_ratio, "the device's bdi knob in env", NULL };
	return n;
}

static int is_integer_key(const char *key)
{
	return strcmp(key, "hz") == 0 || strcmp(key, "dev.nr_requests") == 0 ||
	       strcmp(key, "dev.max_sectors_kb") == 0 || strcmp(key, "dev.queue_depth") == 0 ||
	       strncmp(key, "bdi_", 4) == 0;
}

static void key_text(const struct cal_key *k, const char *sep, char *a, size_t n)
{
	if (k->name)
		snprintf(a, n, "%s%s%s", k->key, sep, k->name);
	else if (is_integer_key(k->key))
		snprintf(a, n, "%s%s%.0f", k->key, sep, k->value);
	else
		snprintf(a, n, "%s%s%.6g", k->key, sep, k->value);
}

int calibration_sets(const struct calibration *cal, char sets[][CAL_SET_LEN])
{
	struct cal_key k[CAL_MAX_SETS];
	int n = cal_keys(cal, k);
	for (int i = 0; i < n; i++)
		key_text(&k[i], "=", sets[i], CAL_SET_LEN);
	return n;
}

int calibration_apply(const struct calibration *cal, struct sim_params *p, char *err, size_t errlen)
{
	char sets[CAL_MAX_SETS][CAL_SET_LEN];
	int n = calibration_sets(cal, sets);
	for (int i = 0; i < n; i++)
		if (params_set(p, sets[i], err, errlen))
			return -1;
	return 0;
}

void calibration_write(const struct calibration *cal, FILE *f, int as_set)
{
	struct cal_key k[CAL_MAX_SETS];
	int n = cal_keys(cal, k);
	fprintf(f, "# wblab calibrate: %s/%s, %.0f s; device %.1f MiB/s, kernel estimate %.1f MiB/s,\n"
		   "# writers %.1f MiB, paused %.2f s, %.0f ns per page outside pauses\n"
		   "# device stalls (writeback pending, written counter still for >= %d ms): %.0f, "
		   "%.3f s in all, longest %.0f ms\n"
		   "# Little's law outside stalls: %.0f pages in flight, %.0f pages/s written, "
		   "%.3f ms under writeback\n",
		cal->c.group, cal->c.name, cal->runtime_s, cal->dev_write_bw, cal->awrite_bw_steady,
		cal->writers_mb, cal->pause_s, cal->per_page_ns, STATS_STALL_MIN_US / 1000,
		cal->stall_count, cal->stall_s_total, cal->stall_ms_max, cal->wb_mean_pages,
		cal->xput_pages_s, cal->wait_ms);
	for (int i = 0; i < n; i++) {
		char a[160];
		key_text(&k[i], as_set ? "=" : " = ", a, sizeof(a));
		fprintf(f, "# %s\n%s%s\n", k[i].why, as_set ? "--set " : "", a);
	}
}
