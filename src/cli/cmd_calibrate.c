/* wblab calibrate: simulator device and writer parameters from a real result. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "../analysis/calibrate.h"
#include "../util/util.h"

static const char usage_text[] =
	"usage: wblab calibrate [options] DIR...\n"
	"Derives simulator parameters from a real result directory made by 'wblab run'\n"
	"(its stats, meta, params, env and trace) for the block layer's loop device\n"
	"(dev.model=loop): its bandwidth (dev.bw_mbps: the cap, or its rate while busy\n"
	"by io_ticks), queue depth and per-request latency by Little's law, request\n"
	"size, scheduler, and the stall process (dev.stall_every_s, dev.stall_ms) when\n"
	"the trace shows device stalls (counted, summed and the longest reported); the\n"
	"writers' CPU cost per page and per write() over the CPU share they got\n"
	"(cpu_page_ns, syscall_ns), split into fast runs and host frame faults\n"
	"(host_fault_*, host_backed_mb) when the trace shows the writers dirtying in\n"
	"fast and slow runs (a VM with free page reporting), the bdi's starting\n"
	"estimates (bdi_init_*: a loop bdi outlives the attachment), HZ, and\n"
	"dirtyable_pct for ratio thresholds.\n"
	"Prints them as '--set KEY=VALUE' lines for 'wblab sim' and writes\n"
	"'KEY = VALUE' lines to DIR/calibration.  docs/current-model.md says how each is\n"
	"derived.\n\n";

struct cli {
	double hz;
	int no_write;
};

#define PO_STRUCT struct cli
static const struct po_option options[] = {
	OPT_DOUBLE(0, "hz", hz, "N", 10, 10000, "the real kernel's HZ (default 250, this machine's)"),
	OPT_FLAG('n', "stdout", no_write, "do not write DIR/calibration; print 'KEY = VALUE' lines instead"),
	OPT_END(),
};

static int run_calibrate(int argc, char **argv)
{
	struct cli o = { .hz = 250 };
	char **dirs = calloc((size_t)argc, sizeof(*dirs));
	int ndirs = dirs ? po_parse_cmd(argv[0], options, &o, argc, argv, PO_STOP_AT_NON_OPTION, dirs) : -1;
	int failed = 0;
	if (ndirs <= 0) {
		if (ndirs == 0)
			wb_error("calibrate: no DIR given (see 'wblab help calibrate')");
		free(dirs);
		return EXIT_USAGE;
	}
	double hz = o.hz;
	int no_write = o.no_write;
	for (int d = 0; d < ndirs; d++) {
		const char *dir = dirs[d];
		struct calibration cal;
		char err[512], path[4200];
		if (calibrate_dir(dir, hz, &cal, err, sizeof(err))) {
			wb_error("%s", err);
			failed++;
			continue;
		}
		calibration_write(&cal, stdout, !no_write);
		if (no_write)
			continue;
		snprintf(path, sizeof(path), "%s/calibration", dir);
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
	free(dirs);
	return failed ? 1 : 0;
}

WB_COMMAND(calibrate, 110) = {
	"calibrate", "simulator parameters (device, writer CPU) from a real result",
	usage_text, options, NULL, NULL, run_calibrate,
};
