/* Graphs of a result's trace, named as writeback-tests named them, drawn by
 * gnuplot.  One streaming pass over the trace extracts every series; each
 * series is decimated for display only (min/max buckets, so peaks survive),
 * never for stats.  Per graph G the output directory gets G.dat (one gnuplot
 * `index` block per series), G.gp (the script, runnable by hand from that
 * directory), G.png and G.svg; plus `index` listing made and skipped graphs.
 *
 *   struct plot_opts o = { 0 };              // DIR/plots, defaults
 *   struct plot_summary s;
 *   if (plot_result("results/x", &o, &s, err, sizeof(err)) != 0) ...
 *
 * The library never prints; notes on skipped graphs come back in the summary. */
#ifndef WBLAB_PLOT_H
#define WBLAB_PLOT_H
#include <stddef.h>
#include <stdint.h>
#include "../trace/event.h"

/* ---- display decimation ------------------------------------------------- */

/* A time series kept as at most `cap` time buckets, each remembering its
 * lowest and highest point.  Bucket width starts at 1 us and doubles (merging
 * neighbours) whenever a point falls past the last bucket, so memory is fixed
 * and the output holds at most 2 * cap points whatever the trace length. */
struct plot_bucket {
	int64_t tmin, tmax;     /* times of the lowest and highest value */
	double vmin, vmax;
	uint32_t n;             /* points in the bucket; 0 = empty */
};

struct plot_series {
	int cap;                /* buckets; 0 until the first point */
	int max_points;
	int64_t t0;             /* time of the first point: bucket 0 starts here */
	int64_t width;          /* bucket width, us */
	int64_t width0;         /* the width the first point starts (1, or plot_run_expect_span's) */
	int used;               /* highest used bucket + 1 */
	uint64_t fed;           /* points given to plot_series_add */
	int last;               /* bucket of the last point, and its time span: */
	int64_t last_lo, last_hi;   /* most points fall there, no division needed */
	struct plot_bucket *b;
};

#define PLOT_MAX_POINTS 20000

/* max_points <= 0 means PLOT_MAX_POINTS; at least 4. */
void plot_series_init(struct plot_series *s, int max_points);
void plot_series_free(struct plot_series *s);
/* Before the first point: start at the smallest power-of-two bucket width
 * that holds span_us, where coarsening from 1 us ends for a series whose
 * points span that power-of-two bracket (the same buckets then, without the
 * ~15 merging passes on the way); a series spanning less keeps these
 * coarser buckets. */
void plot_series_expect_span(struct plot_series *s, int64_t span_us);
/* Returns 0, or -1 when out of memory. */
int plot_series_add(struct plot_series *s, int64_t t_us, double v);
/* Calls cb for each kept point in time order (a bucket's min and max, or its
 * one point); stops early when cb returns nonzero.  Returns points visited. */
size_t plot_series_each(const struct plot_series *s,
			int (*cb)(void *arg, int64_t t_us, double v), void *arg);

/* ---- graphs --------------------------------------------------------------- */

enum plot_graph {
	PG_GLOBAL_DIRTY_STATE,
	PG_GLOBAL_DIRTIED_WRITTEN,
	PG_BDP_PAGES,
	PG_BDP_BANDWIDTH,
	PG_BDP_PAUSE,
	PG_BDP_TASK_BW,
	PG_NFS_COMMIT,
	PG_FILE_PROGRESS,
	PG_COUNT
};

#define PLOT_MAX_TASKS 10

/* "global_dirty_state", "balance_dirty_pages-pages", ... (file names). */
const char *plot_graph_name(enum plot_graph g);
/* -1 when unknown. */
int plot_graph_lookup(const char *name);

/* Everything extracted from one trace. */
struct plot_run;

/* label names the run in keys (its meta kernel). */
struct plot_run *plot_run_new(const char *label, int max_points);
/* The events to come span at most span_us (a simulated run knows its
 * length): each series starts at the bucket width that span needs instead
 * of 1 us, so it does not merge its way up there (~15 passes over every
 * series).  A series whose points span the same power-of-two bracket ends
 * as it would have; one that starts late or stops early (e.g. covering
 * under 55-87 % of a 30-300 s run) keeps coarser buckets than it would
 * have: for the run's series still about two per pixel column of a graph
 * of the whole run.  Call before the first event. */
void plot_run_expect_span(struct plot_run *r, int64_t span_us);
void plot_run_free(struct plot_run *r);
/* Feed events in file order.  Returns 0, or -1 when out of memory. */
int plot_run_feed(struct plot_run *r, const struct wb_event *e);
/* Streams a whole trace file through plot_run_feed; 0 or -1 with err. */
int plot_run_load(struct plot_run *r, const char *trace, char *err, size_t errlen);
/* True when the trace had the events graph g needs. */
int plot_run_has(const struct plot_run *r, enum plot_graph g);
/* Why g cannot be drawn: "no balance_dirty_pages events". */
const char *plot_run_missing(const struct plot_run *r, enum plot_graph g);
/* A series by graph and key title ("dirty", "pid 3002", ...); NULL if none.
 * Times are absolute trace times in us; the graph shows them from the first
 * event of the trace (plot_run_t0). */
const struct plot_series *plot_run_series(const struct plot_run *r, enum plot_graph g,
					  const char *title);
int64_t plot_run_t0(const struct plot_run *r);

/* The series a simulated run computes while it runs (fed from its event
 * stream), saved beside its stats as PLOT_SERIES_FILE so that plotting need
 * not read the trace again.  Text: "plot-series 1" and the counts, then per
 * series a "series ID FED N" line and N "us value" lines (docs/plot-report.md).
 * PLOT_SERIES_POINTS is what the simulator keeps per series: twice the
 * graph's pixel columns, so each column's min and max survive. */
#define PLOT_SERIES_FILE "plot-series"
#define PLOT_SERIES_POINTS 2000
/* 0, or -1 (errno set) when the file could not be written.  trace_bytes is
 * the size of the trace the series came from (-1: none): plotting uses the
 * saved series only while the result's trace still has that size, whatever
 * the files' times (a copy may not keep them). */
int plot_run_save(const struct plot_run *r, const char *path, long long trace_bytes);
/* The trace size a saved series file records, or -1 (none, or not one). */
long long plot_series_trace_bytes(const char *path);
/* Loads a saved file into a new run r (plot_run_new); 0, or -1 with err
 * naming file and line. */
int plot_run_load_series(struct plot_run *r, const char *path, char *err, size_t errlen);
/* The pid whose balance_dirty_pages stream the pages/pause graphs show. */
int plot_run_bdp_pid(const struct plot_run *r);

/* Writes DIR/G.dat and DIR/G.gp for graph g from 1 run, or 2 overlaid on the
 * same axes.  Returns 0 or -1 with err. */
int plot_write_graph(struct plot_run *const *runs, int nruns, enum plot_graph g,
		     const char *title, const char *outdir, char *err, size_t errlen);

/* ---- whole result directories ------------------------------------------- */

struct plot_opts {
	const char *outdir;     /* NULL: DIR/plots (overlay: DIR/plots/overlay-KERNEL2) */
	const char *overlay;    /* second result directory drawn on the same axes */
	int max_points;         /* per series; <= 0: PLOT_MAX_POINTS */
	int no_gnuplot;         /* write .dat and .gp only */
	int jobs;               /* gnuplot processes at once; <= 0: online CPUs */
	int from_trace;         /* read the trace even when PLOT_SERIES_FILE is there */
	int progress_fd;        /* > 0: a byte per graph written ('T') and drawn ('g') */
	const char *skip_option; /* named when gnuplot is missing; NULL: --no-gnuplot */
};

struct plot_summary {
	char outdir[4096];
	int nmade;
	enum plot_graph made[PG_COUNT];
	int nskipped;
	char skipped[PG_COUNT][200];  /* "balance_dirty_pages-pages: no ... events" */
	int nnotes;
	char notes[PG_COUNT][200];    /* overlay: graphs drawn for one run only */
	double seconds;               /* wall time of the whole call */
	uint64_t events;              /* events read (both runs) */
	int from_series;              /* runs whose saved series were used, not the trace */
	int nruns;                    /* runs drawn: 1, or 2 with an overlay */
	int main_from_series;         /* the DIR's own run (not the overlay's) among them */
};

/* Plots one result directory (holding `trace` and `meta`).  Returns 0, or -1
 * with a one-line reason naming the directory or file in err. */
int plot_result(const char *dir, const struct plot_opts *o, struct plot_summary *sum,
		char *err, size_t errlen);

/* One result to plot (overlay NULL: on its own), for plot_many. */
struct plot_job {
	const char *dir, *overlay, *outdir;
	int rc;                         /* out: 0, or -1 with err */
	char err[4600];
	struct plot_summary sum;
};

/* Progress of plot_many: graphs drawn of those known so far (a result's
 * graphs are known once its series are extracted), results done of n. */
typedef void (*plot_progress_fn)(void *arg, int graphs_done, int graphs_known, int results_done,
				 int nresults);
/* A plot_progress_fn: "PREFIX: 40/96 graphs, 7/24 results" on stderr (a
 * terminal's), rewritten in place; arg is the PREFIX ("plot"). */
void plot_progress_line(void *prefix, int graphs_done, int graphs_known, int results_done,
			int results);

/* Plots n results in up to `workers` processes at once (<= 0: online CPUs),
 * gnuplot jobs shared out so that about `workers` processes run at a time in
 * all; each job's rc/err/sum are filled in job order, whatever finishes
 * first.  o gives max_points and no_gnuplot (dir, overlay and outdir come from
 * each job).  progress may be NULL.  Returns the number of failed jobs. */
int plot_many(struct plot_job *jobs, int n, const struct plot_opts *o, int workers,
	      plot_progress_fn progress, void *arg);

/* Path of gnuplot in PATH into buf; -1 when missing. */
int plot_find_gnuplot(char *buf, size_t n);

/* Reads OUTDIR/index as plot_result wrote it; -1 if absent or unreadable. */
int plot_read_index(const char *outdir, struct plot_summary *sum);

#endif
