/* wblab report: one self-contained HTML page.  See report.h. */
#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "compare.h"
#include "plot.h"
#include "report.h"
#include "svg_inline.h"
#include "../result/result.h"
#include "../util/util.h"
#include "../result/metrics.h"

/* ---- result directories ------------------------------------------------------ */

struct result {
	char *path;
	struct kvfile meta, stats, params, env;   /* empty when the file is absent */
	char *cmdline;
	char *label;                  /* GROUP/CASE-KERNEL[.RUN] */
	char *col;                    /* value of the compared field */
	char *key;                    /* label with the column value masked */
	struct plot_summary plots;
	int have_plots;
	char tmpdir[64];              /* plots drawn into /tmp (read-only result) */
};

struct report {
	const struct report_opts *o;
	const char *field;
	struct result *r;
	int n;
	struct report_summary *sum;
	char outdir_real[4096];       /* the page's directory, absolute ("" if unknown) */
};

static const char *kv_get(const struct kvfile *f, const char *k)
{
	const struct kv *e = kvf_get(f, k);
	return e ? e->val : NULL;
}

static int exists(const char *dir, const char *name)
{
	char p[8400];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

/* Optional file: absent is fine; anything else there must read cleanly. */
static int read_kv(const char *dir, const char *name, struct kvfile *f, char *err, size_t errlen)
{
	char p[8400];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if (lstat(p, &st) != 0) {
		kvf_init(f, p);
		return 0;
	}
	return kvf_load(f, p, err, errlen);
}

/* The first line of an optional text file (cmdline). */
static char *read_text(const char *dir, const char *name)
{
	char p[8400], err[8600];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen_regular(p, 1, err, sizeof(err));
	if (!f)
		return NULL;
	char buf[4096];
	size_t n = fread(buf, 1, sizeof(buf) - 1, f);
	fclose(f);
	buf[n] = 0;
	buf[strcspn(buf, "\n")] = 0;
	return strdup(buf);
}

static int add_result(struct report *rp, const char *path)
{
	struct result *nr = realloc(rp->r, (size_t)(rp->n + 1) * sizeof(*nr));
	if (!nr)
		return -1;
	rp->r = nr;
	memset(&nr[rp->n], 0, sizeof(nr[0]));
	nr[rp->n].path = strdup(path);
	rp->n++;
	return 0;
}

/* Whether the walker finds any result under dir on its own. */
static int holds_result(const char *dir)
{
	struct result_list one;
	char e[512];
	if (result_find(&dir, 1, &one, e, sizeof(e)))
		return 0;
	int n = one.n;
	result_list_free(&one);
	return n > 0;
}

/* The results compare would find (result_find), each DIR's in sorted order;
 * a result reached through several DIRs (the same DIR twice, a root and a
 * directory inside it) is listed once, where it is first reached. */
static int find_results(struct report *rp, const char *const *dirs, int ndirs, char *err,
			size_t errlen)
{
	struct result_list found;
	if (result_find(dirs, ndirs, &found, err, errlen))
		return -1;
	int rc = 0;
	for (int a = 0; a < ndirs && !rc; a++) {
		int before = rp->n;
		for (int i = 0; i < found.n && !rc; i++)
			if (found.v[i].arg == a && add_result(rp, found.v[i].path)) {
				snprintf(err, errlen, "out of memory");
				rc = -1;
			}
		/* nothing new from this DIR: an error only if it holds no result
		 * at all (not when its results came through an earlier DIR) */
		if (!rc && rp->n == before && !holds_result(dirs[a])) {
			snprintf(err, errlen, "%s: no result directory (none holds a stats file)", dirs[a]);
			rc = -1;
		}
	}
	result_list_free(&found);
	return rc;
}

/* ---- labels, columns and keys ---------------------------------------------- */

static const char *base_of(const char *p)
{
	const char *s = strrchr(p, '/');
	return s && s[1] ? s + 1 : p;
}

static int set_names(struct report *rp, struct result *r)
{
	const char *g = kv_get(&r->meta, "group"), *c = kv_get(&r->meta, "case"),
		   *k = kv_get(&r->meta, "kernel"), *run = kv_get(&r->meta, "run");
	char buf[1024];
	if (c && k)
		snprintf(buf, sizeof(buf), "%s%s%s-%s%s%s", g ? g : "", g ? "/" : "", c, k,
			 run && strcmp(run, "1") ? "." : "", run && strcmp(run, "1") ? run : "");
	else
		snprintf(buf, sizeof(buf), "%s", base_of(r->path));
	const char *col = kv_get(&r->meta, rp->field);
	if (!col)
		col = kv_get(&r->params, rp->field);
	r->label = strdup(buf);
	r->col = strdup(col ? col : "?");
	/* Repeats (.RUN) of one case group with it. */
	if (run && strcmp(run, "1")) {
		size_t L = strlen(buf), rl = strlen(run);
		if (L > rl + 1 && !strcmp(buf + L - rl, run) && buf[L - rl - 1] == '.')
			buf[L - rl - 1] = 0;
	}
	/* compare's row key (result_row_key); without meta, or with a case
	 * the rule cannot mask, the name as it is */
	char kerr[256] = "";
	r->key = c && k ? result_row_key(g ? g : "", c, k, rp->field, r->path, kerr, sizeof(kerr)) : NULL;
	if (!r->key)
		r->key = strdup(buf);
	return r->label && r->col && r->key ? 0 : -1;
}

static int load_result(struct report *rp, struct result *r, char *err, size_t errlen)
{
	if (read_kv(r->path, "meta", &r->meta, err, errlen) ||
	    read_kv(r->path, "stats", &r->stats, err, errlen) ||
	    read_kv(r->path, "params", &r->params, err, errlen) ||
	    read_kv(r->path, "env", &r->env, err, errlen))
		return -1;
	if (r->stats.n == 0) {
		/* a result is a dir with a stats entry: an empty one is damage */
		snprintf(err, errlen, "%s: empty (no metric lines)", r->stats.path);
		return -1;
	}
	r->cmdline = read_text(r->path, "cmdline");
	if (set_names(rp, r)) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	return 0;
}

static void free_result(struct result *r)
{
	kvf_free(&r->meta);
	kvf_free(&r->stats);
	kvf_free(&r->params);
	kvf_free(&r->env);
	free(r->cmdline);
	free(r->label);
	free(r->col);
	free(r->key);
	if (r->tmpdir[0])
		remove_tree(r->tmpdir);
	free(r->path);
}

/* ---- graphs ---------------------------------------------------------------- */

static double mtime_of(const char *dir, const char *name)
{
	char p[8400];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	if (stat(p, &st) != 0)
		return -1;
	return (double)st.st_mtim.tv_sec + (double)st.st_mtim.tv_nsec / 1e9;
}

/* False after `plot --no-gnuplot`: the index lists graphs with no SVG yet. */
static int plots_complete(const struct plot_summary *s)
{
	char name[64];
	for (int i = 0; i < s->nmade; i++) {
		snprintf(name, sizeof(name), "%s.svg", plot_graph_name(s->made[i]));
		if (!exists(s->outdir, name))
			return 0;
	}
	return 1;
}

/* Uses DIR/plots when current (returns 0); otherwise sets up job j to plot
 * into it, or into a temporary directory when the result is read-only
 * (returns 1). */
static int plots_needed(struct result *r, struct plot_job *j, char *err, size_t errlen)
{
	char plots[4200];
	snprintf(plots, sizeof(plots), "%s/plots", r->path);
	const char *tname = exists(r->path, "trace.dat") ? "trace.dat" : "trace";
	int have_trace = exists(r->path, tname);
	if (plot_read_index(plots, &r->plots) == 0 && plots_complete(&r->plots) &&
	    (!have_trace || mtime_of(plots, "index") >= mtime_of(r->path, tname))) {
		r->have_plots = 1;
		return 0;
	}
	if (!have_trace) {
		snprintf(err, errlen, "%s: no trace to plot (use --no-graphs for a stats-only report)",
			 r->path);
		return -1;
	}
	memset(j, 0, sizeof(*j));
	j->dir = r->path;
	/* Read-only results (shared archives, ro mounts) are plotted into /tmp. */
	if (mkdir_p(plots) != 0) {
		snprintf(r->tmpdir, sizeof(r->tmpdir), "/tmp/wblab-report.XXXXXX");
		if (!mkdtemp(r->tmpdir)) {
			snprintf(err, errlen, "mkdtemp: %s", strerror(errno));
			r->tmpdir[0] = 0;
			return -1;
		}
		j->outdir = r->tmpdir;
	}
	return 1;
}

/* Plots, all in one pool of processes, the results whose graphs are missing
 * or older than their trace. */
static int ensure_plots(struct report *rp, char *err, size_t errlen)
{
	struct plot_job *jobs = calloc((size_t)rp->n, sizeof(*jobs));
	int *who = calloc((size_t)rp->n, sizeof(*who)), n = 0, rc = 0;
	if (!jobs || !who) {
		snprintf(err, errlen, "out of memory");
		rc = -1;
	}
	for (int i = 0; !rc && i < rp->n; i++) {
		int st = plots_needed(&rp->r[i], &jobs[n], err, errlen);
		if (st < 0)
			rc = -1;
		else if (st)
			who[n++] = i;
	}
	if (!rc && n) {
		struct plot_opts po = { .max_points = rp->o->max_points, .skip_option = "--no-graphs" };
		int tty = !rp->o->quiet && isatty(STDERR_FILENO);
		plot_many(jobs, n, &po, 0, tty ? plot_progress_line : NULL, (void *)"report: plotting");
		for (int k = 0; k < n && !rc; k++) {
			struct result *r = &rp->r[who[k]];
			if (jobs[k].rc) {
				snprintf(err, errlen, "%s", jobs[k].err);
				rc = -1;
				break;
			}
			r->plots = jobs[k].sum;
			r->have_plots = 1;
			rp->sum->nplotted++;
		}
	}
	free(jobs);
	free(who);
	return rc;
}

/* ---- HTML helpers ----------------------------------------------------------- */

void report_html_escape(FILE *f, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
	}
}

#define ESC(f, s) report_html_escape(f, s)

static const char css[] =
	"body{font:14px/1.4 system-ui,sans-serif;margin:1.5em auto;max-width:1600px;"
	"padding:0 1em;color:#222;background:#fff}\n"
	"h1{font-size:1.6em}h2{border-bottom:2px solid #ccc;margin-top:2em}\n"
	"table{border-collapse:collapse;margin:.5em 0 1em}\n"
	"th,td{border:1px solid #ccc;padding:2px 8px;text-align:left;vertical-align:top}\n"
	"th{background:#f0f0f0}td.num{text-align:right;font-family:monospace;white-space:nowrap}\n"
	".good{color:#1a7f37}.bad{color:#c62828}.note{color:#666;font-style:italic}\n"
	"tr.total td{font-weight:bold;border-top:2px solid #888}\n"
	"pre{background:#f6f8fa;padding:.6em;overflow-x:auto;font-size:12px}\n"
	"figure{margin:0;border:1px solid #ddd;padding:4px}\n"
	".graphs{display:grid;grid-template-columns:repeat(auto-fit,minmax(600px,1fr));gap:8px}\n"
	"figure svg{width:100%;height:auto;display:block}\n"
	"figure svg g{stroke-linecap:round;stroke-linejoin:round}\n"
	"figcaption{font-weight:bold;font-family:monospace}\n"
	".kvgrid{columns:3 22em}.kvgrid table{width:100%}\n"
	"nav li{font-family:monospace}code{background:#f3f3f3;padding:0 3px}\n";


/* ---- compare tables --------------------------------------------------------- */

/* The metrics of the compare tables, in page order; name, unit, better
 * direction and heading text come from the metric table. */
static const enum metric_id cmp_metrics[] = {
	M_WRITE_BW, M_NR_DIRTY_MEAN_MB, M_TIME_OVER_LIMIT_S, M_PAUSE_MS_P99, M_PAUSE_MS_MAX,
	M_FAIRNESS_JAIN,
};

/* Green for a change in the metric's good direction, red for the bad one. */
static const char *change_class(double pct, int better)
{
	double good = pct * better;
	/* Below the printed resolution (0.1%) there is nothing to colour. */
	return good >= 0.05 ? "good" : good <= -0.05 ? "bad" : "";
}

static void cell_html(FILE *f, const struct metric_def *m, const struct cmp_row *row, int c)
{
	const struct cmp_cell *cell = &row->cells[c];
	if (!cell->runs) {
		fputs(cell->na ? "<td class=\"num note\">n/a</td>" : "<td class=\"num note\">missing</td>",
		      f);
		if (c)
			fputs("<td></td>", f);
		return;
	}
	fprintf(f, "<td class=\"num\">%.2f", cell->mean);
	if (cell->runs > 1)
		fprintf(f, " <small>(%d runs, &plusmn;%.1f%%)</small>", cell->runs,
			cell->mean ? 100.0 * cell->stddev / cell->mean : 0.0);
	fputs("</td>", f);
	if (!c)
		return;
	double pct;
	/* colour only a change Welch's t-test finds significant (docs/compare.md) */
	if (row->cells[0].runs && cmp_change(row->cells[0].mean, cell->mean, &pct))
		fprintf(f, "<td class=\"num %s\">%+.1f%%%s</td>",
			cell->sig == 1 ? change_class(pct, m->better) : "", pct,
			cell->sig == 1 ? "*" : cell->sig == 0 ? "~" : "");
	else
		fputs("<td></td>", f);
}

static void sum_row(FILE *f, const struct cmp_table *t, const struct metric_def *m, const char *name,
		    const double *v)
{
	(void)m;   /* sums carry no test: never coloured */
	fputs("<tr class=\"total\"><td>", f);
	ESC(f, name);
	fputs("</td>", f);
	for (int c = 0; c < t->ncols; c++) {
		if (cmp_summary_na(t)) {
			fputs(c ? "<td class=\"num note\">n/a</td><td></td>" : "<td class=\"num note\">n/a</td>", f);
			continue;
		}
		fprintf(f, "<td class=\"num\">%.2f</td>", v[c]);
		double pct;
		if (c && cmp_change(v[0], v[c], &pct))
			fprintf(f, "<td class=\"num\">%+.1f%%</td>", pct);
		else if (c)
			fputs("<td></td>", f);
	}
	fputs("</tr>\n", f);
}

static void table_html(FILE *f, const struct cmp_table *t, const struct metric_def *m)
{
	fprintf(f, "<h3 id=\"cmp-%s\">%s", m->name, m->name);
	if (m->unit[0])
		fprintf(f, " (%s)", m->unit);
	fprintf(f, "</h3>\n<p class=\"note\">%s; columns by %s, first is the baseline; "
		   "a change is coloured only when significant (Welch's t-test, 95 %%: "
		   "* significant, ~ not, unmarked: fewer than 2 runs a side)</p>\n"
		   "<table class=\"cmp\"><tr><th>case</th>", m->doc, t->field);
	for (int c = 0; c < t->ncols; c++) {
		fputs(c ? "<th colspan=\"2\">" : "<th>", f);
		ESC(f, t->cols[c]);
		fputs("</th>", f);
	}
	fputs("</tr>\n", f);
	for (int r = 0; r < t->nrows; r++) {
		fputs("<tr><td>", f);
		ESC(f, t->rows[r].key);
		fputs("</td>", f);
		for (int c = 0; c < t->ncols; c++)
			cell_html(f, m, &t->rows[r], c);
		fputs("</tr>\n", f);
	}
	char name[160];
	snprintf(name, sizeof(name), "TOTAL %s", m->name);
	sum_row(f, t, m, name, t->total);
	if (t->ngeomean > 0) {
		snprintf(name, sizeof(name), "GEOMEAN %s (%d rows)", m->name, t->ngeomean);
		sum_row(f, t, m, name, t->geomean);
	}
	fputs("</table>\n", f);
}

/* The mailing-list text of the table, as `wblab compare` prints it. */
static void table_text(FILE *f, const struct cmp_table *t)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *m = open_memstream(&buf, &len);
	if (!m)
		return;
	cmp_write(t, CMP_TEXT, m);
	fclose(m);
	fputs("<details><summary>as text (wblab compare)</summary><pre>", f);
	ESC(f, buf);
	fputs("</pre></details>\n", f);
	free(buf);
}

static int write_compare(FILE *f, struct report *rp, const char *const *dirs, int ndirs, char *err,
			 size_t errlen)
{
	fprintf(f, "<section id=\"compare\"><h2>Comparison by %s</h2>\n", rp->field);
	for (size_t i = 0; i < ARRAY_SIZE(cmp_metrics); i++) {
		struct cmp_options co = { .field = rp->field, .metric = metric_table[cmp_metrics[i]].name,
					  .geomean = 1 };
		struct cmp_table *t;
		char e2[2048];
		int st = cmp_build(&co, dirs, ndirs, &t, e2, sizeof(e2));
		if (st == CMP_EINPUT) {
			snprintf(err, errlen, "%s", e2);
			return -1;
		}
		if (st == CMP_EEMPTY && i == 0) {
			fputs("<p class=\"note\">No case is present in two columns: nothing to compare (",
			      f);
			ESC(f, e2);
			fputs(").</p>\n", f);
			break;
		}
		if (st == CMP_EFIELD) {
			snprintf(err, errlen, "%s", e2);
			return REPORT_EUSAGE;
		}
		/* a metric none of the results has: no table for it */
		if (st != CMP_OK)
			continue;
		table_html(f, t, &metric_table[cmp_metrics[i]]);
		if (i == 0)
			table_text(f, t);
		for (int k = 0; k < t->nnotes; k++) {
			fputs("<p class=\"note\">", f);
			ESC(f, t->notes[k]);
			fputs("</p>\n", f);
		}
		rp->sum->ntables++;
		cmp_free(t);
	}
	fputs("</section>\n", f);
	return 0;
}

/* ---- environment diff -------------------------------------------------------- */

static const char *env_value(const struct result *r, const char *k)
{
	if (!strncmp(k, "env: ", 5))
		return kv_get(&r->env, k + 5);
	return kv_get(&r->params, k);
}

/* Keys of params and env in any of the group's results, in first-seen order. */
static int group_keys(const struct report *rp, const int *idx, int n, char ***keys)
{
	int nk = 0;
	*keys = NULL;
	for (int i = 0; i < n; i++) {
		const struct result *r = &rp->r[idx[i]];
		for (int pass = 0; pass < 2; pass++) {
			const struct kvfile *l = pass ? &r->env : &r->params;
			for (int j = 0; j < l->n; j++) {
				char k[512];
				snprintf(k, sizeof(k), "%s%s", pass ? "env: " : "", l->v[j].key);
				int dup = 0;
				for (int q = 0; q < nk && !dup; q++)
					dup = !strcmp((*keys)[q], k);
				if (dup)
					continue;
				char **nkeys = realloc(*keys, (size_t)(nk + 1) * sizeof(**keys));
				if (!nkeys)
					return nk;
				*keys = nkeys;
				(*keys)[nk++] = strdup(k);
			}
		}
	}
	return nk;
}

static int differs(const struct report *rp, const int *idx, int n, const char *k)
{
	const char *v0 = env_value(&rp->r[idx[0]], k);
	for (int i = 1; i < n; i++) {
		const char *v = env_value(&rp->r[idx[i]], k);
		if ((!v0) != (!v) || (v0 && strcmp(v0, v)))
			return 1;
	}
	return 0;
}

static void diff_table(FILE *f, const struct report *rp, const int *idx, int n)
{
	char **keys;
	int nk = group_keys(rp, idx, n, &keys), shown = 0;
	fputs("<h3>", f);
	ESC(f, rp->r[idx[0]].key);
	fputs("</h3>\n", f);
	for (int k = 0; k < nk; k++) {
		if (!differs(rp, idx, n, keys[k]))
			continue;
		if (!shown++) {
			fprintf(f, "<table class=\"envdiff\"><tr><th>%s</th>", "parameter");
			for (int i = 0; i < n; i++) {
				fputs("<th>", f);
				ESC(f, rp->r[idx[i]].col);
				fputs("<br><small>", f);
				ESC(f, base_of(rp->r[idx[i]].path));
				fputs("</small></th>", f);
			}
			fputs("</tr>\n", f);
		}
		fputs("<tr><td>", f);
		ESC(f, keys[k]);
		fputs("</td>", f);
		for (int i = 0; i < n; i++) {
			const char *v = env_value(&rp->r[idx[i]], keys[k]);
			fputs(v ? "<td>" : "<td class=\"note\">", f);
			ESC(f, v ? v : "absent");
			fputs("</td>", f);
		}
		fputs("</tr>\n", f);
	}
	fputs(shown ? "</table>\n" : "<p class=\"note\">no parameter or sysctl differs</p>\n", f);
	for (int k = 0; k < nk; k++)
		free(keys[k]);
	free(keys);
}

/* One table per case present in two or more columns. */
static void write_envdiff(FILE *f, const struct report *rp)
{
	fprintf(f, "<section id=\"envdiff\"><h2>Environment differences between %s columns</h2>\n"
		   "<p class=\"note\">params, and for real runs the sysctls and machine facts in "
		   "<code>env</code>, whose values differ within a case</p>\n", rp->field);
	int *done = calloc((size_t)rp->n, sizeof(int)), *idx = calloc((size_t)rp->n, sizeof(int)),
	    groups = 0;
	for (int i = 0; done && idx && i < rp->n; i++) {
		if (done[i])
			continue;
		int n = 0, cols = 0;
		for (int j = i; j < rp->n; j++)
			if (!done[j] && !strcmp(rp->r[j].key, rp->r[i].key)) {
				done[j] = 1;
				cols += n == 0 || strcmp(rp->r[j].col, rp->r[idx[0]].col) != 0;
				idx[n++] = j;
			}
		if (n < 2 || cols < 2)
			continue;
		diff_table(f, rp, idx, n);
		groups++;
	}
	if (!groups)
		fputs("<p class=\"note\">no case appears in two columns</p>\n", f);
	fputs("</section>\n", f);
	free(done);
	free(idx);
}

/* ---- per result -------------------------------------------------------------- */

/* A result's key stats, in this order, with the table's units. */
static const enum metric_id key_stats[] = {
	M_WRITE_BW, M_DURATION_S, M_DIRTIED_MB, M_WRITTEN_MB, M_NR_DIRTY_MEAN_MB, M_NR_DIRTY_MAX_MB,
	M_TIME_OVER_LIMIT_S, M_PAUSE_COUNT, M_PAUSE_MS_P50, M_PAUSE_MS_P90, M_PAUSE_MS_P99,
	M_PAUSE_MS_MAX, M_TASK_RATELIMIT_MEAN_KBPS, M_DIRTY_RATELIMIT_MEAN_KBPS, M_TASKS,
	M_TASK_BW_MIN, M_TASK_BW_MAX, M_FAIRNESS_JAIN,
};

static void kv_table(FILE *f, const struct kvfile *l, const char *cls)
{
	fprintf(f, "<table class=\"%s\">\n", cls);
	for (int i = 0; i < l->n; i++) {
		fputs("<tr><td>", f);
		ESC(f, l->v[i].key);
		fputs("</td><td>", f);
		ESC(f, l->v[i].val);
		fputs("</td></tr>\n", f);
	}
	fputs("</table>\n", f);
}

static void key_stats_table(FILE *f, const struct result *r)
{
	fputs("<table class=\"stats\"><tr><th>metric</th><th>value</th><th>unit</th></tr>\n", f);
	for (size_t i = 0; i < ARRAY_SIZE(key_stats); i++) {
		const struct metric_def *m = &metric_table[key_stats[i]];
		const char *v = kv_get(&r->stats, m->name);
		if (!v)
			continue;
		fprintf(f, "<tr><td>%s</td><td class=\"num\">", m->name);
		ESC(f, v);
		fprintf(f, "</td><td>%s</td></tr>\n", m->unit);
	}
	fputs("</table>\n", f);
}

/* target (a file) as a path relative to directory base (both made absolute
 * through realpath); -1 when either does not resolve or the target is under
 * /tmp while the page is not. */
static int relative_to(const char *base, const char *target, char *out, size_t n)
{
	char t[PATH_MAX];
	if (!realpath(target, t))
		return -1;
	if (!strncmp(t, "/tmp/wblab-report.", 18))
		return -1;      /* removed when the report is done */
	if (!strcmp(base, "/")) {
		snprintf(out, n, "%s", t + 1);
		return 0;
	}
	size_t k = 0, lastsep = 0;
	while (base[k] && t[k] == base[k]) {
		if (t[k] == '/')
			lastsep = k;
		k++;
	}
	if (!base[k] && t[k] == '/')
		lastsep = k;
	size_t used = 0;
	out[0] = 0;
	for (const char *b = base + lastsep; *b; b++)
		if (*b == '/' && used + 4 < n) {
			memcpy(out + used, "../", 4);
			used += 3;
		}
	snprintf(out + used, n - used, "%s", t + lastsep + 1);
	return 0;
}

static void graphs_of(FILE *f, struct report *rp, const struct plot_summary *s, int ri,
		      const char *tag);

/* A relative path as an href: "./" first (a first part like "...-1M:10-..."
 * would read as a URL scheme) and every byte but [A-Za-z0-9._~/-]
 * percent-encoded, so names with ':', '=', '#', '?' or quotes link as files. */
static void put_href_path(FILE *f, const char *rel)
{
	if (strncmp(rel, "../", 3))
		fputs("./", f);
	for (const unsigned char *p = (const unsigned char *)rel; *p; p++)
		if (isalnum(*p) || strchr("._~/-", *p))
			fputc(*p, f);
		else
			fprintf(f, "%%%02X", *p);
}

static void graphs_html(FILE *f, struct report *rp, const struct result *r, int ri)
{
	graphs_of(f, rp, &r->plots, ri, "g");
}

/* Overlays drawn beside a result (plots/overlay-KERNEL2/, by `wblab plot
 * --overlay` or `wblab validate --report`), each inlined under its own heading. */
static void overlays_html(FILE *f, struct report *rp, const struct result *r, int ri)
{
	const char *dir = r->plots.outdir;     /* DIR/plots, or the /tmp copy */
	DIR *d = opendir(dir);
	if (!d)
		return;
	char names[16][256];
	int n = 0;
	for (struct dirent *e; (e = readdir(d)) && n < 16;)
		if (!strncmp(e->d_name, "overlay-", 8) && strlen(e->d_name) < sizeof(names[0]))
			snprintf(names[n++], sizeof(names[0]), "%s", e->d_name);
	closedir(d);
	qsort(names, (size_t)n, sizeof(names[0]), (int (*)(const void *, const void *))strcmp);
	for (int i = 0; i < n; i++) {
		struct plot_summary s;
		char sub[sizeof(s.outdir)], tag[16];
		int k = snprintf(sub, sizeof(sub), "%.3800s/%.255s", dir, names[i]);
		if (k < 0 || (size_t)k >= sizeof(sub) || plot_read_index(sub, &s) || !s.nmade)
			continue;
		memcpy(s.outdir, sub, sizeof(sub));
		fputs("<h3>Overlay: ", f);
		ESC(f, names[i] + 8);
		fputs(" on the same axes</h3>\n", f);
		snprintf(tag, sizeof(tag), "o%d", i);
		graphs_of(f, rp, &s, ri, tag);
	}
}

static void graphs_of(FILE *f, struct report *rp, const struct plot_summary *s, int ri,
		      const char *tag)
{
	fputs("<div class=\"graphs\">\n", f);
	for (int i = 0; i < s->nmade; i++) {
		const char *g = plot_graph_name(s->made[i]);
		char path[4400], prefix[48];
		snprintf(path, sizeof(path), "%s/%s.svg", s->outdir, g);
		snprintf(prefix, sizeof(prefix), "r%d-%s%d-", ri, tag, i);
		fprintf(f, "<figure class=\"graph\" data-graph=\"%s\"><figcaption>%s", g, g);
		/* the PNG beside the graph, for mail: a relative link when the page
		 * is written next to the results (not for plots in /tmp) */
		char rel[4400], png[4400];
		snprintf(png, sizeof(png), "%s/%s.png", s->outdir, g);
		if (rp->outdir_real[0] && relative_to(rp->outdir_real, png, rel, sizeof(rel)) == 0) {
			fputs(" <a class=\"png\" href=\"", f);
			put_href_path(f, rel);
			fputs("\">PNG</a>", f);
		}
		fputs("</figcaption>\n", f);
		char why[160];
		int in = svg_inline(f, path, prefix, why, sizeof(why));
		if (in == 0) {
			rp->sum->ngraphs++;
		} else if (in == -1) {
			fprintf(f, "<p class=\"note\">%s.svg is missing; run wblab plot again</p>", g);
		} else {
			fputs("<p class=\"note\">not inlined: ", f);
			ESC(f, path);
			fputs(" holds ", f);
			ESC(f, why);      /* it may quote the offending markup */
			fputs(", which a report does not carry</p>", f);
			wb_error("report: warning: %s holds %s; not inlined", path, why);
		}
		fputs("</figure>\n", f);
	}
	fputs("</div>\n", f);
	for (int i = 0; i < s->nskipped; i++) {
		fputs("<p class=\"note skipped\">skipped ", f);
		ESC(f, s->skipped[i]);
		fputs("</p>\n", f);
	}
}

static void result_html(FILE *f, struct report *rp, const struct result *r, int ri)
{
	fprintf(f, "<section class=\"result\" id=\"r%d\"><h2>", ri);
	ESC(f, r->label);
	fputs("</h2>\n<p>", f);
	static const char *const facts[] = { "source", "kernel", "fs", "job", "thresh", "bg", "run" };
	for (size_t i = 0; i < ARRAY_SIZE(facts); i++) {
		const char *v = kv_get(&r->meta, facts[i]);
		if (v) {
			fprintf(f, "%s <b>", facts[i]);
			ESC(f, v);
			fputs("</b> &nbsp; ", f);
		}
	}
	fputs("<br>directory <code>", f);
	ESC(f, r->path);
	fputs("</code></p>\n<h3>Key stats</h3>\n", f);
	if (r->stats.n)
		key_stats_table(f, r);
	else
		fputs("<p class=\"note\">no stats file</p>\n", f);
	if (r->have_plots) {
		fputs("<h3>Graphs</h3>\n", f);
		graphs_html(f, rp, r, ri);
		overlays_html(f, rp, r, ri);
	}
	fputs("<h3>Parameters</h3>\n", f);
	if (r->params.n) {
		fputs("<div class=\"kvgrid\">", f);
		kv_table(f, &r->params, "params");
		fputs("</div>\n", f);
	} else {
		fputs("<p class=\"note\">no params file</p>\n", f);
	}
	if (r->env.n) {
		fputs("<h3>Environment</h3>\n<div class=\"kvgrid\">", f);
		kv_table(f, &r->env, "env");
		fputs("</div>\n", f);
	}
	if (r->cmdline) {
		/* sim and import cmdlines name wblab; a real run's starts at "run" */
		fputs(strncmp(r->cmdline, "wblab ", 6) ? "<p>command: <code>wblab " : "<p>command: <code>", f);
		ESC(f, r->cmdline);
		fputs("</code></p>\n", f);
	}
	fputs("<details><summary>all stats</summary>\n", f);
	kv_table(f, &r->stats, "allstats");
	fputs("</details></section>\n", f);
}

/* ---- the page ----------------------------------------------------------------- */

static void page_head(FILE *f, const struct report *rp, const char *const *dirs, int ndirs)
{
	const char *title = rp->o->title ? rp->o->title : "wblab report";
	/* the page has no scripts of its own: a policy that forbids them (and
	 * every fetch) is the backstop behind the SVG allowlist */
	fputs("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; img-src 'self' data:\">\n<title>", f);
	ESC(f, title);
	fprintf(f, "</title>\n<style>\n%s</style></head>\n<body>\n<h1>", css);
	ESC(f, title);
	fprintf(f, "</h1>\n<p class=\"note\">%d result%s from", rp->n, rp->n == 1 ? "" : "s");
	if (ndirs <= 3) {
		for (int i = 0; i < ndirs; i++) {
			fputs(" <code>", f);
			ESC(f, dirs[i]);
			fputs("</code>", f);
		}
	} else {
		/* many DIRs (the seed passes 24): their common directory, not a wall of paths */
		size_t cl = strlen(dirs[0]);
		for (int i = 1; i < ndirs; i++) {
			size_t k = 0;
			while (k < cl && dirs[i][k] == dirs[0][k])
				k++;
			cl = k;
		}
		while (cl > 0 && dirs[0][cl - 1] != '/')
			cl--;
		char common[4200];
		snprintf(common, sizeof(common), "%.*s", (int)(cl > 1 ? cl - 1 : cl), dirs[0]);
		fprintf(f, " %d directories under <code>", ndirs);
		ESC(f, cl ? common : ".");
		fputs("</code>", f);
	}
	fprintf(f, "; columns by %s; written by wblab %s (see docs/plot-report.md)</p>\n<nav><ul>\n"
		   "<li><a href=\"#compare\">comparison</a></li>\n"
		   "<li><a href=\"#envdiff\">environment differences</a></li>\n",
		rp->field, WBLAB_VERSION);
	for (int i = 0; i < rp->n; i++) {
		fprintf(f, "<li><a href=\"#r%d\">", i);
		ESC(f, rp->r[i].label);
		fputs("</a></li>\n", f);
	}
	fputs("</ul></nav>\n", f);
}

static int write_page(FILE *f, struct report *rp, const char *const *dirs, int ndirs, char *err,
		      size_t errlen)
{
	page_head(f, rp, dirs, ndirs);
	if (write_compare(f, rp, dirs, ndirs, err, errlen))
		return -1;
	write_envdiff(f, rp);
	for (int i = 0; i < rp->n; i++)
		result_html(f, rp, &rp->r[i], i);
	fputs("</body></html>\n", f);
	return 0;
}

static int write_file(struct report *rp, const char *const *dirs, int ndirs, char *err,
		      size_t errlen)
{
	char tmp[4200];
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", rp->o->out, (int)getpid());
	FILE *f = fopen(tmp, "w");
	if (!f) {
		snprintf(err, errlen, "%s: %s", rp->o->out, strerror(errno));
		return -1;
	}
	int rc = write_page(f, rp, dirs, ndirs, err, errlen);
	int bad = ferror(f);
	if (fclose(f) || bad) {
		if (!rc)
			snprintf(err, errlen, "%s: write error", rp->o->out);
		rc = -1;
	}
	if (!rc && rename(tmp, rp->o->out)) {
		snprintf(err, errlen, "%s: %s", rp->o->out, strerror(errno));
		rc = -1;
	}
	if (rc)
		unlink(tmp);
	return rc;
}

/* -c FIELD as compare takes it: an unknown field is compare's usage error
 * (REPORT_EUSAGE), said before anything is plotted. */
static int check_field(struct report *rp, const char *const *dirs, int ndirs, char *err,
		       size_t errlen)
{
	struct cmp_options co = { .field = rp->field, .metric = metric_table[cmp_metrics[0]].name };
	struct cmp_table *t = NULL;
	char e2[2048];
	int st = cmp_build(&co, dirs, ndirs, &t, e2, sizeof(e2));
	if (st == CMP_OK)
		cmp_free(t);
	if (st != CMP_EFIELD)
		return 0;
	snprintf(err, errlen, "%s", e2);
	return REPORT_EUSAGE;
}

int report_write(const char *const *dirs, int ndirs, const struct report_opts *o,
		 struct report_summary *sum, char *err, size_t errlen)
{
	struct report rp = { .o = o, .field = o->field ? o->field : "kernel", .sum = sum };
	memset(sum, 0, sizeof(*sum));
	char od[4200];
	snprintf(od, sizeof(od), "%s", o->out);
	char *slash = strrchr(od, '/');
	if (slash)
		*(slash == od ? slash + 1 : slash) = 0;
	if (!realpath(slash ? od : ".", rp.outdir_real))
		rp.outdir_real[0] = 0;
	int rc = find_results(&rp, dirs, ndirs, err, errlen);
	if (!rc)
		rc = check_field(&rp, dirs, ndirs, err, errlen);
	for (int i = 0; !rc && i < rp.n; i++)
		rc = load_result(&rp, &rp.r[i], err, errlen);
	if (!rc && !o->no_graphs)
		rc = ensure_plots(&rp, err, errlen);
	if (!rc)
		rc = write_file(&rp, dirs, ndirs, err, errlen);
	sum->nresults = rp.n;
	for (int i = 0; i < rp.n; i++)
		free_result(&rp.r[i]);
	free(rp.r);
	return rc;
}
