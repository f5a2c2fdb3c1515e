/* The `env` file of a real result: everything about the machine and the test
 * file system that shapes the numbers, as "key = value" lines. */
#ifndef WBLAB_REAL_ENV_H
#define WBLAB_REAL_ENV_H
#include <stdio.h>
#include "loopdev.h"
#include "tracefs.h"

struct env_info {
	const char *fs, *mountpoint;
	const struct loopdev *loop;
	const struct trace_instance *trace;   /* NULL when not tracing */
	unsigned buffer_kb;
};

int env_write(FILE *f, const struct env_info *e);

#endif
