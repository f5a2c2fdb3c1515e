/* Checks done before anything on the machine is changed. */
#ifndef WBLAB_REAL_PREFLIGHT_H
#define WBLAB_REAL_PREFLIGHT_H
#include <stddef.h>
#include "options.h"

/* Cases against the machine: 0, or -1 with err (a usage error). */
int preflight_cases(struct run_opts *o, char *err, size_t errlen);
/* Root, tracefs, loop support, mkfs tools, --dev: 0, or -1 with err. */
int preflight_machine(const struct run_opts *o, char *err, size_t errlen);

#endif
