#include <getopt.h>
#include <stdio.h>
#include <string.h>
#include "options.h"
#include "../util/util.h"

enum { O_REPEAT = 256, O_KERNEL, O_SCRATCH, O_DEV, O_YES, O_CLEANUP, O_NOTRACE, O_OVERHEAD,
       O_IMAGE, O_BUFKB, O_DEVBW, O_DEVIOPS, O_SET };

static const struct option longopts[] = {
	{ "runtime", required_argument, NULL, 't' },
	{ "out", required_argument, NULL, 'o' },
	{ "repeat", required_argument, NULL, O_REPEAT },
	{ "kernel-name", required_argument, NULL, O_KERNEL },
	{ "scratch", required_argument, NULL, O_SCRATCH },
	{ "dev", required_argument, NULL, O_DEV },
	{ "yes-destroy", no_argument, NULL, O_YES },
	{ "cleanup", no_argument, NULL, O_CLEANUP },
	{ "no-trace", no_argument, NULL, O_NOTRACE },
	{ "overhead", no_argument, NULL, O_OVERHEAD },
	{ "image-size", required_argument, NULL, O_IMAGE },
	{ "buffer-kb", required_argument, NULL, O_BUFKB },
	{ "device-bw", required_argument, NULL, O_DEVBW },
	{ "device-iops", required_argument, NULL, O_DEVIOPS },
	{ "set", required_argument, NULL, O_SET },
	{ NULL, 0, NULL, 0 },
};

#define FAIL(...) do { snprintf(err, errlen, __VA_ARGS__); return -1; } while (0)

static int one_opt(struct run_opts *o, int c, const char *arg, char *err, size_t errlen)
{
	uint64_t v;
	switch (c) {
	case 't':
		/* below 0.1 s a run is all setup: nothing left to measure */
		if (parse_double(arg, &o->runtime) || !(o->runtime >= 0.1) || o->runtime > 86400)
			FAIL("bad --runtime '%s' (want seconds in 0.1..86400, e.g. 60)", arg);
		return 0;
	case 'o':
		if (!*arg)
			FAIL("empty output directory (-o '')");
		o->out = arg;
		return 0;
	case O_REPEAT:
		if (parse_u64(arg, &v) || v < 1 || v > 1000)
			FAIL("bad --repeat '%s' (want 1..1000)", arg);
		o->repeat = (int)v;
		return 0;
	case O_KERNEL:
		if (!*arg || strpbrk(arg, "/ \t\n"))
			FAIL("bad --kernel-name '%s' (no '/' or blanks)", arg);
		o->kernel_name = arg;
		return 0;
	case O_SCRATCH:
		if (arg[0] != '/' || strpbrk(arg, "\t\n"))
			FAIL("--scratch needs an absolute path, got '%s'", arg);
		o->scratch = arg;
		return 0;
	case O_DEV: o->dev = arg; return 0;
	case O_YES: o->yes_destroy = 1; return 0;
	case O_CLEANUP: o->cleanup = 1; return 0;
	case O_NOTRACE: o->no_trace = 1; return 0;
	case O_OVERHEAD: o->overhead = 1; return 0;
	case O_IMAGE:
		if (parse_size(arg, &o->image_size) || o->image_size < (256ULL << 20))
			FAIL("bad --image-size '%s' (want e.g. 8G, at least 256M)", arg);
		return 0;
	case O_BUFKB:
		if (parse_u64(arg, &v) || v < 64 || v > (4ULL << 20))
			FAIL("bad --buffer-kb '%s' (want 64..4194304)", arg);
		o->buffer_kb = (unsigned)v;
		return 0;
	case O_DEVBW:
		/* a 1990s disk to well past any NVMe; below 1 MiB/s a run learns nothing */
		if (parse_double(arg, &o->device_bw) || o->device_bw < 1 || o->device_bw > 1e6)
			FAIL("bad --device-bw '%s' (want MiB/s, 1..1000000)", arg);
		return 0;
	case O_DEVIOPS:
		if (parse_u64(arg, &o->device_iops) || o->device_iops < 10 || o->device_iops > 10000000)
			FAIL("bad --device-iops '%s' (want 10..10000000)", arg);
		return 0;
	case O_SET:
		if (strncmp(arg, "bdi.", 4) != 0)
			FAIL("--set '%s': 'wblab run' sets only bdi.KNOB=V (the simulator's "
			     "parameters are for 'wblab sim')", arg);
		return bdi_request_add(&o->bdi, arg + 4, err, errlen);
	default:
		FAIL("unknown option (see 'wblab run --help')");
	}
}

int run_opts_parse(struct run_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	memset(o, 0, sizeof(*o));
	o->runtime = 60;
	o->out = "results";
	o->repeat = 1;
	o->scratch = "/var/lib/wblab";
	o->image_size = 8ULL << 30;
	o->buffer_kb = 65536;
	optind = 0;
	opterr = 0;
	int c;
	while ((c = getopt_long(argc, argv, "+t:o:", longopts, NULL)) != -1) {
		if (c == '?' || c == ':') {
			const char *bad = argv[optind - 1];
			FAIL("bad option '%s' (see 'wblab run --help')", bad ? bad : "?");
		}
		if (one_opt(o, c, optarg, err, errlen))
			return -1;
	}
	if (o->dev && !o->yes_destroy)
		FAIL("--dev %s would destroy everything on it; add --yes-destroy to mean it", o->dev);
	if (o->no_trace && o->overhead)
		FAIL("--overhead already runs each case both with and without tracing");
	if (o->cleanup) {
		if (optind < argc)
			FAIL("--cleanup takes no CASE");
		return 0;
	}
	if (optind >= argc)
		FAIL("no CASE given (e.g. ext4-1dd-4k-*-*-100M:10; see 'wblab run --help')");
	for (int i = optind; i < argc; i++) {
		if (o->ncases == RUN_MAX_CASES)
			FAIL("too many cases (at most %d)", RUN_MAX_CASES);
		struct wb_case *cs = &o->cases[o->ncases++];
		if (case_parse(argv[i], cs, err, errlen))
			return -1;
		if (strcmp(cs->fs, "nfs") == 0)
			FAIL("case '%s': this runner has no NFS server or client setup; "
			     "run ext4, xfs or btrfs cases", argv[i]);
		if (!case_fs_is_disk(cs->fs))
			FAIL("case '%s': file system '%s' is not supported (ext4, xfs, btrfs)",
			     argv[i], cs->fs);
	}
	return 0;
}
