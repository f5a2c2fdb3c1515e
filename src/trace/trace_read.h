/* Streaming reader of writeback trace events from ftrace text (the `trace`
 * file, `trace_pipe`, `trace-cmd report` output) or a trace-cmd .dat file.
 * Fields are matched by name, so 3.x, 4.x and 6.x layouts all parse.  Memory
 * does not grow with trace length. */
#ifndef WBLAB_TRACE_READ_H
#define WBLAB_TRACE_READ_H
#include <stdio.h>
#include "event.h"

struct trace_reader;

/* Opens a file ("-" = stdin).  .dat files (trace-cmd) are detected by magic.
 * Returns NULL with a one-line reason (naming the file) in err. */
struct trace_reader *trace_reader_open(const char *path, char *err, size_t errlen);

/* As trace_reader_open for a result's own trace: a regular file, not a
 * symlink (a FIFO or device there could block or never end). */
struct trace_reader *trace_reader_open_result(const char *path, char *err, size_t errlen);

/* Reads text from an open stream (not closed by trace_reader_close); name is
 * used in messages.  .dat input is refused here. */
struct trace_reader *trace_reader_fopen(FILE *f, const char *name, char *err, size_t errlen);

/* Next known writeback/nfs event, in file order.  Lines of other events,
 * headers and comments are skipped.  Returns 1 with *e filled, 0 at end of
 * file, -1 on a malformed line of a known event or one whose timestamp is more
 * than 1 ms before an earlier event's (reason with file:line in err). */
int trace_reader_next(struct trace_reader *r, struct wb_event *e, char *err, size_t errlen);

/* Parses one text line; 1 = event, 0 = not a known event, -1 = malformed. */
int trace_parse_line(const char *line, size_t len, struct wb_event *e);

/* As trace_parse_line; on -1, *why (if non-NULL) names the problem. */
int trace_parse_line_why(const char *line, size_t len, struct wb_event *e, const char **why);

/* Copy every line read (text as is, .dat records as converted text) to f. */
void trace_reader_set_echo(struct trace_reader *r, FILE *f);
/* True when the input is a trace-cmd .dat file. */
/* Nothing at all was there to read (zero bytes before the end of input). */
int trace_reader_is_empty(const struct trace_reader *r);
int trace_reader_is_dat(const struct trace_reader *r);

/* The era of a trace.dat written by wblab (enum trace_era), else -1. */
int trace_reader_era(const struct trace_reader *r);
/* A result directory's trace: DIR/trace.dat when it exists, else DIR/trace
 * (which may not exist either).  Returns buf. */
const char *trace_result_path(const char *dir, char *buf, size_t n);

/* Lines read so far (for messages). */
unsigned long trace_reader_lineno(const struct trace_reader *r);
void trace_reader_close(struct trace_reader *r);

#endif
