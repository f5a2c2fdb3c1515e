/* Command line of `wblab run`, parsed without touching the machine. */
#ifndef WBLAB_REAL_OPTIONS_H
#define WBLAB_REAL_OPTIONS_H
#include <stddef.h>
#include <stdint.h>
#include "bdi.h"
#include "../cli/parse_options.h"
#include "../util/case.h"

#define RUN_MAX_CASES 256

struct run_opts {
	double runtime;          /* seconds per case */
	const char *out;         /* results root */
	int repeat;
	const char *kernel_name; /* NULL: uname -r */
	const char *scratch;
	const char *dev;         /* a real block device instead of a loop image */
	char dev_path[4096];     /* --dev resolved once by preflight (canonical) */
	unsigned long dev_rdev;  /* and its device number then */
	int yes_destroy;
	int cleanup;             /* undo a stale journal, then exit */
	int no_trace;            /* measure without tracing (write_bw from /proc/vmstat) */
	int overhead;            /* also run each case untraced and report the difference */
	uint64_t image_size;
	unsigned buffer_kb;      /* trace buffer per CPU */
	double device_bw;        /* MiB/s cap on the device's writes (block throttling), 0: none */
	uint64_t device_iops;    /* write IOPS cap, 0: none */
	struct bdi_request bdi;  /* --set bdi.KNOB=V: knobs other than the kernel default */
	int ncases;
	struct wb_case cases[RUN_MAX_CASES];
};

/* Parses argv (argv[0] = "run").  0, or -1 with a one-line reason in err,
 * "run: ..." (the caller prints "wblab " before it and exits EXIT_USAGE).
 * errlen must be more than 5. */
int run_opts_parse(struct run_opts *o, int argc, char **argv, char *err, size_t errlen);

/* The options of `wblab run` (its --help lines come from them). */
extern const struct po_option run_options[];

#endif
