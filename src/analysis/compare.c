/* wblab compare: one metric of many results, cases as rows, the values of one
 * field as columns.  Three stages: find result dirs, read each into a sample
 * (row key, column, value), then fold samples into a sorted table.  Its
 * text, tsv and json forms are written by compare_write.c. */
#include <limits.h>
#include <math.h>
#include <regex.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <gsl/gsl_cdf.h>
#include "compare.h"
#include "../result/result.h"
#include "../util/util.h"
#include "../result/metrics.h"

/* ---- small allocation helpers: a CLI has nothing better to do on OOM ---- */

static void *xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q) {
		fputs("wblab: out of memory\n", stderr);
		abort();
	}
	return q;
}

static char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xrealloc(NULL, n), s, n);
}

static char *xprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static char *xprintf(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *s = xrealloc(NULL, (size_t)n + 1);
	va_start(ap, fmt);
	vsnprintf(s, (size_t)n + 1, fmt, ap);
	va_end(ap);
	return s;
}

struct strvec {
	char **v;
	int n, cap;
};

static void sv_push(struct strvec *s, char *owned)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 16;
		s->v = xrealloc(s->v, (size_t)s->cap * sizeof(*s->v));
	}
	s->v[s->n++] = owned;
}

static int sv_find(const struct strvec *s, const char *x)
{
	for (int i = 0; i < s->n; i++)
		if (strcmp(s->v[i], x) == 0)
			return i;
	return -1;
}

static void sv_free(struct strvec *s)
{
	for (int i = 0; i < s->n; i++)
		free(s->v[i]);
	free(s->v);
	memset(s, 0, sizeof(*s));
}

/* ---- key/value files come from result.c's reader ---- */

static void xadd(struct kvfile *f, const char *k, const char *v)
{
	if (kvf_add(f, k, v, 0)) {
		fputs("wblab: out of memory\n", stderr);
		abort();
	}
}

/* Present in any form: what it is gets checked when it is read. */
static int entry_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

/* ---- one result: identity from meta, value from stats ---- */

static const char *const meta_required[] = { "case", "group", "kernel", "fs", "job",
					      "thresh", "bg", "run" };

/* No meta file: take CASE-KERNEL[.RUN] from the leaf (six '-' tokens of
 * case, the rest is the kernel) and GROUP from the parent's name, with the
 * KEY=V directories right above it that lie below the DIR argument (root):
 * a sweep's group is several parts (thresh=1M/hz=100). */
static int meta_from_dirname(struct kvfile *m, const char *dir, const char *root, char *err,
			     size_t errlen)
{
	char *copy = realpath(dir, NULL), *rroot = root ? realpath(root, NULL) : NULL;
	char *leaf = copy ? strrchr(copy, '/') : NULL;
	if (!leaf) {
		snprintf(err, errlen, "%s: no meta, and no usable directory name", dir);
		free(copy);
		free(rroot);
		return -1;
	}
	*leaf++ = 0;
	char *parent = strrchr(copy, '/');
	parent = parent ? parent + 1 : copy;
	/* a sweep's group parts (KEY=V) above the parent, while they stay below
	 * the root: archive/2011/thresh=100M keeps thresh=100M, thresh=1M/hz=100
	 * keeps both */
	size_t rl = rroot && strlen(rroot) > 1 ? strlen(rroot) : 0;
	int below = rl && !strncmp(copy, rroot, rl) && copy[rl] == '/';
	while (below && strchr(parent, '=') && parent > copy + rl + 1) {
		char *up = parent - 2;      /* the '/' before parent is at parent - 1 */
		while (up > copy && *up != '/')
			up--;
		char *comp = up + 1;
		size_t cl = (size_t)(parent - 1 - comp);
		if (up < copy + rl || !memchr(comp, '=', cl))
			break;
		parent = comp;
	}
	free(rroot);
	struct result_name rn;
	char *tok[7], *p = rn.case_name;
	int ok = *parent != 0 && !result_name_parse(leaf, &rn) && rn.has_kernel && rn.kernel[0];
	/* the case's six fields (it has exactly five '-') */
	for (int i = 0; i < 6 && ok; i++) {
		tok[i] = p;
		p = strchr(p, '-');
		if (p)
			*p++ = 0;
	}
	char *colon = ok ? strchr(tok[5], ':') : NULL;
	if (!colon) {
		snprintf(err, errlen, "%s: no meta, and the directory name is not "
			 "GROUP/FS-JOB-BS-CPUS-MEM-THRESH:BG-KERNEL[.RUN]", dir);
		free(copy);
		return -1;
	}
	rn.kernel[rn.kernel_len] = 0;
	tok[6] = rn.kernel;
	int run = rn.run;
	char *name = xprintf("%s-%s-%s-%s-%s-%s", tok[0], tok[1], tok[2], tok[3], tok[4], tok[5]);
	char runs[16];
	snprintf(runs, sizeof(runs), "%d", run);
	xadd(m, "case", name);
	xadd(m, "group", parent);
	xadd(m, "kernel", tok[6]);
	xadd(m, "fs", tok[0]);
	xadd(m, "job", tok[1]);
	xadd(m, "bs", tok[2]);
	xadd(m, "cpus", tok[3]);
	xadd(m, "mem", tok[4]);
	*colon = 0;
	xadd(m, "thresh", tok[5]);
	xadd(m, "bg", colon + 1);
	xadd(m, "run", runs);
	free(name);
	free(copy);
	return 0;
}

/* Reads DIR/meta (or falls back to the dir name, noting it) and checks it. */
static int load_meta(struct kvfile *m, const char *dir, const char *root, struct strvec *notes,
		     char *err, size_t errlen)
{
	char *path = xprintf("%s/meta", dir);
	int rc;
	if (!entry_exists(path)) {
		kvf_init(m, path);
		rc = meta_from_dirname(m, dir, root, err, errlen);
		if (!rc)
			sv_push(notes, xprintf("%s: no meta file, fields parsed from the directory name",
					       dir));
		free(path);
		return rc;
	}
	rc = kvf_load(m, path, err, errlen);
	free(path);
	if (rc)
		return rc;
	for (size_t i = 0; i < ARRAY_SIZE(meta_required); i++) {
		const struct kv *e = kvf_get(m, meta_required[i]);
		if (!e) {
			snprintf(err, errlen, "%s: no '%s' line", m->path, meta_required[i]);
			return -1;
		}
		if (!e->val[0]) {
			snprintf(err, errlen, "%s:%d: '%s' is empty", m->path, e->line, e->key);
			return -1;
		}
	}
	const struct kv *run = kvf_get(m, "run");
	uint64_t r;
	if (parse_u64(run->val, &r) || r < 1 || r > INT_MAX) {
		snprintf(err, errlen, "%s:%d: run '%.40s' is not a number >= 1", m->path, run->line,
			 run->val);
		return -1;
	}
	return 0;
}

/* Row key GROUP/CASE-KERNEL with the compared field's part replaced by X
 * (result_row_key: the rule report shares). */
static int make_key(const struct kvfile *m, const char *field, char **key, char *err, size_t errlen)
{
	err[0] = 0;
	*key = result_row_key(kvf_get(m, "group")->val, kvf_get(m, "case")->val,
			      kvf_get(m, "kernel")->val, field, m->path, err, errlen);
	return *key ? 0 : -1;
}

/* Every line of stats must be `name number`; returns the metric's value,
 * 1 when the metric is absent, -1 on a malformed file. */
static int load_metric(const char *dir, const char *metric, double *value,
		       struct strvec *names, char *err, size_t errlen)
{
	struct kvfile s;
	char *path = xprintf("%s/stats", dir);
	int rc = kvf_load(&s, path, err, errlen);
	free(path);
	if (!rc && s.n == 0) {
		/* a truncated file is damage, not a result that lacks this metric */
		snprintf(err, errlen, "%s: empty (no metric lines)", s.path);
		rc = -1;
	}
	const struct kv *hit = NULL;
	for (int i = 0; i < s.n && !rc; i++) {
		const struct kv *e = &s.v[i];
		double v;
		/* a metric given twice was refused by kvf_load */
		if (kvf_number(&s, e, &v, err, errlen)) {
			rc = -1;
		} else if (strcmp(e->key, metric) == 0) {
			hit = e;
			*value = v;
		}
		if (!rc && sv_find(names, e->key) < 0)
			sv_push(names, xstrdup(e->key));
	}
	if (!rc && !hit)
		rc = 1;
	kvf_free(&s);
	return rc;
}

/* The compared field's value: a meta key, else a key of DIR/params.
 * Returns NULL (no value) when neither has it. */
static char *field_value(const struct kvfile *m, const char *dir, const char *field, char *err,
			 size_t errlen, int *rc)
{
	const struct kv *e = kvf_get(m, field);
	*rc = 0;
	if (e)
		return xstrdup(e->val);
	char *path = xprintf("%s/params", dir);
	char *v = NULL;
	if (entry_exists(path)) {
		struct kvfile p;
		*rc = kvf_load(&p, path, err, errlen);
		e = *rc ? NULL : kvf_get(&p, field);
		v = e ? xstrdup(e->val) : NULL;
		kvf_free(&p);
	}
	free(path);
	return v;
}

/* ---- building the table ---- */

struct sample {
	char *key;
	int col;
	double v;
	int na;                /* the result did not measure the metric */
	int dup;               /* the same run as an earlier result of its cell */
	struct kvfile *env;    /* params (params.KEY) and env (env.KEY) */
	char *dir;
};

struct builder {
	const struct cmp_options *o;
	const char *field, *metric;
	regex_t *re, *vre;
	struct strvec cols, names, notes;
	struct strvec env;     /* env_notes' records, for cmp_table.env */
	struct sample *s;
	int ns, cap;
	int base_col;          /* column of the first kept result of the first DIR */
	int base_arg;
	const char *const *dirs;     /* the DIR arguments (no-meta results' groups) */
	int nno_metric, nno_field, nmeasured;
	char *first_no_metric;
	int *pos;              /* pos[met-order column] = printed column */
	struct strvec file_order;   /* from a DIR's CMP_ORDER_FILE */
	char *err;
	size_t errlen;
};

static int matches(const regex_t *re, const char *s)
{
	return regexec(re, s, 0, NULL, 0) == 0;
}

/* -g/-v look at the row key and at the unmasked GROUP/CASE-KERNEL, so
 * `-v nfs-wq4` can drop a kernel while `-g thresh=1M/` keeps rows. */
static int selected(const struct builder *b, const char *key, const char *name)
{
	for (int i = 0; i < b->o->ngrep; i++)
		if (!matches(&b->re[i], key) && !matches(&b->re[i], name))
			return 0;
	for (int i = 0; i < b->o->nvgrep; i++)
		if (matches(&b->vre[i], key) || matches(&b->vre[i], name))
			return 0;
	return 1;
}

/* DIR/params and DIR/env (when present) as one list, keys prefixed
 * "params." / "env.".  NULL when unreadable (compare's input checks run
 * elsewhere: an unreadable params is already an error through the field). */
/* params and env as one list (params.KEY, env.KEY); NULL with err set when
 * one of them is there but unreadable or damaged (a result whose settings
 * cannot be read must not look like one that has none) */
static struct kvfile *load_env(const char *dir, char *errbuf, size_t errlen)
{
	static const char *const files[] = { "params", "env" };
	struct kvfile *all = xrealloc(NULL, sizeof(*all));
	kvf_init(all, dir);
	for (size_t i = 0; i < ARRAY_SIZE(files); i++) {
		char *path = xprintf("%s/%s", dir, files[i]);
		struct kvfile f;
		if (!entry_exists(path)) {
			free(path);
			continue;
		}
		if (kvf_load(&f, path, errbuf, errlen)) {
			kvf_free(&f);
			free(path);
			kvf_free(all);
			free(all);
			return NULL;
		}
		for (int k = 0; k < f.n; k++) {
			char *name = xprintf("%s.%s", files[i], f.v[k].key);
			xadd(all, name, f.v[k].val);
			free(name);
		}
		kvf_free(&f);
		free(path);
	}
	/* and meta's source: a real and a simulated result name different
	 * things in their params (env_diff) */
	char *mpath = xprintf("%s/meta", dir), line[256], err[256];
	FILE *m = fopen_regular(mpath, 1, err, sizeof(err));
	while (m && fgets(line, sizeof(line), m))
		if (!strncmp(line, "source ", 7)) {
			line[strcspn(line, "\n")] = 0;
			xadd(all, "meta.source", line + 7);
			break;
		}
	if (m)
		fclose(m);
	free(mpath);
	return all;
}

/* 0, or -1 with b->err set (key is then the caller's to free) */
static int add_sample(struct builder *b, char *key, const char *colname, double v, int arg,
		      int na, const char *dir)
{
	struct kvfile *env = load_env(dir, b->err, b->errlen);
	if (!env)
		return -1;
	b->nmeasured += !na;
	int col = sv_find(&b->cols, colname);
	if (col < 0) {
		col = b->cols.n;
		sv_push(&b->cols, xstrdup(colname));
	}
	if (b->base_col < 0 || arg < b->base_arg) {
		b->base_col = col;
		b->base_arg = arg;
	}
	if (b->ns == b->cap) {
		b->cap = b->cap ? 2 * b->cap : 64;
		b->s = xrealloc(b->s, (size_t)b->cap * sizeof(*b->s));
	}
	b->s[b->ns++] = (struct sample){ key, col, v, na, 0, env, xstrdup(dir) };
	return 0;
}

/* Reads one result dir into a sample (or skips it); 0, or -1 with err set. */
static int add_result(struct builder *b, const char *dir, int arg)
{
	struct kvfile m;
	char *key = NULL, *val = NULL, *name = NULL;
	int rc = load_meta(&m, dir, b->dirs ? b->dirs[arg] : NULL, &b->notes, b->err, b->errlen);
	if (!rc)
		rc = make_key(&m, b->field, &key, b->err, b->errlen);
	if (!rc) {
		name = xprintf("%s/%s-%s", kvf_get(&m, "group")->val, kvf_get(&m, "case")->val,
			       kvf_get(&m, "kernel")->val);
		if (!selected(b, key, name))
			goto out;
		val = field_value(&m, dir, b->field, b->err, b->errlen, &rc);
	}
	if (rc)
		goto out;
	if (!val) {
		b->nno_field++;
		goto out;
	}
	double v = 0;
	rc = load_metric(dir, b->metric, &v, &b->names, b->err, b->errlen);
	if (rc == 1) {
		if (!b->first_no_metric)
			b->first_no_metric = xstrdup(dir);
		b->nno_metric++;
		rc = add_sample(b, key, val, 0, arg, 1, dir);
		if (!rc)
			key = NULL;
	} else if (rc == 0) {
		rc = add_sample(b, key, val, v, arg, 0, dir);
		if (!rc)
			key = NULL;
	}
out:
	free(key);
	free(val);
	free(name);
	kvf_free(&m);
	return rc;
}

static int compile_all(regex_t **out, const char *const *pat, int n, char *err, size_t errlen)
{
	*out = xrealloc(NULL, (size_t)(n ? n : 1) * sizeof(regex_t));
	for (int i = 0; i < n; i++) {
		int e = regcomp(&(*out)[i], pat[i], REG_EXTENDED | REG_NOSUB);
		if (e) {
			char msg[128];
			regerror(e, &(*out)[i], msg, sizeof(msg));
			snprintf(err, errlen, "bad regex '%s': %s", pat[i], msg);
			for (int j = 0; j < i; j++)
				regfree(&(*out)[j]);
			free(*out);
			*out = NULL;
			return -1;
		}
	}
	return 0;
}

static int cmp_sample(const void *a, const void *b)
{
	const struct sample *x = a, *y = b;
	int c = strcmp(x->key, y->key);
	return c ? c : x->col - y->col;
}

/* Mean and sample stddev of one cell's runs, in a numerically stable way. */
static void fold_cell(struct cmp_cell *c, const struct sample *s, int n)
{
	double mean = 0, m2 = 0;
	int k = 0;
	for (int i = 0; i < n; i++) {
		if (s[i].na || s[i].dup)
			continue;
		double d = s[i].v - mean;
		k++;
		mean += d / k;
		m2 += d * (s[i].v - mean);
	}
	n = k;
	c->na = n == 0;
	c->runs = n;
	c->mean = mean;
	c->stddev = n > 1 ? sqrt(m2 / (n - 1)) : 0;
}

/* Splits "a,b,c" into v (empty parts dropped). */
static void split_list(const char *s, struct strvec *v)
{
	char *copy = xstrdup(s);
	for (char *save = NULL, *p = strtok_r(copy, ",", &save); p; p = strtok_r(NULL, ",", &save))
		sv_push(v, xstrdup(p));
	free(copy);
}

/* The first DIR argument holding CMP_ORDER_FILE with a line for the field
 * gives the recorded order.  0, or -1 with err set (malformed file). */
static int load_order_file(struct builder *b, const char *const *dirs, int ndirs)
{
	for (int i = 0; i < ndirs; i++) {
		char *path = xprintf("%s/%s", dirs[i], CMP_ORDER_FILE);
		if (!entry_exists(path)) {
			free(path);
			continue;
		}
		struct kvfile f;
		int rc = kvf_load_by_hand(&f, path, b->err, b->errlen);
		const struct kv *e = rc ? NULL : kvf_get(&f, b->field);
		if (e) {
			split_list(e->val, &b->file_order);
		}
		kvf_free(&f);
		free(path);
		if (rc)
			return -1;
		if (e)
			return 0;
	}
	return 0;
}

static void list_cols(const struct strvec *cols, char *buf, size_t n);

/* Printed order: met order with the first DIR's first value first; then
 * --order (or the root's recorded order) moves its values to the front,
 * and --baseline moves its value before all.  Fills b->pos. */
static int order_columns(struct builder *b)
{
	int n = b->cols.n, k = 0;
	int *seq = xrealloc(NULL, (size_t)n * sizeof(int));
	char *used = xrealloc(NULL, (size_t)n);
	memset(used, 0, (size_t)n);
	char list[1024];
	const char *bad = NULL, *what = NULL;
	if (b->o->baseline) {
		int c = sv_find(&b->cols, b->o->baseline);
		if (c < 0) {
			bad = b->o->baseline;
			what = "--baseline";
		} else {
			seq[k++] = c;
			used[c] = 1;
		}
	}
	for (int i = 0; i < b->o->norder && !bad; i++) {
		int c = sv_find(&b->cols, b->o->order[i]);
		if (c < 0) {
			bad = b->o->order[i];
			what = "--order";
		} else if (used[c] && !(b->o->baseline && !strcmp(b->o->baseline, b->o->order[i]))) {
			/* C,C for C,D would drop D from the order without a word */
			snprintf(b->err, b->errlen, "--order: '%s' given twice", b->o->order[i]);
			free(seq);
			free(used);
			return -1;
		} else if (!used[c]) {
			seq[k++] = c;
			used[c] = 1;
		}
	}
	for (int i = 0; i < b->file_order.n && !b->o->norder; i++) {
		int c = sv_find(&b->cols, b->file_order.v[i]);
		if (c >= 0 && !used[c]) {
			seq[k++] = c;
			used[c] = 1;
		}
	}
	if (!used[b->base_col] && !b->o->norder && !b->file_order.n) {
		seq[k++] = b->base_col;
		used[b->base_col] = 1;
	}
	for (int c = 0; c < n; c++)
		if (!used[c])
			seq[k++] = c;
	if (bad) {
		list_cols(&b->cols, list, sizeof(list));
		snprintf(b->err, b->errlen, "%s: no %s '%s' among the results (%s)", what, b->field,
			 bad, list);
	} else {
		b->pos = xrealloc(NULL, (size_t)n * sizeof(int));
		for (int i = 0; i < n; i++)
			b->pos[seq[i]] = i;
	}
	free(seq);
	free(used);
	return bad ? -1 : 0;
}

/* every key with the same value in both, identity keys (seed, run) too;
 * results with no params or env (nothing says which run they are) never */
static int env_same(const struct kvfile *x, const struct kvfile *y)
{
	int named = 0;
	for (int i = 0; i < x->n; i++)
		named |= !strncmp(x->v[i].key, "params.", 7) || !strncmp(x->v[i].key, "env.", 4);
	if (!named || x->n != y->n)
		return 0;
	for (int i = 0; i < x->n; i++) {
		const struct kv *e = kvf_get(y, x->v[i].key);
		if (!e || strcmp(e->val, x->v[i].val))
			return 0;
	}
	return 1;
}

/* the two stats files byte for byte: every metric, not only the one shown */
static int same_stats(const char *a, const char *b)
{
	char *pa = xprintf("%s/stats", a), *pb = xprintf("%s/stats", b);
	int same = files_same(pa, pb);
	free(pa);
	free(pb);
	return same;
}

/* A cell's results that repeat an earlier one exactly (same value, and the
 * same params, seed and env: a copied tree, or two --repeat series whose
 * seeds overlap) are one run, counted once: as repeats they would shrink
 * the stddev and fake significance.  Sorted samples: a cell is a run of
 * equal (key, col). */
static int mark_duplicates(struct builder *b)
{
	int n = 0;
	for (int i = 0; i < b->ns; i++)
		for (int k = i - 1; k >= 0 && b->s[k].col == b->s[i].col && !strcmp(b->s[k].key, b->s[i].key); k--)
			if (!b->s[k].dup && b->s[k].na == b->s[i].na && (b->s[i].na || b->s[k].v == b->s[i].v) &&
			    env_same(b->s[k].env, b->s[i].env) && same_stats(b->s[k].dir, b->s[i].dir)) {
				b->s[i].dup = 1;
				n++;
				break;
			}
	return n;
}

static void fold_rows(struct builder *b, struct cmp_table *t)
{
	qsort(b->s, (size_t)b->ns, sizeof(*b->s), cmp_sample);
	int dups = mark_duplicates(b);
	if (dups)
		sv_push(&b->notes, xprintf("%d result(s) repeat another result of their cell exactly (the "
					   "same stats, params, seed and env: a copied tree, or repeats "
					   "whose seeds overlap) and are counted once", dups));
	for (int i = 0; i < b->ns;) {
		int j = i;
		while (j < b->ns && strcmp(b->s[j].key, b->s[i].key) == 0)
			j++;
		struct cmp_cell *cells = xrealloc(NULL, (size_t)t->ncols * sizeof(*cells));
		memset(cells, 0, (size_t)t->ncols * sizeof(*cells));
		int present = 0;
		for (int k = i; k < j;) {
			int l = k;
			while (l < j && b->s[l].col == b->s[k].col)
				l++;
			fold_cell(&cells[b->pos[b->s[k].col]], &b->s[k], l - k);
			present++;
			k = l;
		}
		if (present < 2) {
			t->nsingle++;
			free(cells);
		} else {
			t->rows = xrealloc(t->rows, (size_t)(t->nrows + 1) * sizeof(*t->rows));
			t->rows[t->nrows++] = (struct cmp_row){ xstrdup(b->s[i].key), cells };
		}
		i = j;
	}
}

int cmp_welch(const struct cmp_cell *a, const struct cmp_cell *b, double *p)
{
	*p = 1;
	if (a->runs < 2 || b->runs < 2)
		return -1;
	double va = a->stddev * a->stddev / a->runs, vb = b->stddev * b->stddev / b->runs;
	if (va + vb == 0) {
		*p = a->mean == b->mean ? 1 : 0;
		return a->mean != b->mean;
	}
	double t = (b->mean - a->mean) / sqrt(va + vb);
	double df = (va + vb) * (va + vb) /
		    (va * va / (a->runs - 1) + vb * vb / (b->runs - 1));
	*p = 2 * gsl_cdf_tdist_Q(fabs(t), df);
	return *p < 0.05;
}

static void test_cells(struct cmp_table *t)
{
	for (int r = 0; r < t->nrows; r++) {
		struct cmp_cell *x = t->rows[r].cells;
		x[0].sig = -1;
		for (int c = 1; c < t->ncols; c++)
			x[c].sig = cmp_welch(&x[0], &x[c], &x[c].p_value);
	}
}

/* 95 % CI of each column's geomean ratio to the baseline, over the rows the
 * geomean covers: exp(mean ± t(0.975, n-1) sd / sqrt n) of the log ratios. */
static void geomean_ci(struct cmp_table *t)
{
	t->ci_lo = xrealloc(NULL, (size_t)t->ncols * sizeof(double));
	t->ci_hi = xrealloc(NULL, (size_t)t->ncols * sizeof(double));
	for (int c = 0; c < t->ncols; c++) {
		double mean = 0, m2 = 0;
		int n = 0;
		for (int r = 0; r < t->nrows; r++) {
			const struct cmp_cell *x = t->rows[r].cells;
			int all_pos = 1;
			for (int k = 0; k < t->ncols; k++)
				all_pos &= x[k].runs > 0 && x[k].mean > 0 && !x[k].na;
			if (!all_pos)
				continue;
			double l = log(x[c].mean / x[0].mean), d = l - mean;
			n++;
			mean += d / n;
			m2 += d * (l - mean);
		}
		double half = n >= 2 ? gsl_cdf_tdist_Pinv(0.975, n - 1) * sqrt(m2 / (n - 1) / n) : 0;
		t->ci_lo[c] = 100 * (exp(mean - half) - 1);
		t->ci_hi[c] = 100 * (exp(mean + half) - 1);
	}
}

/* Keys that name a result or a run, not its environment (a real run's
 * image path holds its pid, its bdi the loop device's number). */
static int identity_key(const char *k, const char *field)
{
	static const char *const ids[] = { "params.kernel", "params.model", "params.case",
					   "params.seed", "params.run", "env.run", "env.seed",
					   "env.image", "env.bdi" };
	for (size_t i = 0; i < ARRAY_SIZE(ids); i++)
		if (strcmp(k, ids[i]) == 0)
			return 1;
	const char *dot = strchr(k, '.');
	return dot && (strcmp(dot + 1, field) == 0 || strcmp(k, field) == 0);
}

/* Calls fn for every key whose value differs between x and y (present in
 * one only counts as different), identity keys aside. */
/* meta's source (sim, real, import), as load_env keeps it */
static const char *source_of(const struct kvfile *f)
{
	const struct kv *e = kvf_get(f, "meta.source");
	return e ? e->val : "";
}

/* Calls fn for every key whose value differs between x and y (present in
 * one only counts as different), identity keys aside.  A real result
 * against a simulated one: their params name different things (the run's
 * options, the model's parameters), so only keys both have are compared;
 * and two loop devices' names differ from run to run. */
static void env_diff(const struct kvfile *x, const struct kvfile *y, const char *field,
		     void (*fn)(void *, const char *, const char *, const char *), void *arg)
{
	int both = strcmp(source_of(x), source_of(y)) == 0;
	for (int i = 0; i < x->n; i++) {
		if (identity_key(x->v[i].key, field))
			continue;
		const struct kv *e = kvf_get(y, x->v[i].key);
		if (!e && !both)
			continue;
		if (e && !strcmp(x->v[i].key, "env.device") && !strncmp(e->val, "/dev/loop", 9) &&
		    !strncmp(x->v[i].val, "/dev/loop", 9))
			continue;
		if (!e || strcmp(e->val, x->v[i].val))
			fn(arg, x->v[i].key, x->v[i].val, e ? e->val : "(absent)");
	}
	for (int i = 0; both && i < y->n; i++)
		if (!identity_key(y->v[i].key, field) && !kvf_get(x, y->v[i].key))
			fn(arg, y->v[i].key, "(absent)", y->v[i].val);
}

struct diffset {
	struct strvec keys, lines, recs;
	const char *kind, *col_a, *col_b;   /* of the pair being compared */
};

static void diff_collect(void *arg, const char *k, const char *a, const char *b)
{
	struct diffset *d = arg;
	if (sv_find(&d->keys, k) >= 0)
		return;
	sv_push(&d->keys, xstrdup(k));
	sv_push(&d->lines, xprintf("%s: %s vs %s", k, a, b));
	if (d->kind) {
		/* fields are joined by \x1f: one inside a value would shift them */
		const char *in[6] = { d->kind, k, d->col_a, a, d->col_b, b };
		char *f[6];
		for (int i = 0; i < 6; i++)
			for (char *p = f[i] = xstrdup(in[i]); (p = strchr(p, '\x1f'));)
				*p = '?';
		sv_push(&d->recs, xprintf("%s\x1f%s\x1f%s\x1f%s\x1f%s\x1f%s", f[0], f[1], f[2], f[3], f[4], f[5]));
		for (int i = 0; i < 6; i++)
			free(f[i]);
	}
}

/* Notes: what differs between the columns' results (first result of each
 * cell against the row's leftmost, i.e. the baseline, cell's), and cells that merge results differing
 * in anything but run/seed.  Must run before fold_rows frees nothing: uses
 * b->s sorted by (key, col). */
static void env_notes(struct builder *b)
{
	struct diffset cols = { .kind = "differs" }, merged = { .kind = "merges" };
	for (int i = 0; i < b->ns;) {
		int j = i;
		while (j < b->ns && strcmp(b->s[j].key, b->s[i].key) == 0)
			j++;
		/* the row's reference: the first result of its leftmost column (the
		 * baseline where it has the case), not of the first column read */
		int ref = i;
		for (int k = i + 1; k < j; k++)
			if (b->pos[b->s[k].col] < b->pos[b->s[ref].col])
				ref = k;
		while (ref > i && b->s[ref - 1].col == b->s[ref].col)
			ref--;
		for (int k = i; k < j; k++) {
			if (b->s[k].col != b->s[ref].col && (k == i || b->s[k].col != b->s[k - 1].col)) {
				cols.col_a = b->cols.v[b->s[ref].col];
				cols.col_b = b->cols.v[b->s[k].col];
				env_diff(b->s[ref].env, b->s[k].env, b->field, diff_collect, &cols);
			}
			if (k > i && b->s[k].col == b->s[k - 1].col) {
				int first = k - 1;
				while (first > i && b->s[first - 1].col == b->s[k].col)
					first--;
				merged.col_a = merged.col_b = b->cols.v[b->s[k].col];
				env_diff(b->s[first].env, b->s[k].env, b->field, diff_collect, &merged);
			}
		}
		i = j;
	}
	for (int i = 0; i < cols.lines.n && i < 12; i++)
		sv_push(&b->notes, xprintf("columns differ in %s", cols.lines.v[i]));
	if (cols.lines.n > 12)
		sv_push(&b->notes, xprintf("... and %d more differing key(s)", cols.lines.n - 12));
	for (int i = 0; i < merged.lines.n && i < 12; i++)
		sv_push(&b->notes, xprintf("one %s value merges results that differ in %s: "
					   "its mean mixes different setups", b->field,
					   merged.lines.v[i]));
	/* the same, for the writers to print under the table */
	for (int i = 0; i < cols.recs.n; i++)
		sv_push(&b->env, xstrdup(cols.recs.v[i]));
	for (int i = 0; i < merged.recs.n; i++)
		sv_push(&b->env, xstrdup(merged.recs.v[i]));
	sv_free(&cols.keys);
	sv_free(&cols.lines);
	sv_free(&cols.recs);
	sv_free(&merged.keys);
	sv_free(&merged.lines);
	sv_free(&merged.recs);
}

/* Keys whose values differ among all results: candidates for -c. */
static void suggest_fields(struct builder *b, char *buf, size_t n)
{
	struct diffset d = { 0 };
	for (int i = 1; i < b->ns; i++)
		env_diff(b->s[0].env, b->s[i].env, b->field, diff_collect, &d);
	buf[0] = 0;
	size_t used = 0;
	for (int i = 0; i < d.keys.n && used + 40 < n; i++) {
		const char *k = strchr(d.keys.v[i], '.') + 1;
		int w = snprintf(buf + used, n - used, "%s-c %s", i ? ", " : "", k);
		if (w > 0)
			used += (size_t)w;
	}
	sv_free(&d.keys);
	sv_free(&d.lines);
}

static void summarize(struct cmp_table *t)
{
	test_cells(t);
	geomean_ci(t);
	t->total = xrealloc(NULL, (size_t)t->ncols * sizeof(double));
	t->geomean = xrealloc(NULL, (size_t)t->ncols * sizeof(double));
	double *logsum = xrealloc(NULL, (size_t)t->ncols * sizeof(double));
	for (int c = 0; c < t->ncols; c++)
		t->total[c] = t->geomean[c] = logsum[c] = 0;
	for (int r = 0; r < t->nrows; r++) {
		int all_pos = 1, na = 0;
		for (int c = 0; c < t->ncols; c++)
			na |= t->rows[r].cells[c].na;
		/* a row some column did not measure is in neither sum: like with like */
		if (na) {
			t->nna++;
			continue;
		}
		t->ntotal++;
		for (int c = 0; c < t->ncols; c++) {
			const struct cmp_cell *x = &t->rows[r].cells[c];
			t->total[c] += x->runs ? x->mean : 0;
			all_pos &= x->runs > 0 && x->mean > 0;
		}
		/* geomean only over rows every column has, so ratios compare like with like */
		if (!all_pos)
			continue;
		t->ngeomean++;
		for (int c = 0; c < t->ncols; c++)
			logsum[c] += log(t->rows[r].cells[c].mean);
	}
	for (int c = 0; c < t->ncols && t->ngeomean; c++)
		t->geomean[c] = exp(logsum[c] / t->ngeomean);
	free(logsum);
}

/* Joins up to ~60 names into one line for the unknown-metric error. */
static void list_names(const struct strvec *names, char *buf, size_t n)
{
	size_t used = 0;
	buf[0] = 0;
	for (int i = 0; i < names->n && used + 8 < n; i++) {
		int w = snprintf(buf + used, n - used, "%s%s", i ? " " : "", names->v[i]);
		if (w < 0 || (size_t)w >= n - used) {
			snprintf(buf + used, n - used, " ...");
			break;
		}
		used += (size_t)w;
	}
}

static void list_cols(const struct strvec *cols, char *buf, size_t n)
{
	list_names(cols, buf, n);
}

/* "kind\x1fkey\x1fcol_a\x1fa\x1fcol_b\x1fb" split in place (kind owns it). */
static void env_record(char *rec, struct cmp_envdiff *d)
{
	char *f[6] = { rec };
	for (int i = 1; i < 6; i++) {
		f[i] = strchr(f[i - 1], '\x1f');
		*f[i]++ = 0;
	}
	*d = (struct cmp_envdiff){ f[0], f[1], f[2], f[3], f[4], f[5] };
}

static int finish(struct builder *b, struct cmp_table **out, int nfound)
{
	if (b->ns == 0 && b->nno_field) {
		snprintf(b->err, b->errlen, "unknown field '%s': not a meta key (case group kernel fs "
			 "job bs cpus mem thresh bg run source) nor in any params file", b->field);
		return CMP_EFIELD;
	}
	if (b->nmeasured == 0 && b->nno_metric) {
		char list[1400];
		list_names(&b->names, list, sizeof(list));
		if (metric_find(b->metric))   /* known, but none of these results measured it */
			snprintf(b->err, b->errlen, "no result here has %s (not measured: see docs/stats.md); "
				 "they have: %s", b->metric, list);
		else
			snprintf(b->err, b->errlen, "unknown metric '%s'; available: %s", b->metric, list);
		return CMP_EUSAGE;
	}
	if (b->ns == 0) {
		snprintf(b->err, b->errlen, nfound ? "no result left after -g/-v (%d found)"
			 : "no result directories (with a stats file) found", nfound);
		return CMP_EEMPTY;
	}
	if (order_columns(b))
		return CMP_EUSAGE;
	struct cmp_table *t = xrealloc(NULL, sizeof(*t));
	memset(t, 0, sizeof(*t));
	t->field = xstrdup(b->field);
	t->metric = xstrdup(b->metric);
	t->ncols = b->cols.n;
	t->cols = xrealloc(NULL, (size_t)t->ncols * sizeof(char *));
	for (int c = 0; c < t->ncols; c++)
		t->cols[b->pos[c]] = xstrdup(b->cols.v[c]);
	t->want_stddev = b->o->stddev;
	t->want_geomean = b->o->geomean;
	t->nresults = b->ns;
	fold_rows(b, t);
	env_notes(b);
	summarize(t);
	if (b->nno_metric)
		sv_push(&b->notes, xprintf("%d result(s) did not measure '%s' (no such line in "
					   "stats; first: %s): shown as n/a", b->nno_metric, b->metric,
					   b->first_no_metric));
	if (t->nna)
		sv_push(&b->notes, xprintf("TOTAL and GEOMEAN leave out %d of %d rows (a column "
					   "has n/a there)%s", t->nna, t->nrows,
					   t->ntotal ? "" : ": both are n/a"));
	if (b->nno_field)
		sv_push(&b->notes, xprintf("%d result(s) have no '%s' in meta or params and were "
					   "left out", b->nno_field, b->field));
	if (t->nsingle)
		sv_push(&b->notes, xprintf("%d case(s) exist under one %s only and are not shown",
					   t->nsingle, b->field));
	if (t->want_geomean && t->ngeomean < t->nrows - t->nna)
		sv_push(&b->notes, xprintf("GEOMEAN covers %d of %d rows (the others have a missing%s "
					   "or non-positive cell)", t->ngeomean, t->nrows,
					   t->nna ? ", n/a" : ""));
	t->notes = b->notes.v;
	t->nnotes = b->notes.n;
	memset(&b->notes, 0, sizeof(b->notes));
	t->nenv = b->env.n;
	t->env = xrealloc(NULL, (size_t)(b->env.n + 1) * sizeof(*t->env));
	for (int i = 0; i < b->env.n; i++)
		env_record(b->env.v[i], &t->env[i]);   /* t owns the strings now */
	free(b->env.v);
	memset(&b->env, 0, sizeof(b->env));
	*out = t;
	if (t->nrows == 0) {
		char hint[600];
		suggest_fields(b, hint, sizeof(hint));
		snprintf(b->err, b->errlen, "nothing to compare: no case exists under two values of "
			 "'%s' (%d value(s) found)%s%s", b->field, t->ncols,
			 hint[0] ? "; the results differ in params/env keys, try " : "", hint);
		cmp_free(t);
		*out = NULL;
		return CMP_EEMPTY;
	}
	return CMP_OK;
}

static void builder_free(struct builder *b)
{
	for (int i = 0; b->re && i < b->o->ngrep; i++)
		regfree(&b->re[i]);
	for (int i = 0; b->vre && i < b->o->nvgrep; i++)
		regfree(&b->vre[i]);
	free(b->re);
	free(b->vre);
	for (int i = 0; i < b->ns; i++) {
		free(b->s[i].key);
		free(b->s[i].dir);
		if (b->s[i].env) {
			kvf_free(b->s[i].env);
			free(b->s[i].env);
		}
	}
	free(b->s);
	free(b->first_no_metric);
	free(b->pos);
	sv_free(&b->file_order);
	sv_free(&b->cols);
	sv_free(&b->names);
	sv_free(&b->notes);
	sv_free(&b->env);
}

static int cmp_found(const void *a, const void *b)
{
	const struct result_ref *x = a, *y = b;
	int c = strcmp(x->path, y->path);
	return c ? c : x->arg - y->arg;
}

int cmp_build(const struct cmp_options *o, const char *const *dirs, int ndirs,
	      struct cmp_table **out, char *err, size_t errlen)
{
	struct builder b = { .o = o, .base_col = -1, .base_arg = INT_MAX, .err = err,
			     .errlen = errlen };
	b.field = o->field && *o->field ? o->field : "kernel";
	b.metric = o->metric && *o->metric ? o->metric : METRIC_KEY(WRITE_BW);
	*out = NULL;
	err[0] = 0;
	if (compile_all(&b.re, o->grep, o->ngrep, err, errlen) ||
	    compile_all(&b.vre, o->vgrep, o->nvgrep, err, errlen)) {
		builder_free(&b);
		return CMP_EUSAGE;
	}
	struct result_list found;
	b.dirs = dirs;
	int rc = result_find(dirs, ndirs, &found, err, errlen) ? CMP_EINPUT : CMP_OK;
	/* all results of all DIRs in one sorted order; arg breaks ties */
	if (found.n)
		qsort(found.v, (size_t)found.n, sizeof(*found.v), cmp_found);
	if (rc == CMP_OK && load_order_file(&b, dirs, ndirs))
		rc = CMP_EINPUT;
	for (int i = 0; i < found.n && rc == CMP_OK; i++)
		if (add_result(&b, found.v[i].path, found.v[i].arg))
			rc = CMP_EINPUT;
	if (rc == CMP_OK)
		rc = finish(&b, out, found.n);
	result_list_free(&found);
	builder_free(&b);
	return rc;
}

void cmp_free(struct cmp_table *t)
{
	if (!t)
		return;
	for (int r = 0; r < t->nrows; r++) {
		free(t->rows[r].key);
		free(t->rows[r].cells);
	}
	for (int c = 0; c < t->ncols; c++)
		free(t->cols[c]);
	for (int i = 0; i < t->nnotes; i++)
		free(t->notes[i]);
	for (int i = 0; i < t->nenv; i++)
		free(t->env[i].kind);
	free(t->env);
	free(t->notes);
	free(t->rows);
	free(t->cols);
	free(t->total);
	free(t->geomean);
	free(t->ci_lo);
	free(t->ci_hi);
	free(t->field);
	free(t->metric);
	free(t);
}

int cmp_change_exact(double base, double v, double *pct)
{
	if (base == 0 || v == 0)
		return 0;
	*pct = 100.0 * (v - base) / base;
	return 1;
}

int cmp_change(double base, double v, double *pct)
{
	if (!cmp_change_exact(base, v, pct))
		return 0;
	/* below the printed 0.1 % it is no change, never "-0.0%" */
	if (fabs(*pct) < 0.05)
		*pct = 0;
	return 1;
}

int cmp_summary_na(const struct cmp_table *t)
{
	return t->ntotal == 0 && t->nna > 0;
}

int cmp_parse_format(const char *s, enum cmp_format *fmt)
{
	static const char *const names[] = { "text", "tsv", "json" };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		if (strcmp(s, names[i]) == 0) {
			*fmt = (enum cmp_format)i;
			return 0;
		}
	return -1;
}
