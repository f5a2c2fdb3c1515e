/* Options `wblab sim` (and jobs) and `wblab seed` share, as parse_options
 * entries: -t/--runtime, -j/--jobs, --seed, --trace-format, and the --set
 * check.  Use them with PO_STRUCT defined (parse_options.h). */
#ifndef WBLAB_SIM_OPTIONS_H
#define WBLAB_SIM_OPTIONS_H
#include <stddef.h>
#include "parse_options.h"
#include "../sim/params.h"

#define SIM_OPT_RUNTIME(f, h) OPT_DOUBLE_ABOVE('t', "runtime", f, "SEC", 0, 1e6, h)
#define SIM_OPT_JOBS(f) OPT_U64('j', "jobs", f, "N", 1, 256, "cases run in parallel (default: number of CPUs)")
#define SIM_OPT_SEED(f, h) OPT_U64(0, "seed", f, "N", 0, 0, h)
/* an int: 1 for text */
#define SIM_OPT_TRACE_FORMAT(f, h) OPT_CHOICE(0, "trace-format", f, "F", sim_trace_formats, h)

extern const char *const sim_trace_formats[];   /* "dat", "text" */

/* --set KEY=VAL into p: 0, or -1 with the reason in err. */
int sim_set_option(struct sim_params *p, const char *arg, char *err, size_t errlen);

#endif
