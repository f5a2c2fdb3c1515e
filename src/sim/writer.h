/* dd-style writers: each task writes its own file in BS-sized write() calls,
 * costing CPU per call and per page copied, and enters the throttle through
 * balance_dirty_pages_ratelimited after dirtying pages.  With
 * writer.pattern=rand each is a fio randwrite job on a preallocated file
 * (rand_pages.h): same costs, fewer newly dirtied pages. */
#ifndef WBLAB_WRITER_H
#define WBLAB_WRITER_H
#include <string.h>
#include "sim.h"

/* writer.pattern=rand: the pages of each writer's file; 0 for dd writers */
static inline uint64_t writer_rand_file_pages(const struct sim_params *p)
{
	return strcmp(p->writer.pattern, "rand") ? 0 : p->writer.file_mb * 256;
}

void writer_start(struct sim *s, struct task *t);

#endif
