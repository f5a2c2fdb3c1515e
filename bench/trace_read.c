/* bench/trace-read: events per second of the trace reader that analysis
 * uses (trace_reader_next), on a trace.dat and on the same events as ftrace
 * text, each read whole in one process, CPU time measured.  Prints rates,
 * never asserts: machines are noisy. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <time.h>
#include "trace/trace_read.h"

static double cpu_now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Reads path to the end; events counted, CPU seconds returned (< 0: error). */
static double read_all(const char *path, unsigned long *n)
{
	char err[512];
	struct wb_event e;
	double t0 = cpu_now();
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
	return cpu_now() - t0;
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
	unsigned long nd, nt;
	double td = read_all(argv[1], &nd), tt = read_all(argv[2], &nt);
	if (td < 0 || tt < 0)
		return 1;
	double mb = (double)st.st_size / 1e6;
	printf("text: %lu events, %.1f MB in %.3f CPU s = %.2f M events/s (%.0f MB/s of text)\n", nt,
	       mb, tt, nt / tt / 1e6, mb / tt);
	printf("dat:  %lu events in %.3f CPU s = %.2f M events/s (%.0f MB/s of the text it stands for)\n",
	       nd, td, nd / td / 1e6, mb / td);
	printf("dat / text: %.1fx the events per CPU second\n", (nd / td) / (nt / tt));
	return 0;
}
