/* `wblab run`: pre-flight, then each case on the running kernel under the
 * undo journal, into the shared result layout. */
#ifndef WBLAB_REAL_RUNNER_H
#define WBLAB_REAL_RUNNER_H
#include "measure.h"
#include "options.h"

/* Exit status: 0, 1 (machine or run failure, interrupted), EXIT_USAGE. */
int real_run(struct run_opts *o, int argc, char **argv);
/* 1 when the machine-wide written counter exceeds this device's writes by
 * more than the device itself can explain (another writer was active). */
int real_written_polluted(const struct measure *m);
/* `wblab run --cleanup`. */
int real_cleanup(const struct run_opts *o);

#endif
