/* Compare one metric of many result directories across the values of one
 * field (kernel, fs, job, thresh, run, any meta or params key), the way
 * writeback-tests' `compare` did, plus repeat-run statistics (lkp-tests).
 *
 *   struct cmp_options o = { .field = "kernel", .metric = "write_bw" };
 *   struct cmp_table *t;
 *   char err[512];
 *   int rc = cmp_build(&o, dirs, ndirs, &t, err, sizeof(err));
 *   if (rc == CMP_OK) { cmp_write(t, CMP_TEXT, stdout); cmp_free(t); }
 *
 * The library never prints; errors come back in err, warnings in t->notes.
 * See docs/compare.md for the rules (columns, baseline, keys, formats). */
#ifndef WBLAB_COMPARE_H
#define WBLAB_COMPARE_H
#include <stddef.h>
#include <stdio.h>

enum cmp_status {
	CMP_OK = 0,
	CMP_EINPUT,   /* unreadable or malformed meta/stats/params, bad DIR: exit 1 */
	CMP_EEMPTY,   /* nothing selected, or no case in two columns: exit 1 */
	CMP_EUSAGE,   /* unknown metric, bad regex: exit 2 */
	CMP_EFIELD,   /* unknown field (no result has it; said before an unknown
		       * metric): exit 2 */
};

enum cmp_format { CMP_TEXT, CMP_TSV, CMP_JSON };

struct cmp_options {
	const char *field;            /* NULL: "kernel" */
	const char *metric;           /* NULL: "write_bw" */
	const char *const *grep;      /* keep a result only if every regex matches */
	int ngrep;
	const char *const *vgrep;     /* drop a result if any regex matches */
	int nvgrep;
	int stddev;                   /* text: append " ±x%" to each cell */
	int geomean;                  /* all formats: add the GEOMEAN row */
	const char *baseline;         /* NULL: see docs/compare.md; else this column first */
	const char *const *order;     /* these columns first, in this order (then the rest) */
	int norder;
};

/* The file at a result root that records its column order, one
 * "FIELD = V1,V2,..." line per field (written by `wblab seed`). */
#define CMP_ORDER_FILE ".wblab-order"

/* One (case, column) cell: the mean of its runs.  runs == 0: missing, or
 * n/a when na is set (results exist, but none of them measured the metric:
 * the key is absent from their stats). */
struct cmp_cell {
	int runs;
	int na;
	double mean;
	double stddev;                /* sample stddev (n-1); 0 when runs < 2 */
	int sig;                      /* against the baseline cell, Welch's t-test at
				       * 95 %: 1 significant, 0 not, -1 untested
				       * (baseline column, or < 2 runs on a side) */
	double p_value;               /* two-sided, when sig >= 0 */
};

struct cmp_row {
	char *key;                    /* GROUP/CASE-KERNEL, compared field as X */
	struct cmp_cell *cells;       /* [ncols] */
};

/* One key (params.X or env.X) that differs: between the first results of
 * two columns in a row (kind "differs"), or between two results one column
 * merges into a cell (kind "merges": col_a == col_b; the mean mixes setups).
 * (absent) stands for a key one side lacks. */
struct cmp_envdiff {
	char *kind, *key, *col_a, *a, *col_b, *b;
};

struct cmp_table {
	char *field, *metric;
	int ncols;
	char **cols;                  /* cols[0] is the baseline */
	int nrows;
	struct cmp_row *rows;         /* sorted by key (strcmp); each in >= 2 columns */
	double *total;                /* [ncols] plain sums of the means, missing = 0,
				       * over the rows without an n/a cell */
	int ntotal;                   /* rows that went into total; 0 with nna: n/a */
	int nna;                      /* rows with an n/a cell (out of total, geomean) */
	double *geomean;              /* [ncols] over rows positive in every column */
	int ngeomean;                 /* rows that went into geomean */
	double *ci_lo, *ci_hi;        /* [ncols] 95 % CI of the geomean ratio against
				       * the baseline, as percent changes (t over the
				       * geomean rows' log ratios); valid if ngeomean >= 2 */
	int want_stddev, want_geomean;
	int nresults;                 /* result dirs that went into the table */
	int nsingle;                  /* cases left out: present in one column only */
	int nnotes;
	char **notes;                 /* one-line warnings for the caller to show */
	int nenv;
	struct cmp_envdiff *env;      /* each differing key once, "differs" first;
				       * every format prints them under the table */
};

/* Scans dirs (result dirs, or roots searched recursively) and builds the
 * table.  Returns CMP_OK with *out set, or a status with a one-line reason
 * in err (naming the file and line for malformed input). */
int cmp_build(const struct cmp_options *o, const char *const *dirs, int ndirs,
	      struct cmp_table **out, char *err, size_t errlen);

/* Percent change of v against base; 0 (no percent) when either is 0.
 * cmp_change is the shown one (text, report): |change| below 0.05 % is 0,
 * so a table never shows "-0.0%"; tsv and json give the exact one. */
int cmp_change(double base, double v, double *pct);
int cmp_change_exact(double base, double v, double *pct);

/* 1 when TOTAL and GEOMEAN are n/a: every row has an n/a cell. */
int cmp_summary_na(const struct cmp_table *t);

/* Welch's two-sided t-test of b against a at 95 % (GSL's t distribution):
 * 1 significant, 0 not, -1 when either has fewer than 2 runs; *p the
 * p-value.  Zero variance on both sides: significant iff the means differ. */
int cmp_welch(const struct cmp_cell *a, const struct cmp_cell *b, double *p);

/* Writes the table; returns 0, or -1 on a write error. */
int cmp_write(const struct cmp_table *t, enum cmp_format fmt, FILE *f);

/* "text", "tsv", "json" -> 0, else -1. */
int cmp_parse_format(const char *s, enum cmp_format *fmt);

void cmp_free(struct cmp_table *t);

#endif
