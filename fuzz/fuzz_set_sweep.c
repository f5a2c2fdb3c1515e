/* libFuzzer harness for `--set KEY=V1,V2,...` sweeps: each input line is one
 * --set; an accepted sweep has items that fit the fixed "KEY=V" buffers,
 * each a valid --set, no two setting the same value; a refused one says why
 * in one line. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli/set_sweep.h"
#include "sim/params.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *s = malloc(size + 1), err[1024], one[SET_SWEEP_MAX];
	if (!s)
		return 0;
	memcpy(s, data, size);
	s[size] = 0;
	for (char *save = NULL, *l = strtok_r(s, "\n", &save); l; l = strtok_r(NULL, "\n", &save)) {
		int n = set_sweep_size(l);
		err[0] = 0;
		if (set_sweep_check(l, err, sizeof(err))) {
			if (!err[0] || strchr(err, '\n'))
				__builtin_trap();
			continue;
		}
		if (strlen(l) >= SET_SWEEP_MAX || n > SET_SWEEP_MAX_VALUES)
			__builtin_trap();
		double *v = malloc((size_t)n * sizeof(*v));
		if (!v)
			break;
		for (int k = 0; k < n; k++) {
			set_sweep_item(l, k, one, sizeof(one));
			if (params_parse_value(one, &v[k], err, sizeof(err)))
				__builtin_trap();
			for (int j = 0; j < k; j++)
				if (v[j] == v[k])
					__builtin_trap();
		}
		free(v);
	}
	free(s);
	return 0;
}
