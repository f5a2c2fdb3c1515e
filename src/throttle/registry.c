/* The list of throttling models; adding one is one file plus one line here. */
#include <string.h>
#include "throttle.h"

extern const struct throttle_model throttle_31_vanilla, throttle_32_ioless, throttle_31_nfs_wq4,
	throttle_31_rc8_vanilla, throttle_31_rc8_nfs_wq4, throttle_6x;

static const struct throttle_model *const models[] = {
	&throttle_31_vanilla,
	&throttle_32_ioless,
	&throttle_31_nfs_wq4,
	&throttle_31_rc8_vanilla,
	&throttle_31_rc8_nfs_wq4,
	&throttle_6x,
	NULL,
};

const struct throttle_model *throttle_lookup(const char *name)
{
	for (int i = 0; models[i]; i++)
		if (strcmp(models[i]->name, name) == 0)
			return models[i];
	return NULL;
}

const struct throttle_model *const *throttle_models(void)
{
	return models;
}
