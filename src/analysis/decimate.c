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
	/* read both before writing: out may be in, never ahead of it */
	struct dec_point first = in[lo_i < hi_i ? lo_i : hi_i], second = in[lo_i < hi_i ? hi_i : lo_i];
	out[0] = first;
	if (lo_i == hi_i || same_pixel(g, first.v, second.v))
		return 1;
	out[1] = second;
	return 2;
}

/* x and y of a point in pixels (y on the axis' scale). */
static double px_x(const struct dec_grid *g, double t)
{
	return g->x1 > g->x0 ? (t - g->x0) * g->cols / (g->x1 - g->x0) : 0;
}

static double px_y(const struct dec_grid *g, double v)
{
	if (g->ylog)
		return v > 0 && g->y0 > 0 && g->y1 > g->y0 ? log(v / g->y0) * g->rows / log(g->y1 / g->y0) : 0;
	return g->y1 > g->y0 ? (v - g->y0) * g->rows / (g->y1 - g->y0) : 0;
}

/* Distance in pixels of point p from the segment a-c. */
static double off_chord(const struct dec_grid *g, struct dec_point a, struct dec_point c,
			struct dec_point p)
{
	double ax = px_x(g, a.t), ay = px_y(g, a.v), cx = px_x(g, c.t), cy = px_y(g, c.v);
	double x = px_x(g, p.t), y = px_y(g, p.v), dx = cx - ax, dy = cy - ay;
	double len2 = dx * dx + dy * dy;
	if (len2 == 0)
		return hypot(x - ax, y - ay);
	double u = ((x - ax) * dx + (y - ay) * dy) / len2;
	u = u < 0 ? 0 : u > 1 ? 1 : u;
	return hypot(x - (ax + u * dx), y - (ay + u * dy));
}

#define SIMPLIFY_PX 0.5

/* Drops the points of a line that lie within half a pixel of the straight
 * segment that replaces them (rising totals, ramps): the line draws the
 * same.  Greedy from each kept point, checking every point it would skip. */
static size_t simplify_line(struct dec_point *p, size_t m, const struct dec_grid *g)
{
	if (m < 3)
		return m;
	size_t k = 1, a = 0;
	for (size_t j = 2; j < m; j++) {
		int ok = 1;
		for (size_t i = a + 1; ok && i < j; i++)
			ok = off_chord(g, p[a], p[j], p[i]) < SIMPLIFY_PX;
		if (!ok) {
			p[k++] = p[j - 1];
			a = j - 1;
		}
	}
	p[k++] = p[m - 1];
	return k;
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
	return simplify_line(out, k, g);
}
