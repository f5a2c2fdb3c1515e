#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "options.h"
#include "../util/util.h"

static int opt_kernel_name(const struct po_option *opt, const char *arg, void *base, char *err, size_t n)
{
	(void)opt;
	int ctl = control_byte_at(arg) >= 0;
	if (ctl || !*arg || strpbrk(arg, "/ ") || !strcmp(arg, ".") || !strcmp(arg, "..")) {
		snprintf(err, n, "'%s' has a '/', a blank or a control character, is empty, or is "
			 "'.' or '..'", ctl ? "(control character)" : arg);
		return -1;
	}
	((struct run_opts *)base)->kernel_name = arg;
	return 0;
}

static int opt_scratch(const struct po_option *opt, const char *arg, void *base, char *err, size_t n)
{
	(void)opt;
	if (arg[0] != '/' || strpbrk(arg, "\t\n")) {
		snprintf(err, n, "needs an absolute path, got '%s'", arg);
		return -1;
	}
	((struct run_opts *)base)->scratch = arg;
	return 0;
}

static int opt_image_size(const struct po_option *opt, const char *arg, void *base, char *err, size_t n)
{
	(void)opt;
	/* 1024T: past any scratch file system, and far from the sums that wrap */
	uint64_t *v = &((struct run_opts *)base)->image_size;
	if (parse_size(arg, v) || *v < (256ULL << 20) || *v > (1ULL << 50)) {
		snprintf(err, n, "'%s' is not a size of 256M..1024T (e.g. 8G)", arg);
		return -1;
	}
	return 0;
}

static int opt_buffer_kb(const struct po_option *opt, const char *arg, void *base, char *err, size_t n)
{
	uint64_t v;
	(void)opt;
	if (parse_u64(arg, &v) || v < 64 || v > (4ULL << 20)) {
		snprintf(err, n, "'%s' is not an integer in 64..4194304", arg);
		return -1;
	}
	((struct run_opts *)base)->buffer_kb = (unsigned)v;
	return 0;
}

static int opt_set(const struct po_option *opt, const char *arg, void *base, char *err, size_t n)
{
	(void)opt;
	if (strncmp(arg, "bdi.", 4) != 0) {
		snprintf(err, n, "'%s': 'wblab run' sets only bdi.KNOB=V (the simulator's "
			 "parameters are for 'wblab sim')", arg);
		return -1;
	}
	return bdi_request_add(&((struct run_opts *)base)->bdi, arg + 4, err, n);
}

#define PO_STRUCT struct run_opts
const struct po_option run_options[] = {
	/* below 0.1 s a run is all setup: nothing left to measure */
	OPT_DOUBLE('t', "runtime", runtime, "SEC", 0.1, 86400, "seconds each case runs, 0.1..86400 (default 60)"),
	OPT_STRING_NONEMPTY('o', "out", out, "DIR", "results root (default ./results)"),
	OPT_INT(0, "repeat", repeat, "N", 1, 1000,
		"run each case N times (run number recorded; compare\n"
		"averages them)"),
	OPT_CALLBACK(0, "kernel-name", "N", opt_kernel_name, "column name for compare (default: uname -r)"),
	OPT_CALLBACK(0, "scratch", "DIR", opt_scratch,
		     "where the run makes its own directory for the loop\n"
		     "image and mounts (default /var/lib/wblab); must be\n"
		     "owned by root and closed to others, as must every\n"
		     "directory above it (sticky ones like /tmp excepted),\n"
		     "with letters, digits and /._+- only; created if\n"
		     "missing; nothing else in it is touched but the\n"
		     "run dirs an earlier boot of this machine left, on\n"
		     "a local file system (docs/real-runs.md)"),
	OPT_CALLBACK(0, "image-size", "SIZE", opt_image_size,
		     "sparse loop image size, 256M..1024T, at least 300M\n"
		     "for xfs (default 8G; writers rewrite their\n"
		     "files from the start after SIZE/2/NDD bytes); the\n"
		     "scratch file system needs SIZE + 64M free"),
	/* a 1990s disk to well past any NVMe; below 1 MiB/s a run learns nothing */
	OPT_DOUBLE(0, "device-bw", device_bw, "MBPS", 1, 1e6,
		   "cap the device's writes at MBPS MiB/s with the kernel's\n"
		   "block throttling (an emulated disk, e.g. 55 for a\n"
		   "2011 SATA disk); needs cgroup v1 blkio"),
	OPT_U64(0, "device-iops", device_iops, "N", 10, 10000000, "cap the device's write IOPS the same way"),
	OPT_CALLBACK(0, "set", "bdi.KNOB=V", opt_set,
		     "run with this bdi knob of the device (strict_limit,\n"
		     "min_ratio, max_ratio, min_ratio_fine, max_ratio_fine,\n"
		     "read_ahead_kb) instead of the kernel default"),
	OPT_STRING(0, "dev", dev, "PATH",
		   "use this block device instead of a loop image; DESTROYS\n"
		   "it; needs --yes-destroy; refused while it or one of\n"
		   "its partitions is mounted, swapped on or held; a\n"
		   "partition is refused (its bdi is the disk's)"),
	OPT_FLAG(0, "yes-destroy", yes_destroy, "confirms --dev"),
	OPT_FLAG(0, "no-trace", no_trace, "no tracing: write_bw from the /proc/vmstat written counter"),
	OPT_FLAG(0, "overhead", overhead,
		 "run each case untraced, then traced, and record both\n"
		 "(untraced_* stats, tracing_overhead_pct)"),
	OPT_CALLBACK(0, "buffer-kb", "N", opt_buffer_kb, "trace buffer per CPU in KiB (default 65536)"),
	OPT_FLAG(0, "cleanup", cleanup,
		 "undo whatever an interrupted earlier run left behind,\n"
		 "then exit"),
	OPT_END(),
};

#define FAIL(...) do { snprintf(err, errlen, "run: " __VA_ARGS__); return -1; } while (0)

static int run_opts_cases(struct run_opts *o, int argc, char **argv, char *err, size_t errlen);

int run_opts_parse(struct run_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	o->runtime = 60;
	o->out = "results";
	o->repeat = 1;
	o->scratch = "/var/lib/wblab";
	o->image_size = 8ULL << 30;
	o->buffer_kb = 65536;
	char **rest = calloc((size_t)argc, sizeof(*rest));
	if (!rest)
		FAIL("out of memory");
	int nrest = po_parse(argc ? argv[0] : "run", run_options, o, argc, argv, PO_STOP_AT_NON_OPTION,
			     rest, err, errlen);
	int rc = nrest < 0 ? -1 : run_opts_cases(o, nrest, rest, err, errlen);
	free(rest);
	return rc;
}

static int run_opts_cases(struct run_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	if (o->dev && !o->yes_destroy)
		FAIL("--dev %s would destroy everything on it; add --yes-destroy to mean it", o->dev);
	if (o->no_trace && o->overhead)
		FAIL("--overhead already runs each case both with and without tracing");
	if (o->cleanup) {
		if (argc > 0)
			FAIL("--cleanup takes no CASE");
		return 0;
	}
	if (argc == 0)
		FAIL("no CASE given (e.g. ext4-1dd-4k-*-*-100M:10; see 'wblab run --help')");
	for (int i = 0; i < argc; i++) {
		if (o->ncases == RUN_MAX_CASES)
			FAIL("too many cases (at most %d)", RUN_MAX_CASES);
		struct wb_case *cs = &o->cases[o->ncases++];
		if (case_parse(argv[i], cs, err + 5, errlen - 5)) {
			memcpy(err, "run: ", 5);
			return -1;
		}
		if (strcmp(cs->fs, "nfs") == 0)
			FAIL("case '%s': this runner has no NFS server or client setup; "
			     "run ext4, xfs or btrfs cases", argv[i]);
		if (!case_fs_is_disk(cs->fs))
			FAIL("case '%s': file system '%s' is not supported (ext4, xfs, btrfs)",
			     argv[i], cs->fs);
	}
	return 0;
}
