/* Emits a model event the way the kernel's tracepoint would: stamped with the
 * current thread's comm/pid/cpu and time, written to the trace (if any) and fed
 * to the shared stats code. */
#ifndef WBLAB_TRACE_EMIT_H
#define WBLAB_TRACE_EMIT_H
#include "sim.h"

/* Starts an event of type t for thread th (NULL = interrupt context). */
void ev_begin(struct sim *s, struct sthread *th, struct wb_event *e, enum wb_event_type t,
	      const struct bdi *bdi);
void ev_emit(struct sim *s, struct wb_event *e);

#endif
