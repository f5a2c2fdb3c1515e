/* wblab validate: re-run real results in the simulator (current model,
 * calibrated device) and print sim/real ratios. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "../analysis/plot.h"
#include "../analysis/report.h"
#include "../analysis/validate.h"
#include "../util/util.h"

static const char usage_text[] =
	"usage: wblab validate [options] DIR...\n"
	"For each real result DIR (made by 'wblab run'): calibrates the simulator from it\n"
	"(as 'wblab calibrate'), simulates the same CASE for the same runtime under the\n"
	"'current' (Linux 6.x) model, and prints real and simulated values with sim/real\n"
	"ratios of write_bw, nr_dirty_mean_pages, nr_dirty_p95_pages (time-weighted, from\n"
	"the traces), pause_ms_mean, task_ratelimit_steady_kbps (mean task_ratelimit of\n"
	"balance_dirty_pages in the second half), fairness_jain and device_bw (what\n"
	"reached the device), then the device stalls of each run, unmarked\n"
	"(stall_count, stall_s_total, stall_ms_max: docs/stats.md).  Ratios of write_bw,\n"
	"mean dirty, mean pause and device_bw are marked ok/MISS against 10%, 15%, 25%\n"
	"and 10%; a metric neither run measured (neither paused) is n/a, one only one\n"
	"of them measured (one paused, the other never) is a MISS.  Only results of\n"
	"'wblab run' are taken (meta source real).\n\n";

static const char usage_end[] =
	"\nExit status: 0 every marked metric within its target; 3 validated, but some\n"
	"metric MISSed; 1 a DIR could not be read or simulated (or is not a real run);\n"
	"2 bad options.\n";

struct vopts {
	const char *out;
	const char *report;
	int tsv;
	double hz;
	uint64_t seed;
};

static const char *const formats[] = { "table", "tsv", NULL };

#define PO_STRUCT struct vopts
static const struct po_option options[] = {
	OPT_STRING_NONEMPTY('o', "out", out, "DIR",
			    "keep the simulated results under DIR (default: a temporary\n"
			    "directory, removed at the end), e.g. for 'wblab plot --overlay':\n"
			    "DIR/GROUP/CASE-current, and for the Nth real result of one\n"
			    "GROUP/CASE given (repeats, other kernels) CASE-current.N"),
	OPT_CHOICE(0, "format", tsv, "F", formats,
		   "table (default) or tsv: case<TAB>metric<TAB>real<TAB>sim<TAB>ratio"),
	OPT_DOUBLE(0, "hz", hz, "N", 10, 10000, "the real kernel's HZ (default 250, this machine's)"),
	OPT_U64(0, "seed", seed, "N", 0, 0, "simulator seed (default 1)"),
	OPT_STRING(0, "report", report, "FILE",
		   "also write an HTML report (wblab report) of the real and\n"
		   "simulated results, with each real result's graphs and its\n"
		   "own simulated run overlaid on the same axes\n"
		   "(plots/overlay-current)"),
	OPT_END(),
};

/* Real and simulated results side by side, the simulated run overlaid on
 * each real result's graphs. */
static int write_report(const char *html, char **real, const struct validate_result *vr, int n)
{
	char err[512];
	const char **dirs = calloc((size_t)(2 * n), sizeof(*dirs));
	if (!dirs)
		return -1;
	for (int i = 0; i < n; i++) {
		struct plot_opts po = { .overlay = vr[i].sim_dir, .max_points = 4000 };
		struct plot_summary ps;
		if (plot_result(real[i], &po, &ps, err, sizeof(err)))
			wb_error("overlay of %s: %s", real[i], err);
		dirs[i] = real[i];
		dirs[n + i] = vr[i].sim_dir;
	}
	struct report_opts ro = { .out = html, .title = "wblab validate: real vs current",
				  .max_points = 4000 };
	struct report_summary rs;
	int rc = report_write(dirs, 2 * n, &ro, &rs, err, sizeof(err));
	if (rc)
		wb_error("report: %s", err);
	else
		fprintf(stderr, "report: %s (%d results, %d graphs)\n", html, rs.nresults, rs.ngraphs);
	free(dirs);
	return rc;
}

static int run_validate(int argc, char **argv)
{
	struct vopts v = { NULL, NULL, 0, 250, 1 };
	char **dirs = calloc((size_t)argc, sizeof(*dirs));
	int n = dirs ? po_parse_cmd(argv[0], options, &v, argc, argv, PO_STOP_AT_NON_OPTION, dirs) : -1;
	if (n <= 0) {
		if (n == 0)
			wb_error("validate: no DIR given (see 'wblab help validate')");
		free(dirs);
		return EXIT_USAGE;
	}
	char tmp[] = "/tmp/wblab-validate.XXXXXX";
	if (!v.out && !(v.out = mkdtemp(tmp))) {
		wb_error("cannot create a temporary directory");
		free(dirs);
		return 1;
	}
	int done = 0, failed = 0;
	struct validate_result *vr = calloc((size_t)n, sizeof(*vr));
	char **real = calloc((size_t)n, sizeof(*real));
	if (!vr || !real) {
		free(vr);
		free(real);
		free(dirs);
		wb_error("out of memory");
		return 1;
	}
	struct validate_opts o = { v.out, v.hz, v.seed, NULL, 0 };
	for (int i = 0; i < n; i++) {
		char err[512];
		o.prev = vr;
		o.nprev = done;
		if (validate_dir(dirs[i], &o, &vr[done], err, sizeof(err))) {
			wb_error("%s", err);
			failed++;
			continue;
		}
		real[done++] = dirs[i];
	}
	if (v.tsv)
		validate_print_tsv(stdout, vr, done);
	else
		validate_print_table(stdout, vr, done);
	if (v.report && done && write_report(v.report, real, vr, done))
		failed++;
	int misses = validate_misses(vr, done);
	if (v.out == tmp)
		remove_tree(tmp);
	free(vr);
	free(real);
	free(dirs);
	return failed ? 1 : misses ? 3 : 0;
}

WB_COMMAND(validate, 120) = {
	"validate", "simulate real results under 'current' and print sim/real ratios",
	usage_text, options, usage_end, NULL, run_validate,
};
