/* wblab compare: the CLI face of src/analysis/compare.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "commands.h"
#include "../analysis/compare.h"
#include "../util/util.h"

static const char usage[] =
	"usage: wblab compare [-c FIELD] [-e METRIC] [-g REGEX]... [-v REGEX]...\n"
	"                     [--baseline VALUE] [--order V1,V2,...]\n"
	"                     [--stddev] [--geomean] [--format text|tsv|json] DIR...\n"
	"\n"
	"Compare one metric of many results: one row per case, one column per value\n"
	"of FIELD, as writeback-tests' compare printed it.\n"
	"\n"
	"DIR is a result directory (one holding a `stats` file) or a root searched\n"
	"recursively, in sorted order; hidden entries (unfinished .*.tmp.* results)\n"
	"are skipped.  Fields come from each result's `meta` (from its directory\n"
	"name, with a warning, when meta is missing).\n"
	"\n";

static const char usage_end[] =
	"\n"
	"Options may come anywhere among the DIRs.  Columns: --baseline, then --order;\n"
	"else the order a DIR records in its " CMP_ORDER_FILE " file (`FIELD = V1,V2,...`,\n"
	"written by `wblab seed`); else the order values are first met in the sorted\n"
	"list of results, except the baseline (first column): the value of the first\n"
	"result under the first DIR.  Rows are GROUP/CASE-KERNEL with FIELD's part masked as\n"
	"X, sorted; runs of one case in one column are averaged; a case in fewer than\n"
	"two columns is left out.  Text cells: baseline \"%24.2f\", others\n"
	"\"%+10.1f%% %12.2f\" (plain \"%24.2f\" when either value is 0); a missing cell\n"
	"prints as 0.00 and counts 0 in TOTAL (the plain column sums).  A result\n"
	"whose stats lacks METRIC while others have it did not measure it: \"n/a\",\n"
	"and its row is left out of TOTAL and GEOMEAN (n/a when all rows are).\n"
	"\n"
	"Significance: a cell with >= 2 runs, against a baseline cell with >= 2, gets\n"
	"Welch's t-test at 95 %: \"*\" after the value when significant, \"~\" when not\n"
	"(a blank: untested).  --geomean adds a CI95 GEOMEAN line (95 % interval of\n"
	"the geometric-mean ratio over the rows).\n"
	"\n"
	"tsv: header \"key FIELD METRIC stddev runs change_pct p_value significant\",\n"
	"  then one line per\n"
	"  (row, column); empty stddev when runs < 2, empty mean and runs 0 when\n"
	"  missing (mean \"n/a\" when not measured); then TOTAL (and GEOMEAN) lines keyed \"TOTAL METRIC\";\n"
	"  then \"ENV KIND KEY COLUMN_A A COLUMN_B B\" lines.\n"
	"json: {\"field\", \"metric\", \"columns\": [...], \"rows\": [{\"key\", \"cells\":\n"
	"  [{\"mean\", \"stddev\", \"runs\", \"change_pct\"[, \"p_value\", \"significant\"]},\n"
	"  null or \"n/a\"]}], \"total\": {\"values\",\n"
	"  \"change_pct\"}, [\"geomean\", \"geomean_rows\"], \"left_out_single\", \"env_diff\":\n"
	"  [{\"kind\", \"key\", \"column_a\", \"a\", \"column_b\", \"b\"}]} (jansson).\n"
	"Under the table, in every format: the params/env keys whose values differ\n"
	"between columns (\"differs: KEY = A (COL), B (COL)\"), and a warning for each\n"
	"key a column's merged results differ in.\n"
	"See docs/compare.md.\n"
	"\n"
	"Exit status: 0 ok; 1 unreadable/malformed input or nothing to compare; 2 usage,\n"
	"unknown metric or field.\n";

struct cli {
	struct cmp_options o;
	int fmt;                /* enum cmp_format */
	const char **grep, **vgrep;
	const char **order;
};

static void push(const char ***v, int *n, const char *s)
{
	const char **nv = realloc(*v, (size_t)(*n + 1) * sizeof(**v));
	if (!nv) {
		wb_error("out of memory");
		exit(1);
	}
	nv[(*n)++] = s;
	*v = nv;
}

static int opt_grep(const struct po_option *opt, const char *arg, void *base, char *err, size_t n)
{
	struct cli *c = base;
	(void)opt, (void)err, (void)n;
	push(&c->grep, &c->o.ngrep, arg);
	return 0;
}

static int opt_vgrep(const struct po_option *opt, const char *arg, void *base, char *err, size_t n)
{
	struct cli *c = base;
	(void)opt, (void)err, (void)n;
	push(&c->vgrep, &c->o.nvgrep, arg);
	return 0;
}

static int opt_order(const struct po_option *opt, const char *arg, void *base, char *err, size_t n)
{
	struct cli *c = base;
	(void)opt;
	c->o.norder = 0;
	for (char *save = NULL, *p = strtok_r((char *)arg, ",", &save); p; p = strtok_r(NULL, ",", &save))
		push(&c->order, &c->o.norder, p);
	if (c->o.norder)
		return 0;
	snprintf(err, n, "needs a comma-separated list of values");
	return -1;
}

static const char *const formats[] = { "text", "tsv", "json", NULL };

#define PO_STRUCT struct cli
static const struct po_option options[] = {
	OPT_STRING('c', "compare", o.field, "FIELD",
		   "columns: kernel (default), case, fs, job, thresh, bg,\n"
		   "bs, cpus, mem, run, group, source, or a key of `params`"),
	OPT_STRING('e', "evaluate", o.metric, "METRIC", "a name in `stats` (default write_bw)"),
	OPT_CALLBACK('g', "grep", "REGEX", opt_grep,
		     "keep only cases matching REGEX (POSIX extended;\n"
		     "repeatable: all must match)"),
	OPT_CALLBACK('v', "reverse-grep", "REGEX", opt_vgrep,
		     "drop cases matching REGEX (repeatable)\n"
		     "-g/-v test the row key and the unmasked\n"
		     "GROUP/CASE-KERNEL, so -v KERNEL drops a column"),
	OPT_STRING(0, "baseline", o.baseline, "VALUE",
		   "this value of FIELD is the first column, the one\n"
		   "percents refer to"),
	OPT_CALLBACK(0, "order", "V1,V2,...", opt_order,
		     "these values first, in this order (others follow);\n"
		     "with --baseline, the baseline still comes first"),
	OPT_FLAG(0, "stddev", o.stddev, "append the relative stddev of repeated runs, ±x%"),
	OPT_FLAG(0, "geomean", o.geomean, "add a GEOMEAN row (over rows present in every column)"),
	OPT_CHOICE(0, "format", fmt, "F", formats, "text (default), tsv or json"),
	OPT_END(),
};

static int run_compare(int argc, char **argv)
{
	struct cli c = { .fmt = CMP_TEXT };
	char **dirs = calloc((size_t)argc, sizeof(*dirs));
	int n = dirs ? po_parse_cmd(argv[0], options, &c, argc, argv, 0, dirs) : -1, rc = EXIT_USAGE;
	c.o.grep = c.grep;
	c.o.vgrep = c.vgrep;
	c.o.order = c.order;
	if (n == 0)
		wb_error("compare: no DIR given (see 'wblab help compare')");
	if (n <= 0)
		goto out;
	struct cmp_table *t;
	char err[2048];
	int st = cmp_build(&c.o, (const char *const *)dirs, n, &t, err, sizeof(err));
	if (st != CMP_OK) {
		wb_error("compare: %s", err);
		rc = st == CMP_EUSAGE || st == CMP_EFIELD ? EXIT_USAGE : 1;
		goto out;
	}
	for (int i = 0; i < t->nnotes; i++)
		wb_error("compare: warning: %s", t->notes[i]);
	rc = cmp_write(t, (enum cmp_format)c.fmt, stdout) || fflush(stdout) ? 1 : 0;
	if (rc)
		wb_error("compare: cannot write the table");
	cmp_free(t);
out:
	free(dirs);
	free(c.grep);
	free(c.vgrep);
	free(c.order);
	return rc;
}

WB_COMMAND(compare, 70) = {
	"compare", "compare one metric across kernels/fs/thresholds, one row per case",
	usage, options, usage_end, NULL, run_compare,
};
