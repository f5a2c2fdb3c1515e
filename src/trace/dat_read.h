/* Fast reader of the trace.dat files wblab writes (dat_write.c): the
 * ring-buffer records are decoded straight into struct wb_event with the
 * era's layouts (dat_format.c), no text in between.  Other .dat files
 * (real kernels' trace-cmd record) go through libtracecmd in trace_read.c. */
#ifndef WBLAB_DAT_READ_H
#define WBLAB_DAT_READ_H
#include <stddef.h>
#include "event.h"
#include "trace_format.h"

struct wbdat;

/* NULL with err[0] == 0 when the file is a .dat but not one of wblab's
 * (its event formats differ from ours): use libtracecmd.  NULL with err set
 * on a damaged file. */
struct wbdat *wbdat_open(const char *path, char *err, size_t errlen);
/* Next event of all CPUs in timestamp order: 1, 0 at the end, -1 on a
 * damaged record (err set). */
int wbdat_next(struct wbdat *d, struct wb_event *e, char *err, size_t errlen);
enum trace_era wbdat_era(const struct wbdat *d);
void wbdat_close(struct wbdat *d);
/* Readers that read their first event after this decompress in a second
 * thread (on: the default, unless WBLAB_DAT_THREAD=0 or the process may run
 * on one CPU only) or in the caller's (off: tests and benches compare the
 * two). */
void wbdat_set_prefetch(int on);

#endif
