/* wblab run: the cases on the running kernel (see src/real/ and docs/real-runs.md). */
#include <stdio.h>
#include "commands.h"
#include "../real/options.h"
#include "../real/runner.h"
#include "../util/util.h"

static int run_run(int argc, char **argv)
{
	static struct run_opts o;
	char err[1024];
	if (run_opts_parse(&o, argc, argv, err, sizeof(err))) {
		fprintf(stderr, "wblab %s\n", err);
		return EXIT_USAGE;
	}
	if (o.cleanup)
		return real_cleanup(&o);
	/* the result's cmdline reads "wblab run ...", as sim's and import's do */
	char *full[argc + 1];
	full[0] = "wblab";
	for (int i = 0; i < argc; i++)
		full[i + 1] = argv[i];
	return real_run(&o, argc + 1, full);
}

static const char usage[] =
	"usage: wblab run [options] CASE...\n"
	"       wblab run --cleanup\n"
	"\n"
	"Runs each CASE on the running kernel and writes the same result directories as\n"
	"'wblab sim' (OUT/GROUP/CASE-KERNEL[.RUN]/ with trace, stats, params, env, meta,\n"
	"cmdline), so compare, plot and report treat real and simulated results alike.\n"
	"Needs root.  Per case: a sparse image in a directory of the run's own inside\n"
	"the scratch dir, on a fresh loop device (direct I/O), mkfs, mount; the device's\n"
	"bdi knobs (strict_limit, min/max ratio) at the kernel defaults unless --set\n"
	"says otherwise; vm.dirty_bytes or dirty_ratio and the background threshold as\n"
	"CASE says; sync and drop caches; the writeback trace events of this kernel\n"
	"captured through a private tracefs instance; NDD writers doing BS-sized\n"
	"write()s to their own files for the runtime; then the stats, computed from the\n"
	"trace as 'wblab import' computes them.  A case whose device logs I/O errors\n"
	"(or whose syncfs fails) fails the run, and no result is kept.\n"
	"\n"
	"Every change to the machine is journaled in " "/run/wblab/journal (a root-only\n"
	"directory) before it is made and undone at exit, on Ctrl-C or SIGTERM, and\n"
	"after a SIGKILL or crash by the next 'wblab run' or 'wblab run --cleanup'.\n"
	"One run at a time per machine (a lock in the same directory).\n"
	"\n"
	"CASE   [GROUP/]FS-NDD-BS-CPUSp-MEMM-THRESH:BG, e.g. ext4-2dd-4k-*-*-100M:10\n"
	"       FS ext4, xfs or btrfs (ext2/ext3 too).  CPUS and MEM must be the machine's;\n"
	"       '*' fills them in (the result's name carries the real values).\n"
	"\n"
	"options:\n";

static const char usage_end[] =
	"\n"
	"On a busy machine other writers inflate the global written counter behind\n"
	"write_bw; the run then says so and sets global_written_polluted 1 in stats:\n"
	"trust dev_write_bw, this device's own figure.\n"
	"\n"
	"Exit status: 0 done; 1 machine not suitable (not root, no tracefs or loop\n"
	"support, mkfs missing, an untrusted --scratch, too little space, --dev in\n"
	"use), run failed or interrupted (changes undone); 2 bad options or a CASE\n"
	"this machine cannot run (CPUS/MEM differ, nfs).\n";

WB_COMMAND(run, 50) = {
	"run", "run cases on the running kernel, safely (root)",
	usage, run_options, usage_end, NULL, run_run,
};
