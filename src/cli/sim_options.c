#include <string.h>
#include "sim_options.h"
#include "../util/util.h"

int sim_common_option(int c, const char *arg, double *runtime, uint64_t *jobs,
		      uint64_t *seed, struct sim_params *p)
{
	char err[512];
	switch (c) {
	case 't':
		if (parse_double(arg, runtime) || *runtime <= 0 || *runtime > 1e6) {
			wb_error("--runtime: '%s' is not a number of seconds in (0, 1e6]", arg);
			return -1;
		}
		return 0;
	case 'j':
		if (parse_u64(arg, jobs) || *jobs < 1 || *jobs > 256) {
			wb_error("--jobs: '%s' is not a number in 1..256", arg);
			return -1;
		}
		return 0;
	case 'S':
		if (parse_u64(arg, seed)) {
			wb_error("--seed: '%s' is not a non-negative integer", arg);
			return -1;
		}
		return 0;
	default:
		if (params_set(p, arg, err, sizeof(err))) {
			wb_error("%s", err);
			return -1;
		}
		return 0;
	}
}

int sim_trace_format(const char *arg, int *text)
{
	if (!strcmp(arg, "dat") || !strcmp(arg, "text")) {
		*text = !strcmp(arg, "text");
		return 0;
	}
	wb_error("--trace-format: '%s' is neither dat nor text", arg);
	return -1;
}
