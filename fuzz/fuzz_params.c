/* libFuzzer harness for `--set KEY=VALUE`: each input line is one --set; an
 * accepted value must be inside its parameter's range (params_check), and a
 * refused one must leave the parameters as they were. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sim/params.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), err[512];
	struct sim_params p, before;
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	params_defaults(&p);
	for (char *save = NULL, *l = strtok_r(s, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		before = p;
		if (params_set(&p, l, err, sizeof(err)) && memcmp(&p, &before, sizeof(p)))
			__builtin_trap();
		if (params_check(&p, err, sizeof(err)))
			__builtin_trap();
	}
	free(s);
	return 0;
}
