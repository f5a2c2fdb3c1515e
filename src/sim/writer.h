/* dd-style writers: each task writes its own file in BS-sized write() calls,
 * costing CPU per call and per page copied, and enters the throttle through
 * balance_dirty_pages_ratelimited after dirtying pages. */
#ifndef WBLAB_WRITER_H
#define WBLAB_WRITER_H
#include "sim.h"

void writer_start(struct sim *s, struct task *t);

#endif
