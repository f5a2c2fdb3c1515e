/* Writes events as ftrace text lines, in the layout the kernel's trace_pipe uses:
 *   "%16s-%-5d [%03d] %5lu.%06lu: <event>: <payload>" */
#ifndef WBLAB_TRACE_WRITE_H
#define WBLAB_TRACE_WRITE_H
#include <stdio.h>
#include "event.h"
#include "trace_format.h"

#define TRACE_HDR_CACHE 64

/* "<comm>-<pid> [<cpu>] " of a recent thread */
struct trace_hdr {
	int pid, cpu;
	char comm[WB_COMM_LEN];
	char text[48];
	unsigned char len;
};

struct trace_writer {
	struct trace_hdr hdr[TRACE_HDR_CACHE];
	FILE *f;
	enum trace_era era;
	char *buf;
	size_t len;
	int error;
	unsigned long lines;
};

int trace_writer_open(struct trace_writer *w, const char *path, enum trace_era era);
/* Events the era did not have are silently skipped. */
void trace_write_event(struct trace_writer *w, const struct wb_event *e);
/* Formats one line (no newline) into out; returns its length. */
size_t trace_format_line(enum trace_era era, const struct wb_event *e, char *out, size_t cap);
int trace_writer_close(struct trace_writer *w);

#endif
