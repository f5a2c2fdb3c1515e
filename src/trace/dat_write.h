/* Writes simulated events as a trace-cmd .dat file (version 7, zstd-compressed
 * sections and ring-buffer chunks) with the event formats of one kernel era.
 * `trace-cmd report` prints what the text writer (trace_write.c) writes; the
 * layout is documented in docs/trace-formats.md, "trace.dat". */
#ifndef WBLAB_DAT_WRITE_H
#define WBLAB_DAT_WRITE_H
#include "event.h"
#include "trace_format.h"

struct dat_writer;

/* kernel_name goes into the UNAME option.  NULL on error (errno set). */
struct dat_writer *dat_writer_open(const char *path, enum trace_era era, const char *kernel_name);
/* Events the era did not have are silently skipped, as the text writer does. */
void dat_write_event(struct dat_writer *w, const struct wb_event *e);
/* Events that will not read back exactly as written (a value outside its
 * kernel field type, an unknown reason, a pid with two comms, more than 500
 * CPU switches within one microsecond). */
unsigned long dat_writer_inexact(const struct dat_writer *w);
/* Writes the file and frees w; -1 on an I/O or compression error. */
int dat_writer_close(struct dat_writer *w);
/* Frees w without completing the file. */
void dat_writer_abort(struct dat_writer *w);

#endif
