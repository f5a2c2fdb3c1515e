/* The forms of a compare table (compare.c builds it): writeback-tests' text
 * layout, tsv, and json through jansson; docs/compare.md describes each. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <jansson.h>
#include "compare.h"

/* ---- text: writeback-tests' layout, byte for byte ---- */

#define STDDEV_W 6   /* " ±NNN%" in display columns */

/* " ±x%" padded to STDDEV_W columns; blanks when unknown (< 2 runs). */
static void text_stddev(FILE *f, const struct cmp_cell *c)
{
	char pct[32];
	if (!c || c->runs < 2 || c->mean == 0) {
		fprintf(f, "%*s", STDDEV_W, "");
		return;
	}
	snprintf(pct, sizeof(pct), "%.0f%%", 100.0 * c->stddev / fabs(c->mean));
	fprintf(f, " \xc2\xb1%-*s", STDDEV_W - 2, pct);
}

/* A cell is 24 columns: baseline or no-percent "%24.2f", else
 * "%+10.1f%% %12.2f"; then the optional stddev, then two spaces. */
static void text_cell(FILE *f, const struct cmp_table *t, int col, double base, double v,
		      const struct cmp_cell *c, int na, int base_na)
{
	double pct;
	if (na)
		fprintf(f, "%24s", "n/a");
	else if (col > 0 && !base_na && cmp_change(base, v, &pct))
		fprintf(f, "%+10.1f%% %12.2f", pct, v);
	else
		fprintf(f, "%24.2f", v);
	if (t->want_stddev)
		text_stddev(f, c);
	/* the first separator blank carries the significance marker */
	fputs(!c || c->sig < 0 ? "  " : c->sig ? "* " : "~ ", f);
}

/* a summary row is n/a when every row is (TOTAL and GEOMEAN), or, for
 * GEOMEAN, when no row could enter it (all have a missing or non-positive
 * cell): 0.00 would read as a measured value */
static int summary_na(const struct cmp_table *t, const double *v)
{
	return cmp_summary_na(t) || (v == t->geomean && t->ngeomean == 0);
}

static void text_summary(FILE *f, const struct cmp_table *t, const double *v, const char *label)
{
	int na = summary_na(t, v);
	for (int c = 0; c < t->ncols; c++)
		text_cell(f, t, c, v[0], v[c], NULL, na, na);
	fprintf(f, "%s %s\n", label, t->metric);
}

/* Under the table: what differs between the columns' results (params,
 * env), and a warning per key a merged cell mixes. */
static void text_env(FILE *f, const struct cmp_table *t)
{
	for (int i = 0; i < t->nenv; i++) {
		const struct cmp_envdiff *d = &t->env[i];
		if (i == 0)
			fputc('\n', f);
		if (!strcmp(d->kind, "differs"))
			fprintf(f, "differs: %s = %s (%s), %s (%s)\n", d->key, d->a, d->col_a, d->b, d->col_b);
		else
			fprintf(f, "warning: %s %s merges results that differ in %s: %s vs %s\n",
				t->field, d->col_a, d->key, d->a, d->b);
	}
}

static void write_text(const struct cmp_table *t, FILE *f)
{
	int w = 24 + (t->want_stddev ? STDDEV_W : 0);
	for (int c = 0; c < t->ncols; c++)
		fprintf(f, "%*s  ", w, t->cols[c]);
	fputc('\n', f);
	for (int c = 0; c < t->ncols; c++)
		fprintf(f, "%.*s  ", w, "------------------------------------------------");
	fputc('\n', f);
	for (int r = 0; r < t->nrows; r++) {
		const struct cmp_row *row = &t->rows[r];
		for (int c = 0; c < t->ncols; c++)
			text_cell(f, t, c, row->cells[0].mean, row->cells[c].mean, &row->cells[c],
				  row->cells[c].na, row->cells[0].na);
		fprintf(f, "%s\n", row->key);
	}
	text_summary(f, t, t->total, "TOTAL");
	if (t->want_geomean)
		text_summary(f, t, t->geomean, "GEOMEAN");
	if (t->want_geomean && t->ngeomean >= 2 && !cmp_summary_na(t)) {
		fprintf(f, "%*s  ", w, "");
		for (int c = 1; c < t->ncols; c++) {
			char ci[64];
			snprintf(ci, sizeof(ci), "[%+.1f%%, %+.1f%%]", t->ci_lo[c], t->ci_hi[c]);
			fprintf(f, "%*s  ", w, ci);
		}
		fprintf(f, "CI95 GEOMEAN %s\n", t->metric);
	}
	text_env(f, t);
}

/* ---- tsv: one line per (row, column) ---- */

static void tsv_str(FILE *f, const char *s)
{
	for (; *s; s++)
		fputc(*s == '\t' || *s == '\n' ? ' ' : *s, f);
}

static void tsv_line(FILE *f, const char *key, const char *col, const struct cmp_cell *c,
		     double base, int is_base)
{
	double pct;
	tsv_str(f, key);
	fputc('\t', f);
	tsv_str(f, col);
	if (!c->runs) {
		fputs(c->na ? "\tn/a\t\t0\t\t\t\n" : "\t\t\t0\t\t\t\n", f);
		return;
	}
	fprintf(f, "\t%.10g\t", c->mean);
	if (c->runs > 1)
		fprintf(f, "%.10g", c->stddev);
	fprintf(f, "\t%d\t", c->runs);
	if (!is_base && cmp_change_exact(base, c->mean, &pct))
		fprintf(f, "%.10g", pct);
	if (!is_base && c->sig >= 0)
		fprintf(f, "\t%.6g\t%d\n", c->p_value, c->sig);
	else
		fputs("\t\t\n", f);
}

static void tsv_summary(FILE *f, const struct cmp_table *t, const double *v, const char *label)
{
	for (int c = 0; c < t->ncols; c++) {
		double pct;
		fprintf(f, "%s ", label);
		tsv_str(f, t->metric);
		fputc('\t', f);
		tsv_str(f, t->cols[c]);
		if (summary_na(t, v)) {
			fputs("\tn/a\t\t\t\t\t\n", f);
			continue;
		}
		fprintf(f, "\t%.10g\t\t\t", v[c]);
		if (c > 0 && cmp_change_exact(v[0], v[c], &pct))
			fprintf(f, "%.10g", pct);
		fputs("\t\t\n", f);
	}
}

static void write_tsv(const struct cmp_table *t, FILE *f)
{
	fprintf(f, "key\t%s\t%s\tstddev\truns\tchange_pct\tp_value\tsignificant\n", t->field,
		t->metric);
	for (int r = 0; r < t->nrows; r++)
		for (int c = 0; c < t->ncols; c++)
			tsv_line(f, t->rows[r].key, t->cols[c], &t->rows[r].cells[c],
				 t->rows[r].cells[0].mean, c == 0 || t->rows[r].cells[0].na);
	tsv_summary(f, t, t->total, "TOTAL");
	if (t->want_geomean)
		tsv_summary(f, t, t->geomean, "GEOMEAN");
	/* ENV rows: kind, key, column a, value a, column b, value b */
	for (int i = 0; i < t->nenv; i++) {
		const struct cmp_envdiff *d = &t->env[i];
		const char *v[] = { d->kind, d->key, d->col_a, d->a, d->col_b, d->b };
		fputs("ENV", f);
		for (int k = 0; k < 6; k++) {
			fputc('\t', f);
			tsv_str(f, v[k]);
		}
		fputc('\n', f);
	}
}

/* ---- json (jansson) ---- */

/* Integral values as JSON integers ("runs": 1, "mean": 21), others with 10
 * significant digits (JSON_REAL_PRECISION below), as the text shows them. */
static json_t *jnum(double v)
{
	if (!isfinite(v))
		return json_null();   /* json_real refuses it: the key would vanish */
	/* integral as printed, at the 10 digits written: a geomean of
	 * 4.99999999999 is 5, not 5.0 */
	char buf[40];
	snprintf(buf, sizeof(buf), "%.10g", v);
	double r = fabs(v) < 1e10 ? strtod(buf, NULL) : v;   /* 10 digits hold it whole */
	if (r == floor(r) && fabs(r) < 1e15)
		return json_integer((json_int_t)r);
	return json_real(v);
}

/* A string as JSON, never NULL: json_string refuses bytes that are not
 * UTF-8 (a params value from another machine may hold any), and a NULL
 * value makes json_object_set_new drop the key.  Such bytes become '?'. */
static json_t *jstr(const char *s)
{
	json_t *j = json_string(s ? s : "");
	if (j)
		return j;
	char *c = strdup(s);
	if (!c)
		return json_null();
	for (unsigned char *p = (unsigned char *)c; *p; p++)
		if (*p >= 0x80)
			*p = '?';
	j = json_string(c);
	free(c);
	return j ? j : json_null();
}

static json_t *json_cell(const struct cmp_cell *c, double base, int is_base)
{
	double pct;
	if (!c->runs)
		return c->na ? jstr("n/a") : json_null();
	json_t *o = json_object();
	json_object_set_new(o, "mean", jnum(c->mean));
	json_object_set_new(o, "stddev", c->runs > 1 ? jnum(c->stddev) : json_null());
	json_object_set_new(o, "runs", json_integer(c->runs));
	json_object_set_new(o, "change_pct",
			    !is_base && cmp_change_exact(base, c->mean, &pct) ? jnum(pct) : json_null());
	if (!is_base && c->sig >= 0) {
		json_object_set_new(o, "p_value", jnum(c->p_value));
		json_object_set_new(o, "significant", json_boolean(c->sig));
	}
	return o;
}

/* {"values": [...], "change_pct": [...]} */
static json_t *json_summary(const struct cmp_table *t, const double *v)
{
	double pct;
	int na = summary_na(t, v);
	json_t *o = json_object(), *vals = json_array(), *chg = json_array();
	for (int c = 0; c < t->ncols; c++) {
		json_array_append_new(vals, na ? jstr("n/a") : jnum(v[c]));
		json_array_append_new(chg, !na && c > 0 && cmp_change_exact(v[0], v[c], &pct) ? jnum(pct)
										 : json_null());
	}
	json_object_set_new(o, "values", vals);
	json_object_set_new(o, "change_pct", chg);
	return o;
}

static json_t *json_env(const struct cmp_table *t)
{
	json_t *a = json_array();
	for (int i = 0; i < t->nenv; i++) {
		const struct cmp_envdiff *d = &t->env[i];
		json_t *o = json_object();
		json_object_set_new(o, "kind", jstr(d->kind));
		json_object_set_new(o, "key", jstr(d->key));
		json_object_set_new(o, "column_a", jstr(d->col_a));
		json_object_set_new(o, "a", jstr(d->a));
		json_object_set_new(o, "column_b", jstr(d->col_b));
		json_object_set_new(o, "b", jstr(d->b));
		json_array_append_new(a, o);
	}
	return a;
}

static int write_json(const struct cmp_table *t, FILE *f)
{
	json_t *root = json_object(), *cols = json_array(), *rows = json_array();
	json_object_set_new(root, "field", jstr(t->field));
	json_object_set_new(root, "metric", jstr(t->metric));
	for (int c = 0; c < t->ncols; c++)
		json_array_append_new(cols, jstr(t->cols[c]));
	json_object_set_new(root, "columns", cols);
	for (int r = 0; r < t->nrows; r++) {
		json_t *row = json_object(), *cells = json_array();
		json_object_set_new(row, "key", jstr(t->rows[r].key));
		for (int c = 0; c < t->ncols; c++)
			json_array_append_new(cells, json_cell(&t->rows[r].cells[c],
							       t->rows[r].cells[0].mean,
							       c == 0 || t->rows[r].cells[0].na));
		json_object_set_new(row, "cells", cells);
		json_array_append_new(rows, row);
	}
	json_object_set_new(root, "rows", rows);
	json_object_set_new(root, "total", json_summary(t, t->total));
	if (t->want_geomean) {
		json_object_set_new(root, "geomean", json_summary(t, t->geomean));
		json_object_set_new(root, "geomean_rows", json_integer(t->ngeomean));
		if (t->ngeomean >= 2 && !cmp_summary_na(t)) {
			json_t *ci = json_array();
			json_array_append_new(ci, json_null());
			for (int c = 1; c < t->ncols; c++)
				json_array_append_new(ci, json_pack("[oo]", jnum(t->ci_lo[c]),
								    jnum(t->ci_hi[c])));
			json_object_set_new(root, "geomean_ci95_pct", ci);
		}
	}
	if (t->nna)
		json_object_set_new(root, "na_rows", json_integer(t->nna));
	json_object_set_new(root, "left_out_single", json_integer(t->nsingle));
	json_object_set_new(root, "env_diff", json_env(t));
	int rc = json_dumpf(root, f, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(10));
	json_decref(root);
	fputc('\n', f);
	return rc;
}

int cmp_write(const struct cmp_table *t, enum cmp_format fmt, FILE *f)
{
	if (fmt == CMP_TSV)
		write_tsv(t, f);
	else if (fmt == CMP_JSON) {
		if (write_json(t, f))
			return -1;
	}
	else
		write_text(t, f);
	return ferror(f) ? -1 : 0;
}
