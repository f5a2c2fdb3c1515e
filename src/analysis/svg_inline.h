/* The report's inline SVG (svg_inline.c). */
#ifndef WBLAB_SVG_INLINE_H
#define WBLAB_SVG_INLINE_H
#include <stddef.h>
#include <stdio.h>

/* gnuplot's SVG path data from d up to the closing quote, rewritten to
 * relative tenths of a pixel on out; returns the closing quote, or NULL (and
 * writes nothing) when the data is not gnuplot's M/L/Z form. */
const char *svg_compact_path(FILE *out, const char *d, char quote);

/* Writes the SVG file at path to out, rewritten smaller, its ids prefixed
 * with prefix.  0: written; -1: unreadable or no <svg> in it (nothing
 * written); -2: it holds markup a report does not carry (nothing written;
 * why says what, and may quote the file). */
int svg_inline(FILE *out, const char *path, const char *prefix, char *why, size_t whylen);

#endif
