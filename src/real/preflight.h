/* Checks done before anything on the machine is changed. */
#ifndef WBLAB_REAL_PREFLIGHT_H
#define WBLAB_REAL_PREFLIGHT_H
#include <stddef.h>
#include "options.h"

/* Cases against the machine: 0, or -1 with err (a usage error). */
int preflight_cases(struct run_opts *o, char *err, size_t errlen);
/* Root, tracefs, loop support, mkfs tools, --dev (resolved once into
 * o->dev_path and o->dev_rdev): 0, or -1 with err. */
int preflight_machine(struct run_opts *o, char *err, size_t errlen);
/* Only the first of those: wblab run is root's.  0 or -1 with err. */
int preflight_root(char *err, size_t errlen);
/* --dev again before each case: still the block device preflight resolved
 * (same path, same number, no link on the way) and still not mounted,
 * swapped on or held.  0, or -1 with err. */
int preflight_dev_again(const struct run_opts *o, char *err, size_t errlen);

#endif
