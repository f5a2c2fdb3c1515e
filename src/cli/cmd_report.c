/* wblab report: the CLI face of src/analysis/report.c. */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "../analysis/report.h"
#include "../util/util.h"

static const char usage[] =
	"usage: wblab report [-o FILE] [-c FIELD] [--title TEXT] [--no-graphs]\n"
	"                    [--max-points N] DIR...\n"
	"\n"
	"Write one self-contained HTML page about the results under DIR... (result\n"
	"directories or roots searched recursively, as for compare): readable offline,\n"
	"no external URLs, CSS and graphs (SVG) inline.  It holds\n"
	"\n"
	"  - compare tables, one row per case and one column per value of FIELD:\n"
	"    write_bw, nr_dirty_mean_mb, time_over_limit_s, pause_ms_p99, pause_ms_max,\n"
	"    fairness_jain (with TOTAL and GEOMEAN rows; write_bw also as the text\n"
	"    `wblab compare` prints);\n"
	"  - environment differences: per case present in several columns, the\n"
	"    params and (real runs) `env` entries whose values differ;\n"
	"  - per result: its meta, key stats, graphs, parameters, env, command line\n"
	"    and all stats.\n"
	"\n"
	"Graphs come from DIR/plots (see 'wblab help plot').  When they are missing\n"
	"or older than the trace they are drawn first, into DIR/plots, or into a\n"
	"temporary directory when DIR is not writable; that needs gnuplot.\n"
	"\n"
	"  -o, --output FILE   the page (default report.html); written to FILE.tmp.PID\n"
	"                      and renamed, so a failed run leaves no half page\n"
	"  -c, --compare FIELD compare columns (default kernel; see 'wblab help compare')\n"
	"      --title TEXT    page title (default \"wblab report\")\n"
	"      --no-graphs     no graphs: a stats-only page, no trace or gnuplot needed\n"
	"      --max-points N  display points per series when plotting (default 20000)\n"
	"\n"
	"Exit: 0 ok; 1 missing/unreadable DIR, a result without trace (unless\n"
	"--no-graphs), malformed stats/meta/params, gnuplot missing or failing; 2 usage.\n";

static int run_report(int argc, char **argv)
{
	enum { OPT_TITLE = 256, OPT_NOGRAPHS, OPT_MAX };
	static const struct option longopts[] = {
		{ "output", required_argument, NULL, 'o' },
		{ "compare", required_argument, NULL, 'c' },
		{ "title", required_argument, NULL, OPT_TITLE },
		{ "no-graphs", no_argument, NULL, OPT_NOGRAPHS },
		{ "max-points", required_argument, NULL, OPT_MAX },
		{ NULL, 0, NULL, 0 },
	};
	struct report_opts o = { .out = "report.html" };
	int ch;
	uint64_t v;
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "o:c:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'o':
			if (!*optarg) {
				wb_error("report: empty output file (-o '')");
				return EXIT_USAGE;
			}
			o.out = optarg;
			break;
		case 'c': o.field = optarg; break;
		case OPT_TITLE: o.title = optarg; break;
		case OPT_NOGRAPHS: o.no_graphs = 1; break;
		case OPT_MAX:
			if (parse_u64(optarg, &v) == 0 && v >= 4 && v <= 10000000) {
				o.max_points = (int)v;
				break;
			}
			wb_error("report: --max-points must be 4..10000000, not '%s'", optarg);
			return EXIT_USAGE;
		default:
			wb_error("report: bad option '%s' (see 'wblab help report')", argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		wb_error("report: no DIR given (see 'wblab help report')");
		return EXIT_USAGE;
	}
	struct report_summary s;
	char err[4600];
	if (report_write((const char *const *)argv + optind, argc - optind, &o, &s, err, sizeof(err))) {
		wb_error("report: %s", err);
		return 1;
	}
	printf("%s: %d result%s, %d compare table%s, %d graph%s (%d result%s plotted now)\n", o.out,
	       s.nresults, s.nresults == 1 ? "" : "s", s.ntables, s.ntables == 1 ? "" : "s", s.ngraphs,
	       s.ngraphs == 1 ? "" : "s", s.nplotted, s.nplotted == 1 ? "" : "s");
	return 0;
}

WB_COMMAND(report, 100) = {
	"report", "one self-contained HTML page: compare tables, stats, graphs, params, env diff",
	usage, NULL, NULL, NULL, run_report,
};
