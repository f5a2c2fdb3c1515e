/* wblab import: turn a kernel trace (ftrace text, trace-cmd report output or a
 * trace-cmd .dat) into a result directory, with stats computed by the shared
 * stats code exactly as for simulated and real runs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "commands.h"
#include "../analysis/stats.h"
#include "../result/result.h"
#include "../trace/trace_read.h"
#include "../util/case.h"
#include "../util/util.h"

static const char usage[] =
	"usage: wblab import TRACE -o DIR [--case CASE] [--kernel NAME]\n"
	"\n"
	"Reads a writeback trace and writes the result directory DIR/GROUP/CASE-KERNEL\n"
	"with trace (kernel text format), stats, meta (source import) and cmdline.\n"
	"\n"
	"  TRACE          ftrace text (the tracefs `trace` or `trace_pipe` file, any kernel\n"
	"                 from 3.1 to 6.x), `trace-cmd report` output, or a trace-cmd .dat\n"
	"                 file (converted to text); '-' reads text from stdin\n";

static const char usage_end[] =
	"\n"
	"Exit status: 0 ok, 1 unreadable or malformed trace (nothing is written),\n"
	"2 usage error.\n";

struct import_opts {
	const char *trace, *out, *case_arg, *kernel;
};

#define PO_STRUCT struct import_opts
static const struct po_option options[] = {
	OPT_STRING_NONEMPTY('o', "out", out, "DIR", "result root"),
	OPT_STRING(0, "case", case_arg, "CASE",
		   "[GROUP/]FS-NDD-BS-CPUSp-MEMM-THRESH:BG.  Default: taken from the\n"
		   "path when it follows the writeback-tests layout\n"
		   "GROUP/CASE-KERNEL/trace (or the file is named CASE[-KERNEL].ext);\n"
		   "required otherwise"),
	OPT_STRING(0, "kernel", kernel, "NAME",
		   "kernel name in the directory name.  Default: from the path as\n"
		   "above, else the trace era detected from the event formats\n"
		   "(3.1-rc8, 3.1, 3.1-rc8-ioless, 3.2, 3.3+, 6.x), else \"imported\""),
	OPT_END(),
};

static int parse_args(int argc, char **argv, struct import_opts *o)
{
	memset(o, 0, sizeof(*o));
	char **rest = calloc((size_t)argc, sizeof(*rest));
	int n = rest ? po_parse_cmd(argv[0], options, o, argc, argv, 0, rest) : -1;
	if (n > 1)
		wb_error("import: more than one TRACE given ('%s', '%s')", rest[0], rest[1]);
	if (n >= 1)
		o->trace = rest[0];
	free(rest);
	if (n < 0 || n > 1)
		return -1;
	if (!o->trace || !o->out) {
		wb_error("import: %s (see 'wblab help import')",
			 !o->trace ? "no TRACE given" : "no output directory (-o DIR)");
		return -1;
	}
	return 0;
}

/* "CASE-KERNEL[.RUN]" or "CASE" (result_name_parse): a result's run N stays
 * run N of the import, not a part of its kernel's name. */
static int split_case_kernel(const char *leaf, const char *group, struct wb_case *c,
			     char *kernel, size_t klen, int *run)
{
	char buf[400], err[256];
	struct result_name rn;
	if (result_name_parse(leaf, &rn))
		return -1;
	size_t n = strlen(rn.case_name);
	if (n == 0 || n >= 200)
		return -1;
	snprintf(buf, sizeof(buf), "%s%s%s", group ? group : "", group ? "/" : "", rn.case_name);
	if (case_parse(buf, c, err, sizeof(err)))
		return -1;
	size_t kl = rn.kernel_len;
	*run = rn.run;
	if (kl && klen) {
		kl = kl < klen ? kl : klen - 1;     /* cut to fit, as before */
		memcpy(kernel, rn.kernel, kl);
		kernel[kl] = 0;
	}
	return 0;
}

static void strip_ext(char *name)
{
	static const char *const ext[] = { ".dat", ".txt", ".trace", ".log" };
	size_t n = strlen(name);
	for (size_t i = 0; i < ARRAY_SIZE(ext); i++) {
		size_t m = strlen(ext[i]);
		if (n > m && !strcmp(name + n - m, ext[i])) {
			name[n - m] = 0;
			return;
		}
	}
}

/* writeback-tests kept GROUP/CASE-KERNEL/trace; also accept CASE[-KERNEL].ext. */
static int case_from_path(const char *path, struct wb_case *c, char *kernel, size_t klen, int *run)
{
	char buf[4096], *comp[3] = { 0 };
	int n = 0;
	if (strlen(path) >= sizeof(buf) || !strcmp(path, "-"))
		return -1;
	snprintf(buf, sizeof(buf), "%s", path);
	for (char *s; n < 3 && (s = strrchr(buf, '/')); n++) {
		comp[n] = s + 1;
		*s = 0;
	}
	if (n < 3)
		comp[n++] = buf;
	/* comp[0] = file, comp[1] = its directory, comp[2] = the one above */
	const char *group = comp[2] && strchr(comp[2], '=') ? comp[2] : NULL;
	if (comp[1] && !split_case_kernel(comp[1], group, c, kernel, klen, run))
		return 0;
	strip_ext(comp[0]);
	return split_case_kernel(comp[0], group, c, kernel, klen, run);
}

/* Which kernel printed this: by fields only some eras have.  Each mark is a
 * vote between two layouts of the same event and the majority wins, so a few
 * stray lines (a 3.x line pasted into a 6.x trace) cannot flip the era. */
enum { V_GDS_NEW, V_GDS_UNSTABLE, V_BDP_NEW, V_BDP_OLD, V_IOLESS, V_OLD31, V_WSI_RC8, V_WSI_31,
       V_REASON, V_NO_REASON, V_COUNT };

struct era_votes {
	long n[V_COUNT];
	unsigned long first_line[V_COUNT];
};

static void vote(struct era_votes *v, int which, unsigned long line)
{
	if (!v->n[which]++)
		v->first_line[which] = line;
}

static void mark_era(struct era_votes *v, const struct wb_event *e, unsigned long line)
{
	switch (e->type) {
	case EV_GLOBAL_DIRTY_STATE:
		vote(v, wb_event_has(e, F_UNSTABLE) ? V_GDS_UNSTABLE : V_GDS_NEW, line);
		break;
	case EV_BALANCE_DIRTY_PAGES:
	case EV_BDI_DIRTY_RATELIMIT:
		vote(v, V_IOLESS, line);
		vote(v, wb_event_has(e, F_PERIOD) || wb_event_has(e, F_CGROUP_INO) ? V_BDP_NEW
										     : V_BDP_OLD, line);
		break;
	case EV_BALANCE_DIRTY_START:
	case EV_BALANCE_DIRTY_WRITTEN:
	case EV_BALANCE_DIRTY_WAIT:
		vote(v, V_OLD31, line);
		break;
	case EV_WRITEBACK_SINGLE_INODE:
		vote(v, wb_event_has(e, F_DIRTIED_WHEN) ? V_WSI_31 : V_WSI_RC8, line);
		break;
	default:
		break;
	}
	/* writeback work events (sync_mode=...) print reason= from 3.2 on */
	if (e->reason[0])
		vote(v, V_REASON, line);
	else if (wb_event_has(e, F_SYNC_MODE))
		vote(v, V_NO_REASON, line);
}

static int wins(const struct era_votes *v, int a, int b)
{
	return v->n[a] > v->n[b];
}

static const char *era_name(const struct era_votes *v)
{
	int ioless = wins(v, V_IOLESS, V_OLD31), rc8 = wins(v, V_WSI_RC8, V_WSI_31);
	int reason = wins(v, V_REASON, V_NO_REASON);
	if (wins(v, V_GDS_NEW, V_GDS_UNSTABLE))
		return "6.x";
	if (ioless && wins(v, V_BDP_NEW, V_BDP_OLD))
		return "3.3+";
	if (ioless && rc8 && !reason)
		return "3.1-rc8-ioless";
	if (ioless || reason)
		return "3.2";
	if (rc8)
		return "3.1-rc8";
	if (v->n[V_OLD31] || v->n[V_GDS_UNSTABLE])
		return "3.1";
	return "imported";
}

/* One line about lines outvoted in a pair: the era ignored them. */
static void note_minority(const struct era_votes *v, const char *path)
{
	static const struct { int a, b; const char *what; } pairs[] = {
		{ V_GDS_NEW, V_GDS_UNSTABLE, "global_dirty_state" },
		{ V_BDP_NEW, V_BDP_OLD, "balance_dirty_pages/bdi_dirty_ratelimit" },
		{ V_WSI_31, V_WSI_RC8, "writeback_single_inode" },
		{ V_IOLESS, V_OLD31, "IO-less vs 3.1 balance_dirty" },
		{ V_REASON, V_NO_REASON, "writeback work reason=" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(pairs); i++) {
		int a = pairs[i].a, b = pairs[i].b;
		if (!v->n[a] || !v->n[b])
			continue;
		int lo = v->n[a] < v->n[b] ? a : b;
		wb_error("import: warning: %s:%lu: %ld of %ld %s lines are in another kernel's "
			 "layout (first here); the era follows the majority", path, v->first_line[lo],
			 v->n[lo], v->n[a] + v->n[b], pairs[i].what);
	}
}

/* The era is voted on the first events only: enough for every marker
 * event, and a long trace's tail cannot outvote its start. */
#define ERA_SCAN_EVENTS 200000

/* Reads every event into the result's trace copy and the stats accumulator;
 * with v, votes on the era as it goes (one read of the trace, not two). */
static int convert(struct trace_reader *r, const struct result_dir *rd, const char *trace,
		   struct era_votes *v)
{
	char err[640];
	struct wb_event e;
	long events = 0;
	int rc;
	FILE *tf = result_fopen(rd, "trace");
	struct stats_acc *s = stats_new();
	if (!tf || !s) {
		wb_error("import: cannot write the result's trace: %s", strerror(errno));
		goto fail;
	}
	if (trace_reader_is_dat(r))
		fprintf(tf, "# tracer: nop\n# converted by wblab import from trace-cmd file %s\n#\n",
			trace);
	trace_reader_set_echo(r, tf);
	/* the per-device graphs and stats follow one bdi: a trace of several
	 * mixes them (a zig-zag between two devices' bandwidths) */
	char bdis[4][WB_BDI_LEN];
	long per_bdi[4] = { 0 };
	int nbdi = 0, more = 0;
	while ((rc = trace_reader_next(r, &e, err, sizeof(err))) == 1) {
		if (e.bdi[0]) {
			int b = 0;
			while (b < nbdi && strcmp(bdis[b], e.bdi))
				b++;
			if (b == nbdi && nbdi < 4)
				snprintf(bdis[nbdi++], sizeof(bdis[0]), "%s", e.bdi);
			if (b < nbdi)
				per_bdi[b]++;
			else
				more = 1;
		}
		stats_feed(s, &e);
		if (v && events < ERA_SCAN_EVENTS)
			mark_era(v, &e, trace_reader_lineno(r));
		events++;
	}
	if (rc < 0) {
		wb_error("import: %s", err);
		goto fail;
	}
	if (!events) {
		wb_error("import: %s: no writeback trace events found", trace);
		goto fail;
	}
	if (nbdi > 1) {
		char list[4 * (WB_BDI_LEN + 32)] = "";
		for (int b = 0; b < nbdi; b++)
			snprintf(list + strlen(list), sizeof(list) - strlen(list), "%s%s (%ld events)",
				 b ? ", " : "", bdis[b], per_bdi[b]);
		wb_error("import: warning: %s holds the writeback events of %s%s bdis: %s%s; its "
			 "per-device graphs and stats mix them (keep one device's lines before importing, "
			 "e.g. grep -v for the others' 'bdi MAJ:MIN')", trace, more ? "more than " : "",
			 more ? "4" : nbdi == 2 ? "two" : nbdi == 3 ? "three" : "four", list, more ? ", ..." : "");
	}
	if (fclose(tf)) {
		tf = NULL;
		wb_error("import: cannot write the result's trace: %s", strerror(errno));
		goto fail;
	}
	tf = result_fopen(rd, "stats");
	if (!tf || stats_write(s, tf) || fclose(tf)) {
		wb_error("import: cannot write stats");
		tf = NULL;
		goto fail;
	}
	stats_free(s);
	return 0;
fail:
	if (tf)
		fclose(tf);
	stats_free(s);
	return -1;
}

static int resolve_case(const struct import_opts *o, struct wb_case *c, char *kernel, size_t klen,
			int *run)
{
	char err[256];
	kernel[0] = 0;
	*run = 1;
	if (o->case_arg) {
		if (case_parse(o->case_arg, c, err, sizeof(err))) {
			wb_error("import: %s", err);
			return -1;
		}
	} else if (case_from_path(o->trace, c, kernel, klen, run)) {
		wb_error("import: cannot derive a case from the path '%s'; give --case CASE", o->trace);
		return -1;
	}
	if (o->kernel && !o->kernel[0]) {
		wb_error("import: --kernel: an empty name (leave the option out to take it from the trace)");
		return -1;
	}
	if (o->kernel)
		snprintf(kernel, klen, "%s", o->kernel);
	if (kernel[0] && (strlen(kernel) >= 64 || !result_kernel_name_ok(kernel))) {
		int ctl = control_byte_at(kernel) >= 0;
		wb_error("import: bad kernel name '%s': a '/' or a control character, '.', '..', or "
			 "64 bytes or more", ctl ? "(control character)" : kernel);
		return -1;
	}
	return 0;
}

static int run_import(int argc, char **argv)
{
	struct import_opts o;
	struct wb_case c;
	struct result_dir rd;
	char kernel[128], err[640];
	int run = 1;
	if (parse_args(argc, argv, &o) || resolve_case(&o, &c, kernel, sizeof(kernel), &run))
		return EXIT_USAGE;
	struct trace_reader *r = trace_reader_open(o.trace, err, sizeof(err));
	if (!r) {
		wb_error("import: %s", err);
		return 1;
	}
	/* without a kernel name the era comes from the trace: the result is
	 * begun as "imported" and named when the trace has been read */
	int detect = !kernel[0];
	struct era_votes votes = { { 0 }, { 0 } };
	if (detect)
		snprintf(kernel, sizeof(kernel), "imported");
	if (result_begin(&rd, o.out, &c, kernel, run, err, sizeof(err))) {
		wb_error("import: %s", err);
		trace_reader_close(r);
		return 1;
	}
	int rc = convert(r, &rd, o.trace, detect ? &votes : NULL);
	trace_reader_close(r);
	if (!rc && detect) {
		note_minority(&votes, strcmp(o.trace, "-") ? o.trace : "stdin");
		snprintf(kernel, sizeof(kernel), "%s", era_name(&votes));
		if (result_set_name(&rd, o.out, &c, kernel, run, err, sizeof(err))) {
			wb_error("import: %s", err);
			rc = -1;
		}
	}
	char *full[argc + 2];
	full[0] = "wblab";
	memcpy(full + 1, argv, sizeof(char *) * (size_t)argc);
	if (!rc && (result_write_meta(&rd, &c, kernel, run, "import") ||
		    result_write_cmdline(&rd, argc + 1, full))) {
		wb_error("import: cannot write meta/cmdline under '%s'", rd.tmp_path);
		rc = -1;
	}
	if (!rc && result_commit(&rd)) {
		wb_error("import: cannot create '%s': %s", rd.final_path, strerror(errno));
		rc = -1;
	}
	if (rc) {
		result_abort(&rd);
		return 1;
	}
	printf("%s\n", rd.final_path);
	return 0;
}

WB_COMMAND(import, 60) = {
	"import", "import TRACE -o DIR: a kernel trace (text or trace-cmd .dat) into a result",
	usage, options, usage_end, NULL, run_import,
};
