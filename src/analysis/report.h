/* One self-contained HTML page for a set of results: compare tables (through
 * compare.h), an environment diff between compared columns, and per result its
 * key stats, graphs (gnuplot SVG inlined; plotted first when missing or older
 * than the trace), parameters and, for real runs, `env`.  No external URLs:
 * CSS and SVG are inline, so the page reads offline and mails as one file. */
#ifndef WBLAB_REPORT_H
#define WBLAB_REPORT_H
#include <stddef.h>
#include <stdio.h>

struct report_opts {
	const char *out;        /* HTML file to write (replaced atomically) */
	const char *field;      /* compare columns; NULL: "kernel" */
	const char *title;      /* NULL: "wblab report" */
	int no_graphs;          /* stats-only page: no plotting, no trace needed */
	int max_points;         /* passed to the plot code; <= 0: default */
	int quiet;              /* no progress line on a terminal while plotting */
};

struct report_summary {
	int nresults;           /* result directories on the page */
	int ngraphs;            /* SVGs inlined */
	int nplotted;           /* results plotted for this report */
	int ntables;            /* compare tables */
};

/* dirs are result directories or roots searched recursively.  Returns 0, or
 * -1 with a one-line reason naming the directory or file in err, or
 * REPORT_EUSAGE when the reason is a usage error (an unknown -c FIELD, as
 * compare says it). */
#define REPORT_EUSAGE (-2)
int report_write(const char *const *dirs, int ndirs, const struct report_opts *o,
		 struct report_summary *sum, char *err, size_t errlen);

/* Appends s to f with &, <, >, " and ' escaped. */
void report_html_escape(FILE *f, const char *s);

#endif
