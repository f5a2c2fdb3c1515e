/* wblab trace: a result's trace as ftrace text, on demand. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "commands.h"
#include "../trace/trace_read.h"
#include "../util/util.h"

static const char usage[] =
	"usage: wblab trace DIR|FILE\n"
	"Print a result's trace as ftrace text on stdout.  DIR is a result directory\n"
	"(its trace.dat, else its text `trace`); FILE a trace.dat or text trace.\n"
	"For a trace.dat written by 'wblab sim' or 'wblab seed' the output is byte for\n"
	"byte what '--trace-format text' writes as `trace` (the kernel era's formats,\n"
	"'# tracer: nop' header); other trace-cmd .dat files (from real kernels) are\n"
	"printed through libtracecmd as the kernel's text lines, and text traces as\n"
	"they are.  'trace-cmd report trace.dat' shows the same events with\n"
	"trace-cmd's own column padding.  See docs/trace-formats.md.\n\n";

static const struct po_option options[] = { OPT_END() };

static const char usage_end[] =
	"\nExit status: 0 ok; 1 unreadable or damaged trace; 2 usage.\n";

static int run_trace(int argc, char **argv)
{
	char *rest[argc];
	int n = po_parse_cmd(argv[0], options, NULL, argc, argv, 0, rest);
	if (n < 0)
		return EXIT_USAGE;
	if (n != 1) {
		wb_error("trace: need one DIR or FILE (see 'wblab trace --help')");
		return EXIT_USAGE;
	}
	char path[4200], err[1024];
	struct stat st;
	const char *arg = rest[0], *p = arg;
	if (stat(p, &st) == 0 && S_ISDIR(st.st_mode)) {
		p = trace_result_path(arg, path, sizeof(path));
		if (access(p, R_OK) != 0) {
			wb_error("trace: %s has no trace.dat or trace", arg);
			return 1;
		}
	}
	/* a result dir's trace is read as plot and report read it: a regular
	 * file, no symlink (a FILE named by the user may be one) */
	struct trace_reader *r = p == arg ? trace_reader_open(p, err, sizeof(err))
					  : trace_reader_open_result(p, err, sizeof(err));
	if (!r) {
		wb_error("trace: %s", err);
		return 1;
	}
	/* zero bytes is no trace at all (what wblab and trace-cmd write has a
	 * header even without events); printing nothing would look like success */
	if (trace_reader_is_empty(r)) {
		trace_reader_close(r);
		wb_error("trace: %s: empty, not a trace", strcmp(p, "-") ? p : "<stdin>");
		return 1;
	}
	static char obuf[1 << 16];
	setvbuf(stdout, obuf, _IOFBF, sizeof(obuf));
	if (trace_reader_era(r) >= 0)
		fputs("# tracer: nop\n#\n", stdout);
	trace_reader_set_echo(r, stdout);
	struct wb_event e;
	int rc;
	while ((rc = trace_reader_next(r, &e, err, sizeof(err))) == 1)
		;
	trace_reader_close(r);
	if (rc < 0) {
		fflush(stdout);
		wb_error("trace: %s", err);
		return 1;
	}
	if (fflush(stdout) != 0 || ferror(stdout)) {
		wb_error("trace: writing stdout failed");
		return 1;
	}
	return 0;
}

WB_COMMAND(trace, 80) = {
	"trace", "print a result's trace (trace.dat or text) as ftrace text",
	usage, options, usage_end, NULL, run_trace,
};
