/* Trace capture through a private tracefs mount in the scratch dir and a
 * dedicated instance (instances/wblab-PID): the global trace buffer, its
 * events and settings, and anyone else's tracefs mount stay untouched. */
#ifndef WBLAB_REAL_TRACEFS_H
#define WBLAB_REAL_TRACEFS_H
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include "journal.h"

#define TRACE_MAX_EVENTS 8

/* 1 if the kernel offers tracefs (listed in /proc/filesystems). */
int real_tracefs_supported(void);
/* Journals and mounts tracefs at dir (created).  0 or -1 with err. */
int real_tracefs_mount(struct journal *j, const char *dir, char *err, size_t errlen);

struct trace_instance {
	char path[4096];
	int nevents;
	char events[TRACE_MAX_EVENTS][32];   /* the writeback events enabled */
};

/* Journals and creates ROOT/instances/NAME with a buffer of buffer_kb per CPU,
 * the mono clock, and every writeback event this kernel has among those the
 * stats use; the per-bdi ones filtered to bdi (the test device, "7:0"), so
 * wblab's own writing of the trace file stays out.  Tracing is left off until
 * trace_capture_start. */
int real_tracefs_instance(struct journal *j, const char *root, const char *name, unsigned buffer_kb,
		     const char *bdi, struct trace_instance *t, char *err, size_t errlen);
/* Undo of "instance": rmdir (which also frees its buffer). */
int instance_undo(const struct jentry *e);
/* Events lost to a full buffer, summed over CPUs. */
uint64_t real_tracefs_overrun(const struct trace_instance *t);

/* A thread copying the instance's trace_pipe into a file. */
struct trace_capture {
	pthread_t thread;
	int fd;
	FILE *out;
	_Atomic int stop;
	uint64_t bytes;
	int error;
};
/* Opens trace_pipe, starts the reader and turns tracing on. */
int trace_capture_start(struct trace_capture *c, const struct trace_instance *t,
			const char *out_path, char *err, size_t errlen);
/* Turns tracing off, lets the reader drain the buffer, closes the file. */
int trace_capture_stop(struct trace_capture *c, const struct trace_instance *t);

#endif
