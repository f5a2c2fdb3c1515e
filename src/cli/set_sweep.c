#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "set_sweep.h"
#include "../sim/params.h"

int set_sweep_size(const char *arg)
{
	const char *eq = strchr(arg, '=');
	int n = 1;
	for (const char *v = eq ? eq + 1 : ""; *v; v++)
		n += *v == ',';
	return n;
}

void set_sweep_item(const char *arg, int k, char *buf, size_t n)
{
	const char *eq = strchr(arg, '='), *v = eq + 1;
	for (; k > 0; k--)
		v += strcspn(v, ",") + 1;
	snprintf(buf, n, "%.*s=%.*s", (int)(eq - arg), arg, (int)strcspn(v, ","), v);
}

/* the items go through SET_SWEEP_MAX buffers as "KEY=V": a longer arg is
 * refused whole, naming the key when that alone is too long */
static int length_check(const char *arg, int nv, char *err, size_t n)
{
	const char *eq = strchr(arg, '=');
	if (strlen(arg) >= SET_SWEEP_MAX) {
		if (!eq || eq - arg >= SET_SWEEP_MAX - 2)
			snprintf(err, n, "--set '%.40s...': the key is too long (more than %d "
				 "characters)", arg, SET_SWEEP_MAX - 3);
		else
			snprintf(err, n, "--set '%.40s...': longer than %d characters", arg,
				 SET_SWEEP_MAX - 1);
		return -1;
	}
	if (nv > SET_SWEEP_MAX_VALUES) {
		snprintf(err, n, "--set '%.40s...': more than %d values", arg, SET_SWEEP_MAX_VALUES);
		return -1;
	}
	return 0;
}

int set_sweep_check(const char *arg, char *err, size_t n)
{
	int nv = set_sweep_size(arg);
	const char *eq = strchr(arg, '=');
	if (length_check(arg, nv, err, n))
		return -1;
	if (!eq) {
		snprintf(err, n, "--set '%s': expected KEY=VALUE", arg);
		return -1;
	}
	size_t kl = (size_t)(eq - arg);
	double *vals = malloc((size_t)nv * sizeof(*vals));
	if (!vals) {
		snprintf(err, n, "out of memory");
		return -1;
	}
	int bad = 0;
	for (int k = 0; k < nv && !bad; k++) {
		char one[SET_SWEEP_MAX], other[SET_SWEEP_MAX];
		set_sweep_item(arg, k, one, sizeof(one));
		bad = one[kl + 1] == 0;
		if (bad)
			snprintf(err, n, "--set '%s': empty value in the list", arg);
		else
			bad = params_parse_value(one, &vals[k], err, n);
		for (int j = 0; j < k && !bad; j++)
			if (vals[j] == vals[k]) {
				set_sweep_item(arg, j, other, sizeof(other));
				if (strcmp(one, other) == 0)
					snprintf(err, n, "--set '%s': '%s' is listed twice", arg, one + kl + 1);
				else
					snprintf(err, n, "--set '%s': '%s' is listed twice (as '%s')", arg,
						 other + kl + 1, one + kl + 1);
				bad = 1;
			}
	}
	free(vals);
	return bad ? -1 : 0;
}
