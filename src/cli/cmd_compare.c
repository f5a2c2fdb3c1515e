/* wblab compare: the CLI face of src/analysis/compare.c. */
#include <getopt.h>
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
	"\n"
	"  -c, --compare FIELD    columns: kernel (default), fs, job, thresh, bg, bs,\n"
	"                         cpus, mem, run, group, source, or a key of `params`\n"
	"  -e, --evaluate METRIC  a name in `stats` (default write_bw)\n"
	"  -g, --grep REGEX       keep only cases matching REGEX (POSIX extended;\n"
	"                         repeatable: all must match)\n"
	"  -v, --reverse-grep REGEX  drop cases matching REGEX (repeatable)\n"
	"                         -g/-v test the row key and the unmasked\n"
	"                         GROUP/CASE-KERNEL, so -v KERNEL drops a column\n"
	"      --baseline VALUE   this value of FIELD is the first column, the one\n"
	"                         percents refer to\n"
	"      --order V1,V2,...  these values first, in this order (others follow);\n"
	"                         with --baseline, the baseline still comes first\n"
	"      --stddev           append the relative stddev of repeated runs, ±x%\n"
	"      --geomean          add a GEOMEAN row (over rows present in every column)\n"
	"      --format F         text (default), tsv or json\n"
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
	"  missing (mean \"n/a\" when not measured); then TOTAL (and GEOMEAN) lines keyed \"TOTAL METRIC\".\n"
	"json: {\"field\", \"metric\", \"columns\": [...], \"rows\": [{\"key\", \"cells\":\n"
	"  [{\"mean\", \"stddev\", \"runs\", \"change_pct\"[, \"p_value\", \"significant\"]},\n"
	"  null or \"n/a\"]}], \"total\": {\"values\",\n"
	"  \"change_pct\"}, [\"geomean\", \"geomean_rows\"], \"left_out_single\"}.\n"
	"See docs/compare.md.\n"
	"\n"
	"Exit: 0 ok; 1 unreadable/malformed input or nothing to compare; 2 usage,\n"
	"unknown metric or field.\n";

struct cli {
	struct cmp_options o;
	enum cmp_format fmt;
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

/* Returns the index of the first DIR, or -1 after printing a usage error. */
static int parse_args(int argc, char **argv, struct cli *c)
{
	enum { OPT_STDDEV = 256, OPT_GEOMEAN, OPT_FORMAT, OPT_BASELINE, OPT_ORDER };
	static const struct option longopts[] = {
		{ "compare", required_argument, NULL, 'c' },
		{ "evaluate", required_argument, NULL, 'e' },
		{ "grep", required_argument, NULL, 'g' },
		{ "reverse-grep", required_argument, NULL, 'v' },
		{ "stddev", no_argument, NULL, OPT_STDDEV },
		{ "geomean", no_argument, NULL, OPT_GEOMEAN },
		{ "format", required_argument, NULL, OPT_FORMAT },
		{ "baseline", required_argument, NULL, OPT_BASELINE },
		{ "order", required_argument, NULL, OPT_ORDER },
		{ NULL, 0, NULL, 0 },
	};
	int ch;
	opterr = 0;
	optind = 1;
	while ((ch = getopt_long(argc, argv, "c:e:g:v:", longopts, NULL)) != -1) {
		switch (ch) {
		case 'c': c->o.field = optarg; break;
		case 'e': c->o.metric = optarg; break;
		case 'g': push(&c->grep, &c->o.ngrep, optarg); break;
		case 'v': push(&c->vgrep, &c->o.nvgrep, optarg); break;
		case OPT_BASELINE: c->o.baseline = optarg; break;
		case OPT_ORDER:
			c->o.norder = 0;
			for (char *save = NULL, *p = strtok_r(optarg, ",", &save); p;
			     p = strtok_r(NULL, ",", &save))
				push(&c->order, &c->o.norder, p);
			if (c->o.norder)
				break;
			wb_error("compare: --order needs a comma-separated list of values");
			return -1;
		case OPT_STDDEV: c->o.stddev = 1; break;
		case OPT_GEOMEAN: c->o.geomean = 1; break;
		case OPT_FORMAT:
			if (cmp_parse_format(optarg, &c->fmt) == 0)
				break;
			wb_error("compare: --format must be text, tsv or json, not '%s'", optarg);
			return -1;
		default:
			wb_error("compare: bad option '%s' (see 'wblab help compare')", argv[optind - 1]);
			return -1;
		}
	}
	c->o.grep = c->grep;
	c->o.vgrep = c->vgrep;
	c->o.order = c->order;
	if (optind >= argc) {
		wb_error("compare: no DIR given (see 'wblab help compare')");
		return -1;
	}
	return optind;
}

static int run_compare(int argc, char **argv)
{
	struct cli c = { .fmt = CMP_TEXT };
	int first = parse_args(argc, argv, &c), rc = EXIT_USAGE;
	if (first < 0)
		goto out;
	struct cmp_table *t;
	char err[2048];
	int st = cmp_build(&c.o, (const char *const *)argv + first, argc - first, &t, err,
			   sizeof(err));
	if (st != CMP_OK) {
		wb_error("compare: %s", err);
		rc = st == CMP_EUSAGE ? EXIT_USAGE : 1;
		goto out;
	}
	for (int i = 0; i < t->nnotes; i++)
		wb_error("compare: warning: %s", t->notes[i]);
	rc = cmp_write(t, c.fmt, stdout) || fflush(stdout) ? 1 : 0;
	if (rc)
		wb_error("compare: cannot write the table");
	cmp_free(t);
out:
	free(c.grep);
	free(c.vgrep);
	free(c.order);
	return rc;
}

WB_COMMAND(compare, 70) = {
	"compare", "compare one metric across kernels/fs/thresholds, one row per case",
	usage, NULL, NULL, NULL, run_compare,
};
