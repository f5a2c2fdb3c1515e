/* Options `wblab sim` and `wblab seed` share: -t/--runtime, -j/--jobs, --seed, --set. */
#ifndef WBLAB_SIM_OPTIONS_H
#define WBLAB_SIM_OPTIONS_H
#include <stdint.h>
#include "../sim/params.h"

/* c is getopt's 't', 'j', 'S' (--seed) or 's' (--set); returns 0, or -1 after
 * printing the error. */
int sim_common_option(int c, const char *arg, double *runtime, uint64_t *jobs,
		      uint64_t *seed, struct sim_params *p);
/* --trace-format dat|text: *text set to 1 for text; -1 after printing the error. */
int sim_trace_format(const char *arg, int *text);

#endif
