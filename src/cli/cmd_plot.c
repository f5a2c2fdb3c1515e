/* wblab plot: the CLI face of src/analysis/plot.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "../analysis/plot.h"
#include "../util/util.h"

static const char usage[] =
	"usage: wblab plot [-o OUTDIR] [--overlay DIR2] [--max-points N] [--no-gnuplot]\n"
	"                  [--from-trace] [-j N] [-q] DIR...\n"
	"\n"
	"Draw the writeback-tests graphs of each result directory DIR from its `trace`\n"
	"(simulated, real or imported alike), as SVG (800x500) and PNG (1024x640):\n"
	"\n"
	"  global_dirty_state             dirty, writeback, unstable and their sum against\n"
	"                                 bg_thresh, thresh and limit (MB)\n"
	"  global_dirtied_written         pages dirtied and written since the first event (MB)\n"
	"  balance_dirty_pages-pages      limit, setpoint, dirty, bdi setpoint and dirty (MB);\n"
	"                                 task, dirty and balanced ratelimits (MB/s, log2 y2)\n"
	"  balance_dirty_pages-bandwidth  write bandwidth and its average, dirty, balanced\n"
	"                                 and task ratelimits (MB/s)\n"
	"  balance_dirty_pages-pause      pause and paused (ms); dirtied and its target\n"
	"                                 dirtied_pause (pages, y2)\n"
	"  balance_dirty_pages-task-bw    cumulative MB dirtied per writer task (up to 10)\n"
	"  nfs-commit                     COMMITs sent, write chunk, COMMITs released (MB)\n"
	"  writeback-file-progress        per file, the offset written back (MB): with one\n"
	"                                 writer per file, each writer's progress (3.1 too)\n"
	"\n"
	"The pages and pause graphs follow one task: the first non-flusher pid with\n"
	"balance_dirty_pages events (named in the title).  A graph whose events are\n"
	"absent (3.1 has no balance_dirty_pages; NFS events exist only on NFS runs with\n"
	"Wu's trace patches) is skipped with a one-line note.  Time is in seconds from\n"
	"the first event of each trace.  See docs/plot-report.md.\n"
	"\n"
	"Each series keeps, per pixel column of the graph, its lowest and highest\n"
	"point (at most 992 points, spikes kept).  Pause and bandwidth axes are set\n"
	"by the run after its first tenth, start-up outliers marked on the top edge.\n"
	"A simulated result is drawn from the series it saved while running\n"
	"(DIR/plot-series; its trace with --from-trace or --max-points above 2000),\n"
	"anything else from its trace.\n"
	"\n"
	"Per graph G the output directory holds G.dat (one gnuplot `index` block per\n"
	"series), G.gp (edit it and run `gnuplot G.gp` there to redraw), G.png and\n"
	"G.svg, plus `index` (graphs made and skipped) and gnuplot.log if gnuplot\n"
	"printed anything.  On a terminal, stderr shows `plot: N/M graphs`.\n"
	"\n";

static const char usage_end[] =
	"\n"
	"Exit status: 0 ok; 1 missing/unreadable DIR, no trace, malformed trace, gnuplot\n"
	"missing or failing; 2 usage (also one result given twice with -o).\n";

struct cli {
	struct plot_opts o;
	const char *out;
	uint64_t jobs;
	int quiet;
};

#define PO_STRUCT struct cli
static const struct po_option options[] = {
	OPT_STRING_NONEMPTY('o', "output", out, "OUTDIR",
			    "write there (default DIR/plots; with --overlay\n"
			    "DIR/plots/overlay-KERNEL2); with several DIRs, each\n"
			    "goes to OUTDIR/<basename of DIR>, or, when two DIRs\n"
			    "share a basename, every DIR to OUTDIR/<its path below\n"
			    "the directory holding them all> (both after resolving\n"
			    "symlinks, . and ..); two DIRs that are one result are\n"
			    "refused"),
	OPT_STRING(0, "overlay", o.overlay, "DIR2",
		   "draw DIR2 on the same axes as each DIR (dashed, in its\n"
		   "own colours, a legend line per run),\n"
		   "keys naming each run by its meta kernel (directory\n"
		   "names when both kernels are equal)"),
	OPT_INT(0, "max-points", o.max_points, "N", 4, 10000000,
		"points kept per series while reading: each series is\n"
		"cut into N/2 time buckets keeping each bucket's min and\n"
		"max; the graph then keeps each pixel column's min and\n"
		"max (at most 992 points); stats are never computed from\n"
		"this.  Default: a simulated result's saved plot-series\n"
		"(2000 points), anything else its trace with N=20000;\n"
		"an explicit N up to 2000 re-buckets the saved series,\n"
		"above 2000 reads the trace (so 20000 is not the default\n"
		"for a simulated result)"),
	OPT_U64('j', "jobs", jobs, "N", 1, 256,
		"processes at once (DIRs in parallel, then gnuplot runs;\n"
		"default: number of CPUs)"),
	OPT_FLAG(0, "from-trace", o.from_trace,
		 "read the trace even when the simulator saved the series\n"
		 "(DIR/plot-series, used while the trace has the size it\n"
		 "records and --max-points is at most 2000)"),
	OPT_FLAG('q', "quiet", quiet, "no progress line on a terminal"),
	OPT_FLAG(0, "no-gnuplot", o.no_gnuplot, "write the .dat and .gp files only (older images of\n"
						"those graphs are removed)"),
	OPT_END(),
};

static void report(const char *dir, const struct plot_summary *s)
{
	/* with an overlay, say which of the two runs came from its saved series */
	const char *src = !s->from_series ? "" : s->from_series >= s->nruns ? ", from the saved plot-series"
			  : s->main_from_series ? ", the result's from its saved plot-series"
						: ", the overlay's from its saved plot-series";
	printf("%s: %d graph%s in %s (%llu events, %.2f s%s)\n", dir, s->nmade, s->nmade == 1 ? "" : "s",
	       s->outdir, (unsigned long long)s->events, s->seconds, src);
	for (int i = 0; i < s->nskipped; i++)
		printf("  skipped %s\n", s->skipped[i]);
	for (int i = 0; i < s->nnotes; i++)
		printf("  note %s\n", s->notes[i]);
}


/* Each DIR's subdirectory of OUTDIR when several DIRs share one -o: the
 * basename of its real path while those are distinct (so one DIR per case,
 * the usual call, keeps short names, and `.` or `..` names the directory
 * they are); otherwise, for every DIR, its real path below the deepest
 * directory holding all of them, which distinct results never share.  Two
 * DIRs that are one result (the same real path) are refused, naming both,
 * rather than drawn into one directory twice. */
static int sub_outs(const char *out, char **dirs, int n, char (*outs)[4200])
{
	char **real = calloc((size_t)n, sizeof(*real));
	int rc = 0, clash = 0;
	if (!real) {
		wb_error("plot: out of memory");
		return 1;
	}
	for (int i = 0; i < n && !rc; i++)
		if (!(real[i] = realpath(dirs[i], NULL))) {
			/* plotting it would fail anyway: say so now */
			wb_error("plot: %s: %s", dirs[i], strerror(errno));
			rc = 1;
		}
	for (int i = 0; i < n && !rc; i++)
		for (int j = 0; j < i && !rc; j++) {
			size_t bi, li, bj, lj;
			if (!strcmp(real[i], real[j])) {
				wb_error("plot: %s and %s are one result (%s)", dirs[j], dirs[i], real[i]);
				rc = EXIT_USAGE;
			}
			path_base_span(real[i], &bi, &li);
			path_base_span(real[j], &bj, &lj);
			clash |= li == lj && !memcmp(real[i] + bi, real[j] + bj, li);
		}
	/* the common directory: the first cl bytes of each real path, cl always
	 * at a '/' of all of them, at most each one's parent */
	size_t cl = 0;
	for (int i = 0; clash && !rc && i < n; i++) {
		size_t b, l;
		path_base_span(real[i], &b, &l);
		size_t parent = b > 0 ? b - 1 : 0, k = 0;
		if (i == 0)
			cl = parent;
		while (k < cl && k < parent && real[i][k] == real[0][k])
			k++;
		while (k > 0 && (real[0][k] != '/' || real[i][k] != '/'))
			k--;
		cl = k;
	}
	for (int i = 0; i < n && !rc; i++) {
		size_t b, l;
		path_base_span(real[i], &b, &l);
		size_t from = clash ? cl + 1 : b;
		snprintf(outs[i], sizeof(outs[i]), "%s/%.*s", out, (int)(b + l - from), real[i] + from);
	}
	for (int i = 0; i < n; i++)
		free(real[i]);
	free(real);
	return rc;
}

static int run_plot(int argc, char **argv)
{
	struct cli c = { 0 };
	char **dirs = calloc((size_t)argc, sizeof(*dirs));
	int n = dirs ? po_parse_cmd(argv[0], options, &c, argc, argv, 0, dirs) : -1;
	if (n <= 0) {
		if (n == 0)
			wb_error("plot: no DIR given (see 'wblab help plot')");
		free(dirs);
		return EXIT_USAGE;
	}
	struct plot_job *jobs = calloc((size_t)n, sizeof(*jobs));
	char (*outs)[4200] = calloc((size_t)n, sizeof(*outs));
	if (!jobs || !outs) {
		wb_error("plot: out of memory");
		return 1;
	}
	int bad = c.out && n > 1 ? sub_outs(c.out, dirs, n, outs) : 0;
	if (bad) {
		free(jobs);
		free(outs);
		free(dirs);
		return bad;
	}
	for (int i = 0; i < n; i++) {
		jobs[i].dir = dirs[i];
		jobs[i].overlay = c.o.overlay;
		jobs[i].outdir = !c.out ? NULL : n == 1 ? c.out : outs[i];
	}
	int tty = !c.quiet && isatty(STDERR_FILENO);
	plot_many(jobs, n, &c.o, (int)c.jobs, tty ? plot_progress_line : NULL, (void *)"plot");
	int rc = 0;
	for (int i = 0; i < n; i++) {
		if (jobs[i].rc) {
			wb_error("plot: %s", jobs[i].err);
			rc = 1;
			continue;
		}
		report(dirs[i], &jobs[i].sum);
	}
	fflush(stdout);
	free(jobs);
	free(outs);
	free(dirs);
	return rc;
}

WB_COMMAND(plot, 90) = {
	"plot", "writeback-tests graphs (PNG+SVG via gnuplot) of result directories",
	usage, options, usage_end, NULL, run_plot,
};
