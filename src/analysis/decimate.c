/* Per-pixel-column min/max decimation.  See decimate.h. */
#include <math.h>
#include "decimate.h"

static int column_of(const struct dec_grid *g, double t)
{
	if (g->cols <= 1 || !(g->x1 > g->x0))
		return 0;
	double c = (t - g->x0) * g->cols / (g->x1 - g->x0);
	if (!(c >= 0))
		return 0;
	return c >= g->cols ? g->cols - 1 : (int)c;
}

int decimate_row(const struct dec_grid *g, double v)
{
	if (g->rows <= 0)
		return 0;
	double lo = g->y0, hi = g->y1, x = v;
	if (g->ylog) {
		if (!(lo > 0) || !(hi > lo))
			return 0;
		if (!(v > 0))
			return -1;
		lo = log(lo);
		hi = log(hi);
		x = log(v);
	}
	if (!(hi > lo))
		return 0;
	if (x < lo)
		return -1;
	if (x > hi)
		return g->rows;
	int r = (int)((x - lo) * g->rows / (hi - lo));
	return r >= g->rows ? g->rows - 1 : r;
}

/* Same pixel: exact equality without rows, else the same row. */
static int same_pixel(const struct dec_grid *g, double a, double b)
{
	return g->rows <= 0 ? a == b : decimate_row(g, a) == decimate_row(g, b);
}

/* Emits one column's extremes in time order. */
static size_t emit_column(const struct dec_point *in, size_t lo_i, size_t hi_i,
			  const struct dec_grid *g, struct dec_point *out)
{
	if (lo_i == hi_i || same_pixel(g, in[lo_i].v, in[hi_i].v)) {
		out[0] = in[lo_i < hi_i ? lo_i : hi_i];
		return 1;
	}
	out[0] = in[lo_i < hi_i ? lo_i : hi_i];
	out[1] = in[lo_i < hi_i ? hi_i : lo_i];
	return 2;
}

size_t decimate_columns(const struct dec_point *in, size_t n, const struct dec_grid *g,
			enum dec_style style, struct dec_point *out)
{
	size_t m = 0;
	int col = -1;
	size_t lo_i = 0, hi_i = 0;
	for (size_t i = 0; i < n; i++) {
		int c = column_of(g, in[i].t);
		if (c < col)
			c = col;        /* back in time: stays in the current column */
		if (c != col) {
			if (col >= 0)
				m += emit_column(in, lo_i, hi_i, g, out + m);
			col = c;
			lo_i = hi_i = i;
			continue;
		}
		if (in[i].v < in[lo_i].v)
			lo_i = i;
		if (in[i].v > in[hi_i].v)
			hi_i = i;
	}
	if (col >= 0)
		m += emit_column(in, lo_i, hi_i, g, out + m);
	if (style != DEC_LINES || g->rows <= 0 || m < 3)
		return m;
	/* A line through a flat run of one pixel row only needs the run's ends. */
	size_t k = 1;
	for (size_t i = 1; i + 1 < m; i++) {
		if (same_pixel(g, out[i].v, out[k - 1].v) && same_pixel(g, out[i].v, out[i + 1].v))
			continue;
		out[k++] = out[i];
	}
	out[k++] = out[m - 1];
	return k;
}
