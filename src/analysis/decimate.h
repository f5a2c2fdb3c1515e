/* Per-pixel-column decimation of a plotted series: what a graph of `cols`
 * pixel columns can show of a series is, per column, its lowest and its
 * highest point, so a series needs at most 2 * cols points and no spike or dip
 * is lost.  A pure function on arrays; plot.c applies it to every series.
 *
 *   struct dec_grid g = { .x0 = 0, .x1 = 300, .cols = 640, .y0 = 0, .y1 = 40, .rows = 500 };
 *   size_t n = decimate_columns(in, nin, &g, DEC_LINES, out);   // out: 2 * cols
 */
#ifndef WBLAB_DECIMATE_H
#define WBLAB_DECIMATE_H
#include <stddef.h>

struct dec_point {
	double t, v;
};

/* The plot area: x0..x1 over cols pixel columns, y0..y1 over rows pixel rows
 * (rows <= 0: values are compared exactly, not by pixel row; ylog: rows are
 * spaced logarithmically, as on a log axis). */
struct dec_grid {
	double x0, x1;
	int cols;
	double y0, y1;
	int rows;
	int ylog;
};

enum dec_style {
	DEC_LINES,      /* a line: points on a flat or straight stretch are dropped */
	DEC_MARKERS,    /* one marker per pixel: a column's min and max, one if they share a pixel */
};

/* Writes to out (room for 2 * g->cols points) each column's lowest and
 * highest point of in[0..n), in time order (one point when both are the
 * same or fall in one pixel row).  in is in time order; a point earlier than
 * the column before it is counted in that column, so the bound holds for any
 * input.  With rows > 0, lines also drop points whose pixel row equals both
 * the previous kept point's and the next one's (invisible on a flat run), and
 * points within half a pixel of the straight segment that replaces them.
 * out may be in (in place).  Returns the number of points written. */
size_t decimate_columns(const struct dec_point *in, size_t n, const struct dec_grid *g,
			enum dec_style style, struct dec_point *out);

/* The pixel row of v on grid g (-1 below y0, rows above y1); 0 when rows <= 0. */
int decimate_row(const struct dec_grid *g, double v);

#endif
