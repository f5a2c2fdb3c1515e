/* `wblab run`: pre-flight, then each case on the running kernel under the
 * undo journal, into the shared result layout. */
#ifndef WBLAB_REAL_RUNNER_H
#define WBLAB_REAL_RUNNER_H
#include "options.h"

/* Exit status: 0, 1 (machine or run failure, interrupted), EXIT_USAGE. */
int real_run(struct run_opts *o, int argc, char **argv);
/* `wblab run --cleanup`. */
int real_cleanup(const struct run_opts *o);

#endif
