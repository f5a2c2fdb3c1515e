/* wblab sim: simulate CASEs under throttling models into result directories. */
#include <getopt.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "sim_options.h"
#include "../sim/sim.h"
#include "../sim/simulate.h"
#include "../throttle/throttle.h"
#include "../util/util.h"

static void usage(FILE *f)
{
	fputs("usage: wblab sim [options] CASE...\n"
	      "Simulate dd writers on Linux's buffered-write path under one or more throttling\n"
	      "models, deterministically.  Each (case, kernel) writes OUT/GROUP/CASE-KERNEL/ with\n"
	      "trace (ftrace text, that kernel's formats), stats, params, meta and cmdline.\n\n"
	      "  -k, --kernel LIST   comma-separated models (default: 3.1-vanilla,3.2-ioless)\n"
	      "  -t, --runtime SEC   simulated seconds per case (default 300)\n"
	      "  -o, --out DIR       results root (default ./results)\n"
	      "      --seed N        RNG seed (default 1); same inputs + seed = identical files\n"
	      "      --set KEY=VAL   override a model parameter (repeatable; list below)\n"
	      "  -j, --jobs N        cases run in parallel (default: number of CPUs)\n"
	      "      --no-trace      skip the trace file (stats are still computed)\n\n"
	      "CASE = [GROUP/]FS-NDD-BS-CPUSp-MEMM-THRESH:BG, e.g.\n"
	      "  thresh=100M/ext4-10dd-4k-8p-4096M-100M:10\n"
	      "THRESH/BG with a unit (K/M/G) are vm.dirty_bytes / dirty_background_bytes, bare\n"
	      "numbers vm.dirty_ratio / dirty_background_ratio.  GROUP defaults to thresh=THRESH.\n"
	      "FS ext2/ext3/ext4/xfs/btrfs all use the same disk model for now (one request\n"
	      "queue, sequential bandwidth, a seek between files); nfs is an NFSv3 mount over\n"
	      "a gigabit link to a one-disk server (see docs/nfs-model.md).\n"
	      "BS must be a multiple of 4k.\n\nmodels:\n", f);
	for (const struct throttle_model *const *m = throttle_models(); *m; m++)
		fprintf(f, "  %-22s %s\n", (*m)->name, (*m)->summary);
	fputs("\nparameters (--set KEY=VAL; name, default, range, meaning):\n", f);
	params_list(f);
}

static int parse_kernels(char *list, const struct throttle_model **out, int max)
{
	int n = 0;
	for (char *save = NULL, *k = strtok_r(list, ",", &save); k; k = strtok_r(NULL, ",", &save)) {
		const struct throttle_model *m = throttle_lookup(k);
		if (!m) {
			wb_error("unknown kernel model '%s' (see 'wblab sim --help')", k);
			return -1;
		}
		if (n == max) {
			wb_error("too many kernel models");
			return -1;
		}
		out[n++] = m;
	}
	if (!n)
		wb_error("--kernel: empty list");
	return n ? n : -1;
}

static int run_sim(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "kernel", required_argument, NULL, 'k' }, { "runtime", required_argument, NULL, 't' },
		{ "out", required_argument, NULL, 'o' },    { "seed", required_argument, NULL, 'S' },
		{ "set", required_argument, NULL, 's' },    { "jobs", required_argument, NULL, 'j' },
		{ "no-trace", no_argument, NULL, 'n' },     { NULL, 0, NULL, 0 },
	};
	char kernels[512] = "3.1-vanilla,3.2-ioless", err[512];
	const char *out = "results";
	double runtime = 300;
	uint64_t seed = 1, jobs = (uint64_t)sysconf(_SC_NPROCESSORS_ONLN);
	int no_trace = 0, c;
	struct sim_params p;
	params_defaults(&p);
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+k:t:o:j:", opts, NULL)) != -1) {
		switch (c) {
		case 't':
		case 'j':
		case 'S':
		case 's':
			if (sim_common_option(c, optarg, &runtime, &jobs, &seed, &p))
				return EXIT_USAGE;
			break;
		case 'k':
			snprintf(kernels, sizeof(kernels), "%s", optarg);
			break;
		case 'o':
			if (!*optarg) {
				wb_error("sim: empty output directory (-o '')");
				return EXIT_USAGE;
			}
			out = optarg;
			break;
		case 'n':
			no_trace = 1;
			break;
		default:
			wb_error("sim: unknown or incomplete option '%s' (see 'wblab sim --help')",
				 argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		usage(stderr);
		return EXIT_USAGE;
	}
	const struct throttle_model *models[16];
	int nm = parse_kernels(kernels, models, 16);
	if (nm < 0)
		return EXIT_USAGE;
	int ncase = argc - optind;
	struct sim_job *js = calloc((size_t)(ncase * nm), sizeof(*js));
	if (!js) {
		wb_error("out of memory");
		return 1;
	}
	int n = 0;
	for (int i = 0; i < ncase; i++) {
		struct wb_case cs;
		if (case_parse(argv[optind + i], &cs, err, sizeof(err))) {
			wb_error("%s", err);
			free(js);
			return EXIT_USAGE;
		}
		if (sim_check(&cs, &p, err, sizeof(err))) {
			wb_error("%s", err);
			free(js);
			return EXIT_USAGE;
		}
		for (int k = 0; k < nm; k++)
			js[n++] = (struct sim_job){ .c = cs, .model = models[k],
				.kernel_name = models[k]->name, .p = &p, .seed = seed, .runtime = runtime,
				.out = out, .no_trace = no_trace, .argc = argc, .argv = argv };
	}
	int failed = simulate_all(js, n, (int)jobs);
	for (int i = 0; i < n && !failed; i++)
		printf("%s/%s/%s-%s\n", out, js[i].c.group, js[i].c.name, js[i].kernel_name);
	free(js);
	return failed ? 1 : 0;
}

static char usage_text[8192];

static int run_sim_entry(int argc, char **argv)
{
	return run_sim(argc, argv);
}

const struct wb_command cmd_sim = {
	"sim", "simulate CASEs under throttling models (3.1, 3.2, NFS wait queue, 6.x current)", usage_text, run_sim_entry,
};

/* The usage text lists the models and parameters, so it is built at startup. */
__attribute__((constructor)) static void build_usage(void)
{
	FILE *f = fmemopen(usage_text, sizeof(usage_text) - 1, "w");
	if (f) {
		usage(f);
		fclose(f);
	}
}
