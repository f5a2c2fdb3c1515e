/* wblab report: the CLI face of src/analysis/report.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "../analysis/report.h"
#include "../util/util.h"

static const char usage[] =
	"usage: wblab report [-o FILE] [-c FIELD] [--title TEXT] [--no-graphs]\n"
	"                    [--max-points N] [-q] DIR...\n"
	"\n"
	"Write one self-contained HTML page about the results under DIR... (result\n"
	"directories or roots searched recursively, as for compare, which may overlap;\n"
	"a result reached twice is shown once): readable offline,\n"
	"no external URLs, CSS and graphs (SVG) inline.  It holds\n"
	"\n"
	"  - compare tables, one row per case and one column per value of FIELD:\n"
	"    write_bw, nr_dirty_mean_mb, time_over_limit_s, pause_ms_p99, pause_ms_max,\n"
	"    fairness_jain (with TOTAL and GEOMEAN rows; write_bw also as the text\n"
	"    `wblab compare` prints);\n"
	"  - environment differences: per case present in several columns, the\n"
	"    params and (real runs) `env` entries whose values differ;\n"
	"  - per result: its meta, key stats, graphs (each with a link to its PNG,\n"
	"    relative to the page, for mail), parameters, env, command line and all\n"
	"    stats.\n"
	"\n"
	"Graphs come from DIR/plots (see 'wblab help plot').  When they are missing\n"
	"or older than the trace they are drawn first, into DIR/plots, or into a\n"
	"temporary directory when DIR is not writable; that needs gnuplot.  They are\n"
	"plotted in parallel, with `report: plotting N/M graphs` on a terminal.\n"
	"\n";

static const char usage_end[] =
	"\n"
	"Exit status: 0 ok; 1 missing/unreadable DIR, a result without trace (unless\n"
	"--no-graphs), malformed stats/meta/params, gnuplot missing or failing; 2 usage\n"
	"(also a FIELD no result has, as compare says it).\n";

#define PO_STRUCT struct report_opts
static const struct po_option options[] = {
	OPT_STRING_NONEMPTY('o', "output", out, "FILE",
			    "the page (default report.html); written to FILE.tmp.PID\n"
			    "and renamed, so a failed run leaves no half page"),
	OPT_STRING('c', "compare", field, "FIELD", "compare columns (default kernel; see 'wblab help compare')"),
	OPT_STRING(0, "title", title, "TEXT", "page title (default \"wblab report\")"),
	OPT_FLAG(0, "no-graphs", no_graphs, "no graphs: a stats-only page, no trace or gnuplot needed"),
	OPT_INT(0, "max-points", max_points, "N", 4, 10000000,
		"points per series when plotting, as for 'wblab plot'\n"
		"(default: a simulated result's saved plot-series, 2000\n"
		"points, anything else its trace with N=20000; N above\n"
		"2000 reads the trace of a simulated result too)"),
	OPT_FLAG('q', "quiet", quiet, "no progress line on a terminal while plotting"),
	OPT_END(),
};

static int run_report(int argc, char **argv)
{
	struct report_opts o = { .out = "report.html" };
	char **dirs = calloc((size_t)argc, sizeof(*dirs));
	int n = dirs ? po_parse_cmd(argv[0], options, &o, argc, argv, 0, dirs) : -1;
	if (n <= 0) {
		if (n == 0)
			wb_error("report: no DIR given (see 'wblab help report')");
		free(dirs);
		return EXIT_USAGE;
	}
	struct report_summary s;
	char err[4600];
	int rc = report_write((const char *const *)dirs, n, &o, &s, err, sizeof(err));
	free(dirs);
	if (rc) {
		wb_error("report: %s", err);
		return rc == REPORT_EUSAGE ? EXIT_USAGE : 1;
	}
	printf("%s: %d result%s, %d compare table%s, %d graph%s (%d result%s plotted now)\n", o.out,
	       s.nresults, s.nresults == 1 ? "" : "s", s.ntables, s.ntables == 1 ? "" : "s", s.ngraphs,
	       s.ngraphs == 1 ? "" : "s", s.nplotted, s.nplotted == 1 ? "" : "s");
	return 0;
}

WB_COMMAND(report, 100) = {
	"report", "one self-contained HTML page: compare tables, stats, graphs, params, env diff",
	usage, options, usage_end, NULL, run_report,
};
