/* bench/trace-read: events per second of the trace reader that analysis
 * uses (trace_reader_next), on a trace.dat and on the same events as ftrace
 * text, each read whole in one process, the best of three reads.  The .dat
 * reader decompresses in a second thread: its rate is by wall time (what an
 * analysis waits), its CPU time shown beside, and once more with the
 * decompression in the reading thread.  Prints rates, never asserts:
 * machines are noisy. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include "trace/dat_read.h"
#include "trace/trace_read.h"

static double now(clockid_t clock)
{
	struct timespec ts;
	clock_gettime(clock, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Reads path to the end three times; events counted, the best wall and CPU
 * seconds in *wall, *cpu; -1 on error. */
static int read_all(const char *path, unsigned long *n, double *wall, double *cpu)
{
	char err[512];
	struct wb_event e;
	*wall = *cpu = 1e30;
	for (int k = 0; k < 3; k++) {
		double w0 = now(CLOCK_MONOTONIC), c0 = now(CLOCK_PROCESS_CPUTIME_ID);
		struct trace_reader *r = trace_reader_open(path, err, sizeof(err));
		if (!r) {
			fprintf(stderr, "trace-read: %s\n", err);
			return -1;
		}
		int rc;
		*n = 0;
		while ((rc = trace_reader_next(r, &e, err, sizeof(err))) == 1)
			(*n)++;
		trace_reader_close(r);
		if (rc < 0) {
			fprintf(stderr, "trace-read: %s\n", err);
			return -1;
		}
		double w = now(CLOCK_MONOTONIC) - w0, c = now(CLOCK_PROCESS_CPUTIME_ID) - c0;
		*wall = w < *wall ? w : *wall;
		*cpu = c < *cpu ? c : *cpu;
	}
	return 0;
}

int main(int argc, char **argv)
{
	if (argc != 3) {
		fprintf(stderr, "usage: trace_read TRACE.dat TRACE.txt\n");
		return 2;
	}
	struct stat st;
	if (stat(argv[2], &st)) {
		perror(argv[2]);
		return 1;
	}
	unsigned long nd, ns, nt;
	double dw, dc, sw, sc, tw, tc;
	if (read_all(argv[1], &nd, &dw, &dc))
		return 1;
	wbdat_set_prefetch(0);
	if (read_all(argv[1], &ns, &sw, &sc) || read_all(argv[2], &nt, &tw, &tc))
		return 1;
	double mb = (double)st.st_size / 1e6;
	printf("text: %lu events, %.1f MB in %.3f CPU s = %.2f M events/s (%.0f MB/s of text)\n", nt,
	       mb, tc, nt / tc / 1e6, mb / tc);
	printf("dat:  %lu events in %.3f s wall (%.3f CPU s, 2 threads) = %.2f M events/s "
	       "(%.0f MB/s of the text it stands for)\n", nd, dw, dc, nd / dw / 1e6, mb / dw);
	printf("dat, one thread: %.3f CPU s = %.2f M events/s (%.0f MB/s of the text)\n", sc,
	       ns / sc / 1e6, mb / sc);
	printf("dat / text: %.1fx the events per second (one thread: %.1fx per CPU second)\n",
	       (nd / dw) / (nt / tc), (ns / sc) / (nt / tc));
	return 0;
}
