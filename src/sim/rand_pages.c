#include <math.h>
#include "rand_pages.h"

static uint64_t take(double x, double *carry)
{
	double v = x + *carry;
	uint64_t n = v > 0 ? (uint64_t)v : 0;
	*carry = v - (double)n;
	return n;
}

uint64_t rand_fresh_pages(uint64_t writes, uint64_t dirty, uint64_t file_pages, double *carry)
{
	if (!writes || dirty >= file_pages)
		return 0;
	double F = (double)file_pages;
	/* 1 - (1 - 1/F)^n without losing it to rounding when F is 16 M pages */
	double hit = -expm1((double)writes * log1p(-1.0 / F));
	uint64_t n = take((F - (double)dirty) * hit, carry);
	return n > file_pages - dirty ? file_pages - dirty : n;
}

uint64_t rand_runs(uint64_t pages, uint64_t dirty, uint64_t file_pages, uint64_t max_run, double *carry)
{
	if (!pages)
		return 0;
	double q = file_pages > 1 && dirty > 1 ? (double)(dirty - 1) / (double)(file_pages - 1) : 0;
	uint64_t runs = take(1.0 + (double)(pages - 1) * (1.0 - q), carry);
	uint64_t least = max_run ? (pages + max_run - 1) / max_run : 1;
	if (runs < least)
		runs = least;
	return runs > pages ? pages : runs;
}

uint64_t rand_next_part(uint64_t left, uint64_t parts)
{
	return parts ? (left + parts - 1) / parts : left;
}
