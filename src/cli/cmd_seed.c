/* wblab seed: reproduce the seed table (docs/seed-reproduction.md) in
 * simulation - 12 NFS cases under the two kernels, the compare table, graphs
 * and an HTML report. */
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>
#include "commands.h"
#include "sim_matrix.h"
#include "sim_options.h"
#include "../analysis/compare.h"
#include "../analysis/plot.h"
#include "../result/result.h"
#include "../sim/sim.h"
#include "../sim/simulate.h"
#include "../throttle/throttle.h"
#include "../util/util.h"
#include "../result/metrics.h"

#define NSEED 12
static const char *const seed_cases[NSEED] = {
	"NFS-thresh=100M/nfs-10dd-4k-32p-32768M-100M:10", "NFS-thresh=100M/nfs-1dd-4k-32p-32768M-100M:10",
	"NFS-thresh=100M/nfs-2dd-4k-32p-32768M-100M:10",  "NFS-thresh=10M/nfs-10dd-4k-32p-32768M-10M:10",
	"NFS-thresh=10M/nfs-1dd-4k-32p-32768M-10M:10",    "NFS-thresh=10M/nfs-2dd-4k-32p-32768M-10M:10",
	"NFS-thresh=1G/nfs-10dd-4k-32p-32768M-1024M:10",  "NFS-thresh=1G/nfs-1dd-4k-32p-32768M-1024M:10",
	"NFS-thresh=1G/nfs-2dd-4k-32p-32768M-1024M:10",   "NFS-thresh=1M/nfs-10dd-4k-32p-32768M-1M:10",
	"NFS-thresh=1M/nfs-1dd-4k-32p-32768M-1M:10",      "NFS-thresh=1M/nfs-2dd-4k-32p-32768M-1M:10",
};
static const char *const seed_kernels[2] = { "3.1.0-rc8-vanilla+", "3.1.0-rc8-nfs-wq4+" };

/* the NFS metrics writeback-tests' compare-nfs printed as TOTAL rows */
static const enum metric_id nfs_metrics[] = {
	M_NFS_NR_COMMITS, M_NFS_NR_WRITES, M_NFS_COMMIT_SIZE, M_NFS_WRITE_SIZE,
	M_NFS_WRITE_QUEUE_TIME, M_NFS_WRITE_RTT_TIME, M_NFS_WRITE_EXECUTE_TIME,
	M_NFS_COMMIT_QUEUE_TIME, M_NFS_COMMIT_RTT_TIME, M_NFS_COMMIT_EXECUTE_TIME,
	M_NR_DIRTY_MAX_MB,
};

static const char usage[] =
	"usage: wblab seed [-o DIR] [-t SEC] [-j N] [--seed N] [--set KEY=VAL]... [--no-plots] [--no-trace]\n"
	"                  [--trace-format dat|text] [-q]\n"
	"Reproduce the seed table (docs/seed-reproduction.md): simulate its 12 NFS cases\n"
	"under 3.1.0-rc8-vanilla+ (3.1 IO-ful throttling) and 3.1.0-rc8-nfs-wq4+ (IO-less\n"
	"throttling + the NFS writeback wait queue), print the write_bw table in the\n"
	"seed's layout, then the NFS metrics (TOTAL rows), and write graphs and a report.\n\n";

struct cli {
	const char *out;
	double runtime;
	uint64_t jobs, seed;
	int no_plots, no_trace, text_trace, quiet;
	struct sim_params p;
	int nsets;
	const char *sets[SIM_MAX_SETS];   /* --set KEY=VAL as given: each result's cmdline */
};

static int opt_set(const struct po_option *opt, const char *arg, void *base, char *err, size_t n)
{
	(void)opt;
	struct cli *o = base;
	if (o->nsets == SIM_MAX_SETS) {
		snprintf(err, n, "more than %d --set options", SIM_MAX_SETS);
		return -1;
	}
	if (sim_set_option(&o->p, arg, err, n))
		return -1;
	o->sets[o->nsets++] = arg;
	return 0;
}

#define PO_STRUCT struct cli
static const struct po_option options[] = {
	OPT_STRING_NONEMPTY('o', "out", out, "DIR",
			    "results root (default ./seed-results); also gets\n"
			    "compare-write_bw.txt, compare-nfs.txt, report.html and\n"
			    ".wblab-order (vanilla first, for 'wblab compare DIR')"),
	SIM_OPT_RUNTIME(runtime, "simulated seconds per case (default 300, as the seed's runs)"),
	SIM_OPT_JOBS(jobs),
	SIM_OPT_SEED(seed, "random seed of every case (default 1): the server disk's\n"
			   "service-time jitter; other seeds show how robust a row is"),
	OPT_CALLBACK(0, "set", "KEY=VAL", opt_set,
		     "override a model parameter (see 'wblab sim --help'); the\n"
		     "same value applies to every case"),
	OPT_FLAG(0, "no-plots", no_plots, "skip graphs and the report"),
	OPT_FLAG('q', "quiet", quiet, "no progress lines on a terminal"),
	OPT_FLAG(0, "no-trace", no_trace, "write no traces (implies --no-plots; stats are the same)"),
	SIM_OPT_TRACE_FORMAT(text_trace, "dat (default): each result's trace.dat (trace-cmd v7,\n"
					 "zstd); text: the ftrace text `trace` ('wblab trace DIR'\n"
					 "prints a trace.dat as that text)"),
	OPT_END(),
};

/* result dirs of one kernel, in seed order */
static void result_dirs(const char *out, const struct sim_job *js, int k, char **dirs)
{
	for (int i = 0; i < NSEED; i++) {
		const struct sim_job *j = &js[i * 2 + k];
		size_t n = strlen(out) + strlen(j->c.group) + strlen(j->c.name) + 64;
		dirs[i] = malloc(n);
		snprintf(dirs[i], n, "%s%s%s/%s-%s", out, result_root_sep(out), j->c.group, j->c.name,
			 j->kernel_name);
	}
}

static int print_compare(const char *metric, char **dirs, FILE *f, int total_only)
{
	struct cmp_options o = { .field = "kernel", .metric = metric };
	struct cmp_table *t;
	char err[512];
	if (cmp_build(&o, (const char *const *)dirs, 2 * NSEED, &t, err, sizeof(err))) {
		wb_error("compare %s: %s", metric, err);
		return -1;
	}
	if (total_only) {
		/* only the TOTAL row, as Wu's NFS mails stacked them */
		double pct;
		fprintf(f, "%24.2f  ", t->total[0]);
		if (cmp_change(t->total[0], t->total[1], &pct))
			fprintf(f, "%+10.1f%% %12.2f  ", pct, t->total[1]);
		else
			fprintf(f, "%24.2f  ", t->total[1]);
		fprintf(f, "TOTAL %s\n", metric);
	} else {
		cmp_write(t, CMP_TEXT, f);
	}
	cmp_free(t);
	return 0;
}

/* Runs `wblab ARGS...` (this same binary) and waits; the child's stdout goes
 * to stderr so that seed's stdout holds the tables alone. */
static int run_self(char *const args[])
{
	fflush(stdout);
	pid_t self = getpid(), pid = fork();
	if (pid == 0) {
		die_with_parent(self);
		if (dup2(STDERR_FILENO, STDOUT_FILENO) < 0)
			_exit(127);
		execv("/proc/self/exe", args);
		_exit(127);
	}
	int st;
	if (pid < 0 || waitpid(pid, &st, 0) < 0)
		return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

static void plots_and_report(const char *out, char **van, char **wq4, int jobs, int quiet)
{
	int bad = 0;
	/* every result, and vanilla vs wq4 on the same axes at 1M, all in one
	 * pool of processes (the series are decimated to the graph's pixels) */
	struct plot_job pj[2 * NSEED + NSEED];
	int nj = 0;
	for (int i = 0; i < NSEED; i++) {
		pj[nj++] = (struct plot_job){ .dir = van[i] };
		pj[nj++] = (struct plot_job){ .dir = wq4[i] };
		if (strstr(van[i], "-1M:"))
			pj[nj++] = (struct plot_job){ .dir = van[i], .overlay = wq4[i] };
	}
	struct plot_opts po = { 0 };     /* the series each run saved */
	int tty = !quiet && isatty(STDERR_FILENO);
	if (plot_many(pj, nj, &po, jobs, tty ? plot_progress_line : NULL, (void *)"plot"))
		for (int i = 0; i < nj; i++)
			if (pj[i].rc) {
				wb_error("plot: %s", pj[i].err);
				bad = 1;
			}
	char html[4200];
	snprintf(html, sizeof(html), "%s/report.html", out);
	char *rargs[2 * NSEED + 6];
	int n = 0;
	rargs[n++] = "wblab";
	rargs[n++] = "report";
	if (quiet)
		rargs[n++] = "-q";
	for (int i = 0; i < NSEED; i++)
		rargs[n++] = van[i];
	for (int i = 0; i < NSEED; i++)
		rargs[n++] = wq4[i];
	rargs[n++] = "-o";
	rargs[n++] = html;
	rargs[n] = NULL;
	if (!bad)
		bad = run_self(rargs) != 0;
	if (bad)
		wb_error("graphs or report could not be made (see above); the table stands");
	else
		fprintf(stderr, "graphs beside each result, report: %s\n", html);
}

static int write_file_tables(const char *out, char **dirs)
{
	char p[4200];
	snprintf(p, sizeof(p), "%s/compare-write_bw.txt", out);
	FILE *f = fopen(p, "w");
	if (!f)
		return -1;
	print_compare(METRIC_KEY(WRITE_BW), dirs, f, 0);
	fclose(f);
	snprintf(p, sizeof(p), "%s/compare-nfs.txt", out);
	f = fopen(p, "w");
	if (!f)
		return -1;
	for (size_t i = 0; i < ARRAY_SIZE(nfs_metrics); i++)
		print_compare(metric_table[nfs_metrics[i]].name, dirs, f, 1);
	fclose(f);
	return 0;
}

/* Records the seed's column order at the root, so that `wblab compare OUT`
 * puts vanilla first as this command's own table does. */
static int write_order(const char *out)
{
	char p[4200];
	snprintf(p, sizeof(p), "%s/%s", out, CMP_ORDER_FILE);
	FILE *f = fopen(p, "w");
	if (!f)
		return -1;
	fprintf(f, "kernel = %s,%s\n", seed_kernels[0], seed_kernels[1]);
	return fclose(f) ? -1 : 0;
}

static int run_seed(int argc, char **argv)
{
	static struct cli o = { .out = "seed-results", .runtime = 300, .seed = 1 };
	char err[512];
	o.jobs = (uint64_t)sysconf(_SC_NPROCESSORS_ONLN);
	params_defaults(&o.p);
	char **rest = calloc((size_t)argc, sizeof(*rest));
	int nrest = rest ? po_parse_cmd(argv[0], options, &o, argc, argv, PO_STOP_AT_NON_OPTION, rest) : -1;
	if (nrest > 0)
		wb_error("seed: unexpected argument '%s'", rest[0]);
	free(rest);
	if (nrest != 0)
		return EXIT_USAGE;
	if (result_root_check(argv[0], o.out))
		return EXIT_USAGE;
	const char *out = o.out;
	double runtime = o.runtime;
	uint64_t jobs = o.jobs, rng_seed = o.seed;
	int no_trace = o.no_trace, no_plots = o.no_plots || o.no_trace, text_trace = o.text_trace;
	int quiet = o.quiet;
	char gp[4200];
	/* graphs were asked for: without gnuplot say so once, before any work */
	if (!no_plots && plot_find_gnuplot(gp, sizeof(gp))) {
		wb_error("seed: gnuplot not found in PATH (Debian package gnuplot-nox; see "
			 "scripts/setup.sh), or use --no-plots; nothing was run");
		return 1;
	}
	struct sim_params *p = &o.p;
	struct sim_job js[2 * NSEED];
	unsigned char *warned = calloc(params_count(), 1);
	if (!warned) {
		wb_error("seed: out of memory");
		return 1;
	}
	for (int i = 0; i < NSEED; i++) {
		struct wb_case cs;
		if (case_parse(seed_cases[i], &cs, err, sizeof(err)))
			abort();
		if (sim_check(&cs, p, err, sizeof(err)) ||
		    sim_check_model(p, throttle_lookup(seed_kernels[0]), err, sizeof(err)) ||
		    sim_check_model(p, throttle_lookup(seed_kernels[1]), err, sizeof(err))) {
			wb_error("%s", err);
			free(warned);
			return EXIT_USAGE;
		}
		for (int k = 0; k < 2; k++)
			sim_warn_unused("seed", seed_cases[i], &cs, p, throttle_lookup(seed_kernels[k]), warned);
		for (int k = 0; k < 2; k++) {
			struct sim_job *j = &js[i * 2 + k];
			*j = (struct sim_job){ .c = cs, .model = throttle_lookup(seed_kernels[k]),
				.kernel_name = seed_kernels[k], .p = p, .seed = rng_seed, .runtime = runtime,
				.out = out, .no_trace = no_trace, .text_trace = text_trace };
			/* each result's cmdline is the `wblab sim` that makes it alone */
			if (!(j->argv = sim_job_cmdline(j, o.sets, o.nsets, &j->argc))) {
				wb_error("seed: out of memory");
				free(warned);
				sim_jobs_free_cmdlines(js, i * 2 + k);
				return 1;
			}
		}
	}
	free(warned);
	int failed = simulate_all(js, 2 * NSEED, (int)jobs, !quiet);
	sim_jobs_free_cmdlines(js, 2 * NSEED);
	if (failed)
		return 1;
	if (write_order(out))
		wb_error("cannot write %s/%s (compare of the root will order columns by name)", out,
			 CMP_ORDER_FILE);
	char *dirs[2 * NSEED];
	result_dirs(out, js, 0, dirs);
	result_dirs(out, js, 1, dirs + NSEED);
	int rc = print_compare(METRIC_KEY(WRITE_BW), dirs, stdout, 0);
	if (!rc) {
		printf("\n");
		for (size_t i = 0; i < ARRAY_SIZE(nfs_metrics); i++)
			print_compare(metric_table[nfs_metrics[i]].name, dirs, stdout, 1);
		fflush(stdout);
		if (write_file_tables(out, dirs))
			wb_error("cannot write the tables under %s", out);
		if (!no_plots)
			plots_and_report(out, dirs, dirs + NSEED, (int)jobs, quiet);
	}
	for (int i = 0; i < 2 * NSEED; i++)
		free(dirs[i]);
	return rc ? 1 : 0;
}

WB_COMMAND(seed, 20) = {
	"seed", "reproduce the seed table (NFS, 3.1 vs IO-less + NFS wait queue)",
	usage, options, NULL, NULL, run_seed,
};
