/* wblab calibrate: simulator device and writer parameters from a real result. */
#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "commands.h"
#include "../analysis/calibrate.h"
#include "../util/util.h"

static const char usage_text[] =
	"usage: wblab calibrate [options] DIR...\n"
	"Derives simulator parameters from a real result directory made by 'wblab run'\n"
	"(its stats, meta, params, env and trace) for the block layer's loop device\n"
	"(dev.model=loop): its bandwidth (dev.bw_mbps), queue depth and per-request\n"
	"latency by Little's law, request size, scheduler, and the stall process\n"
	"(dev.stall_every_s, dev.stall_ms) when the trace shows device stalls (counted,\n"
	"summed and the longest reported); the writers' time per page (cpu_page_ns),\n"
	"HZ, and dirtyable_pct for ratio thresholds.  Prints them as '--set KEY=VALUE' lines for 'wblab sim' and writes\n"
	"'KEY = VALUE' lines to DIR/calibration.  docs/current-model.md says how each is\n"
	"derived.\n\n"
	"  --hz N        the real kernel's HZ (default 250, this machine's)\n"
	"  -n, --stdout  do not write DIR/calibration; print 'KEY = VALUE' lines instead\n"
	"  -h, --help    this text\n";

static int run_calibrate(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "hz", required_argument, NULL, 'z' }, { "stdout", no_argument, NULL, 'n' },
		{ NULL, 0, NULL, 0 },
	};
	double hz = 250;
	int no_write = 0, c, failed = 0;
	optind = 1;
	opterr = 0;
	while ((c = getopt_long(argc, argv, "+n", opts, NULL)) != -1) {
		switch (c) {
		case 'z':
			if (parse_double(optarg, &hz) || hz < 10 || hz > 10000) {
				wb_error("--hz: '%s' is not a number in 10..10000", optarg);
				return EXIT_USAGE;
			}
			break;
		case 'n':
			no_write = 1;
			break;
		default:
			wb_error("calibrate: unknown or incomplete option '%s' (see 'wblab calibrate --help')",
				 argv[optind - 1]);
			return EXIT_USAGE;
		}
	}
	if (optind >= argc) {
		fputs(usage_text, stderr);
		return EXIT_USAGE;
	}
	for (int i = optind; i < argc; i++) {
		struct calibration cal;
		char err[512], path[4200];
		if (calibrate_dir(argv[i], hz, &cal, err, sizeof(err))) {
			wb_error("%s", err);
			failed++;
			continue;
		}
		calibration_write(&cal, stdout, !no_write);
		if (no_write)
			continue;
		snprintf(path, sizeof(path), "%s/calibration", argv[i]);
		FILE *f = fopen(path, "w");
		if (!f) {
			wb_error("cannot write %s; the values are above", path);
			failed++;
			continue;
		}
		calibration_write(&cal, f, 0);
		if (fclose(f)) {
			wb_error("writing %s failed", path);
			failed++;
		}
	}
	return failed ? 1 : 0;
}

const struct wb_command cmd_calibrate = { "calibrate", "simulator parameters (device, writer CPU) from a real result",
					  usage_text, run_calibrate };
