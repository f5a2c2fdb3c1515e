/* decimate.c: per-pixel-column min/max on synthetic series with known answers. */
#include <stdarg.h>
#include <stddef.h>
#include <setjmp.h>
#include <stdint.h>
#include <stdlib.h>
#include <cmocka.h>
#include "analysis/decimate.h"

#define N 100000

/* 100000 points over 100 s on 100 columns (1000 points a column): a sine of
 * period 7 s plus one spike and one dip.  Every column's own min and max must
 * come out, in time order, and nothing else. */
static void keeps_every_column_min_max(void **state)
{
	(void)state;
	struct dec_point *in = malloc(N * sizeof(*in)), out[200];
	for (int i = 0; i < N; i++) {
		in[i].t = i * 0.001;
		in[i].v = (i * 7919) % 1000 / 1000.0 + (i % 7000) / 7000.0;
	}
	in[31234].v = 50;       /* spike in column 31 */
	in[77777].v = -40;      /* dip in column 77 */
	struct dec_grid g = { .x0 = 0, .x1 = 100, .cols = 100 };
	size_t m = decimate_columns(in, N, &g, DEC_LINES, out);
	assert_true(m <= 200);
	assert_int_equal(m, 200);   /* no column is flat */
	for (int c = 0; c < 100; c++) {
		int lo = c * 1000, hi = c * 1000;
		for (int i = c * 1000; i < (c + 1) * 1000; i++) {
			if (in[i].v < in[lo].v)
				lo = i;
			if (in[i].v > in[hi].v)
				hi = i;
		}
		int first = lo < hi ? lo : hi, second = lo < hi ? hi : lo;
		assert_true(out[2 * c].t == in[first].t && out[2 * c].v == in[first].v);
		assert_true(out[2 * c + 1].t == in[second].t && out[2 * c + 1].v == in[second].v);
	}
	assert_true(out[63].v == 50 || out[62].v == 50);
	assert_true(out[155].v == -40 || out[154].v == -40);
	free(in);
}

/* Timestamps going backwards never open a new column: the bound holds. */
static void bound_holds_out_of_order(void **state)
{
	(void)state;
	struct dec_point in[1000], out[20];
	for (int i = 0; i < 1000; i++) {
		in[i].t = (i % 2) ? 99 - i / 10.0 : i / 10.0;   /* zig-zag in time */
		in[i].v = i;
	}
	struct dec_grid g = { .x0 = 0, .x1 = 100, .cols = 10 };
	size_t m = decimate_columns(in, 1000, &g, DEC_MARKERS, out);
	assert_true(m <= 20);
	/* the global max (last point) and min (first point) survive */
	assert_true(out[0].v == 0);
	assert_true(out[m - 1].v == 999);
}

/* Markers sharing a pixel are drawn once; distinct pixels all survive. */
static void markers_one_per_pixel(void **state)
{
	(void)state;
	/* 10 columns x 10 rows over 0..10 s and 0..10; column 2 holds 3.1, 3.2,
	 * 3.3 (one pixel: one marker), column 5 holds 1 and 9 (two pixels). */
	struct dec_point in[] = { { 2.1, 3.1 }, { 2.5, 3.2 }, { 2.9, 3.3 }, { 5.2, 1 }, { 5.8, 9 } };
	struct dec_point out[20];
	struct dec_grid g = { .x0 = 0, .x1 = 10, .cols = 10, .y0 = 0, .y1 = 10, .rows = 10 };
	size_t m = decimate_columns(in, 5, &g, DEC_MARKERS, out);
	assert_int_equal(m, 3);
	assert_true(out[0].t == 2.1 && out[0].v == 3.1);
	assert_true(out[1].v == 1 && out[2].v == 9);
}

/* A line through one flat pixel row keeps only the run's ends; the step up
 * and the spike in the middle of the run survive. */
static void flat_runs_collapse(void **state)
{
	(void)state;
	struct dec_point in[100], out[200];
	for (int i = 0; i < 100; i++) {
		in[i].t = i;
		in[i].v = i < 60 ? 5.0 + (i % 3) * 0.01 : 8.0;   /* sub-pixel wiggle, then a step */
	}
	in[30].v = 9.5;
	struct dec_grid g = { .x0 = 0, .x1 = 100, .cols = 100, .y0 = 0, .y1 = 10, .rows = 100 };
	size_t m = decimate_columns(in, 100, &g, DEC_LINES, out);
	/* 0, 29 (run end), 30 spike, 31 (run start), 59, 60 (step), 99 */
	double want_t[] = { 0, 29, 30, 31, 59, 60, 99 };
	assert_int_equal(m, 7);
	for (size_t i = 0; i < m; i++)
		assert_true(out[i].t == want_t[i]);
	assert_true(out[2].v == 9.5);
	/* without rows, equal values are only equal when exactly so: all 100 kept */
	g.rows = 0;
	assert_int_equal(decimate_columns(in, 100, &g, DEC_LINES, out), 100);
}

/* A straight ramp needs its two ends; a 3-pixel bump on it survives. */
static void straight_lines_reduce_to_ends(void **state)
{
	(void)state;
	struct dec_point in[100], out[200];
	for (int i = 0; i < 100; i++)
		in[i] = (struct dec_point){ i, i * 0.8 };
	struct dec_grid g = { .x0 = 0, .x1 = 100, .cols = 100, .y0 = 0, .y1 = 100, .rows = 100 };
	size_t m = decimate_columns(in, 100, &g, DEC_LINES, out);
	assert_int_equal(m, 2);
	assert_true(out[0].t == 0 && out[1].t == 99);
	in[50].v += 3;
	m = decimate_columns(in, 100, &g, DEC_LINES, out);
	int bump = 0;
	for (size_t i = 0; i < m; i++)
		bump |= out[i].t == 50 && out[i].v == 43;
	assert_true(bump);
	assert_true(m <= 5);
	/* markers are never thinned this way: each is drawn */
	assert_int_equal(decimate_columns(in, 100, &g, DEC_MARKERS, out), 100);
}

static void rows_linear_and_log(void **state)
{
	(void)state;
	struct dec_grid g = { .y0 = 0, .y1 = 100, .rows = 10 };
	assert_int_equal(decimate_row(&g, 0), 0);
	assert_int_equal(decimate_row(&g, 55), 5);
	assert_int_equal(decimate_row(&g, 100), 9);
	assert_int_equal(decimate_row(&g, -1), -1);
	assert_int_equal(decimate_row(&g, 101), 10);
	struct dec_grid l = { .y0 = 1, .y1 = 1024, .rows = 10, .ylog = 1 };
	assert_int_equal(decimate_row(&l, 1), 0);
	assert_int_equal(decimate_row(&l, 2.01), 1);
	assert_int_equal(decimate_row(&l, 33), 5);
	assert_int_equal(decimate_row(&l, 0), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(keeps_every_column_min_max),
		cmocka_unit_test(bound_holds_out_of_order),
		cmocka_unit_test(markers_one_per_pixel),
		cmocka_unit_test(flat_runs_collapse),
		cmocka_unit_test(straight_lines_reduce_to_ends),
		cmocka_unit_test(rows_linear_and_log),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
