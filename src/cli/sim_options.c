#include "sim_options.h"

const char *const sim_trace_formats[] = { "dat", "text", NULL };

int sim_set_option(struct sim_params *p, const char *arg, char *err, size_t errlen)
{
	return params_set(p, arg, err, errlen) ? -1 : 0;
}
