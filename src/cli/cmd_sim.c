/* wblab sim: simulate CASEs under throttling models into result directories. */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "commands.h"
#include "sim_matrix.h"
#include "../result/result.h"
#include "../sim/sim.h"
#include "../sim/simulate.h"
#include "../throttle/throttle.h"
#include "../util/util.h"

static const char usage[] =
	"usage: wblab sim [options] CASE...\n"
	      "Simulate dd writers on Linux's buffered-write path under one or more throttling\n"
	      "models, deterministically.  Each (case, kernel) writes OUT/GROUP/CASE-KERNEL/ with\n"
	      "trace.dat (a trace-cmd file with that kernel's event formats; 'wblab trace DIR'\n"
	      "prints it as ftrace text), stats, params, meta and cmdline (the command that\n"
	      "makes exactly that result; 'wblab rerun DIR' checks it).\n\n";

static void usage_extra(FILE *f)
{
	fputs("\nCASE = [GROUP/]FS-NDD-BS-CPUSp-MEMM-THRESH:BG, e.g.\n"
	      "  thresh=100M/ext4-10dd-4k-8p-4096M-100M:10\n"
	      "THRESH/BG with a unit (K/M/G) are vm.dirty_bytes / dirty_background_bytes, bare\n"
	      "numbers vm.dirty_ratio / dirty_background_ratio (100m is written 100M, 4K as 4k).\n"
	      "GROUP defaults to thresh=THRESH.\n"
	      "A CASE may be a matrix, expanded by wblab (quote it): brace lists and ranges,\n"
	      "  '{ext4,xfs}-{1,2,10}dd-4k-8p-4096M-{1M,10M,100M,1G}:10'   (24 cases)\n"
	      "  'ext4-{1..4}dd-4k-8p-4096M-100M:10'\n"
	      "and a bare comma list in one field means the same: 'ext4,xfs-1dd-...'.\n"
	      "FS ext4/xfs/btrfs write through a block layer (docs/storage-model.md): the\n"
	      "file system's delayed allocation (ext2/ext3 use ext4's), a merging request\n"
	      "queue, the era's elevator (dev.elevator=auto: cfq for 3.x, mq-deadline for\n"
	      "current) and the dev.model device (default hdd-2011: 7200 rpm, NCQ, 32 MiB\n"
	      "write-back cache; ssd, nvme, loop; fifo is the old one-queue disk of the\n"
	      "disk.* keys, chosen by any disk.* key alone).  nfs is an NFSv3 mount over\n"
	      "a gigabit link to a one-disk server (see docs/nfs-model.md).\n"
	      "BS must be a multiple of 4k.\n\nmodels:\n", f);
	for (const struct throttle_model *const *m = throttle_models(); *m; m++)
		fprintf(f, "  %-22s %s\n", (*m)->name, (*m)->summary);
	fputs("\nparameters (--set KEY=VAL; name, default, range, meaning).  Numbers are\n"
	      "decimal (40, 40.0, 4e1; no hex), an integer key takes a whole one (1e3); a\n"
	      "sweep's values must differ in value (40 and 40.0 are one).  A key that changes\n"
	      "nothing for a case (disk.* or dev.* on nfs, nfs.* on a local fs, ...) gets one\n"
	      "warning line (docs/model.md):\n", f);
	params_list(f);
}

static int run_sim(int argc, char **argv)
{
	static struct sim_matrix m;
	struct sim_job *js;
	int n;
	if (sim_matrix_load(&m, argc, argv, &js, &n))
		return EXIT_USAGE;
	/* one line now rather than one per job once they run */
	if (result_root_check(argv[0], m.out)) {
		sim_matrix_free(&m, js, n);
		return EXIT_USAGE;
	}
	int failed = simulate_all(js, n, (int)m.jobs, !m.quiet);
	for (int i = 0; i < n && !failed; i++) {
		/* the leaf result.c made: CASE-KERNEL, or CASE-KERNEL.RUN */
		char leaf[512];
		if (result_name_format(leaf, sizeof(leaf), js[i].c.name, js[i].kernel_name,
				       js[i].run > 1 ? js[i].run : 1))
			continue;   /* cannot happen: result_begin made the same name */
		printf("%s%s%s/%s\n", m.out, result_root_sep(m.out), js[i].c.group, leaf);
	}
	sim_matrix_free(&m, js, n);
	return failed ? 1 : 0;
}

WB_COMMAND(sim, 10) = {
	"sim", "simulate CASEs under throttling models (3.1, 3.2, NFS wait queue, 6.x current)",
	usage, sim_matrix_options, NULL, usage_extra, run_sim,
};
